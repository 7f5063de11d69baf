/* baseline_derived.h: a target's baselines.json read as golden data: what it derives, recomputed.
 * Contract: ea_baseline_golden_validate is ea_baseline_validate and then, for every measured result, each path
 * time's (and cold time's) iqr_us against q3_us - q1_us (within 1e-12 of q3_us), and the floor (fractions.h's
 * ea_result_floor: the config's floor_bytes at the floor's own bytes_per_s plus its launch_us) and the speedups and
 * fractions (ea_result_fractions, against gpu.l2_bytes, an integer) as run and gate --propose write them; a
 * difference beyond 1e-12 relative fails "<file> <JSON path>: expected ..." naming the first differing number
 * (stored -> derived). audit and rollup read the committed golden through it (ci/check-golden runs both for every
 * target); documents a test builds by hand for the gate's arithmetic go through ea_baseline_validate alone.
 * - ea_baseline_occurrences_check: each result's "occurrences" is the sum of the golden counts (docs, the
 *   target's occurrence documents) of the scopes its "scope_ids" name, each of them a scope of its point; else
 *   "<file> $.scopes[i]...: expected ..." (audit and rollup, with both documents loaded). */
#ifndef EA_BASELINE_DERIVED_H
#define EA_BASELINE_DERIVED_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/audit_ops.h"

int ea_baseline_golden_validate(const char *file, const cJSON *doc, ea_error *err);
int ea_baseline_occurrences_check(const char *file, const cJSON *doc, cJSON *const docs[EA_AUDIT_OPS], ea_error *err);

#endif
