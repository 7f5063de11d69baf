/* The rollup's own inputs read strictly: golden/seed_totals.json and the corpus's model accounting,
 * each way a file can be wrong naming the file and the JSON path. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "report/rollup_corpus.h"
#include "report/seed_totals.h"
#include "target/torch_ops.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

Test(seed_totals, golden_file_holds_the_seed_numbers)
{
    ea_seed_totals s;
    ea_error err;
    cr_assert_eq(ea_seed_totals_load("golden/seed_totals.json", &s, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.gpu, "NVIDIA B200");
    cr_assert_str_eq(s.source, "../shared/seed/extern-audit-issue.txt");
    cr_assert_float_eq(s.ops[0].total_us, 1127.5, 1e-9);
    cr_assert_float_eq(s.ops[1].total_us, 419.4, 1e-9);
    cr_assert_float_eq(s.ops[1].parts[0].total_us, 177.4, 1e-9);
    cr_assert_float_eq(s.ops[2].total_us, 197.4, 1e-9);
    cr_assert(s.ops[3].summed);
    cr_assert_float_eq(s.ops[3].total_us, 140941.8 + 13392.4, 1e-9);
    ea_seed_totals_free(&s);
}

static const char *const good =
    "{\"schema\": \"extern-audit/seed-totals\", \"schema_version\": 1, \"source\": \"s\", \"gpu\": \"NVIDIA B200\","
    " \"pytorch_commit\": \"c\", \"method\": \"m\", \"ops\": ["
    "{\"op\": \"aten.cat.default\", \"occurrences\": 2, \"total_us\": 10, \"parts\": []},"
    "{\"op\": \"aten.cumsum.default\", \"occurrences\": 2, \"total_us\": 10, \"parts\": []},"
    "{\"op\": \"aten.histc.default\", \"occurrences\": 2, \"total_us\": 10, \"parts\": []},"
    "{\"op\": \"aten.index_add.default\", \"occurrences\": 3, \"total_us\": null, \"parts\": ["
    "{\"label\": \"A\", \"suite\": \"hf\", \"mode\": \"train\", \"model\": \"A\", \"occurrences\": 3, \"total_us\": 4}]}]}";

/* sample with the first occurrence of from replaced by to, in out. */
static void replaced(const char *sample, const char *from, const char *to, char *out, size_t n)
{
    const char *at = strstr(sample, from);
    cr_assert(at, "%s not in the sample", from);
    snprintf(out, n, "%.*s%s%s", (int)(at - sample), sample, to, at + strlen(from));
}

/* The sample changed so that the load must fail, saying expect. */
static void bad_seed(const char *from, const char *to, const char *expect)
{
    char text[4096];
    replaced(good, from, to, text, sizeof text);
    char *path = test_write(test_tmpdir(), "seed_totals.json", text);
    ea_seed_totals s;
    ea_error err;
    cr_assert_eq(ea_seed_totals_load(path, &s, &err), -1, "accepted: %s", text);
    has(err.msg, path);
    has(err.msg, expect);
    free(path);
}

Test(seed_totals, sample_reads)
{
    char *path = test_write(test_tmpdir(), "seed_totals.json", good);
    ea_seed_totals s;
    ea_error err;
    cr_assert_eq(ea_seed_totals_load(path, &s, &err), 0, "%s", err.msg);
    cr_assert_float_eq(s.ops[3].total_us, 4, 1e-12);
    cr_assert_eq(s.ops[4].occurrences, 0, "an op the seed did not price (aten._fft_c2c.default) has no figure");
    ea_seed_totals_free(&s);
    free(path);
}

Test(seed_totals, malformed_files_name_the_path)
{
    bad_seed("\"extern-audit/seed-totals\"", "\"x\"", "$.schema: expected \"extern-audit/seed-totals\"");
    bad_seed("\"aten.histc.default\"", "\"aten.cat.default\"", "$.ops[2].op: expected each op once");
    bad_seed("\"aten.histc.default\"", "\"aten.mm.default\"", "$.ops[2].op: expected an audited op");
    bad_seed("\"total_us\": 10, \"parts\": []}", "\"total_us\": -1, \"parts\": []}", "$.ops[0].total_us: expected a positive number");
    bad_seed("\"occurrences\": 3, \"total_us\": 4", "\"occurrences\": 2, \"total_us\": 4",
             "$.ops[3].total_us: expected a number, or null with parts covering every occurrence");
    bad_seed("\"occurrences\": 3, \"total_us\": 4", "\"occurrences\": 9, \"total_us\": 4",
             "$.ops[3].parts: expected parts with no more occurrences than the op");
    bad_seed("\"occurrences\": 3, \"total_us\": null", "\"occurrences\": 3, \"total_us\": 1",
             "$.ops[3].parts: expected parts that add up to no more than total_us");
    bad_seed("\"label\": \"A\",", "\"label\": \"A\", \"extra\": 1,", "$.ops[3].parts[0]");
    bad_seed("{\"op\": \"aten.histc.default\"", "{\"op\": \"aten.cat.default\"",
             "$.ops[2].op: expected each op once, got \"aten.cat.default\"");
    /* an op the seed listed may not go missing (one audited since may) */
    bad_seed("{\"op\": \"aten.histc.default\", \"occurrences\": 2, \"total_us\": 10, \"parts\": []},", "",
             "$.ops: expected an entry for every op the seed listed, got aten.histc.default");
}

static const char *const accounting =
    "{\"hardware\": \"NVIDIA B200\", \"identity\": \"hf/train/M\", \"schema_version\": 2, \"source\": \"occurrences\","
    " \"source_manifest_digest\": \"d\", \"source_provenance\": {\"hardware\": {\"torch_version\": \"2.15\"}},"
    " \"model\": {\"extern_occurrences\": 7, \"extern_total_us\": 12.5, \"fusible\": {}, \"mode\": \"train\","
    " \"model\": \"M\", \"suite\": \"hf\", \"trace_errors\": [], \"unpriced_extern_occurrences\": 0}}";

static char *corpus_with(const char *text)
{
    const char *dir = test_tmpdir();
    free(test_write(dir, "benchmarks/model_accounting/b200/hf/train/M.json", text));
    return (char *)dir;
}

static void bad_accounting(const char *from, const char *to, const char *expect)
{
    char text[4096];
    replaced(accounting, from, to, text, sizeof text);
    ea_model_accounting a;
    ea_error err;
    cr_assert_eq(ea_corpus_accounting(corpus_with(text), "hf", "train", "M", &a, &err), -1, "accepted: %s", text);
    has(err.msg, "benchmarks/model_accounting/b200/hf/train/M.json");
    has(err.msg, expect);
}

Test(corpus_accounting, reads_and_absent_is_no_error)
{
    ea_model_accounting a;
    ea_error err;
    const char *dir = corpus_with(accounting);
    cr_assert_eq(ea_corpus_accounting(dir, "hf", "train", "M", &a, &err), 0, "%s", err.msg);
    cr_assert(a.found);
    cr_assert_float_eq(a.extern_total_us, 12.5, 1e-12);
    cr_assert_eq(a.extern_occurrences, 7);
    cr_assert_str_eq(a.torch, "2.15");
    cr_assert_eq(ea_corpus_accounting(dir, "hf", "infer", "M", &a, &err), 0);
    cr_assert_not(a.found);
}

Test(corpus_accounting, malformed_files_name_the_path)
{
    bad_accounting("\"identity\": \"hf/train/M\"", "\"identity\": \"hf/train/N\"", "$.identity: expected \"hf/train/M\"");
    bad_accounting("\"schema_version\": 2", "\"schema_version\": 3", "$.schema_version: expected 2, got 3");
    bad_accounting("\"extern_total_us\": 12.5", "\"extern_total_us\": -1", "$.model.extern_total_us: expected a non-negative number");
    bad_accounting("\"extern_occurrences\": 7", "\"extern_occurrences\": -7", "$.model.extern_occurrences: expected a non-negative integer");
    bad_accounting("\"fusible\": {},", "\"fusible\": {}, \"surprise\": 1,", "$.model");
    bad_accounting("\"torch_version\": \"2.15\"", "\"torch_version\": 2", "$.source_provenance.hardware.torch_version");
}

Test(corpus_accounting, the_real_corpus_prices_the_audited_models)
{
    const char *corpus = test_corpus();
    if (!corpus)
        cr_skip_test("corpus not unpacked: set EXTERN_AUDIT_CORPUS or unpack ../shared/corpus into build/corpus");
    ea_model_accounting a;
    ea_error err;
    cr_assert_eq(ea_corpus_accounting(corpus, "hf", "infer", "openai/gpt-oss-20b", &a, &err), 0, "%s", err.msg);
    cr_assert(a.found);
    cr_assert_str_eq(a.hardware, "NVIDIA B200");
    cr_assert_gt(a.extern_occurrences, 48); /* at least the audited histc and cumsum */
}

/* What op_timing.py writes with the pipeline's method (tools/capture/tests/test_pipeline.py keeps
 * this fixture current): every audited op's point, DenseNet's 25-input cats included, reads. */
Test(torch_ops_pipeline, python_fixture_reads)
{
    ea_torch_ops t;
    ea_error err;
    cr_assert_eq(ea_torch_ops_load("tests/fixtures/torch_ops/pipeline/H200.json", "H200", &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.n, 78);
    const ea_torch_op *cat = ea_torch_ops_find(&t, "cat-46f45a30dab3"), *ia = ea_torch_ops_find(&t, "index_add-a8e741bae3fe");
    cr_assert_not_null(cat);
    cr_assert(cat->pipeline.timed);
    cr_assert_not(cat->faithful.timed);
    cr_assert_eq(cat->pipeline.replays, 50);
    cr_assert_gt(cat->pipeline.min_us, cat->pipeline.steady_us);
    cr_assert(ia->faithful.timed && ia->pipeline.timed);
    ea_torch_ops_free(&t);
}
