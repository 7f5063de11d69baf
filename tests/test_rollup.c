/* The rollup (rollup.h) on the committed golden data and on copies of it with one thing changed:
 * the routing scope counted once, every --check failure kind, absent and malformed inputs. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "base/json.h"
#include "report/report.h"
#include "report/rollup.h"
#include "target/target.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static cJSON *load(const char *path)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

static void put(const char *dir, const char *name, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    free(test_write(dir, name, text));
    free(text);
}

/* A golden folder whose occurrences are the committed ones (linked) and whose target's files are given
 * (classification NULL: the committed file; other NULLs: left out). */
static const char *golden_copy(const cJSON *classification, const cJSON *baselines, const cJSON *torch_ops, int seed)
{
    const char *dir = test_tmpdir();
    char cwd[PATH_MAX], src[PATH_MAX + 64], dst[PATH_MAX];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(src, sizeof src, "%s/golden/occurrences", cwd);
    snprintf(dst, sizeof dst, "%s/occurrences", dir);
    cr_assert_eq(symlink(src, dst), 0);
    /* the oracle's known breaches on the committed baselines (oracle_rule.h) */
    snprintf(src, sizeof src, "%s/golden/oracle_allowlist.json", cwd);
    snprintf(dst, sizeof dst, "%s/oracle_allowlist.json", dir);
    cr_assert_eq(symlink(src, dst), 0);
    cJSON *c = classification ? cJSON_Duplicate(classification, 1) : load("golden/targets/" TEST_TARGET "/classification.json");
    free(test_target(dir, "H200", "2.11.0+cu130", "9.0"));
    /* torch.compile's times the rule judges the oracle against are the captures' */
    snprintf(src, sizeof src, "%s/golden/targets/" TEST_TARGET "/captures", cwd);
    snprintf(dst, sizeof dst, "%s/targets/" TEST_TARGET "/captures", dir);
    cr_assert_eq(symlink(src, dst), 0);
    put(dir, "targets/" TEST_TARGET "/classification.json", c);
    cJSON_Delete(c);
    if (baselines)
        put(dir, "targets/" TEST_TARGET "/baselines.json", baselines);
    if (torch_ops)
        put(dir, "targets/" TEST_TARGET "/torch_ops.json", torch_ops);
    if (seed) {
        cJSON *s = load("golden/seed_totals.json");
        put(dir, "seed_totals.json", s);
        cJSON_Delete(s);
    }
    return dir;
}

static cJSON *build(const char *golden, const char *corpus)
{
    ea_rollup_opts o = {golden, corpus, NULL};
    ea_error err;
    cJSON *doc;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    return doc;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

static const cJSON *op_agg(const cJSON *doc, const char *op)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(o, "op")->valuestring, op))
            return o;
    cr_assert_fail("no op %s", op);
    return NULL;
}

/* The baselines result of family f (uniform, whole scope: the one marked capture-comparable). */
static cJSON *result(cJSON *baselines, const char *family)
{
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(baselines, "scopes"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(r, "family")->valuestring, family) &&
            !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "config"),
                                                             "capture_comparable")))
            return r;
    cr_assert_fail("no %s result", family);
    return NULL;
}

static double current_us(const cJSON *r)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring, "current") &&
            !strcmp(cJSON_GetObjectItemCaseSensitive(p, "mode")->valuestring, "faithful"))
            return num(cJSON_GetObjectItemCaseSensitive(p, "time"), "median_us");
    cr_assert_fail("no current path");
    return NAN;
}

Test(rollup, golden_accounts_every_occurrence_and_counts_the_routing_scope_once)
{
    cJSON *doc = build("golden", NULL), *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
    cr_assert_eq(num(t, "occurrences"), 279); /* 190 of the first four ops, 89 of the five added since */
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "check")), 0);
    /* the sources name the files read: the target's classification, not one beside the occurrences */
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "sources"),
                                                      "classification")->valuestring,
                     "golden/targets/H200-torch2.11.0+cu130/classification.json");
    /* the warm policy the priced paths ran under: each path's own calls per replay, not the header's count */
    double lo = INFINITY, hi = -INFINITY;
    const cJSON *res, *path;
    cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(base, "scopes"))
        cJSON_ArrayForEach(path, cJSON_GetObjectItemCaseSensitive(res, "paths")) {
            double k = num(cJSON_GetObjectItemCaseSensitive(path, "time"), "calls_per_replay");
            lo = fmin(lo, k), hi = fmax(hi, k);
        }
    char policy[128];
    snprintf(policy, sizeof policy, "warm: %.0f to %.0f (each path's own) calls back to back per CUDA graph replay", lo,
             hi);
    cr_assert(lo < hi && lo != num(base, "calls_per_replay"));
    has(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "gpus"), "cache_policy")->valuestring,
        policy);
    /* the launch-bound table's rows are told apart: no two share family, alias, mode and variant */
    const cJSON *a, *b;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "launch_floor"), "scopes"))
        for (b = a->next; b; b = b->next)
            cr_assert(strcmp(ej_str(a, "family"), ej_str(b, "family")) || strcmp(ej_str(a, "alias"), ej_str(b, "alias")) ||
                          strcmp(ej_str(a, "mode"), ej_str(b, "mode")) || strcmp(ej_str(a, "variant"), ej_str(b, "variant")),
                      "two launch-bound rows of %s %s read the same", ej_str(a, "family"), ej_str(a, "alias"));
    /* histc carries the whole routing scope, 24 times; the cumsum occurrences of that scope carry none */
    double routing = current_us(result(base, "routing_histc"));
    cr_assert_float_eq(num(cJSON_GetObjectItemCaseSensitive(op_agg(doc, "aten.histc.default"), "us"), "after"),
                       24 * routing, 1e-6);
    cr_assert_eq(num(op_agg(doc, "aten.cumsum.default"), "shared"), 24);
    const cJSON *row;
    int shared_rows = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
        if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with"))) {
            shared_rows++;
            cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "shared_with")->valuestring, "aten.histc.default");
            cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(row, "us"), "after"), 0);
        }
    cr_assert_eq(shared_rows, 1);
    /* buckets add up to the priced total; lowered and fallbacks never share a bucket */
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(t, "us");
    cr_assert_float_eq(num(u, "lowered") + num(u, "conditional_fallback") + num(u, "true_fallback"), num(u, "after"), 1e-6);
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(op_agg(doc, "aten.cat.default"), "us"), "conditional_fallback"), 0);
    cr_assert_eq(num(t, "false_extern"), 106);
    /* the seed's figures stay B200's: index_add's total is its two parts' sum */
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(op_agg(doc, "aten.index_add.default"), "seed");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(seed, "gpu")->valuestring, "NVIDIA B200");
    cr_assert_float_eq(num(seed, "total_us"), 140941.8 + 13392.4, 1e-6);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "gpus"), "after")->valuestring,
                     "NVIDIA H200");
    cJSON_Delete(base);
    cJSON_Delete(doc);
}

/* Each breach of the completion criterion, made in a copy of the golden data, is found by --check. */
static void check_fails(const char *golden, const char *kind)
{
    cli_run r = test_cli("rollup", "--golden", golden, "--check", NULL);
    cr_assert_eq(r.status, 1, "exit %d, stderr:\n%s", r.status, r.err);
    has(r.err, kind);
    cli_run_free(&r);
}

Test(rollup, check_finds_an_unpriced_scope)
{
    cJSON *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(base, "scopes"),
                              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(base, "scopes")) - 1);
    check_fails(golden_copy(NULL, base, NULL, 1), "unpriced_without_reason");
    cJSON_Delete(base);
}

Test(rollup, check_finds_a_lowered_occurrence_labelled_as_a_fallback)
{
    cJSON *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON_ReplaceItemInObjectCaseSensitive(result(base, "cat"), "class", cJSON_CreateString("true_fallback"));
    check_fails(golden_copy(NULL, base, NULL, 1), "lowered_counted_extern");
    cJSON_Delete(base);
}

Test(rollup, check_finds_a_fallback_without_its_label)
{
    cJSON *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON_ReplaceItemInObjectCaseSensitive(result(base, "index_add"), "class", cJSON_CreateString("unclassified"));
    check_fails(golden_copy(NULL, base, NULL, 1), "fallback_unlabelled");
    cJSON_Delete(base);
}

/* Once captured, a fallback no family measures is unpriced with the baselines' unmeasured reason, not a gap. */
Test(rollup, a_captured_op_listed_unmeasured_is_unpriced_with_its_reason)
{
    cJSON *cls = load("golden/targets/H200-torch2.11.0+cu130/classification.json"), *e;
    int n = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cls, "occurrences"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "op")->valuestring, "aten._fft_c2c.default")) {
            cJSON_ReplaceItemInObjectCaseSensitive(e, "class", cJSON_CreateString("true_fallback"));
            n++;
        }
    cr_assert_gt(n, 0);
    test_resummarize(cls);
    cJSON *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON *doc = build(golden_copy(cls, base, NULL, 1), NULL);
    const cJSON *row;
    int rows = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(row, "op")->valuestring, "aten._fft_c2c.default")) {
            has(cJSON_GetObjectItemCaseSensitive(row, "unpriced")->valuestring, "unmeasured: library: a cuFFT plan");
            rows++;
        }
    cr_assert_gt(rows, 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "check")), 0);
    cJSON_Delete(doc);
    cJSON_Delete(cls);
    cJSON_Delete(base);
}

Test(rollup, check_finds_an_unclassified_occurrence)
{
    cJSON *cls = load("golden/targets/H200-torch2.11.0+cu130/classification.json"), *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cls, "occurrences"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "class", cJSON_CreateString("unclassified"));
    cJSON_ReplaceItemInObjectCaseSensitive(e, "false_extern", cJSON_CreateFalse());
    cJSON_ReplaceItemInObjectCaseSensitive(e, "capture", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(e, "configs_agree", cJSON_CreateNull());
    test_resummarize(cls); /* the summary must agree with the entries for the reader to take the file */
    check_fails(golden_copy(cls, base, NULL, 1), "fallback_unlabelled");
    cJSON_Delete(cls);
    cJSON_Delete(base);
}

Test(rollup, without_baselines_every_row_states_why_it_is_unpriced)
{
    const char *g = golden_copy(NULL, NULL, NULL, 0);
    cli_run r = test_cli("rollup", "--golden", g, "--check", NULL);
    cr_assert_eq(r.status, 0, "stderr:\n%s", r.err);
    cli_run_free(&r);
    setenv("EXTERN_AUDIT_CORPUS", "/nonexistent", 1); /* a default's absence is a note; a --corpus named is not */
    r = test_cli("rollup", "--golden", g, NULL);
    cr_assert_eq(r.status, 0, "stderr:\n%s", r.err);
    has(r.out, "no GPU (no baselines)");
    has(r.out, "no seed totals");
    has(r.out, "corpus before column unavailable: no corpus at /nonexistent");
    has(r.out, "Inductor's default config (the captured default run); no priced scope's capture timed both configs");
    cli_run_free(&r);
    cJSON *doc = build(g, NULL);
    /* all but the 24 cumsums of the routing scope, which histc's rows carry */
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "unpriced"), 279 - 24);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "rows"), 0);
    has(cJSON_GetObjectItemCaseSensitive(row, "unpriced")->valuestring, "no baselines");
    cJSON_Delete(doc);
}

Test(rollup, two_targets_of_one_gpu_need_one_named)
{
    unsetenv(EA_TARGET_ENV);
    cJSON *base = load("golden/targets/" TEST_TARGET "/baselines.json");
    const char *g = golden_copy(NULL, base, NULL, 1);
    char *other = test_target(g, "H200", "2.12.0+cu130", "9.0"); /* the same GPU, another torch */
    put(other, "baselines.json", base);
    free(other);
    cli_run r = test_cli("rollup", "--golden", g, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "2 targets");
    has(r.err, "H200-torch2.11.0+cu130, H200-torch2.12.0+cu130");
    has(r.err, "name one with --target NAME or " EA_TARGET_ENV);
    cli_run_free(&r);
    r = test_cli("rollup", "--golden", g, "--target", TEST_TARGET, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"after_model\":\t\"H200\"");
    has(r.out, "targets/" TEST_TARGET "/baselines.json");
    cli_run_free(&r);
    setenv(EA_TARGET_ENV, "H200-torch2.12.0+cu130", 1);
    r = test_cli("rollup", "--golden", g, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "targets/H200-torch2.12.0+cu130/baselines.json");
    cli_run_free(&r);
    cJSON_Delete(base);
}

/* The pipeline's method (torch_ops "pipeline") priced beside ours: the gap's terms add up exactly. */
Test(rollup, pipeline_gap_terms_add_up)
{
    /* a made-up pipeline timing for the index_add points alone, whatever the committed file measured */
    cJSON *ops = load("golden/targets/H200-torch2.11.0+cu130/torch_ops.json"), *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(ops, "points"))
    {
        cJSON_DeleteItemFromObjectCaseSensitive(p, "pipeline");
        if (strncmp(cJSON_GetObjectItemCaseSensitive(p, "point")->valuestring, "index_add-", 10))
            continue;
        cJSON *pl = cJSON_AddObjectToObject(p, "pipeline");
        cJSON_AddStringToObject(pl, "call", "torch.ops.aten.index_add.default(...)");
        cJSON_AddNumberToObject(pl, "calls_per_replay", 1);
        cJSON_AddNumberToObject(pl, "replays", 50);
        cJSON_AddNumberToObject(pl, "min_us", 1000);
        cJSON_AddNumberToObject(pl, "steady_us", 900);
    }
    cJSON *base = load("golden/targets/H200-torch2.11.0+cu130/baselines.json");
    cJSON *doc = build(golden_copy(NULL, base, ops, 1), NULL);
    const cJSON *ia = op_agg(doc, "aten.index_add.default"), *gap = cJSON_GetObjectItemCaseSensitive(ia, "gap");
    double after = num(cJSON_GetObjectItemCaseSensitive(ia, "us"), "after");
    cr_assert_float_eq(num(gap, "pipeline"), 60 * 1000.0, 1e-6);
    cr_assert_float_eq(num(gap, "lone_op_launch"), 60 * 100.0, 1e-6);
    cr_assert_float_eq(num(gap, "lone_op_launch") + num(gap, "fabricated_contention") + num(gap, "scope"),
                       num(gap, "pipeline") - after, 1e-6);
    char *md = ea_report_markdown(doc);
    has(md, "**Gap: the pipeline's price down to the faithful in-scope price**");
    has(md, "| aten.index_add.default | 60000.0 | 6000.0 |");
    free(md);
    /* ops the file has no pipeline timing for stay unmeasured, never zero */
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(op_agg(doc, "aten.cat.default"), "gap"), "pipeline")));
    cJSON_Delete(doc);
    /* one call per replay is the method: anything else is refused */
    int k = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(ops, "points"))
    {
        if (cJSON_GetObjectItemCaseSensitive(p, "pipeline"))
            break;
        k++;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "pipeline"), "calls_per_replay",
                                           cJSON_CreateNumber(20));
    cli_run r = test_cli("rollup", "--golden", golden_copy(NULL, base, ops, 1), NULL);
    cr_assert_eq(r.status, 2);
    char where[128];
    snprintf(where, sizeof where, "torch_ops.json $.points[%d].pipeline.calls_per_replay: expected 1, got 20", k);
    has(r.err, where);
    cli_run_free(&r);
    cJSON_Delete(ops);
    cJSON_Delete(base);
}

Test(rollup, cli_usage)
{
    cli_run r = test_cli("rollup", "--help", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--markdown FILE");
    cli_run_free(&r);
    r = test_cli("rollup", "--markdown", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "option '--markdown' needs a value");
    cli_run_free(&r);
    r = test_cli("rollup", "--update", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "unknown option '--update'");
    cli_run_free(&r);
    r = test_cli("rollup", "--golden", "/nonexistent", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden /nonexistent: not a folder");
    cli_run_free(&r);
}

static const cJSON *model_of(const cJSON *doc, const char *model)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "models"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(m, "model")->valuestring, model))
            return m;
    cr_assert_fail("no model %s", model);
    return NULL;
}

/* One malformed accounting file is reported (exit 2) and every other model still accounted. */
Test(rollup, a_bad_corpus_file_is_reported_and_the_others_accounted)
{
    const char *corpus = test_tmpdir();
    free(test_write(corpus, "benchmarks/model_accounting/b200/hf/train/XLNetLMHeadModel.json",
               "{\"hardware\": \"NVIDIA B200\", \"identity\": \"hf/train/XLNetLMHeadModel\", \"schema_version\": 2,"
               " \"source\": \"occurrences\", \"source_manifest_digest\": \"d\", \"source_provenance\": {},"
               " \"model\": {\"extern_occurrences\": 30, \"extern_total_us\": 5, \"fusible\": {}, \"mode\": \"train\","
               " \"model\": \"XLNetLMHeadModel\", \"suite\": \"hf\", \"trace_errors\": [], \"unpriced_extern_occurrences\": 0}}"));
    free(test_write(corpus, "benchmarks/model_accounting/b200/hf/infer/openai/gpt-oss-20b.json", "{\"hardware\": 3}"));
    cli_run r = test_cli("rollup", "--corpus", corpus, "--json", NULL);
    cr_assert_eq(r.status, 2, "stderr:\n%s", r.err);
    has(r.err, "gpt-oss-20b.json $.schema_version: expected integer");
    cJSON *doc = cJSON_Parse(r.out);
    cr_assert_not_null(doc);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(model_of(doc, "XLNetLMHeadModel"), "corpus");
    cr_assert_eq(num(x, "extern_total_us"), 5);
    cr_assert_eq(num(x, "extern_occurrences"), 30);
    has(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(model_of(doc, "densenet121"), "corpus"), "note")->valuestring,
        "no model accounting file");
    cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "before"),
                     "corpus_models"), 1);
    cJSON_Delete(doc);
    cli_run_free(&r);
}

Test(rollup, cli_writes_every_report)
{
    const char *dir = test_tmpdir();
    char md[512], html[512], v3[512];
    snprintf(md, sizeof md, "%s/rollup.md", dir);
    snprintf(html, sizeof html, "%s/rollup.html", dir);
    snprintf(v3, sizeof v3, "%s/rollup-v3.json", dir);
    cli_run r = test_cli("rollup", "--markdown", md, "--html", html, "--v3", v3, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "rollup: wrote");
    cr_assert_null(strstr(r.out, "Extern rollup"), "a file written: one line, not the tables");
    cli_run_free(&r);
    char *text = test_read(md);
    has(text, "**Per op: before (seed) and after (faithful scope, oracle)**");
    free(text);
    has(text = test_read(html), "<svg");
    free(text);
    cJSON *records = cJSON_Parse(text = test_read(v3));
    cr_assert(cJSON_IsArray(records) && cJSON_GetArraySize(records) > 0);
    /* the schema's modes: a model's own, an op's summed over both */
    const cJSON *rec;
    cJSON_ArrayForEach(rec, records) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(rec, "benchmark");
        const char *mode = cJSON_GetObjectItemCaseSensitive(b, "mode")->valuestring;
        const char *type = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "model"), "type")->valuestring;
        cr_assert(!strcmp(type, "op") ? !strcmp(mode, "mixed") : !strcmp(mode, "training") || !strcmp(mode, "inference"),
                  "%s record of mode %s", type, mode);
    }
    cJSON_Delete(records);
    free(text);
    /* "-": that report alone on stdout */
    r = test_cli("rollup", "--markdown", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strncmp(r.out, "Before on NVIDIA B200", 21), 0, "%.80s", r.out);
    cli_run_free(&r);
    r = test_cli("rollup", "--html", "/nonexistent/dir/r.html", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/nonexistent/dir/r.html");
    cli_run_free(&r);
}

/* torch.compile's median of run config in the committed capture folder scope. */
static double compiled_median(const char *scope, const char *config)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "golden/targets/" TEST_TARGET "/captures/%s/capture.json", scope);
    cJSON *c = load(path), *r;
    double v = NAN;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c, "runs"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(r, "config")->valuestring, config))
            v = num(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "timing"), "compiled"),
                    "median_us");
    cJSON_Delete(c);
    return v;
}

/* torch.compile's timing of the capture's two runs (compiled_*), summed only where both are there, beside the
 * replayed ones in the table of the two configs. */
Test(rollup, the_current_is_the_default_config_and_the_tuned_one_is_the_captures_timing)
{
    cJSON *doc = build("golden", NULL);
    const cJSON *row, *t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
    double def = 0, tun = 0, both = 0;
    int rows = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows")) {
        const cJSON *pc = cJSON_GetObjectItemCaseSensitive(row, "per_call"), *u = cJSON_GetObjectItemCaseSensitive(row, "us");
        const char *scope = cJSON_GetObjectItemCaseSensitive(row, "capture_scope")->valuestring;
        double n = num(row, "occurrences");
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(u, "compiled_tuned"))) {
            cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(u, "compiled_default")), "both or neither");
            cr_assert(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "priced")) ||
                          !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with")),
                      "%s: every priced unshared row's capture timed both runs", scope);
            continue;
        }
        cr_assert_float_eq(num(pc, "compiled_default_us"), compiled_median(scope, "default"), 1e-9, "%s", scope);
        cr_assert_float_eq(num(pc, "compiled_tuned_us"), compiled_median(scope, "coordinate_descent"), 1e-9, "%s", scope);
        cr_assert_float_eq(num(u, "compiled_tuned"), n * num(pc, "compiled_tuned_us"), 1e-9);
        def += num(u, "compiled_default");
        tun += num(u, "compiled_tuned");
        both += n;
        rows++;
    }
    cr_assert_eq(both, 168, "cat 62, cumsum 20, histc 24, index_add 60, avgpool backward 2 (%d rows)", rows);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(t, "us");
    cr_assert_float_eq(num(u, "compiled_default"), def, 1e-6);
    cr_assert_float_eq(num(u, "compiled_tuned"), tun, 1e-6);
    cr_assert_eq(num(t, "compiled_both"), both);
    cr_assert_eq(num(op_agg(doc, "aten.cumsum.default"), "compiled_both"), 20, "the 24 routing ones are histc's");
    char *text = ea_report_text(doc, 10);
    has(text, "Inductor's default config against its coordinate-descent tuned one (both captured runs replayed from C; "
              "torch.compile's timing at capture beside)");
    free(text);
    cJSON_Delete(doc);
}

/* Baselines measured before the tuned config was replayed: the "current" answer falls back on torch.compile's
 * timing of the two runs at capture, and no row has a tuned figure. */
Test(rollup, without_a_replayed_tuned_config_the_answer_is_the_captures_timing)
{
    cJSON *base = load("golden/targets/" TEST_TARGET "/baselines.json"), *r;
    int removed = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(base, "scopes")) {
        cJSON *paths = cJSON_GetObjectItemCaseSensitive(r, "paths");
        for (int i = cJSON_GetArraySize(paths) - 1; i >= 0; i--)
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(paths, i), "name")->valuestring,
                        "current_tuned")) {
                cJSON_DeleteItemFromArray(paths, i);
                removed++;
            }
    }
    cr_assert_gt(removed, 0, "the committed baselines replay the tuned config");
    cJSON *doc = build(golden_copy(NULL, base, NULL, 1), NULL);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "totals"), *u = cJSON_GetObjectItemCaseSensitive(t, "us");
    cr_assert_eq(num(t, "tuned_both"), 0);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(u, "current_tuned")), "unpriced, not 0 us");
    char *text = ea_report_text(doc, 10), all[256];
    snprintf(all, sizeof all, "Inductor's default config (the captured default run); torch.compile timed the "
             "coordinate-descent tuned run at %.2fx of it over 168 occurrences",
             num(u, "compiled_tuned") / num(u, "compiled_default"));
    has(text, all);
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(base);
}

/* The tuned config replayed: each lowered row's current_tuned path beside its current one, summed with the oracle
 * over the same rows only, and the "current" answer saying which config the figures price and the oracle's
 * speedup over each. */
Test(rollup, the_tuned_config_is_replayed_beside_the_default_one)
{
    cJSON *doc = build("golden", NULL);
    const cJSON *row, *t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
    double cur = 0, tun = 0, orc = 0, both = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows")) {
        const cJSON *pc = cJSON_GetObjectItemCaseSensitive(row, "per_call"), *u = cJSON_GetObjectItemCaseSensitive(row, "us");
        const char *scope = cJSON_GetObjectItemCaseSensitive(row, "capture_scope")->valuestring;
        double n = num(row, "occurrences");
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(u, "current_tuned"))) {
            cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(u, "current_paired")), "%s: all four or none", scope);
            cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(u, "oracle_paired")), "%s", scope);
            cr_assert(strcmp(ej_str(row, "bucket"), "lowered") || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "priced")) ||
                          !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with")),
                      "%s: every priced unshared lowered row has a tuned current", scope);
            continue;
        }
        cr_assert_gt(num(pc, "current_tuned_us"), 0, "%s", scope);
        cr_assert_float_eq(num(u, "current_tuned"), n * num(pc, "current_tuned_us"), 1e-9, "%s", scope);
        cr_assert_float_eq(num(u, "current_paired"), n * num(pc, "current_us"), 1e-9, "%s", scope);
        cr_assert_float_eq(num(u, "oracle_paired"), n * num(pc, "oracle_us"), 1e-9, "%s", scope);
        cur += num(u, "current_paired");
        tun += num(u, "current_tuned");
        orc += num(u, "oracle_paired");
        both += n;
    }
    cr_assert_eq(both, 118, "cat 62, cumsum 20, histc 24 (the routing scope), index_add 12 (Longformer's div-folded "
                            "groups: the captured div kernel after ATen's op has a tuned config)");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(t, "us");
    cr_assert_eq(num(t, "tuned_both"), both);
    cr_assert_float_eq(num(u, "current_paired"), cur, 1e-6);
    cr_assert_float_eq(num(u, "current_tuned"), tun, 1e-6);
    cr_assert_float_eq(num(u, "oracle_paired"), orc, 1e-6);
    char *text = ea_report_text(doc, 10), all[512];
    snprintf(all, sizeof all, "current                                Inductor's default config (the captured default "
             "run, replayed); its coordinate-descent tuned run, replayed beside it over 118 occurrences, costs %.2fx of "
             "it: the oracle's speedup there is %.2fx over the default and %.2fx over the tuned config", tun / cur,
             cur / orc, tun / orc);
    has(text, all);
    free(text);
    cJSON_Delete(doc);
}

/* Each row of candidate lowering's rollup that its golden price prices is priced so and says so; n: those rows. */
static int check_candidate_rows(const char *lowering)
{
    char target[256], dir[512];
    snprintf(target, sizeof target, TEST_TARGET "-%s", lowering);
    snprintf(dir, sizeof dir, "golden/targets/%s", target);
    ea_rollup_opts o = {"golden", NULL, target};
    ea_error err;
    cJSON *doc;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    cli_run p = test_cli("golden", "price", dir, "--target", TEST_TARGET, "--json", NULL);
    cr_assert_eq(p.status, 0, "%s", p.err);
    cJSON *price = cJSON_Parse(p.out);
    cr_assert_not_null(price);
    const cJSON *row, *e;
    int lowered = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows")) {
        const cJSON *by = cJSON_GetObjectItemCaseSensitive(row, "priced_by_lowering");
        const char *key = cJSON_GetObjectItemCaseSensitive(row, "capture_scope")->valuestring;
        const cJSON *pc = cJSON_GetObjectItemCaseSensitive(row, "per_call");
        int priced = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(price, "scopes"))
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "scope")->valuestring, key)) {
                priced = 1;
                cr_assert_float_eq(num(pc, "current_us"), num(e, "candidate_us"), 1e-9, "%s", key);
                if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "candidate_fabricated_us")))
                    cr_assert_float_eq(num(pc, "fabricated_us"), num(e, "candidate_fabricated_us"), 1e-9, "%s", key);
                else /* no fabricated mode (routing): none under the lowering either */
                    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(pc, "fabricated_us")), "%s", key);
                cr_assert_float_eq(num(pc, "oracle_us"), num(e, "oracle_us"), 1e-9, "%s: the base's oracle", key);
            }
        cr_assert_eq(cJSON_IsString(by), priced, "%s", key);
        if (priced) {
            cr_assert_str_eq(by->valuestring, lowering);
            cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "priced")) ||
                          !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with")),
                      "%s: priced, whatever the candidate's own result says", key);
            lowered++;
        }
    }
    char *text = ea_report_text(doc, 10), want[128];
    snprintf(want, sizeof want, "a candidate target: the scopes its lowering %s recaptured are priced", lowering);
    has(text, want);
    free(text);
    cJSON_Delete(price);
    cli_run_free(&p);
    cJSON_Delete(doc);
    return lowered;
}

/* A candidate target's rollup prices the scopes its lowering recaptured at golden price's candidate price, not from
 * its own baselines, whether they time the ATen path (index_add) or cannot run the recaptured steps (routing: the
 * result is unsupported); every other row as the baselines give it. */
Test(rollup, a_candidate_target_prices_its_recaptured_scopes_at_the_candidates_price)
{
    cr_assert_gt(check_candidate_rows("index_add_iota_gather"), 0);
    cr_assert_gt(check_candidate_rows("routing_counting_sort"), 0);
    cJSON *doc, *row;
    char *text;
    /* today's target: no row is priced by a lowering, and the note is not there */
    doc = build("golden", NULL);
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
        cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "priced_by_lowering")));
    text = ea_report_text(doc, 10);
    cr_assert_null(strstr(text, "a candidate target:"));
    free(text);
    cJSON_Delete(doc);
}

/* A candidate target whose base cannot be read is priced from its own baselines, and the rollup says why. */
Test(rollup, a_candidate_target_without_a_readable_base_says_so)
{
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/g", test_tmpdir());
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/targets && cp -r golden/occurrences %s/ && cp -r golden/targets/" TEST_TARGET " "
             "golden/targets/" TEST_TARGET "-index_add_iota_gather %s/targets/ && rm %s/targets/" TEST_TARGET
             "/baselines.json",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    ea_rollup_opts o = {dir, NULL, TEST_TARGET "-index_add_iota_gather"};
    ea_error err;
    cJSON *doc, *row;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "sources");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(src, "lowering_base")));
    has(cJSON_GetObjectItemCaseSensitive(src, "lowering_base_note")->valuestring,
        "/targets/" TEST_TARGET "/baselines.json: cannot read");
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
        cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "priced_by_lowering")));
    char *text = ea_report_text(doc, 10);
    has(text, "a candidate target priced from its own baselines: its base could not be read (");
    free(text);
    cJSON_Delete(doc);
}
