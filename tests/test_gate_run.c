/* gate --run's loop on the CPU (gate_run_impl.h): the measurement injected, made of the committed H200 baselines
 * with known moves, so each round's verdicts are known. Two single-result points: A and B. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "gate/gate.h"
#include "gate/gate_run_impl.h"
#include "helpers.h"

#define H200 "golden/targets/H200-torch2.11.0+cu130/baselines.json"
#define A "adaptive_avg_pool2d_backward-a0df034a1ddc"
#define B "adaptive_avg_pool2d_backward-01a009dfa6f7"
#define ROUNDS 8

/* The injected measurement: the m-th measurement of point k (counting those that succeeded) takes slower[m][k]
 * times the committed current warm time (0: as committed), or fails the call that holds it when fail[m][k]. */
static struct {
    double slower[ROUNDS][2];
    int fail[ROUNDS][2];
    int measured[2];
    int calls;
    char asked[32][4]; /* each call's points: "A", "B" or "AB" */
} plan;

static const char *const ids[2] = {A, B};

static int which(const cJSON *point)
{
    return !strcmp(ej_text(point, "point"), A) ? 0 : !strcmp(ej_text(point, "point"), B) ? 1 : -1;
}

/* A measurement of refs as the plan says: the committed results of their points, moved or failed. */
static int fake_measure(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                        cJSON **doc, ea_error *err)
{
    (void)c, (void)command, (void)ro;
    char *asked = plan.asked[plan.calls++ % 32];
    int in[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        int k = which(refs[i].point);
        cr_assert_geq(k, 0);
        in[k] = 1;
    }
    snprintf(asked, 4, "%s%s", in[0] ? "A" : "", in[1] ? "B" : "");
    for (int k = 0; k < 2; k++)
        if (in[k] && plan.fail[plan.measured[k]][k])
            return ea_fail(err, "injected: point %s cannot be measured (measurement %d)", ids[k], plan.measured[k]);
    cJSON *d = test_committed_baselines(), *scopes = cJSON_GetObjectItemCaseSensitive(d, "scopes"), *x, *next;
    for (x = scopes->child; x; x = next) {
        next = x->next;
        int k = which(x);
        if (k < 0 || !in[k]) {
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes, x));
            continue;
        }
        double f = plan.slower[plan.measured[k]][k];
        cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "paths"), 0), "time");
        const char *const fields[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
        for (int i = 0; i < 4 && f; i++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(t, fields[i]);
            cJSON_SetNumberValue(v, v->valuedouble * f);
        }
    }
    for (int k = 0; k < 2; k++)
        plan.measured[k] += in[k];
    *doc = d;
    return 0;
}

typedef struct {
    int rc;
    cJSON *stored, *fresh, *report;
    ea_error err;
} outcome;

/* gate --run's loop over A and B against the committed baselines, with retries rounds of measuring again. */
static outcome run(int retries)
{
    static ea_run_points pts; /* large: not on the stack */
    outcome o = {.stored = test_committed_baselines()};
    for (int k = 0; k < 2; k++) {
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddStringToObject(pt, "point", ids[k]);
        pts.refs[k] = (ea_scope_ref){.point = pt, .file = "adaptive_avg_pool2d_backward.json", .index = k};
    }
    pts.n = 2;
    ea_run_opts ro = {.faithful = 1, .fabricated = 1, .log = NULL};
    ea_drift_rule rule = ea_drift_default_rule(0);
    o.rc = ea_gate_run_measured(fake_measure, H200, o.stored, &pts, &ro, &rule, retries, "gate loop test", &o.fresh,
                                &o.report, &o.err);
    for (int k = 0; k < 2; k++)
        cJSON_Delete((cJSON *)pts.refs[k].point);
    return o;
}

static void outcome_free(outcome *o)
{
    cJSON_Delete(o->stored);
    cJSON_Delete(o->fresh);
    cJSON_Delete(o->report);
}

/* How many of point k's entries have status. */
static int entries(const cJSON *report, int k, const char *status)
{
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        n += !strcmp(ej_text(e, "point"), ids[k]) && !strcmp(ej_text(e, "status"), status);
    return n;
}

static const cJSON *entry(const cJSON *report, int k, const char *status)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (!strcmp(ej_text(e, "point"), ids[k]) && !strcmp(ej_text(e, "status"), status))
            return e;
    cr_assert_fail("no %s entry of point %s", status, ids[k]);
    return NULL;
}

static int remeasurements(const cJSON *report)
{
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(report, "remeasurements"));
}

/* A's first measurement 30% slower, its second as committed: measured again, A alone, and SAME. */
Test(gate_run, a_move_the_next_measurement_does_not_show_is_measured_again_and_same)
{
    plan.slower[0][0] = 1.3;
    outcome o = run(2);
    cr_assert_eq(o.rc, 0, "%s", o.err.msg);
    cr_assert_eq(plan.calls, 2);
    cr_assert_str_eq(plan.asked[1], "A", "only the moved point is measured again");
    cr_assert_eq(ea_gate_exit(o.report), 0);
    cr_assert_eq(remeasurements(o.report), 1);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(o.report, "remeasure_failed"));
    outcome_free(&o);
}

/* A move every measurement shows stands: measured again as often as retries allows, and still SLOWER. */
Test(gate_run, a_move_every_measurement_shows_stands_after_the_retries)
{
    for (int m = 0; m < ROUNDS; m++)
        plan.slower[m][1] = 1.3;
    outcome o = run(3);
    cr_assert_eq(o.rc, 0, "%s", o.err.msg);
    cr_assert_eq(plan.calls, 4);
    cr_assert_eq(remeasurements(o.report), 3);
    cr_assert_eq(entries(o.report, 1, "SLOWER"), 1);
    cr_assert_eq(entries(o.report, 0, "SLOWER") + entries(o.report, 0, "FASTER"), 0);
    cr_assert_eq(ea_gate_exit(o.report), 1);
    outcome_free(&o);
}

/* A and B both moved; measuring A again fails. The two are measured again together, then each alone: B's new
 * measurement clears it, A keeps its first (SLOWER, its detail naming the failure), is listed in
 * remeasure_failed, and is not measured again in the next round. */
Test(gate_run, a_point_that_cannot_be_measured_again_is_reported_and_hides_no_other)
{
    plan.slower[0][0] = plan.slower[0][1] = 1.3;
    for (int m = 1; m < ROUNDS; m++)
        plan.fail[m][0] = 1;
    outcome o = run(2);
    cr_assert_eq(o.rc, 0, "measuring again failed, yet the run failed: %s", o.err.msg);
    cr_assert_not_null(o.fresh);
    cr_assert_eq(plan.calls, 4, "the first, both again, then each alone; no more");
    cr_assert_str_eq(plan.asked[1], "AB");
    cr_assert_str_eq(plan.asked[2], "A");
    cr_assert_str_eq(plan.asked[3], "B");
    cr_assert_eq(entries(o.report, 1, "SLOWER"), 0, "B's new measurement stands");
    cr_assert_gt(entries(o.report, 1, "SAME"), 0);
    const char *d = ej_text(entry(o.report, 0, "SLOWER"), "detail");
    cr_assert(strstr(d, "measuring the point again failed") && strstr(d, "injected: point " A " cannot be measured"),
              "%s", d);
    const cJSON *failed = cJSON_GetObjectItemCaseSensitive(o.report, "remeasure_failed");
    cr_assert_eq(cJSON_GetArraySize(failed), 1);
    cr_assert_str_eq(ej_text(cJSON_GetArrayItem(failed, 0), "point"), A);
    cr_assert_eq(remeasurements(o.report), 1, "A is not measured again: nothing was left to settle");
    cr_assert_eq(ea_gate_exit(o.report), 1, "A's move is not hidden");
    outcome_free(&o);
}

/* The first measurement failing is the run's failure: no report, no document, the error passed on. */
Test(gate_run, the_first_measurement_failing_fails_the_run)
{
    plan.fail[0][1] = 1;
    outcome o = run(2);
    cr_assert_eq(o.rc, -1);
    cr_assert_null(o.fresh);
    cr_assert_null(o.report);
    cr_assert(strstr(o.err.msg, "injected: point " B), "%s", o.err.msg);
    outcome_free(&o);
}

/* A point measured again with one configuration more than the run had (the routing point's four, the run holding
 * three): the new one goes after the point's last result, in the middle of the document, and nothing is lost. */
Test(gate_run, a_configuration_more_measured_again_goes_after_its_points_last_result)
{
    cJSON *whole = test_committed_baselines(), *fresh = test_committed_baselines(), *again = cJSON_CreateObject(), *x;
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), *res = cJSON_AddArrayToObject(again, "scopes");
    int last = -1, i = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(whole, "scopes")) {
        if (!strcmp(ej_text(x, "family"), "routing_histc")) {
            cJSON_AddItemToArray(res, cJSON_Duplicate(x, 1));
            last = i;
        }
        i++;
    }
    cr_assert_eq(cJSON_GetArraySize(res), 4);
    cr_assert_lt(last + 1, i, "the point's last result is not the document's last");
    cJSON_DeleteItemFromArray(scopes, last);
    ea_gate_splice(fresh, again);
    cr_assert_eq(cJSON_GetArraySize(scopes), i);
    cr_assert(cJSON_Compare(fresh, whole, 1), "the spliced document is the whole one");
    cJSON_Delete(again);
    cJSON_Delete(fresh);
    cJSON_Delete(whole);
}
