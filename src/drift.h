/* drift.h: the noise-aware drift rule that judges one stored per-call time against a new one.
 * Contract (docs/schema.md, "The drift rule"):
 * - change = new median / stored median - 1; noise = k * the larger of the two relative IQRs
 *   (iqr / median); tolerance = max(margin, noise).
 * - NOISY when noise > limit (the spread is too wide for the gate to catch a move of `limit`; the
 *   side that is wider is named) or when either side has fewer than min_samples samples;
 *   else SAME when |change| <= tolerance, SLOWER above it, FASTER below -tolerance.
 * - ea_drift_judge is pure arithmetic; ea_drift_time_read takes a "time" object of a baselines path
 *   and refuses a median that is not positive and finite, or quartiles that do not bracket it. */
#ifndef EA_DRIFT_H
#define EA_DRIFT_H

#include <stdint.h>

#include "error.h"
#include "json.h"

/* Two H200 runs a day apart on different machines moved at most 2.3% (median 0.0%) over all 162
 * timed paths: 5% keeps such a pair SAME with a 2x margin and still catches a 10% move 2x over. */
#define EA_DRIFT_MARGIN 0.05
/* An IQR is half the central spread; two of them are the distance a median moves between runs when
 * the samples are that noisy. */
#define EA_DRIFT_IQR_K 2.0
/* A tolerance must stay below the 10% move the gate exists to catch. */
#define EA_DRIFT_LIMIT 0.08
#define EA_DRIFT_MIN_SAMPLES 5

typedef enum { EA_DRIFT_SAME, EA_DRIFT_SLOWER, EA_DRIFT_FASTER, EA_DRIFT_NOISY, EA_DRIFT_STATUSES } ea_drift_status;

/* "SAME", "SLOWER", "FASTER", "NOISY" */
extern const char *const ea_drift_status_names[EA_DRIFT_STATUSES];

typedef struct {
    double median, q1, q3, iqr; /* us per call */
    int64_t samples;
} ea_drift_time;

typedef struct {
    double margin, k, limit;
    int64_t min_samples;
} ea_drift_rule;

typedef struct {
    ea_drift_status status;
    double change, noise, tolerance;
    const char *noisy; /* NOISY: "stored", "new" or "samples"; else NULL */
} ea_drift;

/* The defaults above, with margin in place of EA_DRIFT_MARGIN when margin > 0. */
ea_drift_rule ea_drift_default_rule(double margin);
ea_drift ea_drift_judge(const ea_drift_time *stored, const ea_drift_time *fresh, const ea_drift_rule *rule);
int ea_drift_time_read(ej_val time, ea_drift_time *t, ea_error *err);

#endif
