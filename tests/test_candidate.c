/* golden price / candidate.h: a real candidate stage (tests/fixtures/candidates, from the H200) priced
 * against the committed H200 target; expected figures are computed from the two files, never typed in. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golden/candidate.h"
#include "measure/fractions.h"
#include "target/capture_impl.h"
#include "target/capture.h"
#include "golden/golden_target.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/path.h"
#include "measure/result.h"
#include "report/report.h"
#include "report/rollup_impl.h"
#include "target_fixture.h"
#include "target/target_impl.h"

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
    const cJSON *r = ea_result_for(baselines.root, XL);
    double aten = ea_path_median(ea_path_named(r, "current", "faithful")), oracle = ea_result_oracle_us(r);
    cJSON *doc = price(STAGE, baselines.root);
    const cJSON *e = scope_entry(doc, XL);
    cr_expect_str_eq(ej_str(doc, "lowering"), "index_add_bf16_atomic");
    cr_expect_str_eq(ej_str(doc, "base"), TEST_TARGET);
    cr_expect(strstr(ej_str(doc, "stands_for"), "#195192") != NULL);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "scopes")), 1);
    cr_expect_float_eq(ej_num(e, "candidate_us"), aten - (without - with), 1e-9);
    cr_expect_float_eq(ej_num(e, "recovered"), (without - with) / (aten - oracle), 1e-12);
    cr_expect_float_eq(ej_num(e, "aten_fabricated_us"), ea_path_median(ea_path_named(r, "current", "fabricated")), 1e-12);
    ea_figures fig;
    ea_result_figures(r, &fig);
    cr_expect_float_eq(ej_num(e, "floor_us"), fig.floor_us, 1e-12);
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

/* The price's half-width: the notches 1.57 IQR / sqrt(n) of the ATen path's and both partitions' medians,
 * from the quartiles and sample counts the files record, summed; JSON and text. */
Test(candidate, the_price_carries_the_notches_of_its_three_medians)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(STAGE "/captures/" XL "/capture.json", &c, &err), 0, "%s", err.msg);
    const ea_capture_stats *w = &ea_capture_run_named(&c, "default")->compiled,
                           *wo = &ea_capture_run_named(&c, "without_lowering")->compiled;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(
        ea_path_named(ea_result_for(baselines.root, XL), "current", "faithful"), "time");
    double n_with = 1.57 * (w->q3_us - w->q1_us) / sqrt((double)w->samples),
           n_without = 1.57 * (wo->q3_us - wo->q1_us) / sqrt((double)wo->samples),
           n_aten = 1.57 * (ej_num(t, "q3_us") - ej_num(t, "q1_us")) / sqrt(ej_num(t, "samples"));
    cr_assert(n_with > 0 && n_without > 0 && n_aten > 0, "the fixture's medians all have a spread");
    cJSON *doc = price(STAGE, baselines.root);
    const cJSON *e = scope_entry(doc, XL), *part = cJSON_GetObjectItemCaseSensitive(e, "partition");
    cr_expect_float_eq(ej_num(part, "with_notch_us"), n_with, 1e-9);
    cr_expect_float_eq(ej_num(part, "without_notch_us"), n_without, 1e-9);
    cr_expect_float_eq(ej_num(e, "aten_notch_us"), n_aten, 1e-9);
    cr_expect_float_eq(ej_num(e, "candidate_pm_us"), n_aten + n_with + n_without, 1e-9);
    cli_run run = test_cli("golden", "price", STAGE, NULL);
    char want[64];
    snprintf(want, sizeof want, " %10.2f %8.2f ", ej_num(e, "candidate_us"), n_aten + n_with + n_without);
    cJSON_Delete(doc);
    cr_expect(strstr(run.out, "+- the candidate's half-width") && strstr(run.out, want), "'%s' not in:\n%s", want,
              run.out);
    cli_run_free(&run);
    ea_capture_free(&c);
}

Test(candidate, an_oracle_slower_than_the_candidate_fails_naming_scope_candidate_and_times)
{
    cJSON *b = cJSON_Duplicate(baselines.root, 1), *p;
    cJSON *r = (cJSON *)ea_result_for(b, XL);
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
    snprintf(want, sizeof want, "%.2f +- %.2f us", ej_num(scope_entry(doc, XL), "candidate_us"),
             ej_num(scope_entry(doc, XL), "candidate_pm_us"));
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
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "candidate_pm_us")), "no price, no half-width");
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "partition"),
                                                           "without_notch_us")));
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
    cr_expect(strstr(run.err, "tests/fixtures/nosuch: not a folder (expected a target folder") != NULL, "%s", run.err);
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
    char cmd[40960], cwd[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    stage_copy(golden);
    snprintf(cmd, sizeof cmd,
             "ln -s '%s/golden/occurrences' '%s/occurrences' && ln -s '%s/golden/seed_totals.json' '%s/' && "
             "ln -s '%s/golden/targets/" TEST_TARGET "' '%s/targets/' && ln -s '%s/golden/oracle_allowlist.json' '%s/'",
             cwd, golden, cwd, golden, cwd, golden, cwd, golden);
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
    double slow = ea_path_median(ea_path_named(ea_result_for(fresh, XL), "current", "faithful")) + 1;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive((cJSON *)ea_result_for(fresh, XL), "paths"))
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
    /* the same slow oracle measured on another GPU (run --any-gpu): the candidates' prices are the H200's */
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(fresh, "gpu"), "model",
                                           cJSON_CreateString("H100-80GB-HBM3"));
    text = NULL;
    log = open_memstream(&text, &len);
    cr_expect_eq(ea_candidates_check(golden, &base, fresh, log, &err), 0, "another GPU's run is priced against none");
    fclose(log);
    cr_expect_str_eq(text, "");
    free(text);
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

static cJSON *stats(double median)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "median_us", median);
    cJSON_AddNumberToObject(s, "q1_us", median - 2);
    cJSON_AddNumberToObject(s, "q3_us", median + 2);
    cJSON_AddNumberToObject(s, "samples", 16);
    return s;
}

/* The fixture stage copied under tmp with its capture given "fabricated" timings (or an error) and an fp64
 * reference whose per-output errors are e_eager, and e_run on every run but the probe. */
static const char *stage_with(const char *fab_error, double e_eager, double e_run)
{
    const char *dir = stage_copy(test_tmpdir());
    char path[4400];
    snprintf(path, sizeof path, "%s/captures/" XL "/capture.json", dir);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    cJSON *root = d.root, *f = cJSON_AddObjectToObject(root, "fabricated"), *r;
    if (fab_error)
        cJSON_AddStringToObject(f, "error", fab_error);
    else {
        cJSON *g = cJSON_AddObjectToObject(f, "index");
        cJSON_AddStringToObject(g, "generator", "randint");
        cJSON_AddNumberToObject(g, "seed", 2);
        cJSON_AddNumberToObject(g, "low", 0);
        cJSON_AddNumberToObject(g, "high", 100);
        cJSON_AddStringToObject(f, "method", "CUDA graph");
        cJSON_AddNumberToObject(f, "calls_per_replay", 10);
        cJSON_AddNumberToObject(f, "replays", 16);
        cJSON_AddItemToObject(f, "default", stats(700));
        cJSON_AddItemToObject(f, "without_lowering", stats(760));
    }
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "outputs"));
    cJSON *fp = cJSON_AddObjectToObject(root, "fp64"), *errs = cJSON_AddArrayToObject(fp, "eager_error");
    cJSON_AddStringToObject(fp, "method", "f64 eager");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(errs, i ? cJSON_CreateNull() : cJSON_CreateNumber(e_eager));
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "runs"))
        if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "probe"))) {
            cJSON *re = cJSON_AddArrayToObject(r, "fp64_error");
            for (int i = 0; i < n; i++)
                cJSON_AddItemToArray(re, i ? cJSON_CreateNull() : cJSON_CreateNumber(e_run));
        }
    cr_assert_eq(ej_write_atomic(path, root, &err), 0, "%s", err.msg);
    ej_free(&d);
    return dir;
}

/* The fabricated price is derived as the faithful one, from the capture's timings on the randint index; the
 * fp64 errors are the worst floating output's. */
Test(candidate, fabricated_price_and_fp64_errors_from_the_capture)
{
    const cJSON *r = ea_result_for(baselines.root, XL);
    const cJSON *fab_path = ea_path_named(r, "current", "fabricated");
    double fab = ea_path_median(fab_path);
    cJSON *doc = price(stage_with(NULL, 1.5e-3, 2.5e-3), baselines.root);
    const cJSON *e = scope_entry(doc, XL), *fp = cJSON_GetObjectItemCaseSensitive(e, "fp64");
    cr_expect_float_eq(ej_num(e, "candidate_fabricated_us"), fab - (760 - 700), 1e-9);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(fab_path, "time");
    double notch_path = 1.57 * (ej_num(t, "q3_us") - ej_num(t, "q1_us")) / sqrt(ej_num(t, "samples"));
    cr_expect_float_eq(ej_num(e, "candidate_fabricated_pm_us"), notch_path + 2 * 1.57 * 4 / 4.0, 1e-9);
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(e, "fabricated_note"));
    cr_expect_float_eq(ej_num(fp, "eager"), 1.5e-3, 1e-15);
    cr_expect_float_eq(ej_num(fp, "without_lowering"), 2.5e-3, 1e-15);
    cr_expect_float_eq(ej_num(fp, "candidate"), 2.5e-3, 1e-15);
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(e, "fp64_note"));
    cJSON_Delete(doc);
}

Test(candidate, a_fabricated_error_or_no_reference_is_said_not_priced)
{
    cJSON *doc = price(stage_with("CaptureError: fabricated default: output 0 differs", 1e-3, 1e-3), baselines.root);
    const cJSON *e = scope_entry(doc, XL);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "candidate_fabricated_us")));
    cr_expect_str_eq(ej_str(e, "fabricated_note"), "CaptureError: fabricated default: output 0 differs");
    cJSON_Delete(doc);
    doc = price(STAGE, baselines.root); /* captured before either existed */
    e = scope_entry(doc, XL);
    cr_expect(strstr(ej_str(e, "fabricated_note"), "no fabricated timing") != NULL);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "fp64")));
    cr_expect(strstr(ej_str(e, "fp64_note"), "no fp64 reference") != NULL);
    cJSON_Delete(doc);
}

/* The row of the first scope whose classification entries name a capture of another folder (the gpt-oss histc,
 * filed under the routing capture that covers it); *folder its capture folder. */
static const cJSON *row_captured_elsewhere(const cJSON *rows, const cJSON *classification, char *folder, size_t n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(classification, "occurrences"))
    {
        const char *cap = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "capture")), *scope = ej_str(e, "scope");
        if (!cap || strncmp(cap, "captures/", 9) || !strncmp(cap + 9, scope, strlen(scope)))
            continue;
        snprintf(folder, n, "%.*s", (int)(strchr(cap + 9, '/') - cap - 9), cap + 9);
        const cJSON *row;
        cJSON_ArrayForEach(row, rows)
            if (!strcmp(ej_str(row, "scope"), scope) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "priced")))
                return row;
    }
    cr_assert_fail("no priced row whose occurrences name a capture of another folder");
    return NULL;
}

/* golden price keys a candidate's scope by the capture folder it recaptured; a row filed under another scope id
 * (a capture covering several scopes) finds it through its occurrences' capture, not its own scope id. */
Test(candidate, the_rollup_finds_a_candidate_by_the_capture_folder_of_the_row)
{
    ea_rollup_opts o = {"golden", NULL, TEST_TARGET};
    ea_rollup_inputs in;
    ea_error err;
    cr_assert_eq(ea_rollup_load(&o, &in, &err), 0, "%s", err.msg);
    cJSON *rows = ea_rollup_rows(&in);
    char folder[256], text[1024];
    const cJSON *row = row_captured_elsewhere(rows, in.classification, folder, sizeof folder);
    char scope[256];
    snprintf(scope, sizeof scope, "%s", ej_str(row, "scope"));
    cJSON_Delete(rows);
    cr_assert_str_neq(folder, scope);
    snprintf(text, sizeof text, "[{\"lowering\": \"by_folder\", \"scopes\": [{\"scope\": \"%s\", \"candidate_us\": 1.25}]}, "
             "{\"lowering\": \"by_scope_id\", \"scopes\": [{\"scope\": \"%s\", \"candidate_us\": 1e9}]}]", folder, scope);
    cJSON_Delete(in.candidates);
    in.candidates = cJSON_Parse(text);
    rows = ea_rollup_rows(&in);
    int found = 0;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *cand = cJSON_GetObjectItemCaseSensitive(row, "candidate");
        /* a candidate keyed by the scope id prices no row whose occurrences name their capture */
        cr_expect(!cJSON_IsString(cand) || strcmp(cand->valuestring, "by_scope_id"), "%s", ej_str(row, "scope"));
        if (!strcmp(ej_str(row, "scope"), scope) && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "per_call"))) {
            cr_expect_str_eq(ej_str(row, "candidate"), "by_folder");
            cr_expect_float_eq(ej_num(cJSON_GetObjectItemCaseSensitive(row, "per_call"), "candidate_us"), 1.25, 1e-12);
            found++;
        }
    }
    cr_expect_gt(found, 0);
    cJSON_Delete(rows);
    ea_rollup_free(&in);
}

/* The staged-candidates sentence counts a recaptured partition as often as the rollup's rows run it: the committed
 * routing candidate's capture covers 24 histc and 24 cumsum occurrences of one scope, which runs 24 times (it once
 * said 48, twice the per-op table's time). */
Test(candidate, the_staged_sentence_counts_a_shared_scope_once)
{
    ea_rollup_opts o = {"golden", NULL, TEST_TARGET};
    cJSON *doc;
    ea_error err;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "candidates"), *s, *e = NULL;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(c, "staged"))
        if (!strcmp(ej_text(s, "lowering"), "routing_counting_sort"))
            e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "scopes"), 0);
    cr_assert_not_null(e, "the committed routing_counting_sort target is priced");
    cr_assert_eq(ej_num(e, "occurrences"), 48, "the capture covers both ops' occurrences");
    char want[128];
    snprintf(want, sizeof want, "routing_counting_sort: 1 of 1 scopes priced, their occurrences %.1f -> %.1f us",
             24 * ej_num(e, "aten_us"), 24 * ej_num(e, "candidate_us"));
    cr_expect(strstr(ej_text(c, "note"), want), "expected '%s' in: %s", want, ej_text(c, "note"));
    cJSON_Delete(doc);
}

/* A candidate whose inherited capture no longer matches its base (the base recaptured since) is priced as
 * unreadable with the reason: the base's rollup still runs, and its check names the candidate. */
Test(candidate, a_stale_candidate_is_said_and_stops_nothing)
{
    const char *golden = golden_with_candidate();
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/targets/%s-index_add_bf16_atomic", golden, TEST_TARGET);
    cJSON *t = target_load(dir, "target.json"), *from = cJSON_AddObjectToObject(t, "captures_from");
    cJSON_AddStringToObject(from, "target", TEST_TARGET);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(from, "captures"), XL_OTHER, "0000000000000000");
    target_save(dir, "target.json", t);
    ea_rollup_opts o = {golden, NULL, TEST_TARGET};
    cJSON *doc;
    ea_error err;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    const cJSON *cand = cJSON_GetObjectItemCaseSensitive(doc, "candidates");
    const cJSON *one = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cand, "staged"), 0);
    cr_assert(strstr(ej_text(one, "unreadable"), "was recaptured since"), "%s", ej_text(one, "unreadable"));
    cr_expect(strstr(ej_text(cand, "note"), "index_add_bf16_atomic: cannot be priced ("), "%s", ej_text(cand, "note"));
    const cJSON *f, *found = NULL;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "check"))
        if (!strcmp(ej_text(f, "kind"), "candidate_unreadable"))
            found = f;
    cr_assert_not_null(found);
    cr_expect_str_eq(ej_text(found, "row"), TEST_TARGET "-index_add_bf16_atomic");
    cJSON_Delete(doc);
}
