/* extern-audit gate on the command line, on the CPU: --against, its outputs and its refusals. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/device.h"
#include "helpers.h"
#include "base/json.h"
#include "base/json_impl.h"

#define H200 "golden/targets/H200-torch2.11.0+cu130/baselines.json"

/* The committed baselines with scope s, path p's time scaled by f, written to dir/name. */
static char *variant(const char *dir, const char *name, int s, int p, double f)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d.root, "scopes"), s), "paths"),
                           p),
        "time");
    const char *const keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (int i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keys[i]);
        cJSON_SetNumberValue(v, v->valuedouble * f);
    }
    char *text = cJSON_Print(d.root), *path = test_write(dir, name, text);
    free(text);
    ej_free(&d);
    return path;
}

Test(gate_cli, against_a_slower_document_exits_1_and_writes_its_outputs)
{
    const char *dir = test_tmpdir();
    char *slow = variant(dir, "slow.json", 0, 0, 1.1), md[512], prop[512];
    snprintf(md, sizeof md, "%s/gate.md", dir);
    snprintf(prop, sizeof prop, "%s/proposed.json", dir);
    cli_run r = test_cli("gate", "--baseline", H200, "--against", slow, "--markdown", md, "--propose", prop, NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "SLOWER   index_add"), "%s", r.out);
    cr_assert(access(md, F_OK) == 0 && access(prop, F_OK) == 0);
    cli_run again = test_cli("gate", "--baseline", prop, "--against", slow, "--json", NULL);
    cr_assert_eq(again.status, 0, "the proposal takes the moved path: %s%s", again.out, again.err);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_parse("report", again.out, &d, &err), 0, "%s", err.msg);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d.root, "schema")->valuestring, "extern-audit/gate");
    ej_free(&d);
    cli_run_free(&again);
    cli_run_free(&r);
    free(slow);
}

Test(gate_cli, scope_restricts_the_comparison)
{
    const char *dir = test_tmpdir();
    char *slow = variant(dir, "slow.json", 0, 0, 1.1); /* scope 0 is an index_add point */
    cli_run r = test_cli("gate", "--baseline", H200, "--against", slow, "--scope", "cat", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "SAME "), "%s", r.out);
    cli_run_free(&r);
    free(slow);
}

Test(gate_cli, usage_errors_exit_2)
{
    const char *const cases[][6] = {
        {"gate", "--json", NULL, NULL},
        {"gate", "--baseline", H200, NULL},
        {"gate", "--baseline", H200, "--run", "--against", H200},
        {"gate", "--baseline", H200, "--against", H200, "--margin"},
    };
    const char *const expect[] = {"exactly one of --against FILE, --run and --plan", "exactly one of --against FILE, --run and --plan",
                                  "exactly one of --against FILE, --run and --plan", "needs a value"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run r = test_cli(cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4], cases[i][5], NULL);
        cr_assert_eq(r.status, 2, "case %zu", i);
        cr_assert(strstr(r.err, expect[i]), "case %zu: %s", i, r.err);
        cli_run_free(&r);
    }
    cli_run r = test_cli("gate", "--baseline", H200, "--against", H200, "--margin", "2", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--margin expects a number in (0, 1), got '2'"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "--retries", "x", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--retries expects an integer 0..10"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "--save", "x.json", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--save needs --run"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "--cold", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--cold needs --run"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "--bogus", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "unknown option '--bogus'"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("help", "gate", NULL);
    cr_assert(r.status == 0 && strstr(r.out, "usage: extern-audit gate"), "%s", r.out);
    cli_run_free(&r);
}

Test(gate_cli, bad_documents_are_named)
{
    const char *dir = test_tmpdir();
    char *bad = test_write(dir, "bad.json", "{\"schema\": \"extern-audit/baselines\", \"schema_version\": 3}");
    cli_run r = test_cli("gate", "--baseline", H200, "--against", bad, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "bad.json $.command"), "%s", r.err);
    cli_run_free(&r);
    char *old = test_write(dir, "old.json", "{\"schema\": \"extern-audit/baselines\", \"schema_version\": 2}");
    r = test_cli("gate", "--baseline", H200, "--against", old, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "old.json $.schema_version: expected 3, got 2") &&
                  strstr(r.err, "extern-audit golden migrate"), "%s", r.err);
    cli_run_free(&r);
    free(old);
    r = test_cli("gate", "--baseline", "no/such.json", "--against", H200, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "no/such.json: cannot read"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "--scope", "nosuch", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cli_run_free(&r);
    free(bad);
}

Test(gate_cli, another_gpu_model_is_refused)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d.root, "gpu"), "model",
                                           cJSON_CreateString("B200"));
    char *text = cJSON_Print(d.root), *b200 = test_write(test_tmpdir(), "B200.json", text);
    cli_run r = test_cli("gate", "--baseline", H200, "--against", b200, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "$.gpu.model \"B200\": refused, times compare only on one GPU model"), "%s", r.err);
    cli_run_free(&r);
    free(text);
    free(b200);
    ej_free(&d);
}

Test(gate_cli, run_without_a_device_exits_2_with_the_reason)
{
    ea_device_info dev;
    if (ea_device_probe(&dev))
        cr_skip_test("a CUDA device is present (%s): the GPU gate test runs --run", dev.name);
    cli_run r = test_cli("gate", "--baseline", H200, "--run", "--scope", "xlnet", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no CUDA device: "), "%s", r.err);
    cli_run_free(&r);
}

Test(gate_cli, without_baseline_the_targets_file_is_the_stored_side)
{
    cli_run r = test_cli("gate", "--against", H200, NULL); /* the target's own file against itself */
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--target", "B200-torch9", "--against", H200, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown target 'B200-torch9' (--target): expected one of golden/targets: " TEST_TARGET),
              "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", "golden/targets", "--against", H200, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "golden/targets: not a regular file (a folder)"), "%s", r.err);
    cli_run_free(&r);
    ea_device_info dev;
    if (ea_device_probe(&dev))
        cr_skip_test("a CUDA device is present (%s): ci/gpu-gate runs gate --run", dev.name);
    r = test_cli("gate", "--run", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no CUDA device: "), "%s", r.err);
    cli_run_free(&r);
}

/* The shared parser (ea_cli_parse): --opt=VALUE as --opt VALUE; an empty value and a value on a flag refused. */
Test(gate_cli, inline_values_and_empty_values)
{
    cli_run r = test_cli("gate", "--baseline=" H200, "--against=" H200, "--margin=0.1", "--retries=0", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "margin 10.0%"), "%s", r.out);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline=", "--against", H200, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "option '--baseline' needs a non-empty value"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", "", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "option '--against' needs a non-empty value"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--run=yes", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "option '--run' takes no value"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--against", H200, "stray", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "unknown option 'stray'"), "%s", r.err);
    cli_run_free(&r);
}

/* gate --plan needs no GPU: the committed baselines record today's plans (SAME for each result); a stored
 * plan that differs is CONFIG, named, and the proposal is today's; a stored document without its
 * multiprocessor count cannot be planned for. */
Test(gate_cli, plan_compares_the_stored_plans_with_todays)
{
    cli_run r = test_cli("gate", "--plan", "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "SAME 91"), "%s", r.out);
    cli_run_free(&r);

    const char *dir = test_tmpdir();
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d.root, "scopes"), 0), "config");
    cJSON_AddStringToObject(cfg, "stale", "a plan of older code");
    char *text = cJSON_Print(d.root), *stale = test_write(dir, "stale.json", text), prop[512];
    free(text);
    snprintf(prop, sizeof prop, "%s/proposed.json", dir);
    r = test_cli("gate", "--plan", "--baseline", stale, "--target", TEST_TARGET, "--propose", prop, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "CONFIG 1") && strstr(r.out, "SAME 90"), "%s", r.out);
    cr_assert(strstr(r.out, "first at $.config.stale: \"a plan of older code\" -> (none)"), "%s", r.out);
    cli_run_free(&r);
    r = test_cli("gate", "--plan", "--baseline", prop, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "the proposal is today's plan: %s%s", r.out, r.err);
    cli_run_free(&r);

    cJSON_DeleteItemFromObjectCaseSensitive(cfg, "stale");
    double sm_count = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d.root, "gpu"),
                                                                            "sm_count"));
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d.root, "gpu"), "sm_count",
                                           cJSON_CreateNumber(0));
    text = cJSON_Print(d.root);
    char *unsized = test_write(dir, "unsized.json", text);
    free(text);
    r = test_cli("gate", "--plan", "--baseline", unsized, "--target", TEST_TARGET, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unsized.json $.gpu.sm_count: expected the multiprocessor count"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--plan", "--against", H200, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "exactly one of --against FILE, --run and --plan"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--plan", "--margin", "0.1", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--margin and --retries judge times: not with --plan"), "%s", r.err);
    cli_run_free(&r);

    /* a recorded fidelity its own times do not give (a ratio that is not the current path's time over torch's) is
     * FIDELITY, and the proposal derives it again */
    cJSON *fid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d.root, "scopes"), 0), "fidelity"), "torch_op"), "faithful");
    double replica = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fid, "ratio"));
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(fid, "ratio"), 1.5);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d.root, "gpu"), "sm_count",
                                           cJSON_CreateNumber(sm_count));
    text = cJSON_Print(d.root);
    char *misderived = test_write(dir, "misderived.json", text);
    free(text);
    r = test_cli("gate", "--plan", "--baseline", misderived, "--target", TEST_TARGET, "--propose", prop, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "FIDELITY 1") && strstr(r.out, "first at $.fidelity.torch_op.faithful.ratio: 1.5 -> "),
              "%s", r.out);
    cli_run_free(&r);
    r = test_cli("gate", "--plan", "--baseline", prop, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "the proposal derives it again: %s%s", r.out, r.err);
    cli_run_free(&r);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(fid, "ratio"), replica);
    free(misderived);

    /* a stored result today's code does not plan (a second result of a point that has one, of another plan: a
     * document holds each result once) is MISSING */
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(d.root, "scopes"), *second = cJSON_Duplicate(cJSON_GetArrayItem(scopes, 0), 1);
    cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(second, "config"), "unroll", 3);
    cJSON_AddItemToArray(scopes, second);
    text = cJSON_Print(d.root);
    char *extra = test_write(dir, "extra.json", text);
    free(text);
    r = test_cli("gate", "--plan", "--baseline", extra, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "MISSING") && strstr(r.out, "a stored result today's code does not plan"), "%s", r.out);
    cli_run_free(&r);
    free(extra);
    ej_free(&d);
    free(stale);
    free(unsized);
}

/* The committed baselines with edit applied to result i (-1: appended, a copy of result 0 whose point is
 * renamed), written to dir/name. */
static char *edited(const char *dir, const char *name, int i, const char *key, cJSON *value)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(d.root, "scopes");
    if (i < 0) {
        cJSON *extra = cJSON_Duplicate(cJSON_GetArrayItem(scopes, 0), 1);
        cJSON_ReplaceItemInObjectCaseSensitive(extra, "point", cJSON_CreateString("index_add-000000000000"));
        cJSON_AddItemToArray(scopes, extra);
        cJSON_Delete(value);
    } else {
        cJSON *r = cJSON_GetArrayItem(scopes, i), *at = r;
        char path[256];
        snprintf(path, sizeof path, "%s", key); /* a dotted path below the result */
        for (char *part = strtok(path, "."), *next; part; part = next) {
            next = strtok(NULL, ".");
            if (!next)
                cJSON_ReplaceItemInObjectCaseSensitive(at, part, value);
            else
                at = cJSON_GetObjectItemCaseSensitive(at, part);
        }
    }
    char *text = cJSON_Print(d.root), *path = test_write(dir, name, text);
    free(text);
    ej_free(&d);
    return path;
}

static int first_of(const char *family)
{
    ej_doc d;
    ea_error err;
    int i = 0, found = -1;
    const cJSON *r;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d.root, "scopes")) {
        if (found < 0 && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "family")), family))
            found = i;
        i++;
    }
    ej_free(&d);
    cr_assert_geq(found, 0, "no %s result", family);
    return found;
}

/* What gate --plan holds a document to, beyond its plans: a derived number read back from print is the same
 * within 1e-12; the fidelity is derived under today's plan, so a proposal that took a plan is what the next
 * gate --plan finds (a second pass is SAME); a stored result of a point the golden no longer has is MISSING. */
Test(gate_cli, plan_derives_under_todays_plan_and_judges_every_stored_result)
{
    const char *dir = test_tmpdir();
    char prop[512];
    snprintf(prop, sizeof prop, "%s/proposed.json", dir);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    const cJSON *ratio = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d.root, "scopes"), 0),
                                         "fidelity"), "torch_op"), "faithful"), "ratio");
    double v = cJSON_GetNumberValue(ratio);
    ej_free(&d);

    char *near = edited(dir, "near.json", 0, "fidelity.torch_op.faithful.ratio", cJSON_CreateNumber(v * (1 + 4e-15)));
    cli_run r = test_cli("gate", "--plan", "--baseline", near, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "a few ulps apart is the same derived number: %s%s", r.out, r.err);
    cli_run_free(&r);
    char *far = edited(dir, "far.json", 0, "fidelity.torch_op.faithful.ratio", cJSON_CreateNumber(v * (1 + 1e-9)));
    r = test_cli("gate", "--plan", "--baseline", far, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "FIDELITY 1") && strstr(r.out, "$.fidelity.torch_op.faithful.ratio"), "%s", r.out);
    cli_run_free(&r);

    char *stale = edited(dir, "stale.json", first_of("routing_histc"), "config.capture_comparable", cJSON_CreateFalse());
    r = test_cli("gate", "--plan", "--baseline", stale, "--target", TEST_TARGET, "--propose", prop, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "CONFIG 1") && !strstr(r.out, "FIDELITY"), "derived under today's plan: %s", r.out);
    cli_run_free(&r);
    r = test_cli("gate", "--plan", "--baseline", prop, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "a second pass finds what the first proposed: %s%s", r.out, r.err);
    cli_run_free(&r);

    char *gone = edited(dir, "gone.json", -1, NULL, NULL);
    r = test_cli("gate", "--plan", "--baseline", gone, "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "MISSING") && strstr(r.out, "index_add-000000000000") &&
              strstr(r.out, "a stored result today's code does not plan"), "%s", r.out);
    cli_run_free(&r);
    free(near);
    free(far);
    free(stale);
    free(gone);
}
