/* drift.c: the drift rule (contract in drift.h). */
#include "drift.h"

#include <math.h>
#include <stdio.h>

const char *const ea_drift_status_names[EA_DRIFT_STATUSES] = {"SAME", "SLOWER", "FASTER", "NOISY"};

ea_drift_rule ea_drift_default_rule(double margin)
{
    return (ea_drift_rule){margin > 0 ? margin : EA_DRIFT_MARGIN, EA_DRIFT_NOTCH_K, EA_DRIFT_LIMIT, EA_DRIFT_MIN_SAMPLES};
}

double ea_drift_notch(double k, double iqr, double samples)
{
    return samples >= 1 ? k * iqr / sqrt(samples) : NAN;
}

/* The relative half-width of a median's notch; NaN for fewer than one sample (then NOISY). */
static double notch(const ea_drift_time *t, const ea_drift_rule *rule)
{
    return ea_drift_notch(rule->k, t->iqr, (double)t->samples) / t->median;
}

ea_drift ea_drift_judge(const ea_drift_time *stored, const ea_drift_time *fresh, const ea_drift_rule *rule)
{
    double ns = notch(stored, rule), nn = notch(fresh, rule);
    double step = fmax(stored->resolution / stored->median, fresh->resolution / fresh->median);
    ea_drift d = {EA_DRIFT_SAME, fresh->median / stored->median - 1, ns + nn + step, 0, NULL};
    /* The step adds to the margin too: a median moves by whole steps, whatever else moved it. */
    d.tolerance = fmax(rule->margin, ns + nn) + step;
    if (stored->samples < rule->min_samples || fresh->samples < rule->min_samples)
        d.noisy = "samples";
    else if (!(d.noise <= rule->limit)) /* a NaN spread is too wide too */
        d.noisy = nn >= ns ? "new" : "stored";
    else if (rule->margin < EA_DRIFT_CATCH && rule->margin + step >= EA_DRIFT_CATCH)
        d.noisy = "step"; /* a move the gate exists to catch could hide in the margin and one step */
    if (d.noisy)
        d.status = EA_DRIFT_NOISY;
    else if (d.change > d.tolerance)
        d.status = EA_DRIFT_SLOWER;
    else if (d.change < -d.tolerance)
        d.status = EA_DRIFT_FASTER;
    return d;
}

int ea_drift_time_read(ej_val time, ea_drift_time *t, ea_error *err)
{
    int64_t calls;
    if (ej_get_number(time, "median_us", &t->median, err) || ej_get_number(time, "q1_us", &t->q1, err) ||
        ej_get_number(time, "q3_us", &t->q3, err) || ej_get_number(time, "iqr_us", &t->iqr, err) ||
        ej_get_int_min(time, "samples", 1, &t->samples, err))
        return -1;
    ej_val res;
    t->resolution = 0;
    if (ej_field(time, "resolution_us", 0, &res, err) || (res.v && ej_as_number(res, &t->resolution, err)) ||
        ej_field(time, "calls_per_replay", 0, &res, err) ||
        (res.v && ej_get_int_min(time, "calls_per_replay", 1, &calls, err)))
        return -1;
    char got[64];
    snprintf(got, sizeof got, "%.6g", t->median);
    if (!(t->median > 0) || !isfinite(t->median))
        return ej_bad_field(time, "median_us", "a positive finite time", got, err);
    snprintf(got, sizeof got, "%.6g <= %.6g <= %.6g", t->q1, t->median, t->q3);
    if (!(t->q1 <= t->median && t->median <= t->q3))
        return ej_bad_field(time, "q1_us", "q1_us <= median_us <= q3_us", got, err);
    snprintf(got, sizeof got, "%.6g", t->q3);
    if (!(t->q3 < EJ_MAX_TIME_US))
        return ej_bad_field(time, "q3_us", "a time below 1e9 us", got, err);
    snprintf(got, sizeof got, "%.6g", t->iqr);
    if (!(t->iqr >= 0) || !isfinite(t->iqr))
        return ej_bad_field(time, "iqr_us", "a finite IQR >= 0", got, err);
    snprintf(got, sizeof got, "%.6g", t->resolution);
    if (!(t->resolution >= 0) || !isfinite(t->resolution))
        return ej_bad_field(time, "resolution_us", "a finite clock step >= 0", got, err);
    return 0;
}
