/* extern-audit run's baselines document without a GPU (annotation, strict reader, atomic write, table) on a
 * synthetic result; the command line is test_run_cli.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "measure/fractions.h"
#include "gpu/device.h"
#include "helpers.h"
#include "measure/repro.h"
#include "base/json.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* A path's time moved to median m, its quartiles 1% either side (the reader checks they bracket it). */
static void set_median(cJSON *path, double m)
{
    cJSON *t = cJSON_GetObjectItem(path, "time");
    const char *keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    const double v[] = {m, 0.99 * m, 1.01 * m, 0.02 * m};
    for (int i = 0; i < 4; i++)
        cJSON_ReplaceItemInObject(t, keys[i], cJSON_CreateNumber(v[i]));
}

/* A document holds each result once (its family, point and config): results after the first get their index in
 * their config, and keep their point, which the torch-ops file is read by. */
static void one_each(cJSON *const *results, int n)
{
    for (int i = 1; i < n; i++)
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(results[i], "config"), "result", i);
}

/* A result as a family returns it, for the host half of the run. */
static cJSON *synthetic_result(void)
{
    const char *text =
        "{\"family\": \"index_add\", \"point\": \"index_add-31177027c868\", \"alias\": \"longformer-b\","
        " \"occurrences\": 24, \"scope_ids\": [\"index_add-31177027c868-335f7d6b05cb\"],"
        " \"config\": {\"dim\": 0, \"floor_bytes\": 31457280, \"notes\": []},"
        " \"paths\": ["
        "  {\"name\": \"current\", \"mode\": \"faithful\", \"kernels\": [\"k\"], \"time\": {\"median_us\": 96,"
        "   \"q1_us\": 95, \"q3_us\": 97, \"iqr_us\": 2, \"samples\": 30, \"calls_per_replay\": 11},"
        "   \"check\": {\"rel_l2\": 0.002, \"max_abs\": 0.01, \"unwritten\": 0,"
        "   \"mismatched\": 0}, \"check_after_timing\": {\"rel_l2\": 0.002, \"max_abs\": 0.01, \"unwritten\": 0,"
        "   \"mismatched\": 0}, \"passed\": true},"
        "  {\"name\": \"oracle\", \"mode\": \"faithful\", \"kernels\": [], \"kernels_note\": \"CUPTI unavailable\","
        "   \"time\": {\"median_us\": 9.6, \"q1_us\": 9.5, \"q3_us\": 9.7, \"iqr_us\": 0.2, \"samples\": 30,"
        "   \"calls_per_replay\": 100}, \"check\": {\"rel_l2\": 0.001, \"max_abs\": 0.01,"
        "   \"unwritten\": 0, \"mismatched\": 0}, \"check_after_timing\": {\"rel_l2\": 0.001, \"max_abs\": 0.01,"
        "   \"unwritten\": 0, \"mismatched\": 0}, \"passed\": false, \"failure\": \"for the table\","
        "   \"variant\": \"staged\"}],"
        " \"passed\": true}";
    cJSON *r = cJSON_Parse(text);
    cr_assert_not_null(r);
    return r;
}

Test(run, annotate_floor_speedup_fidelity_class)
{
    cJSON *r = synthetic_result(),
          *point = cJSON_Parse("{\"scopes\": [{\"scope_id\": \"index_add-31177027c868-335f7d6b05cb\"}]}");
    cJSON *cls = cJSON_Parse("{\"occurrences\": [{\"point\": \"index_add-31177027c868\", \"class\": "
                             "\"conditional_fallback\"}, {\"point\": \"index_add-31177027c868\", \"class\": "
                             "\"unclassified\"}, {\"point\": \"other\", \"class\": \"lowered\"}]}");
    ea_run_env env = test_run_env();
    cr_assert_str_eq(env.model, "H200");
    ea_capture_run run = {.config = "default", .eager = {.median_us = 100, .samples = 30}};
    const char *covers[] = {"hf/train/AllenaiLongformerBase/full_graph_003:index_add"};
    ea_capture cap = {.scope = "index_add-31177027c868-335f7d6b05cb", .covers = covers, .ncovers = 1,
                      .environment = cJSON_Parse("{\"torch\": \"2.11.0+cu130\"}"), .runs = &run, .nruns = 1};
    ea_captures caps = {&cap, 1, ""};
    ea_run_annotate(r, point, &env, &caps, NULL, cls);
    cr_assert_str_eq(cJSON_GetObjectItem(r, "class")->valuestring, "mixed: conditional_fallback, unclassified");
    const cJSON *fl = cJSON_GetObjectItem(r, "floor"), *fid = cJSON_GetObjectItem(r, "fidelity");
    double floor_us = 31457280 / 4.0e12 * 1e6 + 1.5;
    ea_figures x;
    ea_result_figures(r, &x);
    cr_assert_float_eq(x.floor_us, floor_us, 1e-9);
    cr_assert_eq(cJSON_GetArraySize(fl), 2, "the run's copy rate and launch: the rest is derived (fractions.h)");
    cr_assert_float_eq(x.speedup, 10.0, 1e-9);
    cr_assert_float_eq(x.floor_fraction, floor_us / 9.6, 1e-9);
    cr_assert_null(cJSON_GetObjectItem(r, "speedup"), "derived when read, not stored");
    cr_assert_float_eq(cJSON_GetObjectItem(fid, "ratio")->valuedouble, 0.96, 1e-9);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(fid, "within_tolerance")));
    cr_assert_str_eq(cJSON_GetObjectItem(fid, "torch")->valuestring, "2.11.0+cu130");
    /* no capture: said so; no classification: unclassified */
    /* a capture of a larger partition (it also builds the index): the ratio, flagged not comparable */
    ea_capture_step steps[3] = {{.triton = 1, .kernel = "triton_poi_fused_full_0"},
                                {.triton = 1, .kernel = "triton_poi_fused_iota_1"},
                                {.triton = 0, .call = "torch.ops.aten.index_add.default"}};
    run.steps = steps;
    run.nsteps = 3;
    cJSON *sig = cJSON_Parse("{\"scopes\": [{\"scope_id\": \"index_add-31177027c868-335f7d6b05cb\"}], "
                             "\"signature\": {\"op\": \"aten.index_add.default\"}}");
    cJSON *r3 = synthetic_result();
    ea_run_annotate(r3, sig, &env, &caps, NULL, NULL);
    const cJSON *f3 = cJSON_GetObjectItem(r3, "fidelity");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(f3, "comparable")));
    cr_assert_null(cJSON_GetObjectItem(f3, "within_tolerance"));
    cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(f3, "capture_extra_steps"), 0)->valuestring,
                     "triton_poi_fused_iota_1");
    cJSON_Delete(sig);
    cJSON *r2 = synthetic_result();
    ea_run_annotate(r2, point, &env, NULL, NULL, NULL);
    cr_assert_str_eq(cJSON_GetObjectItem(r2, "class")->valuestring, "unclassified");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r2, "fidelity"), "note")->valuestring, "fidelity_no_capture");
    cJSON *results = cJSON_CreateArray();
    one_each((cJSON *[]){r, r2, r3}, 3);
    cJSON_AddItemToArray(results, r);
    cJSON_AddItemToArray(results, r2);
    cJSON_AddItemToArray(results, r3);
    cJSON *doc = ea_baseline_doc(results, &env);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "torch")->valuestring, "2.11.0+cu130");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ea_baseline_print(doc, NULL, f);
    fclose(f);
    has(text, "index_add longformer-b (index_add-31177027c868, 24 occurrences, class mixed");
    has(text, "speedup 10.00x");
    has(text, "fidelity 0.96 (torch 2.11.0+cu130 eager 100.0 us, within 15%)");
    has(text, "fidelity: no capture");
    has(text, "replica / torch eager 0.96 (100.0 us), not comparable: the capture times a larger partition");
    has(text, "FAILED for the table");
    has(text, "oracle faithful [staged]");
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(cls);
    cJSON_Delete(point);
    cJSON_Delete((cJSON *)cap.environment);
}

/* A replay of Inductor's kernels in another form than the capture's: the ratio names the compiled time it
 * divides by, never an eager time the result does not hold (it printed "torch eager 0.93 (nan us)"). */
Test(run, a_not_comparable_ratio_names_the_torch_time_it_is_against)
{
    cJSON *doc = cJSON_Parse(
        "{\"gpu\": {\"name\": \"H200\"}, \"scopes\": [{\"family\": \"routing\", \"alias\": \"routing\", \"point\": \"p\","
        " \"occurrences\": 24, \"class\": \"true_fallback\", \"paths\": [], \"floor\": {}, \"speedup\": 2,"
        " \"fidelity\": {\"capture\": \"captures/s/capture.json\", \"mode\": \"faithful\", \"torch_compiled_us\": 20,"
        " \"replica_us\": 18.6, \"ratio\": 0.93, \"comparable\": false, \"note\": \"fidelity_capture_not_comparable\"}}]}");
    char *text = test_print_to_string(test_baseline_table, doc);
    has(text, "capture replica / torch compiled 0.93 (20.0 us), not comparable: another form of the scope");
    cr_assert_null(strstr(text, "(nan us)"), "%s", text);
    free(text);
    cJSON_Delete(doc);
}

/* Measured on another GPU than the target's (run --any-gpu): the fidelity says so, the captured times the view
 * quotes beside this run's are gone at every depth, and this run's own figures stay; the table says why. */
Test(run, a_result_on_another_gpu_keeps_no_captured_time)
{
    cJSON *doc = cJSON_Parse(
        "{\"gpu\": {\"name\": \"H100\"}, \"scopes\": [{\"family\": \"cumsum\", \"alias\": \"a\", \"point\": \"p\","
        " \"occurrences\": 1, \"class\": \"lowered\", \"paths\": [], \"floor\": {}, \"speedup\": 2,"
        " \"fidelity\": {\"capture\": \"captures/s/capture.json\", \"torch_compiled_us\": 20, \"ratio\": 0.9},"
        " \"view\": {\"torch_compiled_us\": 20, \"torch_eager_us\": 30, \"replay\": {\"median_us\": 18,"
        " \"torch_compiled_us\": 20, \"outputs\": 2}}}]}");
    cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), 0), *none = cJSON_CreateObject();
    ea_result_on_other_gpu(r);
    char *view = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "view"));
    cr_assert_str_eq(view, "{\"replay\":{\"median_us\":18,\"outputs\":2}}");
    char *fid = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "fidelity"));
    cr_assert_str_eq(fid, "{\"capture\":null,\"note\":\"fidelity_other_gpu\"}");
    char *text = test_print_to_string(test_baseline_table, doc);
    has(text, "fidelity: none: measured on another GPU model than the target's (run --any-gpu)");
    ea_result_on_other_gpu(none); /* a result without fidelity or view gets the note */
    has(ej_text(cJSON_GetObjectItemCaseSensitive(none, "fidelity"), "note"), "fidelity_other_gpu");
    free(text);
    free(fid);
    free(view);
    cJSON_Delete(none);
    cJSON_Delete(doc);
}

Test(run, baselines_written_atomically_and_read_strictly)
{
    ea_run_env env = test_run_env();
    cJSON *results = cJSON_CreateArray(), *r = synthetic_result();
    ea_run_annotate(r, r, &env, NULL, NULL, NULL);
    cJSON_AddItemToArray(results, r);
    cJSON *doc = ea_baseline_doc(results, &env);
    char path[512];
    snprintf(path, sizeof path, "%s/H200.json", test_tmpdir());
    ea_error err;
    cr_assert_eq(ej_write_atomic(path, doc, &err), 0, "%s", err.msg);
    ej_doc back;
    cr_assert_eq(ej_load(path, &back, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_baseline_validate(path, back.root, &err), 0, "%s", err.msg);
    cr_assert(cJSON_Compare(doc, back.root, 1));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(back.root, "torch")));
    ej_free(&back);
    cJSON_ReplaceItemInObject(doc, "schema_version", cJSON_CreateNumber(4));
    cr_assert_neq(ea_baseline_validate(path, doc, &err), 0);
    has(err.msg, "$.schema_version: expected 3, got 4");
    cJSON_ReplaceItemInObject(doc, "schema_version", cJSON_CreateNumber(2));
    cr_assert_neq(ea_baseline_validate(path, doc, &err), 0);
    has(err.msg, "$.schema_version: expected 3, got 2: a baselines file of schema 2 (derived numbers and copies stored "
                 "in it); run `extern-audit golden migrate`");
    cJSON_ReplaceItemInObject(doc, "schema_version", cJSON_CreateNumber(3));
    cJSON *path0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0),
                                                          "paths"), 0);
    cJSON_AddNumberToObject(path0, "surprise", 1);
    cr_assert_neq(ea_baseline_validate(path, doc, &err), 0);
    has(err.msg, "$.scopes[0].paths[0]: unknown key 'surprise'");
    cJSON_DeleteItemFromObject(path0, "surprise");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(path0, "time"), "median_us");
    cr_assert_neq(ea_baseline_validate(path, doc, &err), 0);
    has(err.msg, "$.scopes[0].paths[0].time.median_us: expected finite number");
    cJSON_ReplaceItemInObject(doc, "schema", cJSON_CreateString("other"));
    cr_assert_neq(ea_baseline_validate(path, doc, &err), 0);
    has(err.msg, "$.schema: expected \"extern-audit/baselines\"");
    cJSON_Delete(doc);
    char m[64];
    ea_gpu_model("NVIDIA GeForce RTX 4090 ", m, sizeof m);
    cr_assert_str_eq(m, "GeForce-RTX-4090");
}

/* The document's torch: the torch-ops file's build where run read one (the judged comparison), else the first build
 * a result's fidelity names (results before it may name none). */
Test(run, the_documents_torch_is_the_torch_ops_build_else_the_first_a_fidelity_names)
{
    for (int with_ops = 0; with_ops < 2; with_ops++) {
        ea_run_env env = test_run_env();
        cJSON *results = cJSON_Parse("[{\"passed\": true, \"fidelity\": {}}, {\"passed\": true, \"fidelity\": "
                                     "{\"torch\": \"2.10.0\"}}, {\"passed\": true, \"fidelity\": {\"torch\": \"2.12.0\"}}]");
        if (with_ops)
            snprintf(env.torch, sizeof env.torch, "2.11.0+cu130");
        cJSON *doc = ea_baseline_doc(results, &env);
        cr_assert_str_eq(ej_str(doc, "torch"), with_ops ? "2.11.0+cu130" : "2.10.0");
        cJSON_Delete(doc);
    }
}

Test(run, committed_baselines_read_strictly)
{
    ej_doc d;
    ea_error err;
    const char *path = "golden/targets/H200-torch2.11.0+cu130/baselines.json";
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_baseline_validate(path, d.root, &err), 0, "%s", err.msg);
    const cJSON *s;
    int index_add = 0, families = 0;
    const char *seen[8] = {0};
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(d.root, "scopes")) {
        const char *family = cJSON_GetObjectItem(s, "family")->valuestring;
        int known = 0;
        for (int i = 0; i < families; i++)
            known |= !strcmp(seen[i], family);
        if (!known && families < 8)
            seen[families++] = family;
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(s, "passed")), "%s %s", family,
                  cJSON_GetObjectItem(s, "alias")->valuestring);
        if (!strcmp(family, "index_add")) {
            index_add++;
            cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(s, "paths")) >= 3, "current, oracle and general oracle");
        } else {
            cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(s, "paths")) >= 2, "current and oracle");
        }
    }
    cr_assert_eq(index_add, 4, "the three index_add points, Longformer 6291456 in two configurations (div folded or not)");
    int registered = 0;
    while (ea_repro_families[registered])
        registered++;
    cr_assert_eq(families, registered, "every registered family recorded");
    ej_free(&d);
}

/* The replica against the op timed alone in torch (the target's torch_ops.json), per index mode. */
Test(run, fidelity_against_the_torch_op)
{
    ea_run_env env = test_run_env();
    ea_torch_ops ops, absent = {0};
    ea_error err;
    cr_assert_eq(ea_torch_ops_load("tests/fixtures/torch_ops/H200.json", "H200", &ops, &err), 0, "%s", err.msg);
    snprintf(ops.rel, sizeof ops.rel, "torch_ops/H200.json"); /* as ea_torch_ops_load_dir names it */
    cJSON *r = synthetic_result(), *paths = cJSON_GetObjectItem(r, "paths");
    cJSON *fab = cJSON_Duplicate(cJSON_GetArrayItem(paths, 0), 1);
    cJSON_ReplaceItemInObject(fab, "mode", cJSON_CreateString("fabricated"));
    set_median(fab, 3300);
    cJSON_AddItemToArray(paths, fab);
    /* 2.2% over torch's 90 us: inside the 5% fidelity tolerance */
    set_median(cJSON_GetArrayItem(paths, 0), 92);
    ea_run_annotate(r, r, &env, NULL, &ops, NULL);
    const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fidelity"), "torch_op");
    /* the file, its torch build, torch's times and kernels are the torch-ops file's: not copied (schema 3) */
    cr_assert_null(cJSON_GetObjectItem(t, "file"));
    cr_assert_null(cJSON_GetObjectItem(t, "torch"));
    const cJSON *ff = cJSON_GetObjectItem(t, "faithful"), *fb = cJSON_GetObjectItem(t, "fabricated");
    cr_assert_float_eq(cJSON_GetObjectItem(ff, "ratio")->valuedouble, 92.0 / 90.0, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(fb, "ratio")->valuedouble, 3300.0 / 3400.0, 1e-12);
    cr_assert_null(cJSON_GetObjectItem(fb, "torch_q1_us"));
    cr_assert_null(cJSON_GetObjectItem(fb, "replica_us"), "the fabricated current path's time");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(ff, "within_tolerance")) &&
              cJSON_IsTrue(cJSON_GetObjectItem(fb, "within_tolerance")) &&
              cJSON_IsTrue(cJSON_GetObjectItem(t, "within_tolerance")));
    cr_assert_null(cJSON_GetObjectItem(t, "kernels"));
    /* 33% slower than torch, and no fabricated run to compare: judged on what ran */
    cJSON *r2 = synthetic_result();
    set_median(cJSON_GetArrayItem(cJSON_GetObjectItem(r2, "paths"), 0), 120);
    ea_run_annotate(r2, r2, &env, NULL, &ops, NULL);
    t = cJSON_GetObjectItem(cJSON_GetObjectItem(r2, "fidelity"), "torch_op");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(t, "within_tolerance")));
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "fabricated"), "note")->valuestring,
                     "fidelity_replica_not_run");
    /* a point the file lacks; the file absent; nothing loaded; a mode the file has as null */
    cJSON *r3 = synthetic_result(), *r4 = synthetic_result(), *r5 = synthetic_result(), *r6 = synthetic_result();
    cJSON_ReplaceItemInObject(r3, "point", cJSON_CreateString("index_add-000000000000"));
    ea_run_annotate(r3, r3, &env, NULL, &ops, NULL);
    snprintf(absent.file, sizeof absent.file, "golden/targets/H200-torch2.11.0+cu130/torch_ops.json");
    ea_run_annotate(r4, r4, &env, NULL, &absent, NULL);
    ea_run_annotate(r5, r5, &env, NULL, NULL, NULL);
    ((ea_torch_op *)ea_torch_ops_find(&ops, "index_add-31177027c868"))->faithful.timed = 0;
    ea_run_annotate(r6, r6, &env, NULL, &ops, NULL);
    const char *notes[][2] = {
        {"fidelity_torch_ops_no_entry", NULL}, /* note ids, rendered when printed (prose.h) */
        {"fidelity_torch_ops_absent", NULL},
        {"fidelity_torch_ops_absent", NULL},
    };
    cJSON *more[] = {r3, r4, r5, r6};
    /* a mode torch did not time is absent (the reader's default: no torch measurement in this mode) */
    t = cJSON_GetObjectItem(cJSON_GetObjectItem(r6, "fidelity"), "torch_op");
    cr_assert(!cJSON_HasObjectItem(t, "faithful") && cJSON_HasObjectItem(t, "fabricated"), "%s", cJSON_PrintUnformatted(t));
    for (int i = 0; i < 3; i++) {
        t = cJSON_GetObjectItem(cJSON_GetObjectItem(more[i], "fidelity"), "torch_op");
        const cJSON *note = cJSON_GetObjectItem(notes[i][0] ? t : cJSON_GetObjectItem(t, "faithful"), "note");
        cr_assert(cJSON_IsString(note) && !strcmp(note->valuestring, notes[i][0] ? notes[i][0] : notes[i][1]),
                  "case %d: %s", i, cJSON_PrintUnformatted(t));
        cr_assert(!cJSON_HasObjectItem(t, "within_tolerance"), "case %d compared nothing", i);
    }
    cJSON *results = cJSON_CreateArray();
    cJSON *all[] = {r, r2, r3, r4, r5, r6};
    one_each(all, 6);
    for (int i = 0; i < 6; i++)
        cJSON_AddItemToArray(results, all[i]);
    snprintf(env.torch, sizeof env.torch, "%s", ops.torch); /* as run sets it: the torch-ops file's build */
    cJSON *doc = ea_baseline_doc(results, &env);
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "torch")->valuestring, "2.11.0+cu130");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ea_baseline_print(doc, &ops, f);
    fclose(f);
    has(text, "fidelity vs torch 2.11.0+cu130, the op alone (torch_ops/H200.json): faithful 1.02 (replica 92.0 us, "
              "torch 90.0 us, within 5%); fabricated 0.97 (replica 3300.0 us, torch 3400.0 us, within 5%)\n");
    has(text, "faithful 1.33 (replica 120.0 us, torch 90.0 us, OUTSIDE 5%); fabricated: the replica did not run");
    has(text, "  torch kernels: void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::"
              "BFloat16>, std::array<char*, 1ul> >; Memcpy DtoD; void at::native::indexFuncLargeIndex<");
    has(text, "  fidelity vs torch op: no torch measurement: the target's torch_ops.json has no entry for this point\n");
    has(text, "capture fidelity: no capture");
    free(text);
    /* torch's times are the torch-ops file's, not the document's: without the file they are unknown, never NaN */
    text = test_print_to_string(test_baseline_table, doc);
    has(text, "fidelity vs torch ?, the op alone (?): faithful 1.02 (replica 92.0 us, torch ? us, within 5%); "
              "fabricated 0.97 (replica 3300.0 us, torch ? us, within 5%)\n");
    cr_assert_null(strstr(text, "nan"), "%s", text);
    free(text);
    /* the reader is strict about the new block too */
    cJSON *tor = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0),
                                                         "fidelity"), "torch_op");
    const struct {
        cJSON *obj;
        const char *key;
        cJSON *value;
        const char *want;
    } bad[] = {
        {tor, "x", cJSON_CreateTrue(), "$.scopes[0].fidelity.torch_op: unknown key 'x'"},
        {cJSON_GetObjectItem(tor, "fabricated"), "y", cJSON_CreateTrue(),
         "$.scopes[0].fidelity.torch_op.fabricated: unknown key 'y'"},
        /* the torch-ops file's own fields, which schema 2 copied: refused in schema 3 */
        {tor, "file", cJSON_CreateString("torch_ops.json"), "$.scopes[0].fidelity.torch_op: unknown key 'file'"},
        {tor, "kernels", cJSON_CreateArray(), "$.scopes[0].fidelity.torch_op: unknown key 'kernels'"},
        {cJSON_GetObjectItem(tor, "faithful"), "torch_us", cJSON_CreateNumber(90),
         "$.scopes[0].fidelity.torch_op.faithful: unknown key 'torch_us'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *old = cJSON_DetachItemFromObjectCaseSensitive(bad[i].obj, bad[i].key);
        cJSON_AddItemToObject(bad[i].obj, bad[i].key, bad[i].value);
        cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0, "case %zu", i);
        has(err.msg, bad[i].want);
        cJSON_DeleteItemFromObjectCaseSensitive(bad[i].obj, bad[i].key);
        if (old)
            cJSON_AddItemToObject(bad[i].obj, bad[i].key, old);
    }
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
    ea_torch_ops_free(&ops);
}

/* Classes are compared as whole names: "lowered" is not inside "conditional_lowered". */
Test(run, class_names_compared_whole)
{
    ea_run_env env = test_run_env();
    const struct {
        const char *classes, *want;
    } cases[] = {
        {"\"conditional_lowered\", \"lowered\"", "mixed: conditional_lowered, lowered"},
        {"\"lowered\", \"conditional_lowered\", \"lowered\"", "mixed: lowered, conditional_lowered"},
        {"\"lowered\", \"lowered\"", "lowered"},
        {"\"true_fallback\", \"fallback\", \"true_fallback\", \"fallback\"", "mixed: true_fallback, fallback"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024] = "{\"occurrences\": [";
        const char *c = cases[i].classes;
        for (int k = 0; *c; k++) { /* one occurrence of the point per listed class */
            const char *end = strchr(c + 1, '"') + 1;
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s{\"point\": \"index_add-31177027c868\", "
                     "\"class\": %.*s}", k ? ", " : "", (int)(end - c), c);
            c = *end ? end + 2 : end;
        }
        snprintf(text + strlen(text), sizeof text - strlen(text), "]}");
        cJSON *cls = cJSON_Parse(text), *r = synthetic_result();
        cr_assert_not_null(cls, "%s", text);
        ea_run_annotate(r, r, &env, NULL, NULL, cls);
        cr_assert_str_eq(cJSON_GetObjectItem(r, "class")->valuestring, cases[i].want, "case %zu", i);
        cJSON_Delete(r);
        cJSON_Delete(cls);
    }
}

/* --record writes only a document the strict reader accepts: a NaN (which cJSON would print as null)
 * or a bad count stops the write, and the file is not created. */
Test(run, record_writes_only_what_reads_back)
{
    ea_run_env env = test_run_env();
    cJSON *results = cJSON_CreateArray(), *r = synthetic_result();
    ea_run_annotate(r, r, &env, NULL, NULL, NULL);
    cJSON_AddItemToArray(results, r);
    cJSON *doc = ea_baseline_doc(results, &env);
    cJSON *path0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0),
                                                          "paths"), 0);
    cJSON *check = cJSON_GetObjectItem(path0, "check");
    cJSON_AddNumberToObject(check, "nonfinite", 0); /* counted since; optional for older files */
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/record.json", test_tmpdir());
    snprintf(bad, sizeof bad, "%s/record-nan.json", test_tmpdir());
    ea_error err;
    cr_assert_eq(ea_baseline_record(path, doc, &err), 0, "%s", err.msg);
    ej_doc back;
    cr_assert_eq(ej_load(path, &back, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_baseline_validate(path, back.root, &err), 0, "%s", err.msg);
    ej_free(&back);
    cJSON_ReplaceItemInObject(check, "rel_l2", cJSON_CreateNumber(NAN));
    cr_assert_neq(ea_baseline_record(bad, doc, &err), 0);
    has(err.msg, "not written, the document would not read back: ");
    has(err.msg, "$.scopes[0].paths[0].check.rel_l2: expected finite number");
    cr_assert_neq(access(bad, F_OK), 0, "nothing written");
    cJSON_ReplaceItemInObject(check, "rel_l2", cJSON_CreateNumber(0.002));
    cr_assert_str_eq(ej_str(path0, "check_after_timing"), "same", "the check after timing was the first's");
    cJSON_ReplaceItemInObject(path0, "check_after_timing", cJSON_Duplicate(check, 1));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(path0, "check_after_timing"), "nonfinite", cJSON_CreateString("3"));
    cr_assert_neq(ea_baseline_record(bad, doc, &err), 0);
    has(err.msg, "$.scopes[0].paths[0].check_after_timing.nonfinite: expected finite number");
    cr_assert_neq(access(bad, F_OK), 0, "nothing written");
    cJSON_Delete(doc);
}

/* One capture tolerance for run's capture fidelity and replay, and the table prints it. */
Test(run, capture_tolerance_is_one_constant)
{
    cli_run u = test_cli("help", "replay", NULL); /* the usage states the same number */
    char want[64];
    snprintf(want, sizeof want, "within %d%% of torch's", EA_CAPTURE_TOLERANCE_PCT);
    has(u.out, want);
    cli_run_free(&u);
    ea_run_env env = test_run_env();
    ea_capture_run run = {.config = "default", .eager = {.median_us = 96 / (1 + EA_CAPTURE_TOLERANCE) * 0.999}};
    ea_capture cap = {.scope = "index_add-31177027c868-335f7d6b05cb", .environment = cJSON_Parse("{}"),
                      .runs = &run, .nruns = 1};
    ea_captures caps = {&cap, 1, ""};
    cJSON *r = synthetic_result(), *sig = cJSON_Parse("{\"signature\": {\"op\": \"aten.index_add.default\"}, "
                                                      "\"scopes\": [{\"scope_id\": \"index_add-31177027c868-335f7d6b05cb\"}]}");
    ea_run_annotate(r, sig, &env, &caps, NULL, NULL);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fidelity"), "within_tolerance")),
              "just outside the tolerance");
    cJSON_Delete(r);
    run.eager.median_us = 96 / (1 + EA_CAPTURE_TOLERANCE) * 1.001;
    r = synthetic_result();
    ea_run_annotate(r, sig, &env, &caps, NULL, NULL);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fidelity"), "within_tolerance")));
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, r);
    cJSON *doc = ea_baseline_doc(results, &env);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ea_baseline_print(doc, NULL, f);
    fclose(f);
    has(text, ", within 15%)");
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(sig);
    cJSON_Delete((cJSON *)cap.environment);
}

/* A family whose current path replays Inductor's kernels is priced against the compiled partition, whatever
 * its steps; its configuration block is its own, but the floor, the notes and the source are checked. */
Test(run, inductor_current_priced_against_compiled_and_config_checked)
{
    ea_run_env env = test_run_env();
    ea_capture_step steps[2] = {{.triton = 0, .call = "torch.ops.aten.sort.stable"},
                                {.triton = 1, .kernel = "triton_per_fused_cumsum_1"}};
    ea_capture_run run = {.config = "default", .eager = {.median_us = 300}, .compiled = {.median_us = 100},
                          .steps = steps, .nsteps = 2};
    ea_capture cap = {.scope = "index_add-31177027c868-335f7d6b05cb", .environment = cJSON_Parse("{}"),
                      .runs = &run, .nruns = 1};
    ea_captures caps = {&cap, 1, ""};
    cJSON *r = synthetic_result(), *sig = cJSON_Parse("{\"signature\": {\"op\": \"aten.histc.default\"}, "
                                                      "\"scopes\": [{\"scope_id\": \"index_add-31177027c868-335f7d6b05cb\"}]}");
    cJSON *cfg = cJSON_GetObjectItem(r, "config");
    cJSON_AddStringToObject(cfg, "current_source", "inductor");
    cJSON_AddNumberToObject(cfg, "k_inputs", 25); /* family-defined keys pass */
    cJSON_AddStringToObject(r, "verdict", "no_material_headroom");
    cJSON_AddItemToObject(r, "view", cJSON_Parse("{\"blocks\": []}"));
    ea_run_annotate(r, sig, &env, &caps, NULL, NULL);
    const cJSON *fid = cJSON_GetObjectItem(r, "fidelity");
    cr_assert_float_eq(cJSON_GetObjectItem(fid, "torch_compiled_us")->valuedouble, 100, 1e-12);
    cr_assert_null(cJSON_GetObjectItem(fid, "torch_eager_us"));
    cr_assert_float_eq(cJSON_GetObjectItem(fid, "ratio")->valuedouble, 0.96, 1e-9);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(fid, "comparable")));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(fid, "within_tolerance")));
    /* a configuration the family marks as other work than the captured run: the ratio, not judged */
    cJSON *other = synthetic_result();
    cJSON_AddStringToObject(cJSON_GetObjectItem(other, "config"), "current_source", "inductor");
    cJSON_AddFalseToObject(cJSON_GetObjectItem(other, "config"), "capture_comparable");
    ea_run_annotate(other, sig, &env, &caps, NULL, NULL);
    const cJSON *of = cJSON_GetObjectItem(other, "fidelity");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(of, "comparable")));
    cr_assert_null(cJSON_GetObjectItem(of, "within_tolerance"));
    cr_assert_str_eq(cJSON_GetObjectItem(of, "note")->valuestring, "fidelity_capture_not_comparable");
    cJSON_Delete(other);
    cJSON *results = cJSON_CreateArray();
    cJSON_AddItemToArray(results, r);
    cJSON *doc = ea_baseline_doc(results, &env);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("mem", doc, &err), 0, "%s", err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ea_baseline_print(doc, NULL, f);
    fclose(f);
    has(text, "fidelity 0.96 (torch (version not captured) compiled 100.0 us, within 15%)");
    has(text, "verdict: measured, no material headroom");
    free(text);
    static const struct {
        const char *key, *json, *msg;
    } bad[] = {
        {"current_source", "\"triton\"", "$.scopes[0].config.current_source: expected \"inductor\" or \"aten\""},
        {"floor_bytes", "\"many\"", "$.scopes[0].config.floor_bytes: expected"},
        {"notes", "[1]", "$.scopes[0].config.notes[0]: expected"},
        {"capture_comparable", "\"no\"", "$.scopes[0].config.capture_comparable: expected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *c = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0), "config");
        cJSON *keep = cJSON_DetachItemFromObject(c, bad[i].key);
        cJSON_AddItemToObject(c, bad[i].key, cJSON_Parse(bad[i].json));
        cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0, "case %zu", i);
        has(err.msg, bad[i].msg);
        cJSON_DeleteItemFromObject(c, bad[i].key);
        cJSON_AddItemToObject(c, bad[i].key, keep);
    }
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "scopes"), 0);
    cJSON_ReplaceItemInObject(s0, "view", cJSON_CreateNumber(3));
    cr_assert_neq(ea_baseline_validate("mem", doc, &err), 0);
    has(err.msg, "$.scopes[0].view: expected object");
    cJSON_Delete(doc);
    cJSON_Delete(sig);
    cJSON_Delete((cJSON *)cap.environment);
}
