/* extern-audit golden accept: a complete stage (a copy of tests/fixtures/targets/H200) is installed whole;
 * each kind of incomplete or inconsistent stage is refused with what is missing and golden left as it
 * was; an install that fails midway leaves the old target intact and no temp folder behind. A candidate stage
 * beside its base holds only what it recaptured and inherits the rest; an occurrence whose class needs no capture
 * does not hold a stage back. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/capture.h"
#include "target/classify.h"
#include "helpers.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "corpus/oldrule.h"
#include "target/target.h"
#include "target_fixture.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static cli_run accept(const char *stage, const char *golden)
{
    return test_cli("golden", "accept", stage, "--golden", golden, NULL);
}

/* An installed target H200 under golden holding a marker file, as the old golden. */
static void old_target(const char *golden)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/targets/H200-torch2.11.0+cu130", golden);
    cr_assert_eq(mkdir(path, 0755), 0);
    free(test_write(path, "old-marker", "the old target\n"));
}

static int exists(const char *golden, const char *rel)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", golden, rel);
    return stat(path, &st) == 0;
}

/* Only the H200 target under targets/: no temp folder left beside it. */
static void only_the_target(const char *golden)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/targets", golden);
    DIR *d = opendir(path);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        cr_assert(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "H200-torch2.11.0+cu130"),
                  "left behind: %s", e->d_name);
    closedir(d);
}

/* Refused with exit rc and message in stderr; the old target untouched. */
static void refused(const char *stage, int rc, const char *message)
{
    const char *golden = target_golden();
    old_target(golden);
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, rc, "exit %d: %s", r.status, r.err);
    has(r.err, message);
    has(r.err, "refused:");
    cr_assert(exists(golden, "targets/H200-torch2.11.0+cu130/old-marker"));
    cr_assert(!exists(golden, "targets/H200-torch2.11.0+cu130/target.json"));
    only_the_target(golden);
    cli_run_free(&r);
}

Test(golden_accept, a_complete_stage_replaces_the_old_target_whole)
{
    const char *golden = target_golden(), *stage = target_copy("stage");
    old_target(golden);
    char old[4400];
    snprintf(old, sizeof old, "%s/targets/H200-torch2.11.0+cu130", golden);
    free(test_write(old, "sanitize.json", "the old target's sanitize record\n")); /* the stage has none: kept */
    free(test_write(old, "replica_gap.json", "the old replica gap\n"));
    free(test_write(stage, "replica_gap.json", "the stage's replica gap\n")); /* the stage's wins */
    free(test_write(stage, "logs/capture.log", "a step's log stays in the stage\n"));
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "installed");
    char kept_path[4500], gap_path[4500];
    snprintf(kept_path, sizeof kept_path, "%s/sanitize.json", old);
    snprintf(gap_path, sizeof gap_path, "%s/replica_gap.json", old);
    char *kept = test_read(kept_path), *gap = test_read(gap_path);
    cr_assert_str_eq(kept, "the old target's sanitize record\n");
    cr_assert_str_eq(gap, "the stage's replica gap\n");
    free(kept);
    free(gap);
    cr_assert(!exists(golden, "targets/H200-torch2.11.0+cu130/old-marker"));
    cr_assert(!exists(golden, "targets/H200-torch2.11.0+cu130/logs"));
    only_the_target(golden);
    cli_run_free(&r);
    /* the installed target is the stage: diff finds nothing, and it is complete in its turn */
    char installed[4400];
    snprintf(installed, sizeof installed, "%s/targets/H200-torch2.11.0+cu130", golden);
    r = test_cli("golden", "diff", stage, installed, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    r = test_cli("golden", "accept", installed, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "problems")), 0);
    cJSON_Delete(j);
    cli_run_free(&r);
}

Test(golden_accept, into_a_golden_without_targets)
{
    const char *golden = target_golden(), *stage = target_copy("first");
    char path[4400];
    snprintf(path, sizeof path, "%s/targets", golden);
    cr_assert_eq(rmdir(path), 0);
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(exists(golden, "targets/H200-torch2.11.0+cu130/captures/" XL_SCOPE "/capture.json"));
    only_the_target(golden);
    cli_run_free(&r);
}

Test(golden_accept, refuses_an_occurrence_without_a_capture)
{
    const char *stage = target_copy("nocapture");
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -r '%s/captures/" CAT_SCOPE "'", stage);
    cr_assert_eq(system(cmd), 0);
    refused(stage, 1, "occurrence " CAT_ID " (scope " CAT_SCOPE ") has no capture");
}

Test(golden_accept, refuses_a_point_without_a_baseline)
{
    const char *stage = target_copy("nobaseline");
    target_drop_result(stage, CAT_POINT);
    refused(stage, 1, "point " CAT_POINT " has no baseline");
}

Test(golden_accept, refuses_baselines_of_another_gpu)
{
    const char *stage = target_copy("b200");
    target_set_string(stage, "baselines.json", "gpu", "model", "B200");
    refused(stage, 1, "baselines.json $.gpu.model: \"B200\", target.json's gpu_model is H200: baselines of another GPU");
}

Test(golden_accept, refuses_torch_ops_of_another_gpu)
{
    const char *stage = target_copy("torchb200");
    target_set_string(stage, "torch_ops.json", "environment", "gpu", "NVIDIA B200");
    refused(stage, 1, "torch_ops.json $.environment.gpu: \"NVIDIA B200\" (model B200), target.json's gpu_model is H200");
}

Test(golden_accept, refuses_captures_of_another_gpu)
{
    const char *stage = target_copy("capb200");
    char file[512];
    snprintf(file, sizeof file, "captures/%s/capture.json", XL_SCOPE);
    target_set_string(stage, file, "environment", "gpu", "NVIDIA B200");
    refused(stage, 1, "capture.json $.environment.gpu: \"NVIDIA B200\" (model B200)");
}

Test(golden_accept, refuses_an_unreadable_classification)
{
    const char *stage = target_copy("garbled");
    free(test_write(stage, "classification.json", "{\"schema\": \"extern-audit/classification\""));
    refused(stage, 2, "unreadable classification: ");
}

Test(golden_accept, refuses_a_classification_the_captures_do_not_give)
{
    const char *stage = target_copy("stale");
    target_set_class(stage, XL_ID, "lowered", 1);
    refused(stage, 1, ".class: \"lowered\", the stage's captures give \"conditional_fallback\"");
}

Test(golden_accept, refuses_a_partial_stage)
{
    const char *stage = target_copy("partial");
    cJSON *doc = target_load(stage, "target.json");
    cJSON_AddItemToObject(doc, "scopes", cJSON_CreateStringArray((const char *const[]){XL_SCOPE}, 1));
    target_save(stage, "target.json", doc);
    refused(stage, 1, "$.scopes: a partial stage (1 scope(s))");
}

Test(golden_accept, refuses_a_stage_without_replay_or_target_and_lists_every_problem)
{
    const char *stage = target_copy("noreplay");
    char path[4400];
    snprintf(path, sizeof path, "%s/replay.json", stage);
    cr_assert_eq(unlink(path), 0);
    target_drop_result(stage, CAT_POINT);
    const char *golden = target_golden();
    snprintf(path, sizeof path, "%s/torch_ops.json", stage);
    cr_assert_eq(unlink(path), 0);
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 1, "an incomplete stage is a refusal, not bad input: %s", r.err);
    has(r.err, "/replay.json: absent: an incomplete stage (ci/golden-stage's replay of the captures)");
    has(r.err, "/torch_ops.json: absent: an incomplete stage (ci/golden-stage's torch op timings)");
    has(r.err, "point " CAT_POINT " has no baseline");
    has(r.err, "refused: 3 problem(s)");
    cli_run_free(&r);
    snprintf(path, sizeof path, "%s/target.json", stage);
    cr_assert_eq(unlink(path), 0);
    refused(stage, 2, "target.json: cannot read");
}

Test(golden_accept, a_failing_install_leaves_the_old_target_intact)
{
    const char *golden = target_golden(), *stage = target_copy("fifo");
    old_target(golden);
    char path[4400];
    snprintf(path, sizeof path, "%s/captures/%s/zz.fifo", stage, XL_SCOPE); /* the copy fails on it, before the swap */
    cr_assert_eq(mkfifo(path, 0644), 0);
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "zz.fifo: not a regular file");
    cr_assert(exists(golden, "targets/H200-torch2.11.0+cu130/old-marker"));
    only_the_target(golden);
    cli_run_free(&r);
    /* a golden whose targets/ cannot be made */
    golden = target_golden();
    snprintf(path, sizeof path, "%s/targets", golden);
    cr_assert_eq(rmdir(path), 0);
    free(test_write(golden, "targets", "a file where the folder goes\n"));
    r = accept(target_copy("blocked"), golden);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "targets");
    cli_run_free(&r);
}

Test(golden_accept, json_lists_the_problems)
{
    const char *stage = target_copy("json");
    target_set_string(stage, "baselines.json", "gpu", "model", "B200");
    cli_run r = test_cli("golden", "accept", stage, "--golden", target_golden(), "--json", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "installed")));
    const cJSON *problems = cJSON_GetObjectItemCaseSensitive(j, "problems");
    cr_assert_eq(cJSON_GetArraySize(problems), 1);
    has(cJSON_GetArrayItem(problems, 0)->valuestring, "baselines of another GPU");
    cJSON_Delete(j);
    cli_run_free(&r);
}

Test(golden_accept, a_golden_without_occurrences_is_bad_input)
{
    cli_run r = test_cli("golden", "accept", FIXTURE_TARGET, "--golden", test_tmpdir(), NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "occurrences/");
    cli_run_free(&r);
}

Test(golden_accept, refuses_a_replay_that_leaves_a_capture_out)
{
    const char *stage = target_copy("replay-short");
    cJSON *doc = target_load(stage, "replay.json");
    char scope[256];
    snprintf(scope, sizeof scope, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(doc, 0), "scope")));
    cJSON_DeleteItemFromArray(doc, 0);
    target_save(stage, "replay.json", doc);
    char want[512];
    snprintf(want, sizeof want, "/replay.json $: expected a row for every capture of %s/captures, got none for %s", stage,
             scope);
    refused(stage, 1, want);
}

/* ---- a candidate stage (target.json's "lowering") accepted beside its base ---- */

#define BASE "H200-torch2.11.0+cu130"
#define CAND BASE "-x"

/* The fixture stage as a candidate under lowering "x" that recaptured only MOE_SCOPE: its capture.json gains a
 * trailing newline, still the same JSON (it reads and classifies alike), no longer the same bytes. */
static const char *candidate_stage(const char *name)
{
    const char *stage = target_copy(name);
    target_set_string(stage, "target.json", "", "name", CAND);
    target_set_string(stage, "target.json", "", "lowering", "x");
    char path[4400];
    snprintf(path, sizeof path, "%s/captures/" MOE_SCOPE "/capture.json", stage);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f, "%s", path);
    fputs("\n", f);
    fclose(f);
    return stage;
}

/* The folder names under dir, sorted and joined by spaces. */
static void names_in(const char *dir, char *buf, size_t n)
{
    struct dirent **list;
    int count = scandir(dir, &list, NULL, alphasort);
    cr_assert_geq(count, 0, "%s", dir);
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (list[i]->d_name[0] != '.' && k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? " " : "", list[i]->d_name);
        free(list[i]);
    }
    free(list);
}

/* How many captures the target in dir has, held or inherited (asserts they load). */
static int count_captures(const char *dir)
{
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_target_captures_load(dir, &caps, &err), 0, "%s", err.msg);
    int n = caps.n;
    ea_captures_free(&caps);
    return n;
}

Test(golden_accept, a_candidate_beside_its_base_holds_only_what_it_recaptured)
{
    const char *golden = target_golden(), *stage = candidate_stage("candidate");
    char cmd[8800], base[4400], dest[4400], names[1024];
    snprintf(base, sizeof base, "%s/targets/" BASE, golden);
    snprintf(cmd, sizeof cmd, "cp -rL '%s' '%s'", FIXTURE_TARGET, base);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, "installing as ");
    has(r.err, "/targets/" CAND ", inheriting the captures it shares byte for byte with " BASE);
    cli_run_free(&r);
    snprintf(dest, sizeof dest, "%s/targets/" CAND, golden);
    snprintf(cmd, sizeof cmd, "%s/captures", dest);
    names_in(cmd, names, sizeof names);
    cr_assert_str_eq(names, MOE_SCOPE, "the one capture that differs from the base's");
    /* every other capture listed with the digest of the base's capture.json, which is the stage's */
    cJSON *t = target_load(dest, "target.json");
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(t, "captures_from"), *d;
    cr_assert_str_eq(ej_str(from, "target"), BASE);
    snprintf(cmd, sizeof cmd, "%s/captures", stage);
    names_in(cmd, names, sizeof names);
    int listed = 0;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(from, "captures"))
    {
        char path[4800], want[EA_DIGEST_LEN];
        ea_error err;
        snprintf(path, sizeof path, "%s/captures/%s/capture.json", stage, d->string);
        cr_assert_eq(ea_capture_digest(path, want, &err), 0, "%s", err.msg);
        cr_assert_str_eq(d->valuestring, want, "%s", d->string);
        cr_assert(strcmp(d->string, MOE_SCOPE) && strstr(names, d->string), "%s", d->string);
        listed++;
    }
    cr_assert_eq(listed, 4, "the four captures byte for byte the base's");
    cr_assert_str_eq(ej_str(t, "lowering"), "x", "the rest of the stage's target.json kept");
    cJSON_Delete(t);
    cr_assert_eq(count_captures(dest), 5, "installed, it loads every capture, inherited or held");
    /* the installed candidate is the stage: diff finds nothing, and accept takes it as complete in its turn */
    r = test_cli("golden", "diff", stage, dest, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    r = test_cli("golden", "accept", dest, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    /* audit's replay line counts the inherited captures' rows as the target's */
    r = test_cli("audit", "--golden", golden, "--target", CAND, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "/targets/" CAND "/replay.json: 5 captured partitions");
    cli_run_free(&r);
    /* accepted again once its held capture is byte for byte the base's too: it inherits all five, the four it
     * inherited before kept (its folder never held them) */
    char copy[13000];
    snprintf(copy, sizeof copy, "cp '%s/captures/%s/capture.json' '%s/captures/%s/capture.json'", dest, MOE_SCOPE, base,
             MOE_SCOPE);
    cr_assert_eq(system(copy), 0, "%s", copy);
    r = test_cli("golden", "accept", dest, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    t = target_load(dest, "target.json");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "captures_from"),
                                                                     "captures")), 5);
    cJSON_Delete(t);
    cr_assert_eq(count_captures(dest), 5, "every capture still loads");
}

Test(golden_accept, a_candidate_without_its_base_in_golden_is_installed_whole)
{
    const char *golden = target_golden(), *stage = candidate_stage("alone");
    char dir[4400], names[1024], want[1024];
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(!strstr(r.err, "inheriting"), "%s", r.err);
    cli_run_free(&r);
    snprintf(dir, sizeof dir, "%s/targets/" CAND "/captures", golden);
    names_in(dir, names, sizeof names);
    snprintf(dir, sizeof dir, "%s/captures", stage);
    names_in(dir, want, sizeof want);
    cr_assert_str_eq(names, want, "every capture copied");
    snprintf(dir, sizeof dir, "%s/targets/" CAND, golden);
    cJSON *t = target_load(dir, "target.json");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(t, "captures_from"));
    cJSON_Delete(t);
    cr_assert_eq(count_captures(dir), 5);
}

/* golden's <file> (an op's occurrences document) holding the committed golden's first point of it, cut to one
 * occurrence; *point its id. */
static void add_committed_point(const char *golden, const char *file, char *point, size_t n)
{
    char dir[4400];
    cJSON *committed = target_load("golden/occurrences", file);
    cJSON *p = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(committed, "points"), 0);
    cr_assert_not_null(p, "the committed golden has a point in %s", file);
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(p, "scopes");
    while (cJSON_GetArraySize(scopes) > 1)
        cJSON_DeleteItemFromArray(scopes, 1);
    cJSON *g = cJSON_GetArrayItem(scopes, 0), *occ = cJSON_GetObjectItemCaseSensitive(g, "occurrences");
    while (cJSON_GetArraySize(occ) > 1)
        cJSON_DeleteItemFromArray(occ, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(g, "count", cJSON_CreateNumber(1));
    cJSON_ReplaceItemInObjectCaseSensitive(p, "count", cJSON_CreateNumber(1));
    snprintf(point, n, "%s", ej_str(p, "point"));
    cJSON_Delete(committed);
    snprintf(dir, sizeof dir, "%s/occurrences", golden);
    cJSON *doc = target_load(dir, file);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "points"), p);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "occurrences", cJSON_CreateNumber(1));
    target_save(dir, file, doc);
}

/* stage's baselines.json listing point unmeasured with reason. */
static void unmeasured(const char *stage, const char *point, const char *reason)
{
    cJSON *b = target_load(stage, "baselines.json"), *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "point", point);
    cJSON_AddStringToObject(u, "reason", reason);
    cJSON *list = cJSON_GetObjectItemCaseSensitive(b, "unmeasured");
    cJSON_AddItemToArray(list ? list : cJSON_AddArrayToObject(b, "unmeasured"), u);
    target_save(stage, "baselines.json", b);
}

/* An occurrence whose fresh class needs no capture (a view of a complex tensor: no_device_work, which classify
 * gives without one) does not hold a stage back that lists its point unmeasured; an occurrence of an op that does
 * device work still does (refuses_an_occurrence_without_a_capture). */
/* stage/classification.json as classify --update writes it from golden's occurrences and the stage's captures. */
static void classify_stage(const char *golden, const char *stage)
{
    char dir[4400];
    cJSON *docs[EA_AUDIT_OPS], *doc;
    ea_captures caps;
    ea_old_rule rule;
    ea_error err;
    snprintf(dir, sizeof dir, "%s/occurrences", golden);
    cr_assert_eq(ea_occurrences_load(dir, docs, &err), 0, "%s", err.msg);
    snprintf(dir, sizeof dir, "%s/old_rule.json", golden);
    cr_assert_eq(ea_old_rule_load(dir, &rule, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_target_captures_load(stage, &caps, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_classify(docs, &caps, &rule, &doc, &err), 0, "%s", err.msg);
    target_save(stage, "classification.json", doc);
    ea_captures_free(&caps);
    ea_old_rule_free(&rule);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

Test(golden_accept, an_occurrence_of_no_device_work_needs_no_capture)
{
    const char *golden = target_golden(), *stage = target_copy("views");
    char point[256];
    add_committed_point(golden, "view_as_real.json", point, sizeof point);
    unmeasured(stage, point, "view_as_real_alias");
    /* the stored classification must have the view's entry too (a stage classified before it was added has not) */
    cli_run r = test_cli("golden", "accept", stage, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    has(r.out, "classification.json $.occurrences: no entry for occurrence hf/infer/GoogleFnet/full_graph_000:view_as_real, "
               "which the stage's captures give \\\"no_device_work\\\"");
    cli_run_free(&r);
    classify_stage(golden, stage);
    r = test_cli("golden", "accept", stage, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    cr_assert(exists(golden, "targets/H200-torch2.11.0+cu130/target.json"));
}

/* An op added to the audit set that none of the stage's captures covers (the FFT here: classify gives
 * not_captured) holds back a stage of today's code, which must capture it, but not a candidate lowering's, which
 * keeps the state of the base it was staged from. */
Test(golden_accept, not_captured_needs_no_capture_only_in_a_candidates_stage)
{
    const char *golden = target_golden(), *stage = target_copy("fft");
    char point[256];
    add_committed_point(golden, "fft_c2c.json", point, sizeof point);
    unmeasured(stage, point, "fft_library");
    classify_stage(golden, stage);
    cJSON *cls = target_load(stage, "classification.json");
    char *text = cJSON_PrintUnformatted(cls);
    cr_assert(strstr(text, "\"not_captured\""), "classify gives the FFT not_captured");
    free(text);
    cJSON_Delete(cls);
    cli_run r = test_cli("golden", "accept", stage, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    has(r.out, ":_fft_c2c");
    has(r.out, "has no capture: no captures/*/capture.json covers it");
    cli_run_free(&r);
    target_set_string(stage, "target.json", "", "name", TEST_TARGET "-x");
    target_set_string(stage, "target.json", "", "lowering", "x");
    r = test_cli("golden", "accept", stage, "--golden", golden, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cli_run_free(&r);
    cr_assert(exists(golden, "targets/" TEST_TARGET "-x/target.json"));
}
