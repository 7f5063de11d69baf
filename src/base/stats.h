/* stats.h: order statistics over timing samples (host only, no CUDA).
 * Contract:
 * - ea_stats_compute(samples, n, out, err) sorts a private copy of the n samples (the caller's array is
 *   left as it is) and fills count, min, q1, median, q3, max and iqr = q3 - q1; returns 0, or -1 with
 *   err->msg when n is 0, a sample is NaN or infinite, or memory runs out.
 * - Quartiles are Hyndman & Fan type 7 (numpy's and R's default): for p in [0, 1], h = (n - 1) p and
 *   q(p) = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]) over the sorted x, so the median
 *   of an even count is the mean of the middle two and every quantile lies within [min, max].
 * - ea_stats_sorted(x, n, out) fills the same from x already sorted ascending (finite, n >= 1), without a
 *   copy: for a caller that sorts the samples for another use too (the cold timer's clock step). */
#ifndef EA_STATS_H
#define EA_STATS_H

#include <stddef.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t count;
    double min, q1, median, q3, max;
    double iqr; /* q3 - q1 */
} ea_stats;

int ea_stats_compute(const double *samples, size_t n, ea_stats *out, ea_error *err);
void ea_stats_sorted(const double *x, size_t n, ea_stats *out);

#ifdef __cplusplus
}
#endif

/* Sorts x ascending in place (finite values). */
void ea_sort_doubles(double *x, size_t n);

#endif
