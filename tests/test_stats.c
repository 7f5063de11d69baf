#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "base/stats.h"
#include "base/stats_impl.h"

/* Expected values are numpy.percentile(x, [25, 50, 75]) (linear, Hyndman & Fan type 7). */

static ea_stats run(const double *x, size_t n)
{
    ea_stats s;
    ea_error err = {{0}};
    cr_assert_eq(ea_stats_compute(x, n, &s, &err), 0, "%s", err.msg);
    return s;
}

#define near(a, b) cr_assert(fabs((a) - (b)) < 1e-12, "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

Test(stats, one_sample)
{
    double x[] = {3.5};
    ea_stats s = run(x, 1);
    cr_assert_eq(s.count, 1);
    near(s.min, 3.5);
    near(s.q1, 3.5);
    near(s.median, 3.5);
    near(s.q3, 3.5);
    near(s.max, 3.5);
    near(s.iqr, 0.0);
}

Test(stats, odd_count_unsorted)
{
    /* sorted: 1 2 3 4 5 -> q1 = 2, median = 3, q3 = 4 */
    double x[] = {5, 1, 4, 2, 3};
    ea_stats s = run(x, 5);
    cr_assert_eq(s.count, 5);
    near(s.min, 1);
    near(s.q1, 2);
    near(s.median, 3);
    near(s.q3, 4);
    near(s.max, 5);
    near(s.iqr, 2);
}

Test(stats, even_count_interpolates)
{
    /* numpy.percentile([1,2,3,4], [25,50,75]) = [1.75, 2.5, 3.25] */
    double x[] = {4, 3, 2, 1};
    ea_stats s = run(x, 4);
    near(s.q1, 1.75);
    near(s.median, 2.5);
    near(s.q3, 3.25);
    near(s.iqr, 1.5);
}

Test(stats, ten_samples_numpy)
{
    /* numpy.percentile([7,1,9,3,3,10,2,8,6,5], [25,50,75]) = [3.0, 5.5, 7.75] */
    double x[] = {7, 1, 9, 3, 3, 10, 2, 8, 6, 5};
    ea_stats s = run(x, 10);
    near(s.q1, 3.0);
    near(s.median, 5.5);
    near(s.q3, 7.75);
    near(s.min, 1);
    near(s.max, 10);
}

Test(stats, input_left_unsorted)
{
    double x[] = {3, 1, 2};
    double copy[3];
    memcpy(copy, x, sizeof x);
    run(x, 3);
    cr_assert_arr_eq(x, copy, sizeof x, "ea_stats_compute reordered the caller's samples");
}

Test(stats, ties_and_order)
{
    double x[] = {2, 2, 2, 2, 9};
    ea_stats s = run(x, 5);
    near(s.q1, 2);
    near(s.median, 2);
    near(s.q3, 2);
    near(s.max, 9);
    cr_assert(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max);
}

Test(stats, quantile_edges)
{
    double x[] = {1, 2, 4};
    near(ea_quantile_sorted(x, 3, 0.0), 1);
    near(ea_quantile_sorted(x, 3, -1.0), 1);
    near(ea_quantile_sorted(x, 3, 1.0), 4);
    near(ea_quantile_sorted(x, 3, 2.0), 4);
    near(ea_quantile_sorted(x, 3, 0.75), 3);
    /* p just below 1: h rounds to n-1 in doubles and must not read past the end. */
    near(ea_quantile_sorted(x, 3, 1.0 - 1e-17), 4);
}

Test(stats, empty_is_an_error)
{
    ea_stats s;
    ea_error err = {{0}};
    cr_assert_eq(ea_stats_compute(NULL, 0, &s, &err), -1);
    cr_assert_not_null(strstr(err.msg, "at least one sample"), "%s", err.msg);
}

Test(stats, nan_is_an_error)
{
    double x[] = {1, NAN, 3};
    ea_stats s;
    ea_error err = {{0}};
    cr_assert_eq(ea_stats_compute(x, 3, &s, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sample 1"), "%s", err.msg);
    x[1] = INFINITY;
    cr_assert_eq(ea_stats_compute(x, 3, &s, &err), -1);
    cr_assert_not_null(strstr(err.msg, "finite"), "%s", err.msg);
}

/* ea_stats_sorted, for a caller that sorted the samples already (the cold timer), gives ea_stats_compute's
 * statistics of the same samples in any order. */
Test(stats, sorted_entry_matches_compute)
{
    double shuffled[] = {4.5, 0.25, 9.0, 3.0, 3.0, 7.75, 1.5}, sorted[7];
    memcpy(sorted, shuffled, sizeof sorted);
    ea_sort_doubles(sorted, 7);
    ea_stats a, b;
    ea_error err;
    cr_assert_eq(ea_stats_compute(shuffled, 7, &a, &err), 0);
    ea_stats_sorted(sorted, 7, &b);
    cr_assert_eq(b.count, 7);
    cr_assert(a.min == b.min && a.q1 == b.q1 && a.median == b.median && a.q3 == b.q3 && a.max == b.max &&
              a.iqr == b.iqr);
    cr_assert_float_eq(b.median, 3.0, 0);
    cr_assert_float_eq(b.q1, 2.25, 1e-12);
}
