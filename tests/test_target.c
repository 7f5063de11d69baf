/* Golden targets (target.h): the fixture golden with an H200 and a made-up B200 target, selection by
 * --target, by $EXTERN_AUDIT_TARGET, by this machine's GPU model, without a GPU and, for reading, with a GPU
 * no target is for; the refusals (another GPU model, an unknown name, two targets of one model) with their
 * messages; the strict reader of target.json; the one capture lookup; and the commands reading the target
 * they are given. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "gpu/device.h"
#include "helpers.h"
#include "base/json.h"
#include "target/target.h"
#include "target/target_impl.h"
#include "target/target_layout.h"

#define FIXTURE "tests/fixtures/golden_targets"
#define H200 "H200-torch2.11.0+cu130"
#define B200 "B200-torch2.11.0+cu130"
#define CAPS "golden/targets/" TEST_TARGET

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static ea_target pick(const char *golden, const char *name, const char *env, const char *gpu, int check_gpu)
{
    ea_target t;
    ea_error err;
    cr_assert_eq(ea_target_select(golden, name, env, gpu, check_gpu, &t, &err), 0, "%s", err.msg);
    return t;
}

static void refused(const char *golden, const char *name, const char *env, const char *gpu, int check_gpu,
                    const char *want)
{
    ea_target t;
    ea_error err = {{0}};
    cr_assert_eq(ea_target_select(golden, name, env, gpu, check_gpu, &t, &err), -1, "accepted, wanted: %s", want);
    has(err.msg, want);
}

Test(target, lists_and_reads_the_fixture_targets)
{
    ea_target *ts;
    int n;
    ea_error err;
    cr_assert_eq(ea_targets_list(FIXTURE, &ts, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(ts[0].name, B200); /* sorted by name */
    cr_assert_str_eq(ts[0].gpu_model, "B200");
    cr_assert_str_eq(ts[0].capability, "10.0");
    cr_assert_str_eq(ts[1].name, H200);
    cr_assert_str_eq(ts[1].torch, "2.11.0+cu130");
    cr_assert_str_eq(ts[1].dir, FIXTURE "/targets/" H200);
    free(ts);
    /* the committed golden: the migrated H200 target, its values as its files record them */
    cr_assert_eq(ea_targets_list("golden", &ts, &n, &err), 0, "%s", err.msg);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(ts[0].name, TEST_TARGET);
    cr_assert_str_eq(ts[0].capability, "9.0");
    free(ts);
    /* no targets folder: none, and no error */
    cr_assert_eq(ea_targets_list(test_tmpdir(), &ts, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0);
}

Test(target, selection_by_name_environment_and_gpu_model)
{
    cr_assert_str_eq(pick(FIXTURE, B200, NULL, NULL, 1).name, B200);            /* --target */
    cr_assert_str_eq(pick(FIXTURE, NULL, B200, NULL, 1).name, B200);            /* $EXTERN_AUDIT_TARGET */
    cr_assert_str_eq(pick(FIXTURE, H200, B200, NULL, 1).name, H200);            /* --target wins */
    cr_assert_str_eq(pick(FIXTURE, NULL, NULL, "B200", 1).name, B200);          /* this GPU's model */
    cr_assert_str_eq(pick(FIXTURE, NULL, NULL, "H200", 1).name, H200);
    cr_assert_str_eq(pick(FIXTURE, NULL, "", "H200", 1).name, H200);            /* an empty variable is unset */
    /* reading another GPU model's files is allowed; measuring on it is not */
    cr_assert_str_eq(pick(FIXTURE, H200, NULL, "B200", 0).name, H200);
    /* no GPU: the only target */
    cr_assert_str_eq(pick("golden", NULL, NULL, NULL, 1).name, TEST_TARGET);
    /* a GPU with no target of its model reads files as a machine without one (the only target of today's code,
     * never a lowering's beside it), and measures nothing */
    cr_assert_str_eq(pick("golden", NULL, NULL, "X100", 0).name, TEST_TARGET);
    refused("golden", NULL, NULL, "X100", 1, "no target for this machine's X100 in golden/targets (" TEST_TARGET);
    const char *g = test_tmpdir();
    free(test_target(g, "H200", "2.11.0+cu130", "9.0"));
    free(test_write(g, "targets/H200-torch2.11.0+cu130-lowered/target.json",
                    "{\"schema\": \"extern-audit/target\", \"schema_version\": 1, \"name\": "
                    "\"H200-torch2.11.0+cu130-lowered\", \"gpu_model\": \"H200\", \"torch\": \"2.11.0+cu130\", "
                    "\"capability\": \"9.0\", \"lowering\": \"lowered\", \"note\": \"written by a test\"}\n"));
    cr_assert_str_eq(pick(g, NULL, NULL, "X100", 0).name, "H200-torch2.11.0+cu130");
    ea_target t = pick(FIXTURE, H200, NULL, NULL, 1);
    char path[4400];
    cr_assert_eq(ea_tf_path(t.dir, EA_TF_BASELINES, path, sizeof path), 0);
    cr_assert_str_eq(path, FIXTURE "/targets/" H200 "/baselines.json");
}

Test(target, refusals_name_what_was_asked_and_what_is_there)
{
    /* another GPU model than this machine's: both named */
    refused(FIXTURE, H200, NULL, "B200", 1,
            "target " H200 " (--target) is for the H200, but this machine's GPU is the B200: run it there, or pick (or "
            "stage) a target of B200");
    refused(FIXTURE, NULL, H200, "B200", 1, "target " H200 " (" EA_TARGET_ENV ") is for the H200");
    /* unknown: the targets listed */
    refused(FIXTURE, "A100-torch2.11.0+cu130", NULL, NULL, 0,
            "unknown target 'A100-torch2.11.0+cu130' (--target): expected one of " FIXTURE "/targets: " B200 ", " H200);
    refused(FIXTURE, NULL, "nope", NULL, 0, "unknown target 'nope' (" EA_TARGET_ENV ")");
    /* no GPU and two targets; a GPU model with none */
    refused(FIXTURE, NULL, NULL, NULL, 0,
            "no GPU here and 2 targets in " FIXTURE "/targets (" B200 ", " H200 "): name one with --target NAME or "
            EA_TARGET_ENV);
    refused(FIXTURE, NULL, NULL, "A100", 1, "no target for this machine's A100 in " FIXTURE "/targets (" B200 ", " H200
            "): name one with --target NAME, or stage one for A100");
    /* reading does not guess between two others */
    refused(FIXTURE, NULL, NULL, "A100", 0, "no target for this machine's A100 and 2 targets of other GPUs in " FIXTURE
            "/targets (" B200 ", " H200 "): name one with --target NAME or " EA_TARGET_ENV);
    /* two targets of one GPU model: the torch version, unknown to C, decides */
    const char *g = test_tmpdir();
    free(test_target(g, "H200", "2.11.0+cu130", "9.0"));
    free(test_target(g, "H200", "2.12.0+cu130", "9.0"));
    refused(g, NULL, NULL, "H200", 1, "2 targets of this machine's H200 in ");
    refused(g, NULL, NULL, "H200", 1, "(H200-torch2.11.0+cu130, H200-torch2.12.0+cu130): the torch version decides");
    cr_assert_str_eq(pick(g, "H200-torch2.12.0+cu130", NULL, "H200", 1).torch, "2.12.0+cu130");
    /* no target at all */
    refused(test_tmpdir(), NULL, NULL, "H200", 1, "/targets: expected a target folder (<gpu model>-torch<version>/"
                                                  "target.json), got none");
}

Test(target, find_tolerates_no_target_only_when_none_is_asked)
{
    ea_target t;
    ea_error err = {{0}};
    unsetenv(EA_TARGET_ENV);
    cr_assert_eq(ea_target_find(test_tmpdir(), NULL, &t, &err), 0, "%s", err.msg);
    cr_assert_str_eq(t.name, "");
    cr_assert_eq(ea_target_find(test_tmpdir(), H200, &t, &err), -1);
    has(err.msg, "unknown target '" H200 "' (--target)");
    cr_assert_eq(ea_target_find("golden", NULL, &t, &err), 0, "%s", err.msg);
    cr_assert_str_eq(t.name, TEST_TARGET);
}

/* dir/targets/<name>/target.json with text; the load's error must hold want. */
static void bad_target(const char *name, const char *text, const char *want)
{
    const char *g = test_tmpdir();
    char rel[512], dir[4600];
    snprintf(rel, sizeof rel, "targets/%s/target.json", name);
    free(test_write(g, rel, text));
    snprintf(dir, sizeof dir, "%s/targets/%s", g, name);
    ea_target t;
    ea_error err = {{0}};
    cr_assert_eq(ea_target_load(dir, &t, &err), -1, "accepted %s", text);
    has(err.msg, dir);
    has(err.msg, want);
    ea_target *ts;
    int n;
    cr_assert_eq(ea_targets_list(g, &ts, &n, &err), -1, "the listing accepted %s", text);
    has(err.msg, want);
}

#define DOC(name, model, torch, cap, extra)                                                                         \
    "{\"schema\": \"extern-audit/target\", \"schema_version\": 1, \"name\": \"" name "\", \"gpu_model\": \"" model \
    "\", \"torch\": \"" torch "\", \"capability\": \"" cap "\", \"note\": \"n\"" extra "}"

Test(target, the_reader_is_strict)
{
    bad_target(H200, DOC(H200, "H200", "2.11.0+cu130", "9.0", ", \"driver\": \"580\""), "$: unknown key 'driver'");
    bad_target(H200, "{\"schema\": \"extern-audit/targets\", \"schema_version\": 1}",
               "$.schema: expected \"extern-audit/target\", got \"extern-audit/targets\"");
    bad_target(H200, "{\"schema\": \"extern-audit/target\", \"schema_version\": 2}", "$.schema_version: expected 1, got 2");
    bad_target(H200, "{\"schema\": \"extern-audit/target\", \"schema_version\": 1, \"name\": \"" H200 "\"}",
               "$.gpu_model: expected string, got nothing");
    bad_target(H200, DOC(H200, "", "2.11.0+cu130", "9.0", ""), "$.gpu_model: expected a non-empty string");
    bad_target(H200, DOC(H200, "H200", "2.11.0+cu130", "nine", ""),
               "$.capability: expected \"<major>.<minor>\" (e.g. \"9.0\"), got \"nine\"");
    bad_target(H200, DOC(H200, "H200", "2.11.0+cu130", "9.0.1", ""), "$.capability: expected \"<major>.<minor>\"");
    bad_target(H200, DOC(H200, "H100", "2.11.0+cu130", "9.0", ""),
               "$.name: expected \"<gpu_model>-torch<torch>\" from the same file, got \"" H200 "\"");
    bad_target("renamed", DOC(H200, "H200", "2.11.0+cu130", "9.0", ""),
               "$.name: expected the target's folder name \"renamed\", got \"" H200 "\"");
    bad_target(H200, "{\"schema\": ", ":1:");
    /* a folder without target.json */
    const char *g = test_tmpdir();
    free(test_write(g, "targets/" H200 "/baselines.json", "{}"));
    ea_target *ts;
    int n;
    ea_error err;
    cr_assert_eq(ea_targets_list(g, &ts, &n, &err), -1);
    has(err.msg, "/targets/" H200 "/target.json: cannot read");
}

/* Which capture covers a point: one lookup (ea_capture_of_point) for every family and run's annotation. */
Test(target, one_capture_lookup_by_name_then_by_covered_occurrence)
{
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir(CAPS, &caps, &err), 0, "%s", err.msg);
    cr_assert_gt(caps.n, 0);
    const ea_capture *first = &caps.items[0];
    const char *none = "cat-000000000000-000000000000";
    char text[1024];
    /* a point of two groups: the second named by the capture's scope id; then only covering its occurrence */
    snprintf(text, sizeof text, "{\"point\": \"p\", \"scopes\": [{\"scope_id\": \"%s\", \"occurrences\": []}, "
             "{\"scope_id\": \"%s\", \"occurrences\": [{\"id\": \"x\"}]}]}", none, first->scope);
    cJSON *pt = cJSON_Parse(text);
    cr_assert_eq(ea_capture_of_point(&caps, pt, -1, NULL), first, "the second group's scope id named");
    cr_assert_eq(ea_capture_of_point(&caps, pt, 1, NULL), first, "the group's own scope id");
    cr_assert_null(ea_capture_of_point(&caps, pt, 0, &err), "group 0 alone: neither named nor covered");
    has(err.msg, CAPS "/captures: expected a capture named cat-000000000000-000000000000 (tools/capture writes it), "
                 "found none among");
    cJSON_Delete(pt);
    snprintf(text, sizeof text, "{\"scopes\": [{\"scope_id\": \"%s\", \"occurrences\": [{\"id\": \"%s\"}]}]}",
             none, first->covers[0]);
    pt = cJSON_Parse(text);
    cr_assert_eq(ea_capture_of_point(&caps, pt, 0, NULL), first, "the capture covering the occurrence");
    ea_captures free_caps = {0};
    cr_assert_null(ea_capture_of_point(&free_caps, pt, -1, &err));
    has(err.msg, "(no target)/captures: expected a capture named cat-000000000000-000000000000 or one covering ");
    cJSON_Delete(pt);
    ea_captures_free(&caps);
}

/* A golden folder: the small golden's occurrences (linked) and the fixture's two targets (copied). */
static const char *two_target_golden(void)
{
    const char *g = test_tmpdir();
    char cmd[4400], occ[4096];
    cr_assert_not_null(realpath("tests/fixtures/golden_small/occurrences", occ));
    snprintf(cmd, sizeof cmd, "cp -r " FIXTURE "/targets '%s'/ && ln -s '%s' '%s'/occurrences", g, occ, g);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return g;
}

Test(target, commands_read_the_target_they_are_given)
{
    unsetenv(EA_TARGET_ENV);
    const char *g = two_target_golden();
    cli_run r = test_cli("audit", "--golden", g, "--target", B200, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"target\":\t\"" B200 "\"");
    has(r.out, "/targets/" B200 "/classification.json");
    cli_run_free(&r);
    setenv(EA_TARGET_ENV, H200, 1);
    r = test_cli("audit", "--golden", g, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"target\":\t\"" H200 "\"");
    cli_run_free(&r);
    unsetenv(EA_TARGET_ENV);
    r = test_cli("classify", "--golden", g, "--target", "nope", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "unknown target 'nope' (--target): expected one of ");
    has(r.err, "/targets: " B200 ", " H200);
    cli_run_free(&r);
    r = test_cli("rollup", "--golden", g, "--target", B200, "--json", NULL); /* nothing measured there: said so */
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "no baselines for " B200 ": ");
    cli_run_free(&r);
    /* the plan needs no GPU; it reads the captures of the target named */
    r = test_cli("run", "--scope", "all", "--plan", "--golden", g, "--target", B200, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "the B200 target has no captures: its points are unsupported\n%s", r.err);
    has(r.out, "UNSUPPORTED: ");
    cli_run_free(&r);
    r = test_cli("gate", "--golden", g, "--target", B200, "--against", g, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "/targets/" B200 "/baselines.json: cannot read");
    cli_run_free(&r);
    const char *const usages[][2] = {{"classify", "--target NAME"}, {"replay", "--target NAME"}, {"run", "--target NAME"},
                                     {"gate", "--target NAME"},     {"audit", "--target NAME"},  {"rollup", "--target NAME"}};
    for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++) {
        r = test_cli(usages[i][0], "--help", NULL);
        cr_assert_eq(r.status, 0);
        has(r.out, usages[i][1]);
        cli_run_free(&r);
    }
}

/* On a GPU: the fixture target of this GPU's model is the one picked, the other model's is refused by a
 * command that measures (replay), naming both models. */
Test(target, on_a_gpu_this_models_target_is_picked_and_the_other_refused)
{
    ea_device_info dev;
    char model[64];
    ea_target t;
    ea_error err = {{0}};
    test_skip_without_gpu();
    unsetenv(EA_TARGET_ENV);
    ea_device_probe(&dev);
    ea_gpu_model(dev.name, model, sizeof model);
    if (strcmp(model, "H200") && strcmp(model, "B200"))
        cr_skip_test("the fixture has H200 and B200 targets; this GPU is a %s", model);
    const char *other = strcmp(model, "H200") ? H200 : B200;
    cr_assert_eq(ea_target_resolve(FIXTURE, NULL, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_str_eq(t.gpu_model, model);
    cr_assert_eq(ea_target_resolve(FIXTURE, other, 1, &t, &err), -1);
    has(err.msg, "but this machine's GPU is the ");
    has(err.msg, model);
    cli_run r = test_cli("replay", "--golden", FIXTURE, "--target", other, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "target ");
    has(r.err, other);
    has(r.err, "but this machine's GPU is the ");
    cli_run_free(&r);
}
