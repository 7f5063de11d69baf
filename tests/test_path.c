/* The measured path record every repro family writes (src/measure/path.c): the judgement rules, the kernel
 * names or why there are none, the timing block, CUPTI recording where CUPTI is missing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/path.h"
#include "measure/path_impl.h"

/* A path's checks as the families write them, judged by the shared rules. */
static cJSON *path_with(const ea_check *first, const ea_check *after)
{
    cJSON *j = cJSON_CreateObject();
    ea_path_check_json(j, "check", first);
    ea_path_check_json(j, "check_after_timing", after ? after : first);
    return j;
}

static void expect_judged(const ea_check *first, const ea_check *after, double current_rel, int exact, int bound,
                          const char *failure)
{
    char why[128] = "";
    cJSON *j = path_with(first, after);
    int passed = ea_path_judge(j, current_rel, exact, bound, why, sizeof why);
    cr_assert_eq(passed, failure == NULL, "%s: %s", failure ? failure : "passes", why);
    cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(j, "passed")), passed);
    if (failure) {
        cr_assert_str_eq(why, failure);
        cr_assert_str_eq(cJSON_GetObjectItem(j, "failure")->valuestring, failure);
    }
    cJSON_Delete(j);
}

Test(path, judge_fails_nan_and_non_finite_outputs)
{
    const ea_check good = {.rel_l2 = 1e-3, .n = 10}, nan_el = {.rel_l2 = 1e-3, .nonfinite = 1, .n = 10},
                   nan_rel = {.rel_l2 = NAN, .max_abs = NAN, .n = 10}, unwritten = {.rel_l2 = 1e-3, .unwritten = 2},
                   loose = {.rel_l2 = 2e-2}, mism = {.rel_l2 = 1e-3, .mismatched = 1};
    expect_judged(&good, NULL, -1, 1, 1, NULL);
    expect_judged(&good, NULL, 1e-3, 1, 1, NULL);
    expect_judged(&nan_el, NULL, -1, 0, 0, "NaN or infinite elements in the output");
    expect_judged(&good, &nan_el, -1, 0, 0, "NaN or infinite elements after timing");
    /* a NaN error passes no bound: not the 1e-2 bound, not the current path's */
    expect_judged(&nan_rel, NULL, -1, 0, 1, "relative L2 error above 1e-2 (or not a number)");
    expect_judged(&good, &nan_rel, -1, 0, 1, "relative L2 error above 1e-2 (or not a number)");
    expect_judged(&nan_rel, NULL, 1e-3, 0, 0, "less accurate than the current path");
    expect_judged(&good, NULL, 5e-4, 0, 0, "less accurate than the current path");
    expect_judged(&unwritten, NULL, -1, 0, 0, "elements left holding the poison (never written)");
    expect_judged(&good, &unwritten, -1, 0, 0, "elements unwritten after timing");
    expect_judged(&loose, NULL, -1, 0, 1, "relative L2 error above 1e-2 (or not a number)");
    expect_judged(&loose, NULL, -1, 0, 0, NULL); /* the fabricated index: reported, not bounded */
    expect_judged(&mism, NULL, -1, 1, 1, "differs from its exact CPU emulation");
    /* a check missing a count fails rather than passing */
    cJSON *j = path_with(&good, NULL);
    char why[128];
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(j, "check"), "nonfinite");
    cr_assert_eq(ea_path_judge(j, -1, 0, 1, why, sizeof why), 0);
    cJSON_Delete(j);
}

/* The kernels CUPTI saw, demangled; none recorded (CUPTI failed at begin or end): [] and why. */
Test(path, kernels_or_the_note_why_not)
{
    ea_kernel_record recs[2] = {{.name = "_ZN7ia_aten19indexFuncLargeIndexILi2EEEvPfi"}, {.name = "triton_poi_0"}};
    ea_kernel_list seen = {recs, 2, 0};
    cJSON *j = cJSON_CreateObject();
    ea_path_kernels_json(j, &seen, "ignored");
    const cJSON *k = cJSON_GetObjectItem(j, "kernels");
    cr_assert_eq(cJSON_GetArraySize(k), 2);
    cr_assert_str_eq(cJSON_GetArrayItem(k, 0)->valuestring, "void ia_aten::indexFuncLargeIndex<2>");
    cr_assert_str_eq(cJSON_GetArrayItem(k, 1)->valuestring, "triton_poi_0");
    cr_assert_null(cJSON_GetObjectItem(j, "kernels_note"));
    cJSON_Delete(j);
    j = cJSON_CreateObject();
    ea_path_kernels_json(j, NULL, "CUPTI: cuptiActivityFlushAll: CUPTI_ERROR_UNKNOWN");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "kernels")), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "kernels_note")->valuestring,
                     "CUPTI: cuptiActivityFlushAll: CUPTI_ERROR_UNKNOWN");
    cJSON_Delete(j);
    j = cJSON_CreateObject();
    ea_path_kernels_json(j, NULL, "");
    cr_assert_str_eq(cJSON_GetObjectItem(j, "kernels_note")->valuestring, "CUPTI recorded nothing");
    cJSON_Delete(j);
}

/* The statistics and the numbers of the cache policy; its sentence is rendered when printed (prose.h), not stored. */
Test(path, time_block_carries_the_statistics_and_the_policy_numbers)
{
    double samples[3] = {1, 2, 3};
    ea_timing t = {.per_call_us = {.median = 2, .q1 = 1.5, .q3 = 2.5, .iqr = 1, .count = 3}, .samples_us = samples,
                   .calls_per_replay = 7};
    snprintf(t.policy, sizeof t.policy, "warm: 7 calls back to back");
    cJSON *o = ea_path_time_json(&t);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "median_us")->valuedouble, 2, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "iqr_us")->valuedouble, 1, 1e-12);
    cr_assert_eq(cJSON_GetObjectItem(o, "samples")->valueint, 3);
    cr_assert_eq(cJSON_GetObjectItem(o, "calls_per_replay")->valueint, 7);
    cr_assert_null(cJSON_GetObjectItem(o, "cache_policy"));
    cr_assert_null(cJSON_GetObjectItem(o, "operations"), "a warm time has no operation count");
    cJSON_Delete(o);
    t.cache = EA_CACHE_COLD;
    t.ops_per_call = 3;
    o = ea_path_time_json(&t);
    cr_assert_eq(cJSON_GetObjectItem(o, "operations")->valueint, 3);
    cJSON_Delete(o);
}

/* Without a recording (no CUPTI, or it failed): an empty list and a note that says why, never silence. */
Test(path, a_recorder_that_did_not_record_says_why)
{
    ea_path_recorder r;
    memset(&r, 0, sizeof r);
    snprintf(r.why.msg, sizeof r.why.msg, "CUPTI unavailable: libcupti.so not found");
    cJSON *j = cJSON_CreateObject();
    ea_path_record_json(j, &r);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "kernels")), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "kernels_note")->valuestring, "CUPTI unavailable: libcupti.so not found");
    cJSON_Delete(j);
}

/* ea_path_measure's steps, each able to break: the sequence stops at the first that does, passes its
 * error on and writes no timing into the path. */
typedef struct {
    int poison_rc, enqueue_rc, check_rc;
    int poisoned, enqueued, checked;
} fake_path;

static int fake_poison(void *ctx, ea_error *err)
{
    fake_path *f = ctx;
    f->poisoned++;
    return f->poison_rc ? ea_fail(err, "fake: poison broke") : 0;
}

static int fake_enqueue(void *ctx, void *stream, ea_error *err)
{
    fake_path *f = ctx;
    f->enqueued++;
    return f->enqueue_rc ? ea_fail(err, "fake: launch broke") : 0;
}

static int fake_check(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    fake_path *f = ctx;
    f->checked++;
    memset(c, 0, sizeof *c);
    return f->check_rc ? ea_fail(err, "fake: check broke") : 0;
}

static void expect_broken(fake_path *f, const char *want, const char *or_want)
{
    const ea_path_steps steps = {.label = "fake scope current", .ctx = f, .poison = fake_poison, .enqueue = fake_enqueue,
                                 .check = fake_check};
    ea_check first, again;
    double median = -1;
    ea_error err = {{0}};
    cJSON *j = cJSON_CreateObject();
    cr_assert_eq(ea_path_measure(&steps, j, &first, &again, &median, &err), -1);
    cr_assert(strstr(err.msg, want) || (or_want && strstr(err.msg, or_want)), "wanted \"%s\" in: %s", want, err.msg);
    cr_assert_null(cJSON_GetObjectItem(j, "time"), "no timing from a broken sequence");
    cr_assert_eq(median, -1);
    cJSON_Delete(j);
}

Test(path, measure_stops_at_the_step_that_broke)
{
    fake_path f = {.poison_rc = 1};
    expect_broken(&f, "fake: poison broke", NULL);
    cr_assert(f.poisoned == 1 && f.enqueued == 0 && f.checked == 0, "nothing runs after a failed poison");

    f = (fake_path){.enqueue_rc = 1};
    expect_broken(&f, "fake: launch broke", NULL);
    cr_assert(f.poisoned == 1 && f.enqueued == 1 && f.checked == 0, "no check of a call that did not launch");

    /* the call launched: without a GPU the synchronisation fails, naming the path; with one the check
     * runs and its failure is what comes back */
    f = (fake_path){.check_rc = 1};
    expect_broken(&f, "fake scope current: run: ", "fake: check broke");
    cr_assert(f.checked <= 1, "nothing is timed after a failed check");
}

/* Finding a result's path by name and mode, its median (NaN when absent), and which tuned candidate
 * a family keeps: the fastest that passed (by more than EA_PATH_TIE), a failed one only while none passed. */
Test(path, named_median_and_the_kept_candidate)
{
    cJSON *r = cJSON_Parse("{\"paths\": [{\"name\": \"current\", \"mode\": \"fabricated\", \"time\": {\"median_us\": 9}},"
                           "{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 5}},"
                           "{\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 2}},"
                           "{\"name\": \"oracle_general\"}]}");
    cr_assert_not_null(r);
    const cJSON *fab = ea_path_named(r, "current", NULL), *cur = ea_path_named(r, "current", "faithful");
    const cJSON *orc = ea_path_named(r, "oracle", NULL), *gen = ea_path_named(r, "oracle_general", "faithful");
    cr_assert(ea_path_median(fab) == 9 && ea_path_median(cur) == 5 && ea_path_median(orc) == 2);
    cr_assert_null(gen, "a path without a mode is not the faithful one");
    cr_assert_null(ea_path_named(r, "oracle", "fabricated"));
    cr_assert(isnan(ea_path_median(ea_path_named(r, "oracle_general", NULL))) && isnan(ea_path_median(NULL)));
    cr_assert(ea_path_replaces(cur, 0, NULL, 0), "the first candidate is kept, passed or not");
    cr_assert(ea_path_replaces(orc, 1, cur, 1), "a faster one that passed");
    cr_assert(!ea_path_replaces(cur, 1, orc, 1), "not a slower one");
    cr_assert(!ea_path_replaces(orc, 0, cur, 1), "not a failed one over one that passed");
    cr_assert(ea_path_replaces(fab, 1, orc, 0), "one that passed over a failed one, however slow");
    cr_assert(ea_path_replaces(orc, 0, cur, 0) == 0, "failed over failed: the first stays");
    cJSON_Delete(r);
}
