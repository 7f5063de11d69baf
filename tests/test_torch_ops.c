/* The torch-ops reader (torch_ops.h) on tests/fixtures/torch_ops/H200.json, which
 * tools/capture/tests/test_op_timing.py checks is exactly what op_timing.py writes (made-up timings),
 * and on variants of it, one per way a file can be wrong. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "target/torch_ops.h"

#define FIXTURE "tests/fixtures/torch_ops/H200.json"
#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static cJSON *fixture(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(FIXTURE, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

/* The node at a dotted path from the root: "points.1.faithful" (numbers index arrays). */
static cJSON *at(cJSON *root, const char *where)
{
    char buf[128], *save = NULL;
    cJSON *v = root;
    snprintf(buf, sizeof buf, "%s", where);
    for (char *tok = strtok_r(buf, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
        v = isdigit((unsigned char)tok[0]) ? cJSON_GetArrayItem(v, atoi(tok)) : cJSON_GetObjectItem(v, tok);
    cr_assert_not_null(v, "no %s in the fixture", where);
    return v;
}

static char *write_doc(const cJSON *doc)
{
    char *text = cJSON_Print(doc), *path = test_write(test_tmpdir(), "torch_ops/H200.json", text);
    free(text);
    return path;
}

/* The fixture with where.key set to json, or deleted when json is NULL, in a fresh file. */
static char *variant(const char *where, const char *key, const char *json)
{
    cJSON *doc = fixture(), *o = where[0] ? at(doc, where) : doc;
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    if (json) {
        cJSON *v = cJSON_Parse(json);
        cr_assert_not_null(v, "%s", json);
        cJSON_AddItemToObject(o, key, v);
    }
    char *path = write_doc(doc);
    cJSON_Delete(doc);
    return path;
}

Test(torch_ops, fixture_reads_strictly)
{
    ea_torch_ops t;
    ea_error err;
    cr_assert_eq(ea_torch_ops_load(FIXTURE, "H200", &t, &err), 0, "%s", err.msg);
    cr_assert(t.loaded && t.n == 3);
    cr_assert_str_eq(t.torch, "2.11.0+cu130");
    cr_assert_str_eq(t.gpu, "NVIDIA H200");
    const ea_torch_op *op = ea_torch_ops_find(&t, "index_add-31177027c868");
    cr_assert_not_null(op);
    cr_assert_str_eq(op->op, "aten.index_add.default");
    cr_assert(op->faithful.timed && op->fabricated.timed);
    cr_assert_float_eq(op->faithful.median_us, 90.0, 1e-12);
    cr_assert_float_eq(op->fabricated.q3_us, 3401.0, 1e-12);
    cr_assert_eq(op->fabricated.samples, 30);
    has(op->faithful.call, "torch.ops.aten.index_add.default(torch.full([6291456], 0, dtype=torch.bfloat16");
    has(op->fabricated.call, "fabricated_index, source)");
    cr_assert_eq(op->nkernels, 3);
    cr_assert_str_eq(op->kernels[1], "Memcpy DtoD");
    cr_assert_null(op->kernels_note);
    cr_assert_null(ea_torch_ops_find(&t, "index_add-000000000000"));
    ea_torch_ops_free(&t);
    cr_assert_null(ea_torch_ops_find(&t, "index_add-31177027c868"), "nothing after free");
    cr_assert_null(ea_torch_ops_find(NULL, "index_add-31177027c868"));
    /* no model to check against: any GPU's file reads */
    cr_assert_eq(ea_torch_ops_load(FIXTURE, NULL, &t, &err), 0, "%s", err.msg);
    ea_torch_ops_free(&t);
}

Test(torch_ops, null_modes_and_kernel_notes)
{
    cJSON *doc = fixture(), *p = at(doc, "points.2");
    cJSON_ReplaceItemInObject(p, "faithful", cJSON_CreateNull());
    cJSON_ReplaceItemInObject(p, "kernels", cJSON_CreateArray());
    cJSON_AddStringToObject(p, "kernels_note", "torch.profiler saw no device activity");
    char *path = write_doc(doc);
    ea_torch_ops t;
    ea_error err;
    cr_assert_eq(ea_torch_ops_load(path, "H200", &t, &err), 0, "%s", err.msg);
    const ea_torch_op *op = ea_torch_ops_find(&t, "index_add-a8e741bae3fe");
    cr_assert(!op->faithful.timed && op->fabricated.timed && op->nkernels == 0);
    cr_assert_str_eq(op->kernels_note, "torch.profiler saw no device activity");
    ea_torch_ops_free(&t);
    free(path);
    cJSON_Delete(doc);
}

Test(torch_ops, load_dir_absent_is_no_error)
{
    const char *golden = test_tmpdir();
    ea_torch_ops t;
    ea_error err;
    cr_assert_eq(ea_torch_ops_load_dir(golden, "H200", &t, &err), 0, "%s", err.msg);
    cr_assert(!t.loaded && t.n == 0);
    cr_assert_str_eq(t.rel, "torch_ops.json");
    cr_assert(strstr(t.file, golden) == t.file && strstr(t.file, "/torch_ops.json"), "%s", t.file);
    cr_assert_null(ea_torch_ops_find(&t, "index_add-31177027c868"));
    ea_torch_ops_free(&t);
    cJSON *doc = fixture();
    char *text = cJSON_Print(doc);
    free(test_write(golden, "torch_ops.json", text));
    cr_assert_eq(ea_torch_ops_load_dir(golden, "H200", &t, &err), 0, "%s", err.msg);
    cr_assert(t.loaded && t.n == 3);
    cr_assert_str_eq(t.rel, "torch_ops.json");
    ea_torch_ops_free(&t);
    /* present but read for a target of another model: refused, naming both */
    cr_assert_neq(ea_torch_ops_load_dir(golden, "B200", &t, &err), 0);
    has(err.msg, "torch_ops.json $.environment.gpu: expected a GPU of model B200 (the file is read for it), "
                 "got \"NVIDIA H200\"");
    free(text);
    cJSON_Delete(doc);
}

Test(torch_ops, each_failure_names_file_and_path)
{
    static const struct {
        const char *where, *key, *json, *want;
    } cases[] = {
        {"", "surprise", "1", " $: unknown key 'surprise'"},
        {"", "schema", "\"other\"", " $.schema: expected \"extern-audit/torch-ops\", got \"other\""},
        {"", "schema_version", "2", " $.schema_version: expected 1, got 2"},
        {"", "command", NULL, " $.command: expected string, got nothing (missing key)"},
        {"", "points", "{}", " $.points: expected array, got object"},
        {"environment", "triton", "3", " $.environment.triton: expected string, got number 3"},
        {"environment", "extra", "\"x\"", " $.environment: unknown key 'extra'"},
        {"timing", "replays", "1.5", " $.timing.replays: expected integer, got number 1.5"},
        {"timing", "warmup_ms", NULL, " $.timing.warmup_ms: expected finite number, got nothing"},
        {"points.0", "extra", "true", " $.points[0]: unknown key 'extra'"},
        {"points.0", "op", "7", " $.points[0].op: expected string"},
        {"points.0", "inputs", NULL, " $.points[0].inputs: expected a value, got nothing"},
        {"points.0.faithful", "median_us", "0",
         " $.points[0].faithful.median_us: expected a positive median between q1_us and q3_us, got q1 169, median 0, "
         "q3 171"},
        {"points.0.faithful", "q3_us", "100", " $.points[0].faithful.median_us: expected a positive median"},
        {"points.0.faithful", "median_us", "\"fast\"", " $.points[0].faithful.median_us: expected finite number"},
        {"points.0.fabricated", "samples", "1", " $.points[0].fabricated.samples: expected at least 2 samples, got 1"},
        {"points.0.fabricated", "call", NULL, " $.points[0].fabricated.call: expected string, got nothing"},
        {"points.0.fabricated", "iqr_us", "1", " $.points[0].fabricated: unknown key 'iqr_us'"},
        {"points.0", "fabricated", "[]", " $.points[0].fabricated: expected object, got array"},
        {"points.1", "kernels", "[1]", " $.points[1].kernels[0]: expected string, got number 1"},
        {"points.1", "kernels_note", "false", " $.points[1].kernels_note: expected string, got boolean false"},
        {"points.1", "setup", "{}", " $.points[1].setup: expected array, got object"},
        {"points.2.inputs.0", "name", "\"source\"",
         " $.points[2].inputs[2].name: expected a name no other input has, got \"source\""},
        {"points.2.inputs.2.values", "generator", "\"randint\"",
         " $.points[2].inputs[2].values.generator: expected an integer dtype for randint, got bf16"},
        {"points.2.inputs.2", "sizes", "[-1]", " $.points[2].inputs[2].sizes[0]: expected an integer >= 0, got -1"},
        {"points.2", "point", "\"index_add-398f48d45d2b\"",
         " $.points[2].point: expected each point once, got \"index_add-398f48d45d2b\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = variant(cases[i].where, cases[i].key, cases[i].json);
        ea_torch_ops t;
        ea_error err;
        cr_assert_neq(ea_torch_ops_load(path, "H200", &t, &err), 0, "case %zu loaded", i);
        cr_assert(strstr(err.msg, path) == err.msg, "case %zu names the file: %s", i, err.msg);
        has(err.msg, cases[i].want);
        cr_assert(!t.loaded && !t.ops, "case %zu left nothing to free", i);
        free(path);
    }
}

Test(torch_ops, too_many_inputs_bad_json_and_no_file)
{
    cJSON *doc = fixture(), *inputs = at(doc, "points.0.inputs");
    for (int i = 0; i < 65; i++) {
        cJSON *in = cJSON_Duplicate(cJSON_GetArrayItem(inputs, 0), 1);
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        cJSON_ReplaceItemInObject(in, "name", cJSON_CreateString(name));
        cJSON_AddItemToArray(inputs, in);
    }
    char *path = write_doc(doc);
    ea_torch_ops t;
    ea_error err;
    cr_assert_neq(ea_torch_ops_load(path, "H200", &t, &err), 0);
    has(err.msg, " $.points[0].inputs: expected at most 64 inputs, got 68");
    free(path);
    cJSON_Delete(doc);
    path = test_write(test_tmpdir(), "bad.json", "{\"schema\": ");
    cr_assert_neq(ea_torch_ops_load(path, "H200", &t, &err), 0);
    has(err.msg, "invalid JSON");
    free(path);
    cr_assert_neq(ea_torch_ops_load("/nonexistent/H200.json", "H200", &t, &err), 0);
    has(err.msg, "/nonexistent/H200.json: cannot read");
}
