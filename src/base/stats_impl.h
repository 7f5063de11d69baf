/* stats_impl.h: test-only entry point of stats.c.
 * ea_quantile_sorted(x, n, p): stats.h's type 7 interpolation on an already sorted array (n >= 1). */
#ifndef EA_STATS_IMPL_H
#define EA_STATS_IMPL_H

#include <stddef.h>

double ea_quantile_sorted(const double *x, size_t n, double p);

#endif
