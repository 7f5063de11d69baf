#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "drift.h"
#include "json_impl.h"

/* A time with median m and relative IQR r, 30 samples. */
static ea_drift_time t(double m, double r)
{
    return (ea_drift_time){m, m * (1 - r / 2), m * (1 + r / 2), m * r, 30};
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
    /* at the widest spread the rule still decides on (k x IQR just under the limit) */
    cr_assert_eq(judge(100, 110, EA_DRIFT_LIMIT / EA_DRIFT_IQR_K * 0.99).status, EA_DRIFT_SLOWER);
}

Test(drift, tolerance_grows_with_the_spread)
{
    /* 6% with a 3.5% relative IQR: noise 7% > margin 5%, so SAME; with a tight IQR, SLOWER */
    ea_drift d = judge(100, 106, 0.035);
    cr_assert_eq(d.status, EA_DRIFT_SAME, "tolerance %g", d.tolerance);
    cr_assert(fabs(d.tolerance - 0.07) < 1e-12);
    cr_assert_eq(judge(100, 106, 0.003).status, EA_DRIFT_SLOWER);
}

Test(drift, spread_beyond_the_limit_is_noisy_and_names_the_side)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    ea_drift_time quiet = t(100, 0.003), loud = t(100, 0.2);
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
    cr_assert_eq(read_time("{\"median_us\": 0, \"q1_us\": 0, \"q3_us\": 0, \"iqr_us\": 0, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "t.json $.median_us: expected a positive finite time, got 0"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 2.5, \"q3_us\": 3, \"iqr_us\": 1, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "$.q1_us: expected q1_us <= median_us <= q3_us"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1, \"q3_us\": 3, \"iqr_us\": -1, \"samples\": 30}", &x, &err), -1);
    cr_assert(strstr(err.msg, "$.iqr_us: expected a finite IQR >= 0"), "%s", err.msg);
    cr_assert_eq(read_time("{\"median_us\": 2, \"q1_us\": 1, \"q3_us\": 3, \"iqr_us\": 1}", &x, &err), -1);
    cr_assert(strstr(err.msg, "samples"), "%s", err.msg);
}
