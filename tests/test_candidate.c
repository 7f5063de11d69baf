/* golden price / candidate.h: a real candidate stage (tests/fixtures/candidates, from the H200) priced
 * against the committed H200 target; expected figures are computed from the two files, never typed in. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "candidate.h"
#include "capture_impl.h"
#include "capture.h"
#include "golden_target.h"
#include "helpers.h"
#include "json.h"
#include "path.h"
#include "report.h"
#include "rollup_impl.h"
#include "target_fixture.h"
#include "target_impl.h"

#define STAGE "tests/fixtures/candidates/" TEST_TARGET "-index_add_bf16_atomic"
#define XL "index_add-a8e741bae3fe-d86ebce10336"
#define XL_OTHER "index_add-a8e741bae3fe-a3c413e762f2"

static ea_target base;
static ej_doc baselines;

static void load_base(void)
{
    ea_error err;
    cr_assert_eq(ea_target_load("golden/targets/" TEST_TARGET, &base, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_target_baselines_load(base.dir, &baselines, &err), 0, "%s", err.msg);
}

static void free_base(void)
{
    ej_free(&baselines);
}

TestSuite(candidate, .init = load_base, .fini = free_base);

static cJSON *price(const char *stage, const cJSON *b)
{
    cJSON *doc;
    ea_error err;
    cr_assert_eq(ea_candidate_price(stage, &base, b, &doc, &err), 0, "%s", err.msg);
    return doc;
}

/* The element of doc's array `list` whose "scope" is scope (asserts there is one). */
static const cJSON *with_scope(const cJSON *doc, const char *list, const char *scope)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, list))
        if (!strcmp(ej_str(e, "scope"), scope))
            return e;
    cr_assert_fail("no %s entry for %s", list, scope);
    return NULL;
}

static const cJSON *scope_entry(const cJSON *doc, const char *scope)
{
    return with_scope(doc, "scopes", scope);
}

/* A copy of the fixture stage under tmp, its folder named like a committed candidate target. */
static const char *stage_copy(const char *golden)
{
    static char dir[4200];
    char cmd[8800];
    snprintf(dir, sizeof dir, "%s/targets/%s-index_add_bf16_atomic", golden, TEST_TARGET);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/targets' && cp -r '%s' '%s'", golden, STAGE, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

Test(candidate, prices_the_staged_scope_from_both_partitions_and_the_base_paths)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(STAGE "/captures/" XL "/capture.json", &c, &err), 0, "%s", err.msg);
    double with = ea_capture_run_named(&c, "default")->compiled.median_us;
    double without = ea_capture_run_named(&c, "without_lowering")->compiled.median_us;
    const cJSON *r = ea_rollup_result_for(baselines.root, XL);
    double aten = ea_path_median(ea_path_named(r, "current", "faithful")), oracle = ea_rollup_oracle_us(r);
    cJSON *doc = price(STAGE, baselines.root);
    const cJSON *e = scope_entry(doc, XL);
    cr_expect_str_eq(ej_str(doc, "lowering"), "index_add_bf16_atomic");
    cr_expect_str_eq(ej_str(doc, "base"), TEST_TARGET);
    cr_expect(strstr(ej_str(doc, "stands_for"), "#195192") != NULL);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "scopes")), 1);
    cr_expect_float_eq(ej_num(e, "candidate_us"), aten - (without - with), 1e-9);
    cr_expect_float_eq(ej_num(e, "recovered"), (without - with) / (aten - oracle), 1e-12);
    cr_expect_float_eq(ej_num(e, "aten_fabricated_us"), ea_path_median(ea_path_named(r, "current", "fabricated")), 1e-12);
    cr_expect_float_eq(ej_num(e, "floor_us"), ej_num(cJSON_GetObjectItemCaseSensitive(r, "floor"), "us"), 1e-12);
    cr_expect_eq(ej_num(e, "occurrences"), c.ncovers);
    cr_expect_eq(ej_num(e, "atomic_kernels"), 1, "the candidate's partition is tl.atomic_add");
    cr_expect_str_eq(ej_str(e, "label"), ej_num(e, "recovered") >= EA_CANDIDATE_PROFITABLE ? "profitable"
                                                                                          : "measured, not profitable");
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "candidate_fabricated_us")));
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "replay")), "the fixture stage has no replay.json");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "failures")), 0);
    cJSON_Delete(doc);
    ea_capture_free(&c);
}

Test(candidate, an_oracle_slower_than_the_candidate_fails_naming_scope_candidate_and_times)
{
    cJSON *b = cJSON_Duplicate(baselines.root, 1), *p;
    cJSON *r = (cJSON *)ea_rollup_result_for(b, XL);
    double slow = ea_path_median(ea_path_named(r, "current", "faithful")) + 1; /* no headroom left */
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths"))
        if (!strncmp(ej_str(p, "name"), "oracle", 6))
            cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "time"), "median_us",
                                                   cJSON_CreateNumber(slow));
    cJSON *doc = price(STAGE, b);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, "failures");
    char want[128], oracle[64];
    cr_assert_eq(cJSON_GetArraySize(f), 1);
    const char *msg = cJSON_GetArrayItem(f, 0)->valuestring;
    snprintf(want, sizeof want, "%.2f us", ej_num(scope_entry(doc, XL), "candidate_us"));
    snprintf(oracle, sizeof oracle, "oracle (%.2f us)", slow);
    cr_expect(strstr(msg, XL) && strstr(msg, "index_add_bf16_atomic") && strstr(msg, oracle) && strstr(msg, want),
              "%s", msg);
    cr_expect_str_eq(ej_str(scope_entry(doc, XL), "label"), "measured, not profitable",
                     "no headroom: recovering a share of it means nothing");
    cJSON_Delete(doc);
    cJSON_Delete(b);
}

Test(candidate, a_scope_without_todays_partition_is_unpriced_and_hides_no_other)
{
    const char *stage = stage_copy(test_tmpdir());
    char cmd[8800], other[4400];
    snprintf(other, sizeof other, "%s/captures/" XL_OTHER, stage);
    snprintf(cmd, sizeof cmd, "cp -r '%s/captures/" XL "' '%s'", stage, other);
    cr_assert_eq(system(cmd), 0);
    cJSON *cap = target_load(other, "capture.json"), *runs = cJSON_GetObjectItemCaseSensitive(cap, "runs");
    cJSON_ReplaceItemInObjectCaseSensitive(cap, "scope", cJSON_CreateString(XL_OTHER));
    cJSON_DeleteItemFromArray(runs, cJSON_GetArraySize(runs) - 1); /* without_lowering, the last run */
    target_save(other, "capture.json", cap);
    cJSON *doc = price(stage, baselines.root);
    const cJSON *e = scope_entry(doc, XL_OTHER);
    cr_expect_str_eq(ej_str(e, "label"), "unpriced");
    cr_expect(strstr(ej_str(e, "unpriced"), "no \"without_lowering\" run") != NULL, "%s", ej_str(e, "unpriced"));
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "candidate_us")));
    cr_expect(isfinite(ej_num(scope_entry(doc, XL), "candidate_us")));
    cJSON_Delete(doc);
    cli_run run = test_cli("golden", "price", stage, NULL);
    cr_expect_eq(run.status, 1, "an unpriced scope is a finding: %s", run.err);
    cr_expect(strstr(run.err, XL_OTHER ": unpriced") != NULL, "%s", run.err);
    cr_expect(strstr(run.out, XL) != NULL, "%s", run.out);
    cli_run_free(&run);
}

/* A stage in which no capture was made under its lowering prices nothing: that is a failure, not an empty
 * table with exit 0. */
Test(candidate, a_stage_with_no_capture_under_its_lowering_fails)
{
    const char *stage = stage_copy(test_tmpdir());
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/captures/" XL, stage);
    cJSON *cap = target_load(dir, "capture.json");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(cap, "lowering"), "name",
                                           cJSON_CreateString("another_lowering"));
    target_save(dir, "capture.json", cap);
    cli_run run = test_cli("golden", "price", stage, NULL);
    cr_expect_eq(run.status, 1, "%s", run.err);
    cr_expect(strstr(run.err, "no scope was captured under the lowering \"index_add_bf16_atomic\"") != NULL, "%s",
              run.err);
    cli_run_free(&run);
}

Test(candidate, a_scope_without_a_base_result_is_unpriced)
{
    cJSON *b = cJSON_Duplicate(baselines.root, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(b, "scopes", cJSON_CreateArray());
    cJSON *doc = price(STAGE, b);
    cr_expect(strstr(ej_str(scope_entry(doc, XL), "unpriced"), "no result for the scope") != NULL);
    cJSON_Delete(doc);
    cJSON_Delete(b);
}

Test(candidate, the_replay_of_the_stage_is_its_witness_and_is_read_strictly)
{
    const char *stage = stage_copy(test_tmpdir());
    free(test_write(stage, "replay.json",
               "[{\"scope\": \"" XL "\", \"verdict\": \"output mismatch\", \"outputs\": 5, \"outputs_matching\": 3,"
               " \"mismatch\": \"out2\", \"replay_us\": {\"median\": 1090.0, \"q1\": 1089.0, \"q3\": 1091.0,"
               " \"samples\": 30, \"policy\": \"warm\"}, \"torch_compiled_us\": 1090, \"ratio\": 1,"
               " \"kernels_match\": true, \"kernels\": []}]"));
    cJSON *doc = price(stage, baselines.root);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(scope_entry(doc, XL), "replay");
    cr_expect_str_eq(ej_str(w, "verdict"), "output mismatch");
    cr_expect_float_eq(ej_num(w, "replay_us"), 1090.0, 1e-12);
    cJSON_Delete(doc);
    free(test_write(stage, "replay.json", "[{\"scope\": \"" XL "\", \"verdict\": \"fine\"}]"));
    ea_error err;
    cr_expect_eq(ea_candidate_price(stage, &base, baselines.root, &doc, &err), -1);
    cr_expect(strstr(err.msg, "replay.json $[0].verdict") != NULL, "%s", err.msg);
}

Test(candidate, a_stage_of_todays_code_or_of_another_gpu_is_refused)
{
    ea_error err;
    cJSON *doc;
    cr_expect_eq(ea_candidate_price("golden/targets/" TEST_TARGET, &base, baselines.root, &doc, &err), -1);
    cr_expect(strstr(err.msg, "expected a candidate lowering's stage") != NULL, "%s", err.msg);
    ea_target other = base;
    snprintf(other.gpu_model, sizeof other.gpu_model, "B200");
    cr_expect_eq(ea_candidate_price(STAGE, &other, baselines.root, &doc, &err), -1);
    cr_expect(strstr(err.msg, "staged for the H200") && strstr(err.msg, "is the B200"), "%s", err.msg);
}

Test(candidate, committed_candidates_are_priced_and_never_picked_as_todays_target)
{
    const char *golden = test_tmpdir();
    char link[4400], cmd[9000];
    stage_copy(golden);
    snprintf(link, sizeof link, "%s/targets/" TEST_TARGET, golden);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp golden/targets/" TEST_TARGET "/target.json '%s/'", link, link);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    ea_target picked;
    ea_error err;
    cr_assert_eq(ea_target_select(golden, NULL, NULL, "H200", 0, &picked, &err), 0, "%s", err.msg);
    cr_expect_str_eq(picked.name, TEST_TARGET);
    cr_assert_eq(ea_target_select(golden, TEST_TARGET "-index_add_bf16_atomic", NULL, "H200", 0, &picked, &err), 0,
                 "%s", err.msg);
    cr_expect_str_eq(picked.lowering, "index_add_bf16_atomic", "named, a candidate is used");
    cJSON *all;
    cr_assert_eq(ea_candidates_staged(golden, &base, baselines.root, &all, &err), 0, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(all), 1);
    const char *name = NULL;
    double best = ea_candidates_best(all, XL, &name);
    cr_expect_float_eq(best, ej_num(scope_entry(cJSON_GetArrayItem(all, 0), XL), "candidate_us"), 1e-12);
    cr_expect_str_eq(name, "index_add_bf16_atomic");
    cr_expect(isnan(ea_candidates_best(all, "cat-nosuch", &name)));
    cJSON_Delete(all);
}

Test(candidate, golden_price_cli)
{
    cli_run run = test_cli("golden", "price", STAGE, NULL);
    cr_expect_eq(run.status, 0, "%s", run.err);
    cr_expect(strstr(run.out, "candidate index_add_bf16_atomic") && strstr(run.out, XL) && strstr(run.out, "xlnet"),
              "%s", run.out);
    cli_run_free(&run);
    run = test_cli("golden", "price", STAGE, "--json", NULL);
    cJSON *doc = cJSON_Parse(run.out);
    cr_expect(doc && cJSON_GetObjectItemCaseSensitive(doc, "scopes"), "%s", run.out);
    cJSON_Delete(doc);
    cli_run_free(&run);
    run = test_cli("golden", "price", "tests/fixtures/nosuch", NULL);
    cr_expect_eq(run.status, 2);
    cr_expect(strstr(run.err, "tests/fixtures/nosuch/target.json") != NULL, "%s", run.err);
    cli_run_free(&run);
    run = test_cli("golden", "price", STAGE, "--target", "nosuch", NULL);
    cr_expect_eq(run.status, 2);
    cr_expect(strstr(run.err, "unknown target 'nosuch'") != NULL, "%s", run.err);
    cli_run_free(&run);
    run = test_cli("golden", "price", NULL);
    cr_expect_eq(run.status, 2);
    cli_run_free(&run);
    run = test_cli("golden", "price", "--help", NULL);
    cr_expect_eq(run.status, 0);
    cr_expect(strstr(run.out, "price STAGED") != NULL);
    cli_run_free(&run);
}

/* A golden folder with the committed occurrences, seed totals and H200 target, and the fixture stage as a
 * committed candidate target. */
static const char *golden_with_candidate(void)
{
    const char *golden = test_tmpdir();
    char cmd[16384], cwd[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    stage_copy(golden);
    snprintf(cmd, sizeof cmd,
             "ln -s '%s/golden/occurrences' '%s/occurrences' && ln -s '%s/golden/seed_totals.json' '%s/' && "
             "ln -s '%s/golden/targets/" TEST_TARGET "' '%s/targets/'",
             cwd, golden, cwd, golden, cwd, golden);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return golden;
}

Test(candidate, the_rollup_prices_after_candidate_lowering_from_committed_candidates)
{
    ea_rollup_opts o = {golden_with_candidate(), NULL, NULL};
    cJSON *doc;
    ea_error err;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    const cJSON *cand = cJSON_GetObjectItemCaseSensitive(doc, "candidates");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cand, "staged")), 1);
    cr_expect(strstr(ej_str(cand, "note"), "index_add_bf16_atomic: 1 of 1 scopes priced") != NULL, "%s",
              ej_str(cand, "note"));
    const cJSON *row = with_scope(doc, "rows", XL), *pc = cJSON_GetObjectItemCaseSensitive(row, "per_call");
    const cJSON *entry = scope_entry(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cand, "staged"), 0), XL);
    cr_expect_str_eq(ej_str(row, "candidate"), "index_add_bf16_atomic");
    cr_expect_float_eq(ej_num(pc, "candidate_us"), ej_num(entry, "candidate_us"), 1e-12);
    double n = ej_num(row, "occurrences"), cur = ej_num(pc, "current_us"), c = ej_num(pc, "candidate_us");
    cr_expect_float_eq(ej_num(cJSON_GetObjectItemCaseSensitive(row, "us"), "after_candidate"), n * (c < cur ? c : cur),
                       1e-9);
    /* a scope no candidate re-captured keeps today's time */
    const cJSON *other = with_scope(doc, "rows", "index_add-398f48d45d2b-def0e7161476");
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(other, "candidate")));
    cr_expect_float_eq(ej_num(cJSON_GetObjectItemCaseSensitive(other, "us"), "after_candidate"),
                       ej_num(cJSON_GetObjectItemCaseSensitive(other, "us"), "after"), 1e-12);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "us");
    cr_expect_lt(ej_num(t, "after_candidate"), ej_num(t, "after"));
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "check")), 0);
    char *md = ea_report_markdown(doc);
    cr_expect(strstr(md, "after candidate lowering H200 us") && strstr(md, "index_add_bf16_atomic: 1 of 1"), "%s", md);
    free(md);
    cJSON_Delete(doc);
}

Test(candidate, the_rollup_check_fails_an_oracle_slower_than_a_committed_candidate)
{
    const char *golden = golden_with_candidate();
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/targets/" TEST_TARGET "-index_add_bf16_atomic/captures/" XL, golden);
    cJSON *cap = target_load(dir, "capture.json"), *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(cap, "runs"))
        if (!strcmp(ej_str(run, "config"), "without_lowering")) { /* a saving no oracle can beat */
            cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "timing"), "compiled");
            cJSON_ReplaceItemInObjectCaseSensitive(t, "q1_us", cJSON_CreateNumber(1e6 - 1));
            cJSON_ReplaceItemInObjectCaseSensitive(t, "median_us", cJSON_CreateNumber(1e6));
            cJSON_ReplaceItemInObjectCaseSensitive(t, "q3_us", cJSON_CreateNumber(1e6 + 1));
        }
    target_save(dir, "capture.json", cap);
    cli_run r = test_cli("rollup", "--golden", golden, "--check", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "oracle_slower_than_candidate") && strstr(r.err, XL), "%s", r.err);
    cli_run_free(&r);
}

Test(candidate, runs_check_names_an_oracle_slower_than_a_committed_candidate)
{
    const char *golden = golden_with_candidate();
    ea_error err;
    char *text = NULL;
    size_t len;
    FILE *log = open_memstream(&text, &len);
    cr_assert_eq(ea_candidates_check(golden, &base, baselines.root, log, &err), 0, "the committed oracles: %s", err.msg);
    cJSON *fresh = cJSON_Duplicate(baselines.root, 1), *p;
    double slow = ea_path_median(ea_path_named(ea_rollup_result_for(fresh, XL), "current", "faithful")) + 1;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive((cJSON *)ea_rollup_result_for(fresh, XL), "paths"))
        if (!strncmp(ej_str(p, "name"), "oracle", 6))
            cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "time"), "median_us",
                                                   cJSON_CreateNumber(slow));
    cr_expect_eq(ea_candidates_check(golden, &base, fresh, log, &err), 1);
    fclose(log);
    cr_expect(strstr(text, "candidate " TEST_TARGET "-index_add_bf16_atomic: " XL ": the oracle") != NULL, "%s", text);
    free(text);
    ea_target cand = base;
    snprintf(cand.lowering, sizeof cand.lowering, "index_add_bf16_atomic");
    cr_expect_eq(ea_candidates_check(golden, &cand, fresh, stderr, &err), 0, "a candidate's own run checks nothing");
    cJSON_Delete(fresh);
}

Test(candidate, a_lowering_that_did_not_apply_is_unpriced)
{
    const char *stage = stage_copy(test_tmpdir());
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/captures/" XL, stage);
    cJSON *cap = target_load(dir, "capture.json"), *run, *calls = NULL;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(cap, "runs"))
        if (!strcmp(ej_str(run, "config"), "without_lowering"))
            calls = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "evidence"),
                                                                    "aten_calls"), 1);
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(cap, "runs"))
        if (!strcmp(ej_str(run, "config"), "default"))
            cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "evidence"), "aten_calls", calls);
    target_save(dir, "capture.json", cap);
    cJSON *doc = price(stage, baselines.root);
    cr_expect(strstr(ej_str(scope_entry(doc, XL), "unpriced"), "the lowering did not apply") != NULL, "%s",
              ej_str(scope_entry(doc, XL), "unpriced"));
    cJSON_Delete(doc);
}
