#include <criterion/criterion.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus/extract.h"
#include "helpers.h"
#include "corpus/occurrences.h"
#include "corpus/occurrences_impl.h"

static ea_extraction run(const char *corpus, int cap)
{
    return test_extract_corpus(corpus, cap);
}

static int by_op(const ea_extraction *x, const char *op)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(x->summary, "occurrences_by_op"), op)->valueint;
}

static const cJSON *first_point(const ea_extraction *x, int op)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(x->docs[op], "points"), 0);
}

static int op_index(const char *short_name)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].short_name, short_name))
            return i;
    cr_assert_fail("no audit op %s", short_name);
    return -1;
}

/* value_properties lists tensor arguments only, each naming its position */
static const cJSON *derived(const cJSON *point, int arg)
{
    const cJSON *vp;
    cJSON_ArrayForEach(vp, cJSON_GetObjectItem(cJSON_GetObjectItem(point, "signature"), "value_properties"))
        if (cJSON_GetObjectItem(vp, "arg")->valueint == arg)
            return cJSON_GetObjectItem(vp, "derived");
    cr_assert_fail("no value properties for argument %d", arg);
    return NULL;
}

Test(extract, fixture_corpus_counts_and_identity)
{
    ea_extraction x = run(FIXTURE_CORPUS, 8);
    cr_assert_eq(by_op(&x, "aten.cat.default"), 3, "the two 10-input cats and the 49-input one; the 3-input one is "
                                                    "pointwise");
    cr_assert_eq(by_op(&x, "aten.cumsum.default"), 3);
    cr_assert_eq(by_op(&x, "aten.histc.default"), 2);
    cr_assert_eq(by_op(&x, "aten.index_add.default"), 2);
    cr_assert_eq(cJSON_GetObjectItem(x.summary, "bf16_index_add")->valueint, 2);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        ea_error err;
        cr_assert_eq(ea_occurrences_validate("mem", x.docs[i], ea_audit_ops[i].target, &err), 0, "%s", err.msg);
    }
    const cJSON *occ = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(first_point(&x, 2), "scopes"), 0), "occurrences"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(occ, "id")->valuestring, "hf/infer/tiny/moe/full_graph_000:histc");
    cr_assert_str_eq(cJSON_GetObjectItem(occ, "model")->valuestring, "tiny/moe");
    cr_assert_eq(cJSON_GetObjectItem(occ, "line")->valueint, 16);
    const cJSON *src = cJSON_GetObjectItem(occ, "source");
    cr_assert_str_eq(cJSON_GetObjectItem(src, "file")->valuestring, "/models/moe.py");
    cr_assert_eq(cJSON_GetObjectItem(src, "line")->valueint, 398);
    cr_assert_str_eq(cJSON_GetObjectItem(src, "func")->valuestring, "experts_forward");
    ea_extraction_free(&x);
}

Test(extract, backward_index_is_followed_into_the_forward_graph)
{
    ea_extraction x = run(FIXTURE_CORPUS, 8);
    const cJSON *p;
    int found = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(x.docs[3], "points"))
    {
        const cJSON *out = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "signature"), "output");
        if (cJSON_GetArraySize(cJSON_GetObjectItem(out, "sizes")) != 4)
            continue;
        const cJSON *d = derived(p, 2);
        cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "iota");
        cr_assert_str_eq(cJSON_GetObjectItem(d, "saved_by")->valuestring, "full_graph_000");
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "iota"), "length")->valueint, 4);
        cr_assert_str_eq(cJSON_GetObjectItem(derived(p, 0), "kind")->valuestring, "constant");
        found = 1;
    }
    cr_assert(found, "the TinyXL index_add point");
    ea_extraction_free(&x);
}

Test(extract, cat_cap_is_a_parameter)
{
    ea_extraction x = run(FIXTURE_CORPUS, 2);
    cr_assert_eq(by_op(&x, "aten.cat.default"), 4);
    cr_assert_eq(cJSON_GetObjectItem(x.docs[0], "cat_input_cap")->valueint, 2);
    ea_extraction_free(&x);
    x = run(FIXTURE_CORPUS, 10);
    cr_assert_eq(by_op(&x, "aten.cat.default"), 1, "DenseNet-201's 49 inputs");
    ea_extraction_free(&x);
    x = run(FIXTURE_CORPUS, 49);
    cr_assert_eq(by_op(&x, "aten.cat.default"), 0);
    ea_extraction_free(&x);
}

Test(extract, deterministic_and_round_trips_through_files)
{
    ea_extraction a = run(FIXTURE_CORPUS, 8), b = run(FIXTURE_CORPUS, 8);
    const char *dir = test_tmpdir();
    ea_error err;
    cJSON *docs[EA_AUDIT_OPS];
    cr_assert_eq(ea_extraction_write(&a, dir, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_occurrences_load(dir, docs, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cr_assert(cJSON_Compare(a.docs[i], b.docs[i], 1), "two runs differ for %s", ea_audit_ops[i].short_name);
        cr_assert(cJSON_Compare(a.docs[i], docs[i], 1), "file differs for %s", ea_audit_ops[i].short_name);
        cJSON_Delete(docs[i]);
    }
    ea_extraction_free(&a);
    ea_extraction_free(&b);
}

static const char meta_one_cumsum[] =
    "{\"schema_version\": 2, \"inputs\": [[[4], \"i64\", {\"n\": \"x\"}]], \"outputs\": [], \"tensor_attrs\": {},"
    " \"graph\": \"full_graph_000.py\", \"source\": {\"kind\": \"model\", \"suite\": \"hf\", \"mode\": \"infer\","
    " \"model\": \"M\", \"graph\": \"full_graph_000.py\"}, \"node_accounting\": {\"total_call_functions\": 1,"
    " \"counts\": {\"fusible_in_partition\": 0, \"fusible_unpartitioned\": 0, \"non_fusible\": 1},"
    " \"ops\": {\"fusible_in_partition\": {}, \"fusible_unpartitioned\": {}, \"non_fusible\": {\"aten.cumsum.default\": 1}}},"
    " \"roundtrip\": \"ok\"}\n";

static const char graph_head[] = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"i64[4][1]cuda:0\"):\n";

static char *failing_corpus(const char *body, int with_meta)
{
    const char *dir = test_tmpdir();
    char text[4096];
    snprintf(text, sizeof text, "%s%s", graph_head, body);
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.py", text));
    if (with_meta)
        free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.meta.json", meta_one_cumsum));
    return strdup(dir);
}

static void expect_failure(const char *corpus, const char *needle)
{
    ea_corpus c;
    ea_error err = {{0}};
    ea_extraction x;
    cr_assert_eq(ea_corpus_open(corpus, &c, &err), 0, "%s", err.msg);
    ea_extract_opts o = {8, NULL};
    cr_assert_eq(ea_extract(&c, &o, &x, &err), -1);
    cr_assert(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cr_assert_null(x.docs[i], "no partial document");
    ea_corpus_free(&c);
}

Test(extract, a_graph_that_does_not_parse_is_listed_and_skipped_and_the_others_extracted)
{
    char *dir = failing_corpus("        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n        this is not a node\n"
                               "        return (c,)\n", 1);
    char text[4096];
    snprintf(text, sizeof text, "%s        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n"
             "        return (c,)\n", graph_head);
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_001.py", text));
    char meta[sizeof meta_one_cumsum + 16];
    snprintf(meta, sizeof meta, "%s", meta_one_cumsum);
    memcpy(strstr(meta, "full_graph_000.py"), "full_graph_001.py", 17);
    memcpy(strstr(meta, "full_graph_000.py"), "full_graph_001.py", 17);
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_001.meta.json", meta));
    ea_extraction x = test_extract_corpus(dir, 8);
    cr_assert_eq(by_op(&x, "aten.cumsum.default"), 1, "the graph that parses is extracted");
    cr_assert_eq(cJSON_GetArraySize(x.skipped), 1);
    const cJSON *s = cJSON_GetArrayItem(x.skipped, 0);
    cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(s, "graph")), "M/full_graph_000.py"));
    cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(s, "error")), "full_graph_000.py:4: expected"),
              "%s", cJSON_GetStringValue(cJSON_GetObjectItem(s, "error")));
    cr_assert(cJSON_Compare(cJSON_GetObjectItem(x.summary, "graphs_skipped"), x.skipped, 1), "the summary lists it");
    ea_extraction_free(&x);
    ea_extraction whole = test_extract_corpus(FIXTURE_CORPUS, 8);
    cr_assert_eq(cJSON_GetArraySize(whole.skipped), 0);
    cr_assert_null(cJSON_GetObjectItem(whole.summary, "graphs_skipped"), "no key when nothing is skipped");
    ea_extraction_free(&whole);
    free(dir);
}

/* The point id of a one-cumsum corpus whose input x carries the meta attributes attrs. */
static char *cumsum_point_with_input(const char *attrs)
{
    const char *dir = test_tmpdir();
    char text[4096], meta[sizeof meta_one_cumsum + 512];
    snprintf(text, sizeof text, "%s        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n"
             "        return (c,)\n", graph_head);
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.py", text));
    const char *at = strstr(meta_one_cumsum, "{\"n\": \"x\"}");
    snprintf(meta, sizeof meta, "%.*s{\"n\": \"x\", %s}%s", (int)(at - meta_one_cumsum), meta_one_cumsum, attrs,
             at + strlen("{\"n\": \"x\"}"));
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.meta.json", meta));
    ea_extraction x = test_extract_corpus(dir, 8);
    char *id = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(first_point(&x, 1), "point")));
    ea_extraction_free(&x);
    return id;
}

#define DRAW(src, lo, hi, n) "\"gen\": [\"index\", 0, 1000], \"x\": {\"constraint_source\": \"" src "\", " \
    "\"observed\": {\"min\": " #lo ", \"max\": " #hi ", \"n_unique\": " #n "}}"

Test(extract, a_declared_range_gives_one_point_whatever_the_random_draw_held)
{
    char *a = cumsum_point_with_input(DRAW("declared", 3, 990, 4)), *b = cumsum_point_with_input(DRAW("declared", 0, 512, 3));
    cr_assert_str_eq(a, b, "two draws of one declared range: one point");
    char *wider = cumsum_point_with_input("\"gen\": [\"index\", 0, 2000], \"x\": {\"constraint_source\": \"declared\"}");
    cr_assert_str_neq(a, wider, "the declared range is the input's identity");
    /* better-benchmark's ranges come from what it observed: that stays in the id (the committed ids hash it) */
    char *c = cumsum_point_with_input(DRAW("observed", 3, 990, 4)), *d = cumsum_point_with_input(DRAW("observed", 0, 512, 3));
    cr_assert_str_neq(c, d);
    free(a), free(b), free(wider), free(c), free(d);
}

/* A gpt-oss training dump (tools/capture/corpus.py on the H200; its README says how): the routing of both layers
 * in the forward graph, 2048 tokens at top-4 over 128 experts, ids the H200 run captured and measured. */
Test(extract, a_moe_train_dump_gives_its_routing_over_8192_ids_as_the_gpu_run_named_it)
{
    ea_extraction x = run("tests/fixtures/fresh_corpus/gptoss_train", 8);
    cr_assert_eq(by_op(&x, "aten.histc.default"), 2, "one histc per layer");
    cr_assert_eq(by_op(&x, "aten.cumsum.default"), 2, "one offsets cumsum per layer");
    cr_assert_eq(cJSON_GetObjectItem(x.summary, "occurrences_total")->valueint, 4, "the backward graph holds none");
    cr_assert_str_eq(cJSON_GetObjectItem(first_point(&x, op_index("histc")), "point")->valuestring, "histc-31e50cfc5c1a");
    cr_assert_str_eq(cJSON_GetObjectItem(first_point(&x, op_index("cumsum")), "point")->valuestring,
                     "cumsum-b789dac3454e");
    const cJSON *ids = derived(first_point(&x, op_index("histc")), 0);
    cr_assert_eq(cJSON_GetObjectItem(ids, "tokens")->valueint, 2048);
    cr_assert_eq(cJSON_GetObjectItem(ids, "k")->valueint, 4);
    cr_assert_eq(cJSON_GetObjectItem(ids, "experts")->valueint, 128);
    ea_extraction_free(&x);
}

Test(extract, missing_meta_names_the_file)
{
    char *dir = failing_corpus("        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n        return (c,)\n", 0);
    expect_failure(dir, "full_graph_000.meta.json");
    free(dir);
}

Test(extract, overrunning_as_strided_index_is_refused)
{
    char *dir = failing_corpus(
        "        full: \"bf16[8][1]cuda:0\" = torch.ops.aten.full.default([8], 0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n"
        "        iota: \"i64[8][1]cuda:0\" = torch.ops.prims.iota.default(8, start = 0, step = 1, dtype = torch.int64, device = device(type='cuda', index=0), requires_grad = False)\n"
        "        as_strided: \"i64[3, 4][3, 1]cuda:0\" = torch.ops.aten.as_strided.default(iota, [3, 4], [3, 1], 0)\n"
        "        view: \"i64[12][1]cuda:0\" = torch.ops.aten.reshape.default(as_strided, [12])\n"
        "        src: \"bf16[12][1]cuda:0\" = torch.ops.aten.full.default([12], 1, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n"
        "        index_add: \"bf16[8][1]cuda:0\" = torch.ops.aten.index_add.default(full, 0, view, src)\n"
        "        return (index_add,)\n",
        1);
    expect_failure(dir, "full_graph_000.py:5: stride overruns storage");
    free(dir);
}

Test(extract, missing_and_empty_corpus)
{
    ea_corpus c;
    ea_error err = {{0}};
    cr_assert_eq(ea_corpus_open("/nonexistent/corpus", &c, &err), -1);
    cr_assert(strstr(err.msg, "/nonexistent/corpus: corpus folder not found"), "%s", err.msg);
    const char *empty = test_tmpdir();
    cr_assert_eq(ea_corpus_open(empty, &c, &err), -1);
    cr_assert(strstr(err.msg, "empty corpus"), "%s", err.msg);
}

Test(extract, corpus_identity_and_digest)
{
    ea_corpus c;
    ea_error err;
    cr_assert_eq(ea_corpus_open(FIXTURE_CORPUS, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(c.ngraphs, 8);
    cr_assert_str_eq(c.graphs[0].suite, "hf");
    cr_assert_str_eq(c.graphs[0].mode, "infer");
    cr_assert_str_eq(c.graphs[0].model, "tiny/moe");
    cr_assert_str_eq(c.graphs[0].graph, "full_graph_000");
    uint64_t a, b;
    cr_assert_eq(ea_corpus_digest(&c, &a, &err), 0);
    cr_assert_eq(ea_corpus_digest(&c, &b, &err), 0);
    cr_assert_eq(a, b);
    ea_corpus_free(&c);
}
