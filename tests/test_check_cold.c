/* run --check-only, cold-cache timing and per-kernel durations, on the host: the check-only judgement
 * and document, the plan table, the cold timer's plan, the floor against cold times, the strict reader
 * of the new fields (and of documents without them), the kernel-duration record. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "measure/fractions.h"
#include "report/bottom_line.h"
#include "target/target.h"
#include "gpu/device.h"
#include "helpers.h"
#include "measure/path_impl.h"
#include "measure/path.h"
#include "measure/run_report.h"
#include "gpu/timer.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* A check-only path has one check to judge; any other path without its second check fails. */
Test(check_only, judge_reads_one_check_only_when_flagged)
{
    const ea_check good = {.rel_l2 = 1e-3, .n = 10}, bad = {.rel_l2 = 1e-3, .unwritten = 3, .n = 10};
    char why[128] = "";
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "check_only", 1);
    ea_path_check_json(j, "check", &good);
    cr_assert_eq(ea_path_judge(j, -1, 1, 1, why, sizeof why), 1, "%s", why);
    cJSON_Delete(j);
    j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "check_only", 1);
    ea_path_check_json(j, "check", &bad);
    cr_assert_eq(ea_path_judge(j, -1, 0, 0, why, sizeof why), 0);
    cr_assert_str_eq(why, "elements left holding the poison (never written)");
    cJSON_Delete(j);
    j = cJSON_CreateObject(); /* a timed path that lost its second check */
    ea_path_check_json(j, "check", &good);
    cr_assert_eq(ea_path_judge(j, -1, 0, 0, why, sizeof why), 0);
    cr_assert_str_eq(why, "elements unwritten after timing");
    cJSON_Delete(j);
}

static cJSON *result(const char *family, const char *alias, int passed, const char *paths)
{
    char text[2048];
    snprintf(text, sizeof text, "{\"family\": \"%s\", \"point\": \"p-%s\", \"alias\": \"%s\", \"paths\": [%s], "
                                "\"passed\": %s}",
             family, alias, alias, paths, passed ? "true" : "false");
    cJSON *r = cJSON_Parse(text);
    cr_assert_not_null(r, "%s", text);
    return r;
}

Test(check_only, document_totals_and_table)
{
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, result("index_add", "xlnet", 1,
                                         "{\"name\": \"current\", \"mode\": \"faithful\", \"kernels\": [\"fill\", "
                                         "\"copy\", \"index\"], \"check_only\": true, \"passed\": true},"
                                         "{\"name\": \"oracle\", \"mode\": \"faithful\", \"kernels\": [\"o\"], "
                                         "\"check_only\": true, \"passed\": true}"));
    cJSON_AddItemToArray(results, result("cat", "k25", 0,
                                         "{\"name\": \"oracle\", \"mode\": \"faithful\", \"kernels\": [], "
                                         "\"kernels_note\": \"CUPTI unavailable: under a sanitizer\", "
                                         "\"check_only\": true, \"passed\": false, \"failure\": \"outputs left "
                                         "unwritten\"}"));
    cJSON *doc = ea_run_check_doc(results, "extern-audit run --scope all --check-only", "NVIDIA H200");
    const cJSON *t = cJSON_GetObjectItem(doc, "totals");
    cr_assert_eq(cJSON_GetObjectItem(t, "results")->valueint, 2);
    cr_assert_eq(cJSON_GetObjectItem(t, "paths")->valueint, 3);
    cr_assert_eq(cJSON_GetObjectItem(t, "failed_paths")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(t, "kernels")->valueint, 4);
    cr_assert_eq(cJSON_GetObjectItem(t, "paths_without_kernels")->valueint, 1);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(doc, "passed")), "one failed result fails the document");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "check_only")));
    char *text = test_printed(ea_run_check_print, doc);
    has(text, "check only (NVIDIA H200): every path once on its inputs, checked, not timed\n");
    has(text, "index_add xlnet (p-xlnet): passed\n");
    has(text, "  current          faithful     3 kernels\n");
    has(text, "cat k25 (p-k25): FAILED\n");
    has(text, "0 kernels (CUPTI unavailable: under a sanitizer), FAILED: outputs left unwritten\n");
    has(text, "2 results, 3 paths, 1 failed; 4 kernels in the checked calls (1 paths without a CUPTI list)\n");
    free(text);
    cJSON_Delete(doc);
}

/* --plan prints the table unless --json; a plan or a check-only run records nothing, and says so. */
Test(check_only, cli_plan_table_and_refusals)
{
    cli_run r = test_cli("run", "--scope", "xlnet", "--plan", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(cJSON_Parse(r.out), "a table, not JSON");
    has(r.out, "index_add xlnet (index_add-a8e741bae3fe, 24 occurrences): floor 402.391 MB, 268.173 MB of it written; ");
    has(r.out, "  current (aten): fill (full) <<<");
    has(r.out, "indexFuncLargeIndex<bf16,i64,u32,2,2,-2,false> <<<");
    has(r.out, "  oracle variants: vec8 u");
    cli_run_free(&r);
    r = test_cli("run", "--scope", "routing", "--plan", "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "  topk_ids_skewed\n"); /* the four configurations of one point tell themselves apart */
    has(r.out, "  oracle variants: cluster: rt_oracle::route_kernel <<<8, 512>>>; per_expert: rt_oracle::expert_kernel "
               "<<<32, 512>>>\n");
    cli_run_free(&r);
    const char *refused[][6] = {
        {"run", "--scope", "all", "--plan", "--record", "/tmp/never.json"},
        {"run", "--scope", "all", "--check-only", "--record", "/tmp/never.json"},
        {"run", "--scope", "all", "--check-only", "--plan", NULL},
        /* a target's baselines are its own GPU's: another GPU's times never land in them */
        {"run", "--scope", "all", "--any-gpu", "--record", "/tmp/never.json"},
        {"run", "--scope", "all", "--any-gpu", "--keep-from", "golden/targets/" TEST_TARGET "/baselines.json"},
        {"run", "--scope", "all", "--any-gpu", "--plan", NULL},
    };
    const char *want[] = {"--record writes measured baselines; --plan measures no time, so it is refused",
                          "--record writes measured baselines; --check-only measures no time, so it is refused",
                          "--plan (no GPU, nothing run) and --check-only (run once, checked) exclude each other",
                          "--any-gpu measures on a GPU the target may not be for, so --record is refused: a "
                          "baselines file holds one GPU model's times",
                          "--any-gpu measures on a GPU the target may not be for, so --keep-from is refused: a "
                          "baselines file holds one GPU model's times",
                          "--any-gpu says where to measure; --plan measures nothing and needs no GPU"};
    for (int i = 0; i < 6; i++) {
        r = test_cli(refused[i][0], refused[i][1], refused[i][2], refused[i][3], refused[i][4], refused[i][5], NULL);
        cr_assert_eq(r.status, 2, "case %d", i);
        has(r.err, want[i]);
        cr_assert_str_eq(r.out, "", "nothing printed before the refusal");
        cli_run_free(&r);
    }
    r = test_cli("help", "run", NULL);
    has(r.out, "--check-only");
    has(r.out, "--any-gpu");
    cli_run_free(&r);
}

/* The cold flush: twice the L2, 8 blocks per multiprocessor; no L2 size is refused. */
Test(cold, flush_plan_and_policy)
{
    size_t bytes = 0;
    int grid = 0;
    ea_error err = {{0}};
    cr_assert_eq(ea_timer_flush_plan((size_t)60 << 20, 132, &bytes, &grid, &err), 0, "%s", err.msg);
    cr_assert_eq(bytes, (size_t)120 << 20);
    cr_assert_eq(grid, 1056);
    cr_assert_eq(ea_timer_flush_plan(0, 132, &bytes, &grid, &err), -1);
    has(err.msg, "expected the device's L2 size and multiprocessor count, got 0 bytes and 132");
    cr_assert_eq(ea_timer_flush_plan((size_t)1 << 20, 0, &bytes, &grid, &err), -1);
    ea_timing t = {.cache = EA_CACHE_COLD, .calls_per_replay = 40, .replays = 1, .warmup_ms = 100,
                   .l2_bytes = (size_t)60 << 20, .flush_bytes = (size_t)120 << 20, .ops_per_call = 2};
    ea_timer_describe(&t);
    has(t.policy, "from its flush's end (or its first start, if CUPTI stamped that earlier) to the end of the last of its 2 operations");
    has(t.policy, "no flush time, event resolution or host launch latency in it");
}

Test(cold, warm_and_cold_without_a_device)
{
    ea_device_info info;
    if (ea_device_probe(&info))
        cr_skip_test("CUDA device present: %s", info.reason);
    ea_timing warm, cold;
    ea_error err = {{0}};
    cr_assert_eq(ea_time_warm_cold(ea_enqueue_empty_kernel, NULL, NULL, &warm, &cold, &err), -1);
    has(err.msg, "timer:");
    cr_assert(warm.samples_us == NULL && cold.samples_us == NULL, "neither holds samples after a failure");
}

static const char *const TIME = "\"median_us\": %g, \"q1_us\": %g, \"q3_us\": %g, \"iqr_us\": 0.2, \"samples\": 30, "
                                "\"calls_per_replay\": 10%s";

/* A path with a warm time and, when cold_us > 0, a cold one. */
static cJSON *timed_path(const char *name, double warm_us, double cold_us)
{
    char t[512], c[512], text[2048];
    snprintf(t, sizeof t, TIME, warm_us, warm_us - 0.1, warm_us + 0.1, ""); /* iqr_us 0.2: what they give */
    snprintf(c, sizeof c, TIME, cold_us, cold_us - 0.1, cold_us + 0.1, ", \"operations\": 2");
    const char *check = "{\"rel_l2\": 0.001, \"max_abs\": 0.01, \"unwritten\": 0, \"mismatched\": 0}";
    snprintf(text, sizeof text, "{\"name\": \"%s\", \"mode\": \"faithful\", \"kernels\": [\"k\"], \"time\": {%s}, "
             "\"check\": %s, \"check_after_timing\": %s, \"passed\": true}", name, t, check, check);
    cJSON *p = cJSON_Parse(text);
    cr_assert_not_null(p);
    if (cold_us > 0) {
        snprintf(text, sizeof text, "{%s}", c);
        cJSON_AddItemToObject(p, "time_cold", cJSON_Parse(text));
    }
    return p;
}

static cJSON *cold_result(double bytes, double cur_cold, double orc_cold)
{
    char text[512];
    snprintf(text, sizeof text, "{\"family\": \"index_add\", \"point\": \"index_add-31177027c868\", \"alias\": "
             "\"longformer-b\", \"occurrences\": 24, \"scope_ids\": [], \"config\": {\"floor_bytes\": %.0f, "
             "\"notes\": []}, \"paths\": [], \"passed\": true}", bytes);
    cJSON *r = cJSON_Parse(text), *paths = cJSON_GetObjectItem(r, "paths");
    cJSON_AddItemToArray(paths, timed_path("current", 90, cur_cold));
    cJSON_AddItemToArray(paths, timed_path("oracle", 6, orc_cold));
    return r;
}

/* The floor bounds a cold call; the fractions are taken against the oracle's cold time when there is one. */
Test(cold, floor_fraction_against_the_cold_time)
{
    ea_run_env env = test_run_env();
    const double bytes = 31457280, floor_us = bytes / 4.0e12 * 1e6 + 1.5;
    cJSON *r = cold_result(bytes, 120, 10), *old = cold_result(bytes, 0, 0);
    /* another point: a document holds each result once */
    cJSON_ReplaceItemInObjectCaseSensitive(old, "point", cJSON_CreateString("index_add-a8e741bae3fe"));
    ea_run_annotate(r, r, &env, NULL, NULL, NULL);
    ea_run_annotate(old, old, &env, NULL, NULL, NULL);
    ea_figures x, o;
    ea_result_figures(r, &x);
    ea_result_figures(old, &o);
    cr_assert_float_eq(x.floor_fraction, floor_us / 10, 1e-12);
    cr_assert_float_eq(x.bandwidth_fraction, bytes / 10e-6 / 4.0e12, 1e-12);
    cr_assert_float_eq(x.speedup, 15, 1e-12, "warm: 90 / 6");
    cr_assert_float_eq(x.speedup_cold, 12, 1e-12, "cold: 120 / 10");
    cr_assert_eq(x.basis_cold, 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "floor")), 2, "the run's rate only: the rest is derived");
    /* without cold times (older files, a run before them): warm, as before, and said so */
    cr_assert_float_eq(o.floor_fraction, floor_us / 6, 1e-12);
    cr_assert_eq(o.basis_cold, 0);
    cr_assert(isnan(o.speedup_cold));
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, r);
    cJSON_AddItemToArray(results, old);
    cJSON *doc = ea_baseline_doc(results, &env);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    char *text = test_printed(test_baseline_table, doc);
    has(text, "  path                          median us   IQR us    cold us\n");
    has(text, "  oracle faithful                     6.0      0.2       10.0   rel L2");
    has(text, "  oracle faithful                     6.0      0.2          -   rel L2");
    has(text, "speedup 15.00x (cold 12.00x), oracle at ");
    has(text, "of copy bandwidth; cold)");
    has(text, "  floor: the scope's bytes fit in L2: against the warm times the copy-bandwidth floor is a reference, not "
              "a bound; the fractions are taken against the cold time, which it bounds\n");
    has(text, "  floor: the scope's bytes fit in L2 and the replays are warm: the copy-bandwidth floor is a reference, "
              "not a bound (a fraction above 1 is possible)\n");
    has(text, "of copy bandwidth; warm)");
    free(text);
    /* audit's table (docs/results.md's): warm and cold side by side, the floor fraction's basis named */
    ea_target t = {.name = "H200-torch2.11.0+cu130"};
    snprintf(t.dir, sizeof t.dir, "%s", test_tmpdir());
    char *json = cJSON_Print(doc), *table = NULL;
    free(test_write(t.dir, "baselines.json", json));
    size_t len = 0;
    FILE *f = open_memstream(&table, &len);
    cr_assert_eq(ea_bottom_line(&t, NULL, f, &err), 0, "%s", err.msg);
    fclose(f);
    has(table, "current  oracle  cur cold  orc cold  floor  speedup  floor%  of\n");
    has(table, "    90.00    6.00    120.00     10.00 ");
    has(table, "%  cold\n");
    has(table, "    90.00    6.00         -         - ");
    has(table, "%  warm\n");
    free(table);
    free(json);
    cJSON_Delete(doc);
}

/* The reader takes time_cold, kernel_launches and the new result fields, and is strict about them. */
Test(cold, reader_is_strict_about_the_new_fields)
{
    ea_run_env env = test_run_env();
    cJSON *r = cold_result(1e9, 120, 10), *results = cJSON_CreateArray();
    ea_run_annotate(r, r, &env, NULL, NULL, NULL);
    cJSON *orc = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "paths"), 1);
    cJSON_AddItemToObject(orc, "kernel_launches",
                          cJSON_Parse("[{\"name\": \"k\", \"grid\": [9216, 1, 1], \"block\": [128, 1, 1], "
                                      "\"shared_bytes\": 0, \"median_us\": 5.9, \"min_us\": 5.8, \"max_us\": 6.1, "
                                      "\"calls\": 5}]"));
    cJSON_AddItemToArray(results, r);
    cJSON *doc = ea_baseline_doc(results, &env);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cJSON *launch = cJSON_GetArrayItem(cJSON_GetObjectItem(orc, "kernel_launches"), 0);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(launch, "grid"), 0, cJSON_CreateNumber(1.5));
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "mem $.scopes[0].paths[1].kernel_launches[0].grid[0]: expected");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(launch, "grid"), 0, cJSON_CreateNumber(9216));
    cJSON_AddStringToObject(launch, "bytes", "many");
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "kernel_launches[0].bytes");
    cJSON_ReplaceItemInObject(launch, "bytes", cJSON_CreateNumber(4096));
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    /* durations are times (positive, below EJ_MAX_TIME_US, min <= median <= max), counts integers (the campaign's
     * numbers: -5, 2^53 + 1, 1e308, 2^63) */
    static const struct {
        const char *key;
        double bad, good;
        const char *want;
    } cases[] = {
        {"min_us", -5, 5.8, "kernel_launches[0].min_us: expected a time in us above 0 and below 1e9, got -5"},
        {"min_us", 9007199254740993.0, 5.8, "kernel_launches[0].min_us: expected a time in us above 0"},
        {"max_us", 1e308, 6.1, "kernel_launches[0].max_us: expected a time in us above 0"},
        {"median_us", 6.2, 5.9, "kernel_launches[0].max_us: expected at least median_us, got 6.1"},
        {"median_us", 5.7, 5.9, "kernel_launches[0].median_us: expected at least min_us, got 5.7"},
        {"calls", 0, 5, "kernel_launches[0].calls: expected an integer >= 1, got 0"},
        {"calls", 9223372036854775808.0, 5, "kernel_launches[0].calls: expected"},
        {"shared_bytes", -5, 0, "kernel_launches[0].shared_bytes: expected an integer >= 0, got -5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON_ReplaceItemInObject(launch, cases[i].key, cJSON_CreateNumber(cases[i].bad));
        cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0, "%s %g accepted", cases[i].key, cases[i].bad);
        has(err.msg, cases[i].want);
        cJSON_ReplaceItemInObject(launch, cases[i].key, cJSON_CreateNumber(cases[i].good));
    }
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cJSON_DeleteItemFromObject(launch, "median_us");
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "kernel_launches[0].median_us");
    cJSON_DeleteItemFromObject(orc, "kernel_launches");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(orc, "time_cold"), "operations");
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "mem $.scopes[0].paths[1].time_cold.operations: expected integer");
    cJSON_AddNumberToObject(cJSON_GetObjectItem(orc, "time_cold"), "operations", 2);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(orc, "time_cold"), "q3_us");
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "mem $.scopes[0].paths[1].time_cold.q3_us: expected finite number");
    cJSON_DeleteItemFromObject(orc, "time_cold");
    cJSON_AddNumberToObject(orc, "time_cold_note", 3);
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "mem $.scopes[0].paths[1].time_cold_note: expected");
    cJSON_ReplaceItemInObject(orc, "time_cold_note", cJSON_CreateString("no cold time: CUPTI not found"));
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "a path without cold time says why: %s", err.msg);
    cJSON_DeleteItemFromObject(orc, "time_cold_note");
    cJSON_AddNumberToObject(orc, "kernel_launches_note", 3);
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "kernel_launches_note");
    cJSON_DeleteItemFromObject(orc, "kernel_launches_note");
    /* schema 3 derives the speedups and fractions (fractions.h): a stored one is refused, never read */
    cJSON_AddStringToObject(r, "fraction_basis", "time");
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "$.scopes[0]: unknown key 'fraction_basis'");
    cJSON_DeleteItemFromObject(r, "fraction_basis");
    cJSON_AddNumberToObject(r, "speedup_cold", 2);
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "$.scopes[0]: unknown key 'speedup_cold'");
    cJSON_DeleteItemFromObject(r, "speedup_cold");
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
}

/* Per-kernel durations over equal calls: a median per position; calls that ran other kernels, or lost
 * records, give a note instead. */
Test(cold, kernel_launches_from_equal_calls)
{
    ea_kernel_record recs[6] = {
        {.name = "fill", .duration_ns = 2000, .grid = {4608, 1, 1}, .block = {256, 1, 1}},
        {.name = "_ZN7ia_aten19indexFuncLargeIndexILi2EEEvPfi", .duration_ns = 100000, .grid = {1056, 1, 1},
         .block = {128, 1, 1}, .static_shared = 16, .dynamic_shared = 32},
        {.name = "fill", .duration_ns = 3000},
        {.name = "_ZN7ia_aten19indexFuncLargeIndexILi2EEEvPfi", .duration_ns = 90000},
        {.name = "fill", .duration_ns = 4000},
        {.name = "_ZN7ia_aten19indexFuncLargeIndexILi2EEEvPfi", .duration_ns = 95000},
    };
    ea_kernel_list seen = {recs, 6, 0};
    cJSON *j = cJSON_CreateObject();
    ea_path_launches_json(j, &seen, 3);
    const cJSON *l = cJSON_GetObjectItem(j, "kernel_launches");
    cr_assert_eq(cJSON_GetArraySize(l), 2);
    const cJSON *fill = cJSON_GetArrayItem(l, 0), *idx = cJSON_GetArrayItem(l, 1);
    cr_assert_str_eq(cJSON_GetObjectItem(fill, "name")->valuestring, "fill");
    cr_assert_float_eq(cJSON_GetObjectItem(fill, "median_us")->valuedouble, 3.0, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(fill, "min_us")->valuedouble, 2.0, 1e-12);
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(fill, "grid"), 0)->valueint, 4608);
    cr_assert_str_eq(cJSON_GetObjectItem(idx, "name")->valuestring, "void ia_aten::indexFuncLargeIndex<2>");
    cr_assert_float_eq(cJSON_GetObjectItem(idx, "median_us")->valuedouble, 95.0, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(idx, "max_us")->valuedouble, 100.0, 1e-12);
    cr_assert_eq(cJSON_GetObjectItem(idx, "shared_bytes")->valueint, 48);
    cr_assert_eq(cJSON_GetObjectItem(idx, "calls")->valueint, 3);
    cr_assert_null(cJSON_GetObjectItem(idx, "bytes"), "a kernel has no byte count");
    cJSON_Delete(j);
    ea_kernel_record copies[2] = {{.name = "Memcpy DtoD", .kind = EA_RECORD_COPY, .bytes = 18874368,
                                   .duration_ns = 9000},
                                  {.name = "Memcpy DtoD", .kind = EA_RECORD_COPY, .bytes = 18874368,
                                   .duration_ns = 11000}};
    ea_kernel_list two = {copies, 2, 0};
    j = cJSON_CreateObject();
    ea_path_launches_json(j, &two, 2);
    const cJSON *copy = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernel_launches"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(copy, "name")->valuestring, "Memcpy DtoD");
    cr_assert_float_eq(cJSON_GetObjectItem(copy, "bytes")->valuedouble, 18874368, 0.5);
    cr_assert_float_eq(cJSON_GetObjectItem(copy, "median_us")->valuedouble, 10.0, 1e-12);
    cJSON_Delete(j);
    recs[4].name = "other";
    j = cJSON_CreateObject();
    ea_path_launches_json(j, &seen, 3);
    cr_assert_null(cJSON_GetObjectItem(j, "kernel_launches"));
    has(cJSON_GetObjectItem(j, "kernel_launches_note")->valuestring, "CUPTI saw 6 kernels over 3 calls");
    cJSON_Delete(j);
    recs[4].name = "fill";
    seen.dropped = 1;
    j = cJSON_CreateObject();
    ea_path_launches_json(j, &seen, 3);
    has(cJSON_GetObjectItem(j, "kernel_launches_note")->valuestring, "and dropped records");
    cJSON_Delete(j);
    seen = (ea_kernel_list){recs, 5, 0}; /* not a whole number of calls */
    j = cJSON_CreateObject();
    ea_path_launches_json(j, &seen, 3);
    cr_assert_not_null(cJSON_GetObjectItem(j, "kernel_launches_note"));
    cJSON_Delete(j);
    cJSON *p = timed_path("oracle", 6, 11);
    cr_assert_float_eq(ea_path_median_cold(p), 11, 1e-12);
    cr_assert(isnan(ea_path_median_cold(NULL)));
    cJSON_Delete(p);
}
