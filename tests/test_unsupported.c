/* A point its family refuses does not stop `run`: it is reported "unsupported" with the family's
 * reason, in the plan, the baselines document (read strictly) and the table, the other points run,
 * and the exit status is 1. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "report/bottom_line.h"
#include "measure/run_report.h"
#include "gpu/device.h"
#include "helpers.h"
#include "base/json.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* A copy of golden/ (occurrences and the target) whose routing histc point routes over 128 experts: the parse and the plan accept
 * the shape, the committed capture (32 experts) cannot run it, so the family refuses the point. */
static const char *golden_with_128_experts(void)
{
    const char *dir = test_tmpdir();
    char cmd[1024], file[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/targets && cp -r golden/occurrences %s/ && cp -r golden/targets/" TEST_TARGET
             " %s/targets/", dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(file, sizeof file, "%s/occurrences/histc.json", dir);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s", err.msg);
    cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItem(d.root, "points"), 0), *n;
    cJSON *der = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"),
                                                                           "value_properties"), 0), "derived");
    cJSON_ReplaceItemInObject(der, "experts", cJSON_CreateNumber(128));
    cJSON_ReplaceItemInObject(der, "range", cJSON_CreateIntArray((const int[]){0, 127}, 2));
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"),
                                                                                      0), "scope"), "nodes"))
        if (!strcmp(cJSON_GetObjectItem(n, "op")->valuestring, "aten.histc.default")) {
            cJSON_ReplaceItemInArray(cJSON_GetObjectItem(n, "args"), 1, cJSON_CreateNumber(128));
            cJSON_ReplaceItemInArray(cJSON_GetObjectItem(n, "args"), 3, cJSON_CreateNumber(127));
        }
    cr_assert_eq(ej_write_atomic(file, d.root, &err), 0, "%s", err.msg);
    ej_free(&d);
    return dir;
}

Test(unsupported, plan_reports_the_refused_point_and_goes_on)
{
    const char *dir = golden_with_128_experts();
    cli_run t = test_cli("run", "--scope", "all", "--plan", "--golden", dir, NULL);
    cr_assert_eq(t.status, 1, "an unsupported point: exit 1\n%s", t.err);
    has(t.out, "routing_histc routing (histc-5eac6acf8c20): UNSUPPORTED: ");
    has(t.out, "cat ");
    cli_run_free(&t);
    cli_run r = test_cli("run", "--scope", "all", "--plan", "--json", "--golden", dir, NULL);
    cr_assert_eq(r.status, 1, "an unsupported point: exit 1\n%s", r.err);
    has(r.err, "occurrences/histc.json $.points[0]: unsupported: ");
    cJSON *j = cJSON_Parse(r.out), *o;
    cr_assert_not_null(j, "the plan is still printed");
    int unsupported = 0, planned = 0, cat = 0, cumsum_routing = 0;
    cJSON_ArrayForEach(o, j) {
        const cJSON *why = cJSON_GetObjectItem(o, "unsupported");
        const char *family = cJSON_GetObjectItem(o, "family")->valuestring;
        if (why) {
            unsupported++;
            cr_assert_str_eq(family, "routing_histc");
            cr_assert_str_eq(cJSON_GetObjectItem(o, "alias")->valuestring, "routing");
            cr_assert_str_eq(cJSON_GetObjectItem(o, "point")->valuestring, "histc-5eac6acf8c20");
            cr_assert_eq(cJSON_GetObjectItem(o, "occurrences")->valueint, 24);
            cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "scope_ids")), 1);
            cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "passed")));
            has(why->valuestring, "capture.json $.outputs[2]: expected a contiguous i32[128]");
        } else {
            planned++;
            cat += !strcmp(family, "cat");
            cumsum_routing += !strcmp(family, "routing_cumsum");
        }
    }
    cr_assert_eq(unsupported, 1);
    cr_assert_eq(cat, 62, "every cat point after the refused one still planned");
    cr_assert_eq(cumsum_routing, 4, "the routing cumsum point (still 32 experts) plans its four configurations");
    cr_assert_gt(planned, 62);
    cJSON_Delete(j);
    cli_run_free(&r);
    /* measured: on a GPU the table says why and the exit is 1; without one, or on a GPU no target is for (dir's is
     * the committed one), the run exits 2 before any point */
    ea_device_info info;
    char why[512];
    const int present = ea_device_probe(&info), other_gpu = test_gpu_without_target(why, sizeof why);
    r = test_cli("run", "--scope", "routing", "--golden", dir, NULL);
    cr_assert_eq(r.status, present && !other_gpu ? 1 : 2, "%s", r.err);
    if (present && !other_gpu)
        has(r.out, "routing_histc routing (histc-5eac6acf8c20, 24 occurrences)\n  UNSUPPORTED: ");
    else
        has(r.err, present ? "no target for this machine's " : "no CUDA device");
    cli_run_free(&r);
}

static cJSON *unsupported_result(void)
{
    return cJSON_Parse("{\"family\": \"cat\", \"point\": \"cat-0123456789ab\", \"alias\": \"densenet201-infer\","
                       " \"occurrences\": 1, \"scope_ids\": [\"cat-0123456789ab-0123456789ab\"],"
                       " \"unsupported\": \"cat.json $.points[3].signature.args[0][0].dtype: expected \\\"bf16\\\"\","
                       " \"passed\": false}");
}

static cJSON *doc_with(cJSON *result)
{
    ea_run_env env = {.sm_count = 132, .l2_bytes = 1, .memory_bytes = 1, .copy_bytes = 1, .kernel_bytes_per_s = 4e12,
                      .memcpy_bytes_per_s = 3e12, .launch_us = 1.5};
    snprintf(env.command, sizeof env.command, "extern-audit run --scope all");
    snprintf(env.gpu, sizeof env.gpu, "NVIDIA H200");
    snprintf(env.model, sizeof env.model, "H200");
    snprintf(env.capability, sizeof env.capability, "9.0");
    snprintf(env.driver, sizeof env.driver, "580.159.04");
    snprintf(env.toolkit, sizeof env.toolkit, "13.0");
    env.calls_per_replay = 3;
    env.replays = 30;
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, result);
    return ea_baseline_doc(results, &env);
}

Test(unsupported, baselines_document_table_and_strict_reader)
{
    cJSON *doc = doc_with(unsupported_result());
    ea_error err;
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "passed")), "an unsupported point fails the run");
    cr_assert_eq(ea_baseline_validate("H200.json", doc, &err), 0, "%s", err.msg);
    char *text = test_print_to_string(test_baseline_table, doc);
    has(text, "cat densenet201-infer (cat-0123456789ab, 1 occurrences)\n  UNSUPPORTED: cat.json $.points[3]");
    free(text);
    cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0);
    cJSON_ReplaceItemInObject(s, "passed", cJSON_CreateTrue());
    cr_assert_neq(ea_baseline_validate("H200.json", doc, &err), 0);
    has(err.msg, "H200.json $.scopes[0].passed: expected false (an unsupported point did not run), got true");
    cJSON_ReplaceItemInObject(s, "passed", cJSON_CreateFalse());
    cJSON_AddItemToObject(s, "paths", cJSON_CreateArray());
    cr_assert_neq(ea_baseline_validate("H200.json", doc, &err), 0);
    has(err.msg, "H200.json $.scopes[0]");
    has(err.msg, "paths");
    cJSON_DeleteItemFromObject(s, "paths");
    cJSON_ReplaceItemInObject(s, "unsupported", cJSON_CreateNumber(3));
    cr_assert_neq(ea_baseline_validate("H200.json", doc, &err), 0);
    has(err.msg, "H200.json $.scopes[0].unsupported");
    cJSON_Delete(doc);
}

/* Every report that lists results says UNSUPPORTED and the family's reason, never nan or a bare FAILED:
 * run --check-only's table (what ci/gpu-sanitize keeps) and audit's bottom line over a baselines file. */
Test(unsupported, check_only_table_and_bottom_line_name_the_reason)
{
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, unsupported_result());
    cJSON *doc = ea_run_check_doc(results, "extern-audit run --check-only", "NVIDIA H200");
    char *text = test_print_to_string(ea_run_check_print, doc);
    has(text, "cat densenet201-infer (cat-0123456789ab): UNSUPPORTED: cat.json $.points[3]");
    free(text);
    cJSON_Delete(doc);

    ea_target t = {.name = "H200-torch2.11.0+cu130"};
    char file[4200];
    snprintf(t.dir, sizeof t.dir, "%s", test_tmpdir());
    snprintf(file, sizeof file, "%s/baselines.json", t.dir);
    doc = doc_with(unsupported_result());
    ea_error err;
    cr_assert_eq(ej_write_atomic(file, doc, &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert_eq(ea_bottom_line(&t, NULL, f, &err), 0, "%s", err.msg);
    fclose(f);
    has(out, "UNSUPPORTED: cat.json $.points[3]");
    cr_assert_null(strstr(out, "nan"), "%s", out);
    free(out);
}
