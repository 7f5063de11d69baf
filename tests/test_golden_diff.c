/* extern-audit golden diff on fixture targets that differ from tests/fixtures/targets/H200 in known ways:
 * each difference is reported as its kind of change with the right exit, a partial stage reports what it
 * did not stage as "not staged", bad input exits 2 naming the file and JSON path. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden/golden_diff.h"
#include "helpers.h"
#include "base/json.h"
#include "target_fixture.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* golden diff FIXTURE_TARGET new --json: the report (parsed; the caller deletes it) and the exit in *rc. */
static cJSON *diff_json(const char *fresh, int *rc)
{
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, "--json", NULL);
    cJSON *report = cJSON_Parse(r.out);
    cr_assert_not_null(report, "no JSON report (exit %d): %s", r.status, r.err);
    *rc = r.status;
    cli_run_free(&r);
    return report;
}

/* The only change of the report; asserts there is exactly one and of kind. */
static const cJSON *only_change(const cJSON *report, const char *kind)
{
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(report, "changes");
    char *text = cJSON_Print(changes);
    cr_assert_eq(cJSON_GetArraySize(changes), 1, "changes: %s", text);
    free(text);
    const cJSON *c = cJSON_GetArrayItem(changes, 0);
    cr_assert_str_eq(ej_str(c, "kind"), kind);
    return c;
}

static int summary_count(const cJSON *report, const char *table, const char *key, const char *name, const char *kind)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "summary"), table))
        if (!strcmp(ej_str(r, key), name))
            return (int)ej_num(r, kind);
    return -1;
}

Test(golden_diff, a_target_against_its_copy_differs_in_nothing)
{
    int rc;
    cJSON *report = diff_json(target_copy("same"), &rc);
    cr_assert_eq(rc, 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "changes")), 0);
    cJSON_Delete(report);
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, FIXTURE_TARGET, "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "Summary by op:");
    has(r.out, "0 change(s)");
    cli_run_free(&r);
}

Test(golden_diff, a_conditional_fallback_lowered_is_a_class_change_with_the_old_rule_and_false_extern)
{
    const char *fresh = target_copy("lowered");
    int rc;
    target_set_class(fresh, XL_ID, "lowered", 1);
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "class");
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "id"), XL_ID);
    cr_assert_str_eq(ej_str(c, "op"), "aten.index_add.default");
    cr_assert_str_eq(ej_str(c, "detail"), "conditional_fallback -> lowered (old rule: fallbacks_set; false extern: no -> yes)");
    cr_assert_str_eq(ej_str(c, "old_rule"), "fallbacks_set");
    cr_assert_eq(summary_count(report, "by_op", "op", "aten.index_add.default", "class"), 1);
    cr_assert_eq(summary_count(report, "by_model", "model", "hf/train/TinyXL", "class"), 1);
    cJSON_Delete(report);
}

Test(golden_diff, a_point_with_a_new_result_is_added)
{
    const char *fresh = target_copy("added");
    cJSON *doc = target_load(fresh, "baselines.json"), *scopes = cJSON_GetObjectItemCaseSensitive(doc, "scopes");
    cJSON *extra = cJSON_Duplicate(cJSON_GetArrayItem(scopes, 0), 1);
    const char *family = ej_str(extra, "family");
    char point[64];
    snprintf(point, sizeof point, "%s-000000000000", !strcmp(family, "routing_histc") ? "histc" : family);
    cJSON_ReplaceItemInObjectCaseSensitive(extra, "point", cJSON_CreateString(point));
    cJSON_AddItemToArray(scopes, extra);
    target_save(fresh, "baselines.json", doc);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "point_added"); /* the gate's ADDED result is that point, not another change */
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "point"), point);
    cJSON_Delete(report);
}

Test(golden_diff, a_point_no_longer_classified_or_measured_is_removed)
{
    const char *fresh = target_copy("removed");
    cJSON *doc = target_load(fresh, "classification.json"), *occ = cJSON_GetObjectItemCaseSensitive(doc, "occurrences");
    for (int i = cJSON_GetArraySize(occ) - 1; i >= 0; i--)
        if (!strcmp(ej_str(cJSON_GetArrayItem(occ, i), "id"), CAT_ID))
            cJSON_DeleteItemFromArray(occ, i);
    test_resummarize(doc);
    target_save(fresh, "classification.json", doc);
    target_drop_result(fresh, CAT_POINT);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "point_removed");
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "point"), CAT_POINT);
    cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "models"), 0)->valuestring,
                     "torchbench/infer/tinydense");
    cJSON_Delete(report);
}

/* The default run's first Triton step of capture scope in dir, grid x set to gx. */
static void set_grid(const char *dir, const char *scope, int gx)
{
    char file[512];
    snprintf(file, sizeof file, "captures/%s/capture.json", scope);
    cJSON *doc = target_load(dir, file), *run, *step;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs"))
        if (!strcmp(ej_str(run, "config"), "default"))
            cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(run, "steps"))
                if (!strcmp(ej_str(step, "kind"), "triton")) {
                    cJSON_SetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(step, "grid"), 0), gx);
                    break;
                }
    target_save(dir, file, doc);
}

Test(golden_diff, a_partition_whose_grid_changed)
{
    const char *fresh = target_copy("grid");
    set_grid(fresh, LF_CUMSUM_SCOPE, 7);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "partition");
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "scope"), LF_CUMSUM_SCOPE);
    cr_assert_str_eq(ej_str(c, "detail"), "default triton_red_fused_cumsum_ne_0: grid [2, 1, 1] -> [7, 1, 1]");
    cJSON_Delete(report);
}

Test(golden_diff, a_capture_that_no_longer_covers_an_occurrence_is_a_boundary_change)
{
    const char *fresh = target_copy("boundary");
    char file[512];
    snprintf(file, sizeof file, "captures/%s/capture.json", MOE_SCOPE);
    cJSON *doc = target_load(fresh, file), *covers = cJSON_GetObjectItemCaseSensitive(doc, "covers");
    for (int i = cJSON_GetArraySize(covers) - 1; i >= 0; i--)
        if (!strcmp(cJSON_GetArrayItem(covers, i)->valuestring, MOE_HISTC_ID))
            cJSON_DeleteItemFromArray(covers, i);
    target_save(fresh, file, doc);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "boundary");
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "detail"), "no longer covers " MOE_HISTC_ID);
    cJSON_Delete(report);
}

/* Result 0, path 0's time in dir's baselines scaled by f (same spread, another median). */
static void scale_time(const char *dir, double f)
{
    cJSON *doc = target_load(dir, "baselines.json");
    cJSON *t = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), 0), "paths"), 0),
        "time");
    const char *const keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (int i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keys[i]);
        cJSON_SetNumberValue(v, v->valuedouble * f);
    }
    target_save(dir, "baselines.json", doc);
}

Test(golden_diff, a_path_ten_percent_slower_is_a_timing_change_by_the_drift_rule)
{
    const char *fresh = target_copy("slower");
    scale_time(fresh, 1.10);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    const cJSON *c = only_change(report, "timing");
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(c, "status"), "SLOWER");
    has(ej_str(c, "detail"), "10.0% slower, tolerance 5.0%");
    cr_assert_float_eq(ej_num(cJSON_GetObjectItemCaseSensitive(report, "rule"), "margin"), 0.05, 1e-12);
    cJSON_Delete(report);
    /* within the rule's margin: no change */
    fresh = target_copy("within");
    scale_time(fresh, 1.02);
    report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 0);
    cJSON_Delete(report);
}

/* A stage's plan differs from the base's where its partition does: the partition changes list that, so the
 * gate's CONFIG entry is no timing change of its own. */
Test(golden_diff, a_plan_that_differs_is_no_timing_change)
{
    const char *fresh = target_copy("plan");
    cJSON *doc = target_load(fresh, "baselines.json");
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), 0),
                                                             "config"), "recaptured", "another partition");
    target_save(fresh, "baselines.json", doc);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "changes")), 0);
    cJSON_Delete(report);
}

Test(golden_diff, timings_of_another_gpu_model_are_not_compared_and_say_why)
{
    const char *fresh = target_copy("b200");
    target_set_string(fresh, "baselines.json", "gpu", "model", "B200");
    scale_time(fresh, 1.5);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 0);
    has(ej_str(report, "timings_note"), "refused, times compare only on one GPU model");
    cJSON_Delete(report);
}

/* dir's target.json made a partial stage of the one scope. */
static void make_partial(const char *dir, const char *scope)
{
    cJSON *doc = target_load(dir, "target.json");
    cJSON_AddItemToObject(doc, "scopes", cJSON_CreateStringArray((const char *const[]){scope}, 1));
    target_save(dir, "target.json", doc);
}

Test(golden_diff, a_partial_stage_compares_its_scopes_and_never_calls_the_rest_removed)
{
    const char *fresh = target_copy("partial");
    make_partial(fresh, XL_SCOPE);
    target_drop_result(fresh, CAT_POINT); /* outside the stage: not staged, not removed */
    cJSON *doc = target_load(fresh, "classification.json"), *occ = cJSON_GetObjectItemCaseSensitive(doc, "occurrences");
    for (int i = cJSON_GetArraySize(occ) - 1; i >= 0; i--)
        if (!strcmp(ej_str(cJSON_GetArrayItem(occ, i), "id"), CAT_ID))
            cJSON_DeleteItemFromArray(occ, i);
    test_resummarize(doc);
    target_save(fresh, "classification.json", doc);
    set_grid(fresh, LF_CUMSUM_SCOPE, 7); /* outside too: not compared */
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 0, "nothing inside the stage changed");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "summary"), "not_staged");
    cr_assert_eq((int)ej_num(ns, "points"), 1);
    cr_assert_eq((int)ej_num(ns, "occurrences"), 5);
    cJSON_Delete(report);
    target_set_class(fresh, XL_ID, "lowered", 1);
    report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(only_change(report, "class"), "id"), XL_ID);
    cJSON_Delete(report);
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, NULL);
    has(r.out, "partial stage of 1 scope(s)");
    has(r.out, "Not staged (outside the stage's scopes, not compared): 5 occurrence(s), 1 point(s)");
    cli_run_free(&r);
}

Test(golden_diff, markdown_and_json_are_stable_and_sorted)
{
    const char *fresh = target_copy("many"), *dir = test_tmpdir();
    target_set_class(fresh, XL_ID, "lowered", 1);
    set_grid(fresh, LF_CUMSUM_SCOPE, 3);
    scale_time(fresh, 0.8);
    char md[4200], md2[4200];
    snprintf(md, sizeof md, "%s/a.md", dir);
    snprintf(md2, sizeof md2, "%s/b.md", dir);
    cli_run a = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, "--markdown", md, NULL);
    cli_run b = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, "--markdown", md2, NULL);
    cr_assert_eq(a.status, 1, "%s", a.err);
    /* the same report; the last line names the file written */
    cr_assert_eq(strrchr(a.out, '\n') - a.out, strrchr(b.out, '\n') - b.out + (long)(strlen(md) - strlen(md2)));
    has(a.out, "golden diff: wrote ");
    cr_assert_eq(strncmp(a.out, b.out, (size_t)(strstr(a.out, "golden diff: wrote ") - a.out)), 0);
    char *ta = test_read(md), *tb = test_read(md2);
    cr_assert_str_eq(ta, tb);
    has(ta, "### Summary by op");
    has(ta, "| aten.index_add.default | 1 | 0 | 0 | 0 | 0 |");
    /* the summaries come first, then the changes in kind order */
    cr_assert_lt(strstr(ta, "### Summary by model") - ta, strstr(ta, "### Changes") - ta);
    cr_assert_lt(strstr(ta, "**class**") - ta, strstr(ta, "**partition**") - ta);
    cr_assert_lt(strstr(ta, "**partition**") - ta, strstr(ta, "**timing**") - ta);
    has(ta, "FASTER");
    cr_assert_null(strstr(ta, "--propose"), "the gate's advice does not apply to a stage");
    free(ta);
    free(tb);
    cli_run_free(&a);
    cli_run_free(&b);
}

Test(golden_diff, bad_input_exits_2_naming_the_file_and_json_path)
{
    const char *fresh = target_copy("bad");
    char path[4400];
    snprintf(path, sizeof path, "%s/classification.json", fresh);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"schema\": ", f);
    fclose(f);
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "classification.json:1:");
    cli_run_free(&r);
    fresh = target_copy("badtarget");
    target_set_string(fresh, "target.json", "", "name", "../escape");
    r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "target.json $.name: expected \"<gpu_model>-torch<torch>\" from the same file, got \"../escape\"");
    cli_run_free(&r);
    fresh = target_copy("scopes");
    cJSON *doc = target_load(fresh, "target.json");
    cJSON_AddItemToObject(doc, "scopes", cJSON_CreateStringArray((const char *const[]){XL_SCOPE, XL_SCOPE}, 2));
    target_save(fresh, "target.json", doc);
    r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "target.json $.scopes[1]: expected each scope once");
    cli_run_free(&r);
    r = test_cli("golden", "diff", FIXTURE_TARGET, "/nonexistent/stage", "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/nonexistent/stage: not a folder (expected a target folder"); /* as given, not .../target.json */
    cli_run_free(&r);
}

Test(golden_diff, usage)
{
    const char *const bad[][4] = {{"golden", NULL}, {"golden", "merge", NULL}, {"golden", "diff", FIXTURE_TARGET, NULL},
                                  {"golden", "diff", "--frobnicate", NULL}, {"golden", "accept", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_run r = test_cli(bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL);
        cr_assert_eq(r.status, 2, "case %zu", i);
        has(r.err, "see extern-audit help golden");
        cli_run_free(&r);
    }
    cli_run r = test_cli("help", "golden", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "golden diff OLD NEW");
    has(r.out, "golden accept STAGED");
    cli_run_free(&r);
    r = test_cli("golden", "diff", "--help", NULL);
    cr_assert_eq(r.status, 0);
    cli_run_free(&r);
}

/* dir's capture of scope, parsed (the caller saves it back with target_save(dir, file, doc)). */
static cJSON *capture_doc(const char *dir, const char *scope, char *file, size_t n)
{
    snprintf(file, n, "captures/%s/capture.json", scope);
    return target_load(dir, file);
}

static cJSON *run_named(cJSON *capture, const char *config)
{
    cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(capture, "runs"))
        if (!strcmp(ej_str(run, "config"), config))
            return run;
    cr_assert_fail("no run %s", config);
    return NULL;
}

Test(golden_diff, other_kernels_a_dropped_run_and_another_output_dtype_are_partition_and_boundary_changes)
{
    const char *fresh = target_copy("kernels");
    char file[512];
    cJSON *doc = capture_doc(fresh, XL_SCOPE, file, sizeof file), *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    cJSON *step = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run_named(doc, "default"), "steps"), 0);
    const char *was = ej_str(step, "kind");
    cr_assert_str_eq(was, "triton");
    cJSON_ReplaceItemInObjectCaseSensitive(step, "kernel", cJSON_CreateString("triton_poi_fused_other_0"));
    for (int i = cJSON_GetArraySize(runs) - 1; i >= 0; i--)
        if (!strncmp(ej_str(cJSON_GetArrayItem(runs, i), "config"), "probe_", 6))
            cJSON_DeleteItemFromArray(runs, i);
    cJSON *out0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "outputs"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(out0, "dtype", cJSON_CreateString("f32"));
    target_save(fresh, file, doc);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 1);
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(report, "changes");
    cr_assert_eq(cJSON_GetArraySize(changes), 2);
    const cJSON *part = cJSON_GetArrayItem(changes, 0), *bound = cJSON_GetArrayItem(changes, 1);
    cr_assert_str_eq(ej_str(part, "kind"), "partition");
    has(ej_str(part, "detail"), "default: kernels [triton_poi_fused_full_0, ");
    has(ej_str(part, "detail"), "] -> [triton_poi_fused_other_0, ");
    has(ej_str(part, "detail"), "run probe_f32 only in the old capture");
    cr_assert_str_eq(ej_str(bound, "kind"), "boundary");
    has(ej_str(bound, "detail"), "outputs [out0 bf16[");
    has(ej_str(bound, "detail"), "] -> [out0 f32[");
    cJSON_Delete(report);
}

Test(golden_diff, a_capture_on_one_side_only_is_a_partition_change)
{
    const char *fresh = target_copy("nocapture");
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -r '%s/captures/" CAT_SCOPE "'", fresh);
    cr_assert_eq(system(cmd), 0);
    int rc;
    cJSON *report = diff_json(fresh, &rc);
    cr_assert_eq(rc, 1);
    cr_assert_str_eq(ej_str(only_change(report, "partition"), "detail"), "captured in the old target only");
    cJSON_Delete(report);
    cli_run r = test_cli("golden", "diff", fresh, FIXTURE_TARGET, "--golden", FIXTURE_GOLDEN, NULL);
    cr_assert_eq(r.status, 1);
    has(r.out, "captured in the new target only");
    cli_run_free(&r);
}

Test(golden_diff, target_json_refusals)
{
    const char *const cases[][2] = {
        {"{\"scopes\": []}", "target.json $.scopes: expected the scope ids a partial stage captured"},
        {"{\"environment\": {\"gpu\": 1}}", "target.json $.environment.gpu: expected string, got number 1"},
        {"{\"lowering\": 3}", "target.json $.lowering: expected string, got number 3"},
        {"{\"extra\": 1}", "target.json $: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *fresh = target_copy("refusal");
        cJSON *doc = target_load(fresh, "target.json"), *add = cJSON_Parse(cases[i][0]);
        cr_assert_not_null(add);
        cJSON *item = add->child;
        cJSON_AddItemToObject(doc, item->string, cJSON_Duplicate(item, 1));
        cJSON_Delete(add);
        target_save(fresh, "target.json", doc);
        cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, fresh, "--golden", FIXTURE_GOLDEN, NULL);
        cr_assert_eq(r.status, 2, "case %zu", i);
        has(r.err, cases[i][1]);
        cli_run_free(&r);
    }
}

/* The shared parser (ea_cli_parse): --opt=VALUE, empty values and stray operands refused, options of
 * another subcommand unknown. */
Test(golden_diff, inline_values_and_refused_arguments)
{
    char md[4400];
    snprintf(md, sizeof md, "%s/diff.md", test_tmpdir());
    char *opt = malloc(strlen(md) + 16);
    sprintf(opt, "--markdown=%s", md);
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, FIXTURE_TARGET, "--golden=" FIXTURE_GOLDEN, opt, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    char *text = test_read(md);
    has(text, "golden diff");
    free(text);
    free(opt);
    cli_run_free(&r);
    const char *const bad[][6] = {
        {"diff", FIXTURE_TARGET, FIXTURE_TARGET, "--golden", "", "option '--golden' needs a non-empty value"},
        {"diff", FIXTURE_TARGET, FIXTURE_TARGET, "--markdown=", NULL, "option '--markdown' needs a non-empty value"},
        {"diff", FIXTURE_TARGET, FIXTURE_TARGET, FIXTURE_TARGET, NULL, "unexpected argument '" FIXTURE_TARGET "'"},
        {"diff", FIXTURE_TARGET, "", NULL, NULL, "unexpected argument ''"},
        {"accept", FIXTURE_TARGET, "--markdown", "x.md", NULL, "unknown option '--markdown'"},
        {"price", FIXTURE_TARGET, "--json=1", NULL, NULL, "option '--json' takes no value"},
        {"accept", FIXTURE_TARGET, "--target", "H200", NULL, "unknown option '--target'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = test_cli("golden", bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], NULL);
        cr_assert_eq(r.status, 2, "case %zu: %s", i, r.err);
        has(r.err, bad[i][5]);
        cli_run_free(&r);
    }
}
