/* drift.h: the noise-aware drift rule that judges one stored per-call time against a new one.
 * Contract (docs/schema.md, "The drift rule"):
 * - change = new median / stored median - 1; noise = the uncertainty of that change: each side's
 *   median notch, k * (iqr / median) / sqrt(samples), summed, plus the coarser side's clock step
 *   (resolution / median: a median of stamped samples is known no closer than a step);
 *   tolerance = max(margin, notches) + step.
 * - NOISY when noise > limit (the medians are too uncertain for the gate to catch a move of `limit`;
 *   the side with the wider notch is named), when margin + step reaches EA_DRIFT_CATCH for a margin
 *   under it ("step": the clock is too coarse for the median; measuring again cannot help), or when
 *   either side has fewer than min_samples samples. So a judged tolerance stays below EA_DRIFT_CATCH,
 *   unless a path's own margin is wider (a reviewer's choice);
 *   else SAME when |change| <= tolerance, SLOWER above it, FASTER below -tolerance.
 * - ea_drift_judge is pure arithmetic; ea_drift_time_read takes a "time" object of a baselines path
 *   and refuses a median that is not positive and finite, quartiles that do not bracket it, or a
 *   resolution_us (optional, 0 when absent) below 0. */
#ifndef EA_DRIFT_H
#define EA_DRIFT_H

#include <stdint.h>

#include "error.h"
#include "json.h"

/* Two H200 runs a day apart on different machines moved at most 2.3% (median 0.0%) over all 162
 * timed paths: 5% keeps such a pair SAME with a 2x margin and still catches a 10% move 2x over. */
#define EA_DRIFT_MARGIN 0.05
/* The boxplot notch (McGill, Tukey and Larsen, "Variations of Box Plots", 1978): median +- 1.57 IQR /
 * sqrt(n) is the interval whose non-overlap marks two medians as different at about 95%. The spread of
 * single samples is not the question: cold calls of a 2 us scope spread 4-15% of their median on the
 * H200 (a device clock step, about 32 ns, is 1-3% of it), yet 100 of them place the median within
 * 1-2.5%. */
#define EA_DRIFT_NOTCH_K 1.57
/* A median's notch half-width in the IQR's unit: k x iqr / sqrt(samples); NaN for fewer than one sample. */
double ea_drift_notch(double k, double iqr, double samples);
/* The move the gate exists to catch: no judged tolerance reaches it. */
#define EA_DRIFT_CATCH 0.10
/* The most noise (notches and step) a judged entry may carry, below EA_DRIFT_CATCH (NOISY above). */
#define EA_DRIFT_LIMIT 0.08
#define EA_DRIFT_MIN_SAMPLES 5

typedef enum { EA_DRIFT_SAME, EA_DRIFT_SLOWER, EA_DRIFT_FASTER, EA_DRIFT_NOISY, EA_DRIFT_STATUSES } ea_drift_status;

/* "SAME", "SLOWER", "FASTER", "NOISY" */
extern const char *const ea_drift_status_names[EA_DRIFT_STATUSES];

typedef struct {
    double median, q1, q3, iqr; /* us per call */
    int64_t samples;
    double resolution; /* us: the clock step of the samples' stamps; 0 when not recorded */
} ea_drift_time;

typedef struct {
    double margin, k, limit;
    int64_t min_samples;
} ea_drift_rule;

typedef struct {
    ea_drift_status status;
    double change, noise, tolerance;
    const char *noisy; /* NOISY: "stored", "new", "step" or "samples"; else NULL */
} ea_drift;

/* The defaults above, with margin in place of EA_DRIFT_MARGIN when margin > 0. */
ea_drift_rule ea_drift_default_rule(double margin);
ea_drift ea_drift_judge(const ea_drift_time *stored, const ea_drift_time *fresh, const ea_drift_rule *rule);
int ea_drift_time_read(ej_val time, ea_drift_time *t, ea_error *err);

#endif
