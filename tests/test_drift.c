#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "measure/drift.h"
#include "base/json_impl.h"

/* A time with median m and relative IQR r, 30 samples, no clock step recorded. */
static ea_drift_time t(double m, double r)
{
    return (ea_drift_time){m, m * (1 - r / 2), m * (1 + r / 2), m * r, 30, 0};
}

/* The relative IQR at which both sides' notches (30 samples each) add up to `noise`. */
static double iqr_for(double noise)
{
    return noise * sqrt(30.0) / (2 * EA_DRIFT_NOTCH_K);
}

static ea_drift judge(double stored, double fresh, double r)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time a = t(stored, r), b = t(fresh, r);
    return ea_drift_judge(&a, &b, &rule);
}

Test(drift, pair_of_h200_runs_is_same)
{
    /* the measurement: at most 2.3% either way between two runs a day apart */
    cr_assert_eq(judge(100, 102.3, 0.003).status, EA_DRIFT_SAME);
    cr_assert_eq(judge(100, 97.7, 0.003).status, EA_DRIFT_SAME);
    cr_assert_eq(judge(100, 100, 0).status, EA_DRIFT_SAME);
}

Test(drift, ten_percent_is_caught_both_ways)
{
    ea_drift d = judge(100, 110, 0.003);
    cr_assert_eq(d.status, EA_DRIFT_SLOWER);
    cr_assert(fabs(d.change - 0.10) < 1e-12, "change %g", d.change);
    cr_assert_eq(judge(100, 90, 0.003).status, EA_DRIFT_FASTER);
    /* at the widest spread the rule still decides on (notches just under the limit) */
    cr_assert_eq(judge(100, 110, iqr_for(EA_DRIFT_LIMIT * 0.99)).status, EA_DRIFT_SLOWER);
}

Test(drift, tolerance_grows_with_the_spread)
{
    /* 6% with notches adding to 7% > margin 5%, so SAME; with a tight IQR, SLOWER */
    ea_drift d = judge(100, 106, iqr_for(0.07));
    cr_assert_eq(d.status, EA_DRIFT_SAME, "tolerance %g", d.tolerance);
    cr_assert(fabs(d.tolerance - 0.07) < 1e-12, "tolerance %g", d.tolerance);
    cr_assert_eq(judge(100, 106, 0.003).status, EA_DRIFT_SLOWER);
}

Test(drift, spread_beyond_the_limit_is_noisy_and_names_the_side)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time quiet = t(100, 0.003), loud = t(100, iqr_for(2 * EA_DRIFT_LIMIT));
    ea_drift d = ea_drift_judge(&quiet, &loud, &rule);
    cr_assert_eq(d.status, EA_DRIFT_NOISY);
    cr_assert_str_eq(d.noisy, "new");
    d = ea_drift_judge(&loud, &quiet, &rule);
    cr_assert_str_eq(d.noisy, "stored");
    ea_drift_time few = quiet;
    few.samples = 3;
    d = ea_drift_judge(&quiet, &few, &rule);
    cr_assert_eq(d.status, EA_DRIFT_NOISY);
    cr_assert_str_eq(d.noisy, "samples");
    cr_assert_str_eq(ea_drift_status_names[d.status], "NOISY");
}

/* What the notch buys: a spread of single samples that the old k x IQR rule called NOISY (13% IQR,
 * as cold calls of 2 us scopes on the H200) is judged once enough samples place the median. */
Test(drift, more_samples_narrow_the_notch)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time a = t(100, 0.13), b = t(110, 0.13);
    a.samples = b.samples = 5;
    cr_assert_eq(ea_drift_judge(&a, &b, &rule).status, EA_DRIFT_NOISY);
    a.samples = b.samples = 100;
    ea_drift d = ea_drift_judge(&a, &b, &rule);
    cr_assert_eq(d.status, EA_DRIFT_SLOWER, "tolerance %g", d.tolerance);
    cr_assert(fabs(d.noise - 2 * EA_DRIFT_NOTCH_K * 0.13 / 10) < 1e-12, "noise %g", d.noise);
}

/* Medians of stamped samples move in clock steps: on the H200 a 1.28 us cold scope read 1.344 us in the
 * next run (two 32 ns steps, 5.0%). The step widens the tolerance; a 10% move is still caught. */
Test(drift, the_clock_step_widens_the_tolerance)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time a = t(1.28, 0.02), b = t(1.344, 0.02);
    cr_assert_eq(ea_drift_judge(&a, &b, &rule).status, EA_DRIFT_SLOWER, "no step recorded: 5.0%% > margin");
    a.resolution = b.resolution = 0.032;
    ea_drift d = ea_drift_judge(&a, &b, &rule);
    cr_assert_eq(d.status, EA_DRIFT_SAME, "tolerance %g", d.tolerance);
    b.median = 1.28 * 1.10;
    cr_assert_eq(ea_drift_judge(&a, &b, &rule).status, EA_DRIFT_SLOWER);
}

/* A step of 6% of the median with quiet samples: margin and step reach 10%, so a 10% move could hide
 * inside the tolerance; the rule says NOISY ("step") instead of SAME. */
Test(drift, a_step_that_would_hide_a_ten_percent_move_is_noisy)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time a = t(1.0, 0.01), b = t(1.10, 0.01);
    a.samples = b.samples = 100;
    a.resolution = b.resolution = 0.06;
    ea_drift d = ea_drift_judge(&a, &b, &rule);
    cr_assert_eq(d.status, EA_DRIFT_NOISY, "tolerance %g", d.tolerance);
    cr_assert_str_eq(d.noisy, "step");
    a.resolution = b.resolution = 0.049; /* 4.9%: margin + step under 10%, the move caught */
    cr_assert_eq(ea_drift_judge(&a, &b, &rule).status, EA_DRIFT_SLOWER);
    b.median = 1.0 * (1 + EA_DRIFT_CATCH - 1e-9); /* just under 10%: still caught */
    cr_assert_eq(ea_drift_judge(&a, &b, &rule).status, EA_DRIFT_SLOWER);
}

Test(drift, margin_argument_and_default)
{
    cr_assert_eq(ea_drift_default_rule(0).margin, EA_DRIFT_MARGIN);
    ea_drift_rule wide = ea_drift_default_rule(0.15);
    ea_drift_time a = t(100, 0.003), b = t(110, 0.003);
    cr_assert_eq(ea_drift_judge(&a, &b, &wide).status, EA_DRIFT_SAME);
}

static int read_time(const char *json, ea_drift_time *out, ea_error *err)
{
    ej_doc d;
    cr_assert_eq(ej_parse("t.json", json, &d, err), 0, "%s", err->msg);
    ej_val v = ej_root(&d);
    int rc = ea_drift_time_read(v, out, err);
    ej_free(&d);
    return rc;
}

Test(drift, time_read_and_its_refusals)
{
    ea_drift_time x;
    ea_error err;
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1.5, \"q3_us\": 2.5, \"iqr_us\": 1, \"samples\": 30}", &x, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(x.samples, 30);
    cr_assert_eq(x.resolution, 0, "absent: no step");
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1.5, \"q3_us\": 2.5, \"iqr_us\": 1, \"samples\": 30, "
                           "\"resolution_us\": 0.032}", &x, &err), 0, "%s", err.msg);
    cr_assert_eq(x.resolution, 0.032);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1.5, \"q3_us\": 2.5, \"iqr_us\": 1, \"samples\": 30, "
                           "\"resolution_us\": -1}", &x, &err), -1);
    cr_assert(strstr(err.msg, "$.resolution_us: expected a finite clock step >= 0, got -1"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 0, \"q1_us\": 0, \"q3_us\": 0, \"iqr_us\": 0, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "t.json $.median_us: expected a positive finite time, got 0"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 2.5, \"q3_us\": 3, \"iqr_us\": 1, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "$.q1_us: expected q1_us <= median_us <= q3_us"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1, \"q3_us\": 3, \"iqr_us\": -1, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "$.iqr_us: expected a finite IQR >= 0"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1, \"q3_us\": 3, \"iqr_us\": 1}", &x, &err), -1);
    cr_assert(strstr(err.msg, "samples"), "%s", err.msg);
}
