/* baseline_derived.h: the numbers a baselines result derives, recomputed when the document is read.
 * Contract: ea_baseline_derived_check takes a document whose fields ea_baseline_validate accepted and, for every
 * measured result, derives its floor (fractions.h's ea_result_floor: the config's floor_bytes at the floor's own
 * bytes_per_s plus its launch_us) and its speedups and fractions (ea_result_fractions, against the document's
 * gpu.l2_bytes) as run and gate --propose write them; a result whose stored numbers differ (beyond 1e-12
 * relative) fails "<file> $.scopes[i]: expected ... its times and floor give, first at <path>: <stored> ->
 * <derived>". No number in a baselines document is taken on trust where it can be derived. */
#ifndef EA_BASELINE_DERIVED_H
#define EA_BASELINE_DERIVED_H

#include <cjson/cJSON.h>

#include "error.h"

int ea_baseline_derived_check(const char *file, const cJSON *doc, ea_error *err);

#endif
