/* baseline_derived.h: a target's baselines.json read as golden data: what it derives, recomputed.
 * Contract: ea_baseline_golden_validate is ea_baseline_validate (gpu.l2_bytes an integer) and then, for every
 * measured result, each path time's (and cold time's) iqr_us against q3_us - q1_us (within 1e-12 of q3_us), else
 * "<file> <JSON path>: expected ..." naming both numbers. The floor, speedups and fractions are not stored (schema 3:
 * fractions.h derives them when read). audit and rollup read the committed golden through it (ci/check-golden runs
 * both for every target); documents a test builds by hand for the gate's arithmetic go through ea_baseline_validate
 * alone.
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
