/* extern-audit golden accept: a complete stage (a copy of tests/fixtures/targets/H200) is installed whole;
 * each kind of incomplete or inconsistent stage is refused with what is missing and golden left as it
 * was; an install that fails midway leaves the old target intact and no temp folder behind. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "json.h"
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
    cli_run r = accept(stage, golden);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "replay.json: cannot read");
    has(r.err, "point " CAT_POINT " has no baseline");
    has(r.err, "refused: 2 problem(s)");
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
