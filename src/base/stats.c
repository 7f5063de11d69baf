#include "base/stats.h"
#include "base/stats_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ea_sort_doubles(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

double ea_quantile_sorted(const double *x, size_t n, double p)
{
    double h, frac;
    size_t lo;

    if (p <= 0.0 || n == 1)
        return x[0];
    if (p >= 1.0)
        return x[n - 1];
    h = (double)(n - 1) * p;
    lo = (size_t)h;
    frac = h - (double)lo;
    if (lo + 1 >= n)
        return x[n - 1];
    /* x[lo] + frac*(x[lo+1]-x[lo]) rather than a weighted sum: equal neighbours give exactly that value. */
    return x[lo] + frac * (x[lo + 1] - x[lo]);
}

int ea_stats_compute(const double *samples, size_t n, ea_stats *out, ea_error *err)
{
    double *x;

    memset(out, 0, sizeof *out);
    if (n == 0)
        return ea_fail(err, "stats: expected at least one sample, got 0");
    for (size_t i = 0; i < n; i++) {
        /* A NaN has no place in an order; it would make qsort's result undefined. */
        if (!isfinite(samples[i]))
            return ea_fail(err, "stats: sample %zu: expected a finite number, got %g", i, samples[i]);
    }
    x = malloc(n * sizeof *x);
    if (!x)
        return ea_fail(err, "stats: out of memory copying %zu samples", n);
    memcpy(x, samples, n * sizeof *x);
    ea_sort_doubles(x, n);
    ea_stats_sorted(x, n, out);
    free(x);
    return 0;
}

void ea_stats_sorted(const double *x, size_t n, ea_stats *out)
{
    out->count = n;
    out->min = x[0];
    out->max = x[n - 1];
    out->q1 = ea_quantile_sorted(x, n, 0.25);
    out->median = ea_quantile_sorted(x, n, 0.5);
    out->q3 = ea_quantile_sorted(x, n, 0.75);
    out->iqr = out->q3 - out->q1;
}
