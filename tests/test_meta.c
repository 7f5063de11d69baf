#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corpus/meta.h"
#include "corpus/meta_impl.h"
#include "helpers.h"

#define GOOD "tests/fixtures/meta/good.meta.json"

static ea_meta m;
static ea_error err;
static char dir[64], file[128];

static void setup(void)
{
    strcpy(dir, "/tmp/ea_meta_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/full_graph_000.meta.json", dir);
}

static void teardown(void)
{
    ea_meta_free(&m);
    unlink(file);
    rmdir(dir);
}

/* The good fixture with the node at path replaced by value (JSON text; NULL deletes it), loaded from file. */
static int load_mutated(const char *path, const char *value)
{
    ej_doc doc;
    cJSON *parent, *node, *repl = value ? cJSON_Parse(value) : NULL;
    char last[128];
    cr_assert_eq(ej_load(GOOD, &doc, &err), 0, "%s", err.msg);
    cr_assert(!value || repl, "bad test value %s", value);
    node = test_walk(doc.root, path, &parent, last, sizeof last);
    if (!parent) {
        cJSON_Delete(doc.root);
        doc.root = repl;
    } else if (!repl) {
        cr_assert_not_null(node, "nothing to delete at %s", path);
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, node));
    } else if (cJSON_IsArray(parent)) {
        cr_assert_not_null(node, "no element %s", path);
        cJSON_ReplaceItemViaPointer(parent, node, repl);
    } else if (node) {
        cJSON_ReplaceItemInObjectCaseSensitive(parent, last, repl);
    } else {
        cJSON_AddItemToObject(parent, last, repl);
    }
    cr_assert_eq(ej_write_atomic(file, doc.root, &err), 0, "%s", err.msg);
    ej_free(&doc);
    return ea_meta_load(file, &m, &err);
}

static void rejects(const char *path, const char *value, const char *msg)
{
    char want[1024];
    cr_assert_eq(load_mutated(path, value), -1, "accepted %s = %s", path, value ? value : "(deleted)");
    snprintf(want, sizeof want, "%s %s", file, msg);
    cr_assert_str_eq(err.msg, want);
    cr_assert_null(m.path);
    cr_assert_null(m.inputs);
}

/* ---- the good fixture ---- */

TestSuite(meta, .fini = teardown);

Test(meta, loads_source_and_accounting)
{
    cr_assert_eq(ea_meta_load(GOOD, &m, &err), 0, "%s", err.msg);
    cr_assert_str_eq(m.path, GOOD);
    cr_assert_str_eq(m.kind, "model");
    cr_assert_str_eq(m.suite, "hf");
    cr_assert_str_eq(m.mode, "train");
    cr_assert_str_eq(m.model, "org/Model");
    cr_assert_str_eq(m.graph, "full_graph_000.py");
    cr_assert_str_eq(m.roundtrip, "ok");
    cr_assert_eq(m.total_call_functions, 7);
    cr_assert_eq(m.bucket_total[EA_META_FUSIBLE_IN_PARTITION], 3);
    cr_assert_eq(m.bucket_total[EA_META_FUSIBLE_UNPARTITIONED], 1);
    cr_assert_eq(m.bucket_total[EA_META_NON_FUSIBLE], 3);
    cr_assert_eq(m.nops[EA_META_NON_FUSIBLE], 2);
    cr_assert_str_eq(m.ops[EA_META_NON_FUSIBLE][1].name, "aten.cumsum.default");
    cr_assert_eq(ea_meta_op_count(&m, EA_META_NON_FUSIBLE, "aten.cumsum.default"), 2);
    cr_assert_eq(ea_meta_op_count(&m, EA_META_FUSIBLE_IN_PARTITION, "aten.add.Tensor"), 2);
    cr_assert_eq(ea_meta_op_count(&m, EA_META_FUSIBLE_IN_PARTITION, "aten.mm.default"), 0);
    cr_assert_eq(ea_meta_op_count(&m, EA_META_NBUCKETS, "aten.mm.default"), 0);
    cr_assert_eq(ea_meta_op_count(&m, -1, "aten.mm.default"), 0);
    cr_assert_str_eq(ea_meta_bucket_name(EA_META_FUSIBLE_UNPARTITIONED), "fusible_unpartitioned");
    cr_assert_null(ea_meta_bucket_name(EA_META_NBUCKETS));
    cr_assert_null(ea_meta_bucket_name(-1));
    cr_assert_eq(cJSON_GetArraySize(m.storage_groups), 1);
}

Test(meta, loads_inputs)
{
    const ea_meta_tensor *t;
    cr_assert_eq(ea_meta_load(GOOD, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m.ninputs, 5);
    t = ea_meta_input(&m, "primals_1");
    cr_assert_eq(t, &m.inputs[0]);
    cr_assert_str_eq(t->dtype, "bf16");
    cr_assert_eq(t->ndim, 2);
    cr_assert_eq(t->sizes[0], 64);
    cr_assert_eq(t->strides[0], 3);
    cr_assert_eq(t->strides[1], 1);
    cr_assert_null(t->gen);
    cr_assert_null(t->device);
    t = ea_meta_input(&m, "view_1");
    cr_assert_eq(t->strides[0], 1);
    cr_assert_eq(t->strides[1], 4);
    cr_assert_eq(t->offset, 2);
    cr_assert(m.inputs[2].is_sym);
    cr_assert_null(m.inputs[2].name);
    cr_assert_eq(m.inputs[2].sym_value, 8);
    /* torch gives empty dims the stride of a size-1 dim */
    t = ea_meta_input(&m, "empty");
    cr_assert_eq(t->strides[0], 3);
    cr_assert_eq(t->strides[1], 3);
    cr_assert_eq(t->strides[2], 1);
    cr_assert_eq(t->numel, 0);
    cr_assert_eq(m.inputs[0].numel, 64 * 3);
    cr_assert_null(ea_meta_input(&m, "absent"));
}

Test(meta, gen_and_x_copy_out)
{
    const ea_meta_tensor *t;
    cJSON *gen, *x;
    cr_assert_eq(ea_meta_load(GOOD, &m, &err), 0, "%s", err.msg);
    t = ea_meta_input(&m, "idx");
    gen = cJSON_Duplicate(t->gen, 1);
    x = cJSON_Duplicate(t->x, 1);
    ea_meta_free(&m);
    cr_assert_str_eq(cJSON_GetArrayItem(gen, 0)->valuestring, "index");
    cr_assert_eq(cJSON_GetArrayItem(gen, 2)->valueint, 100);
    cr_assert_str_eq(cJSON_GetObjectItem(x, "constraint_source")->valuestring, "graph_inference");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "observed"), "max")->valueint, 199448);
    cJSON_Delete(gen);
    cJSON_Delete(x);
}

Test(meta, loads_outputs_and_constants)
{
    cr_assert_eq(ea_meta_load(GOOD, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m.noutputs, 2);
    cr_assert_str_eq(m.outputs[1].name, "output_1");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(m.outputs[1].x, "maybe_permutation")));
    cr_assert_eq(m.ntensor_attrs, 2);
    cr_assert_str_eq(m.tensor_attrs[0].name, "_tensor_constant0");
    cr_assert_str_eq(m.tensor_attrs[0].device, "cpu");
    cr_assert_eq(m.tensor_attrs[0].ndim, 0);
    cr_assert_float_eq(cJSON_GetArrayItem(m.tensor_attrs[0].data, 0)->valuedouble, 64.0, 1e-12);
    cr_assert_null(m.tensor_attrs[1].device);
    cr_assert_not_null(m.tensor_attrs[1].gen);
}

Test(meta, free_is_idempotent)
{
    cr_assert_eq(ea_meta_load(GOOD, &m, &err), 0, "%s", err.msg);
    ea_meta_free(&m);
    ea_meta_free(&m);
    cr_assert_null(m.inputs);
}

Test(meta, unreadable)
{
    cr_assert_eq(ea_meta_load("tests/fixtures/meta/absent.meta.json", &m, &err), -1);
    cr_assert_str_eq(err.msg, "tests/fixtures/meta/absent.meta.json: cannot read: No such file or directory");
}

Test(meta, invalid_json, .init = setup)
{
    char want[256];
    cr_assert_eq(ea_write_file_atomic(file, "{\n  \"schema_version\": 2,,\n}\n", 28, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_meta_load(file, &m, &err), -1);
    snprintf(want, sizeof want, "%s:2:24: invalid JSON near 'ersion\": 2,,'", file);
    cr_assert_str_eq(err.msg, want);
}

Test(meta, microbenchmark_has_no_mode, .init = setup)
{
    cr_assert_eq(load_mutated("source/mode", "null"), 0, "%s", err.msg);
    cr_assert_null(m.mode);
}

Test(meta, storage_groups_are_optional, .init = setup)
{
    cr_assert_eq(load_mutated("storage_groups", NULL), 0, "%s", err.msg);
    cr_assert_null(m.storage_groups);
}

/* ---- every way the file can be wrong ---- */

#define REJECTS(name, path, value, msg)                                                                 \
    Test(meta_rejects, name, .init = setup, .fini = teardown)                                           \
    {                                                                                                   \
        rejects(path, value, msg);                                                                      \
    }

REJECTS(root_not_object, "", "[]", "$: expected object, got array")
REJECTS(missing_schema_version, "schema_version", NULL,
        "$.schema_version: expected integer, got nothing (missing key)")
REJECTS(wrong_schema_version, "schema_version", "3", "$.schema_version: expected 2, got 3")
REJECTS(unknown_top_key, "extra", "1",
        "$: unknown key 'extra' (expected one of: schema_version, inputs, outputs, tensor_attrs, graph, source, "
        "node_accounting, roundtrip, storage_groups)")
REJECTS(missing_node_accounting, "node_accounting", NULL,
        "$.node_accounting: expected a value, got nothing (missing key)")
REJECTS(node_accounting_not_object, "node_accounting", "[]", "$.node_accounting: expected object, got array")
REJECTS(total_wrong_type, "node_accounting/total_call_functions", "\"7\"",
        "$.node_accounting.total_call_functions: expected integer, got string \"7\"")
REJECTS(total_mismatch, "node_accounting/total_call_functions", "8",
        "$.node_accounting.total_call_functions: expected 7 (sum of counts), got number 8")
REJECTS(unknown_bucket, "node_accounting/counts/other", "0",
        "$.node_accounting.counts: unknown key 'other' (expected one of: fusible_in_partition, "
        "fusible_unpartitioned, non_fusible)")
REJECTS(missing_bucket, "node_accounting/ops/non_fusible", NULL,
        "$.node_accounting.ops.non_fusible: expected a value, got nothing (missing key)")
REJECTS(bucket_mismatch, "node_accounting/counts/non_fusible", "4",
        "$.node_accounting.counts.non_fusible: expected 3 (sum of its ops), got number 4")
REJECTS(op_count_zero, "node_accounting/ops/non_fusible/aten.mm.default", "0",
        "$.node_accounting.ops.non_fusible[\"aten.mm.default\"]: expected integer >= 1, got number 0")
REJECTS(op_bucket_not_object, "node_accounting/ops/fusible_unpartitioned", "[1]",
        "$.node_accounting.ops.fusible_unpartitioned: expected object, got array")
REJECTS(inputs_not_array, "inputs", "{}", "$.inputs: expected array, got object")
REJECTS(input_not_array, "inputs/0", "{}", "$.inputs[0]: expected array, got object")
REJECTS(input_arity, "inputs/0", "[[1], \"f32\"]",
        "$.inputs[0]: expected [sizes, dtype, attrs] or [\"sym\", value] (3 elements), got array of 2")
REJECTS(sym_tag, "inputs/2/0", "\"sim\"", "$.inputs[2][0]: expected \"sym\", got string \"sim\"")
REJECTS(sym_value, "inputs/2/1", "\"8\"", "$.inputs[2][1]: expected integer, got string \"8\"")
REJECTS(input_unknown_attr, "inputs/0/2/dev", "\"cpu\"",
        "$.inputs[0][2]: unknown key 'dev' (expected one of: n, st, off, gen, x)")
REJECTS(input_without_name, "inputs/0/2/n", NULL, "$.inputs[0][2].n: expected string, got nothing (missing key)")
REJECTS(dtype_not_string, "inputs/0/1", "5", "$.inputs[0][1]: expected string, got number 5")
REJECTS(negative_size, "inputs/0/0/1", "-3", "$.inputs[0][0][1]: expected integer >= 0, got number -3")
REJECTS(too_many_dims, "inputs/0/0", "[1, 1, 1, 1, 1, 1, 1, 1, 1]",
        "$.inputs[0][0]: expected at most 8 dimensions, got array of 9")
REJECTS(too_many_elements, "inputs/0/0", "[9007199254740992, 9007199254740992]",
        "$.inputs[0][0]: expected at most 2^63 elements, got more")
REJECTS(stride_count, "inputs/1/2/st", "[1, 4, 1]",
        "$.inputs[1][2].st: expected one entry per dimension (2 elements), got array of 3")
REJECTS(negative_offset, "inputs/1/2/off", "-1", "$.inputs[1][2].off: expected integer >= 0, got number -1")
REJECTS(gen_arity, "inputs/3/2/gen", "[\"index\", 0]",
        "$.inputs[3][2].gen: expected [kind, lo, hi] (3 elements), got array of 2")
REJECTS(gen_kind, "inputs/3/2/gen/0", "\"normal\"",
        "$.inputs[3][2].gen[0]: expected \"index\" or \"randint\", got string \"normal\"")
REJECTS(gen_lo_not_int, "inputs/3/2/gen/1", "0.5", "$.inputs[3][2].gen[1]: expected integer, got number 0.5")
REJECTS(gen_range, "inputs/3/2/gen/2", "-1", "$.inputs[3][2].gen[2]: expected integer >= 0 (lo), got number -1")
REJECTS(x_unknown_key, "inputs/3/2/x/extra", "1",
        "$.inputs[3][2].x: unknown key 'extra' (expected one of: constraint_source, observed, maybe_permutation)")
REJECTS(x_without_source, "inputs/3/2/x/constraint_source", NULL,
        "$.inputs[3][2].x.constraint_source: expected string, got nothing (missing key)")
REJECTS(observed_incomplete, "inputs/3/2/x/observed/n_unique", NULL,
        "$.inputs[3][2].x.observed.n_unique: expected integer, got nothing (missing key)")
REJECTS(observed_not_object, "inputs/3/2/x/observed", "7",
        "$.inputs[3][2].x.observed: expected object, got number 7")
REJECTS(maybe_permutation_not_bool, "outputs/1/2/x/maybe_permutation", "1",
        "$.outputs[1][2].x.maybe_permutation: expected boolean, got number 1")
REJECTS(output_cannot_be_sym, "outputs/0", "[\"sym\", 8]",
        "$.outputs[0]: expected [sizes, dtype, attrs] (3 elements), got array of 2")
REJECTS(constants_not_object, "tensor_attrs", "[]", "$.tensor_attrs: expected object, got array")
REJECTS(constant_with_name, "tensor_attrs/_tensor_constant0/2/n", "\"c\"",
        "$.tensor_attrs._tensor_constant0[2]: unknown key 'n' (expected one of: dev, data, gen, x)")
REJECTS(constant_device_type, "tensor_attrs/_tensor_constant0/2/dev", "0",
        "$.tensor_attrs._tensor_constant0[2].dev: expected string, got number 0")
REJECTS(constant_data_length, "tensor_attrs/_tensor_constant1/2/data", "[1]",
        "$.tensor_attrs._tensor_constant1[2].data: expected one value per element (2 elements), got array of 1")
REJECTS(constant_data_value, "tensor_attrs/_tensor_constant0/2/data/0", "\"x\"",
        "$.tensor_attrs._tensor_constant0[2].data[0]: expected finite number, got string \"x\"")
REJECTS(source_unknown_key, "source/device", "\"cuda\"",
        "$.source: unknown key 'device' (expected one of: kind, suite, mode, model, graph)")
REJECTS(source_mode_type, "source/mode", "1", "$.source.mode: expected string, got number 1")
REJECTS(source_graph_mismatch, "source/graph", "\"full_graph_001.py\"",
        "$.source.graph: expected \"full_graph_000.py\" (as $.graph), got string \"full_graph_001.py\"")
REJECTS(missing_roundtrip, "roundtrip", NULL, "$.roundtrip: expected string, got nothing (missing key)")
REJECTS(storage_group_not_array, "storage_groups/0", "\"primals_1\"",
        "$.storage_groups[0]: expected array, got string \"primals_1\"")
REJECTS(storage_group_unknown_input, "storage_groups/0/1", "\"ghost\"",
        "$.storage_groups[0][1]: expected the name of an input, got string \"ghost\"")

/* ---- the better-benchmark corpus ---- */

typedef struct {
    int files;
    int64_t histc, index_add, total_calls, sym_inputs, generated_inputs;
} corpus_sums;

static int is_meta(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "full_graph_", 11) == 0 && n > 10 && strcmp(name + n - 10, ".meta.json") == 0;
}

/* Model names contain '/', so meta files sit at varying depths. */
static void scan(const char *path, corpus_sums *s)
{
    struct dirent **names;
    int count = scandir(path, &names, NULL, alphasort);
    cr_assert_geq(count, 0, "cannot list %s", path);
    for (int i = 0; i < count; i++) {
        char sub[1024];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
            scan(sub, s);
        } else if (is_meta(names[i]->d_name)) {
            cr_assert_eq(ea_meta_load(sub, &m, &err), 0, "%s", err.msg);
            s->files++;
            s->histc += ea_meta_op_count(&m, EA_META_NON_FUSIBLE, "aten.histc.default");
            s->index_add += ea_meta_op_count(&m, EA_META_NON_FUSIBLE, "aten.index_add.default");
            s->total_calls += m.total_call_functions;
            for (int k = 0; k < m.ninputs; k++) {
                s->sym_inputs += m.inputs[k].is_sym;
                s->generated_inputs += m.inputs[k].gen != NULL;
            }
            ea_meta_free(&m);
        }
        free(names[i]);
    }
    free(names);
}

Test(meta_corpus, loads_every_file)
{
    const char *root = getenv("EXTERN_AUDIT_CORPUS");
    char models[512];
    struct stat st;
    corpus_sums s = {0};
    snprintf(models, sizeof models, "%s/repros/models", root ? root : "build/corpus/better-benchmark");
    if (stat(models, &st) != 0)
        cr_skip_test("corpus not found at %s (set EXTERN_AUDIT_CORPUS)", models);
    scan(models, &s);
    cr_assert_eq(s.files, 364);
    cr_assert_eq(s.histc, 24);
    cr_assert_eq(s.index_add, 60);
    cr_assert_eq(s.total_calls, 376282);
    cr_assert_eq(s.sym_inputs, 43);
    cr_assert_eq(s.generated_inputs, 3244);
}
