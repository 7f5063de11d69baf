#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "helpers.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

Test(cli, usage_and_help)
{
    cli_run r = test_cli(NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "usage: extern-audit <command>");
    cli_run_free(&r);
    r = test_cli("--help", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "inventory");
    cli_run_free(&r);
    r = test_cli("help", "extract", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--cat-cap N");
    cli_run_free(&r);
    r = test_cli("extract", "--help", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--check DIR");
    cli_run_free(&r);
    r = test_cli("help", "nothing", NULL);
    cr_assert_eq(r.status, 2);
    cli_run_free(&r);
}

Test(cli, bad_usage_exits_2)
{
    cli_run r = test_cli("frobnicate", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "unknown command 'frobnicate'");
    cli_run_free(&r);
    r = test_cli("extract", "--bogus", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "extern-audit extract: unknown option '--bogus'");
    cli_run_free(&r);
    r = test_cli("extract", "--corpus", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "option '--corpus' needs a value");
    cli_run_free(&r);
    r = test_cli("extract", "--cat-cap", "x", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--cat-cap expects an integer");
    cli_run_free(&r);
    r = test_cli("extract", "--out", "a", "--check", "b", NULL);
    cr_assert_eq(r.status, 2);
    cli_run_free(&r);
    r = test_cli("audit", "--corpus", "x", NULL);
    cr_assert_eq(r.status, 2, "audit takes no --corpus");
    cli_run_free(&r);
}

/* Appends "[name]" to the string at ctx; stops the walk with 7 at a name "stop". */
static int collect(const char *name, size_t len, void *ctx)
{
    char *seen = ctx;
    snprintf(seen + strlen(seen), 64 - strlen(seen), "[%.*s]", (int)len, name);
    return len == 4 && !strncmp(name, "stop", 4) ? 7 : 0;
}

/* A comma list's names as run and replay --scope read them: an empty one wherever a comma leaves one (each
 * command refuses it in its words), none in "". */
Test(cli, a_comma_list_yields_each_name_empty_ones_included)
{
    static const char *const lists[][2] = {
        {"a", "[a]"},          {"a,bc,d", "[a][bc][d]"}, {"a,,b", "[a][][b]"}, {",a", "[][a]"},
        {"a,", "[a][]"},       {",", "[][]"},            {"", ""},             {"a,stop,b", "[a][stop]"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char seen[64] = "";
        int rc = ea_cli_each_name(lists[i][0], collect, seen);
        cr_assert_str_eq(seen, lists[i][1], "'%s'", lists[i][0]);
        cr_assert_eq(rc, strstr(lists[i][0], "stop") ? 7 : 0, "'%s': the stopping call's value", lists[i][0]);
    }
}

Test(cli, extract_missing_corpus_exits_2)
{
    cli_run r = test_cli("extract", "--corpus", "/nonexistent/bb", "--quiet", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/nonexistent/bb: corpus folder not found");
    cr_assert_str_eq(r.out, "");
    cli_run_free(&r);
}

Test(cli, extract_writes_then_checks)
{
    const char *dir = test_tmpdir();
    cli_run r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "extract: wrote "); /* a folder written: one line, not the tables */
    cr_assert_null(strstr(r.out, "aten.histc.default"), "%s", r.out);
    has(r.err, "extract: graph 8/8");
    cli_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    cr_assert_eq(access(path, F_OK), 0);

    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--check", dir, "--json", "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"occurrences_by_op\"");
    cr_assert_str_eq(r.err, "");
    cli_run_free(&r);

    /* a different cap gives a different cat document: the check fails and says how to fix it */
    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--check", dir, "--cat-cap", "2", "--quiet", NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "cat.json differs from the corpus extraction");
    cr_assert_str_eq(strchr(r.out, '\n') ? strchr(r.out, '\n') + 1 : "?", "", "one line: %s", r.out);
    has(r.out, "differs from the corpus extraction (11 occurrences): what differs is on stderr"); /* cap 2: one cat more */
    cli_run_free(&r);
}

/* One graph that does not parse is named and skipped: the others are written, and the exit says so. */
Test(cli, extract_skips_a_graph_that_does_not_parse_and_exits_1)
{
    const char *tmp = test_tmpdir();
    char cmd[8400], corpus[4200], out[4200];
    snprintf(corpus, sizeof corpus, "%s/corpus", tmp);
    snprintf(out, sizeof out, "%s/occurrences", tmp);
    snprintf(cmd, sizeof cmd, "cp -r %s %s", FIXTURE_CORPUS, corpus);
    cr_assert_eq(system(cmd), 0);
    free(test_write(corpus, "repros/models/hf/infer/tiny/moe128/full_graph_000.py", "class GraphModule(nn.Module):\n"));
    cli_run r = test_cli("extract", "--corpus", corpus, "--out", out, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    has(r.err, "extern-audit extract: skipped ");
    has(r.err, "moe128/full_graph_000.py:1: expected 'class GraphModule(torch.nn.Module):'");
    has(r.err, "1 of 8 graphs skipped (they do not parse); the other 7 are extracted");
    has(r.out, "extract: wrote "); /* --out prints one line, the written set (issue 27) */
    cli_run_free(&r);
    snprintf(cmd, sizeof cmd, "grep -q graphs_skipped %s/summary.json", out);
    cr_assert_eq(system(cmd), 0, "the written summary lists the skipped graph");
}

/* --out creates its folder and the missing parents (mkdir -p); a file in the way is exit 2, named. */
Test(cli, extract_out_creates_the_folder)
{
    const char *tmp = test_tmpdir();
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/a/b/occurrences/", tmp);
    cli_run r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    snprintf(path, sizeof path, "%ssummary.json", dir);
    cr_assert_eq(access(path, F_OK), 0, "%s written", path);
    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "an existing folder is fine: %s", r.err);
    cli_run_free(&r);
    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--check", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);

    free(test_write(tmp, "plain", "not a folder\n"));
    snprintf(dir, sizeof dir, "%s/plain/out", tmp);
    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 2);
    snprintf(path, sizeof path, "%s/plain: cannot create the folder: a file of that name is in the way", tmp);
    has(r.err, path);
    cli_run_free(&r);
}

Test(cli, inventory_on_fixtures)
{
    cli_run r = test_cli("inventory", "--corpus", FIXTURE_CORPUS, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "cross-check: every graph");
    cli_run_free(&r);
    r = test_cli("inventory", "--corpus", FIXTURE_CORPUS, "--rule", "/nonexistent/rule.json", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/nonexistent/rule.json: cannot read");
    cli_run_free(&r);
}

Test(cli, audit_reads_the_committed_golden)
{
    cli_run r = test_cli("audit", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "aten.index_add.default");
    has(r.out, "Needs a GPU:");
    has(r.out, "This machine:");
    cli_run_free(&r);
    r = test_cli("audit", "--json", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "\"needs_gpu\"");
    has(r.out, "\"classes\"");
    cli_run_free(&r);
    r = test_cli("audit", NULL);
    /* the committed sanitizer record predates the avgpool_backward family: its clean verdict is not that family's */
    has(r.out, "  verdict: clean (every run finished, 0 errors, 0 hazards)\n"
               "  not under the sanitizer as whole families: avgpool_backward (its scopes name neither all nor them; "
               "ci/gpu-sanitize on a GPU runs every family)\n");
    has(r.out, "aten.histc.default                          true_fallback 24");
    /* the ops added since the first H200 captures, captured since: the FFT a library call never timed by design
     * (the file's reason, not a GPU need), the pool backward a fallback the avgpool_backward family measures */
    has(r.out, "Not timed, by design (baselines.json says why; no GPU run adds them):\n"
               "  aten._fft_c2c.default: 5 of 5 points: library: a cuFFT plan");
    cr_assert_null(strstr(strstr(r.out, "Needs a GPU:"), "fft_c2c points unmeasured"), "never timed by design: no GPU need");
    has(r.out, "aten._fft_c2c.default                       library_extern 36 false_extern 0");
    has(r.out, "aten._adaptive_avg_pool2d_backward.default  true_fallback 2 false_extern 0");
    has(r.out, "  avgpool_backward  alexnet ");
    cli_run_free(&r);
    /* a candidate target staged before the avgpool_backward family lists its points "not recorded yet": a GPU
     * need, not a reason by design */
    r = test_cli("audit", "--target", TEST_TARGET "-index_add_iota_gather", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "Needs a GPU:\n  golden/targets/" TEST_TARGET "-index_add_iota_gather/baselines.json: 2 of 2 "
               "adaptive_avg_pool2d_backward points unmeasured\n");
    const char *by_design = strstr(r.out, "Not timed, by design");
    cr_assert_not_null(by_design, "%s", r.out);
    cr_assert_null(strstr(by_design, "avg_pool2d_backward"), "%s", r.out);
    cli_run_free(&r);
    /* the same golden data with only the index_add results measured: the rest is listed as missing */
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/partial", test_tmpdir());
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/targets && cp -r golden/occurrences %s/ && cp -r golden/targets/" TEST_TARGET " %s/targets/ && "
             "python3 -c \"import json,sys; d=json.load(open('golden/targets/" TEST_TARGET "/baselines.json')); "
             "d['scopes']=[s for s in d['scopes'] if s['family']=='index_add']; "
             "json.dump(d, open(sys.argv[1], 'w'))\" %s/targets/" TEST_TARGET "/baselines.json",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    r = test_cli("audit", "--golden", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "62 of 62 cat points unmeasured");
    has(r.out, "1 of 1 histc points unmeasured");
    cli_run_free(&r);
    r = test_cli("audit", "--golden", "/nonexistent", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden /nonexistent: not a folder");
    cli_run_free(&r);
}

/* A sanitizer record of scopes "all" covers every family; one of an alias covers none whole. */
Test(cli, audit_says_which_families_the_sanitizer_record_covers_whole)
{
    static const char *const scopes[] = {"[\"all\"]", "[\"xlnet\", \"cat\"]"};
    for (int i = 0; i < 2; i++) {
        char dir[512], cmd[4096];
        snprintf(dir, sizeof dir, "%s/s%d", test_tmpdir(), i);
        snprintf(cmd, sizeof cmd,
                 "mkdir -p %s/targets && cp -r golden/occurrences %s/ && cp -r golden/targets/" TEST_TARGET " %s/targets/ && "
                 "python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); d['scopes']=json.loads(sys.argv[2]); "
                 "json.dump(d, open(sys.argv[1], 'w'))\" %s/targets/" TEST_TARGET "/sanitize.json '%s'",
                 dir, dir, dir, dir, scopes[i]);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        cli_run r = test_cli("audit", "--golden", dir, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        if (i == 0)
            cr_assert_null(strstr(r.out, "not under the sanitizer"), "%s", r.out);
        else
            has(r.out, "  not under the sanitizer as whole families: index_add routing_histc routing_cumsum cumsum "
                       "avgpool_backward (");
        cli_run_free(&r);
    }
}

Test(cli, audit_refuses_a_bad_baselines_file)
{
    const char *dir = test_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -r tests/fixtures/golden_small/occurrences %s/", dir);
    cr_assert_eq(system(cmd), 0);
    char *t = test_target(dir, "H200", "2.11.0+cu130", "9.0");
    free(test_write(t, "baselines.json", "{\"schema\": \"extern-audit/baselines\", \"schema_version\": 9}\n"));
    free(t);
    cli_run r = test_cli("audit", "--golden", dir, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/targets/" TEST_TARGET "/baselines.json $.schema_version");
    cli_run_free(&r);
}
