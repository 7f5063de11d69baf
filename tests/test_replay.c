#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/capture.h"
#include "target/capture_impl.h"
#include "gpu/device.h"
#include "helpers.h"
#include "target/replay.h"
#include "target_fixture.h"

#define FIXTURE "tests/fixtures/captures/cumsum-824fbb15db5d-2cfdbbbf0541/capture.json"

static ea_capture load(const char *path)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(path, &c, &err), 0, "%s", err.msg);
    return c;
}

Test(replay, fixture_plan_is_valid)
{
    ea_capture c = load(FIXTURE);
    ea_error err;
    cr_assert_eq(ea_replay_check(&c, ea_capture_run_named(&c, "default"), &err), 0, "%s", err.msg);
    ea_capture_free(&c);
}

Test(replay, argument_outside_its_buffer_is_refused)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "default");
    ea_capture_arg *arg = NULL;
    for (int a = 0; !arg && a < r->steps[0].nargs; a++)
        if (r->steps[0].args[a].buffer)
            arg = &r->steps[0].args[a];
    cr_assert_not_null(arg);
    arg->offset = 1 << 30;
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    cr_assert(strstr(err.msg, "capture.json $.runs[0].steps[0].args["), "%s", err.msg);
    cr_assert(strstr(err.msg, "the trace disagrees with the buffer sizes"), "%s", err.msg);
    ea_capture_free(&c);
}

Test(replay, unknown_scalar_type_is_refused)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "default");
    int found = 0;
    for (int a = 0; a < r->steps[0].nargs; a++)
        if (!r->steps[0].args[a].buffer) {
            r->steps[0].args[a].type = "q7";
            found = 1;
        }
    cr_assert(found, "the fixture launch has a scalar argument");
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    cr_assert(strstr(err.msg, "expected a scalar type"), "%s", err.msg);
    ea_capture_free(&c);
}

Test(replay, messages_name_the_run_by_its_index)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "coordinate_descent");
    cr_assert_eq(r, &c.runs[1], "the fixture's second run");
    r->steps[0].args[1].offset = 1 << 30;
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    cr_assert(strstr(err.msg, "capture.json $.runs[1].steps[0].args[1].offset: 1073741824 lies outside out0"), "%s",
              err.msg);
    ea_capture_free(&c);
}

/* A launch shape CUDA would refuse is refused on the host, naming the step: the binder narrows it to unsigned. */
Test(replay, launch_shapes_outside_cuda_limits_are_refused)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "default");
    ea_capture_step *st = &r->steps[0];
    const int64_t grid[3] = {st->grid[0], st->grid[1], st->grid[2]}, block[3] = {st->block[0], st->block[1],
                                                                                  st->block[2]};
    ea_error err = {{0}};
    st->grid[0] = (int64_t)1 << 32;
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    cr_assert(strstr(err.msg, "capture.json $.runs[0].steps[0]: expected a launch CUDA accepts"), "%s", err.msg);
    cr_assert(strstr(err.msg, "got grid [4294967296, "), "%s", err.msg);
    st->grid[0] = grid[0], st->grid[1] = 65536;
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    st->grid[1] = grid[1], st->block[0] = 512, st->block[1] = 4, st->block[2] = 1; /* 2048 threads */
    cr_assert_eq(ea_replay_check(&c, r, &err), -1);
    cr_assert(strstr(err.msg, "block [512, 4, 1]"), "%s", err.msg);
    st->block[0] = block[0], st->block[1] = block[1], st->block[2] = block[2];
    cr_assert_eq(ea_replay_check(&c, r, &err), 0, "%s", err.msg);
    ea_capture_free(&c);
}

/* The reader and the replay share one table: whatever type a capture may name, the replay can pass. */
Test(replay, every_scalar_type_the_reader_accepts_is_replayable)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "default");
    ea_capture_arg *arg = &r->steps[0].args[2];
    cr_assert_null(arg->buffer, "the fixture launch's third argument is a scalar");
    for (const ea_scalar_type *t = ea_scalar_types; t->name; t++) {
        ea_error err = {{0}};
        arg->type = t->name;
        cr_assert_eq(ea_replay_check(&c, r, &err), 0, "%s: %s", t->name, err.msg);
    }
    ea_capture_free(&c);
}

/* A replay that fails before its first call never started CUPTI: no CUPTI message, read from nothing. */
Test(replay, failed_preparation_reports_no_cupti_error)
{
    ea_capture c = load(FIXTURE);
    ea_capture_run *r = (ea_capture_run *)ea_capture_run_named(&c, "default");
    r->steps[0].global_scratch = 64; /* refused while building parameters, if allocation got that far */
    ea_replay_result res;
    ea_timer_config tc = {.replays = 1};
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_run(&c, r, &tc, EA_REPLAY_WARM, &res, &err), -1);
    cr_assert(err.msg[0], "the failure is explained");
    cr_assert_str_eq(res.cupti_error, "");
    cr_assert_eq(res.kernels.count, 0);
    ea_replay_result_free(&res);
    ea_capture_free(&c);
}

Test(replay, aten_steps_are_not_replayable)
{
    ea_capture c = load("tests/fixtures/captures/index_add-b36c21aae6f6-955d7c11d470/capture.json");
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_check(&c, ea_capture_run_named(&c, "default"), &err), -1);
    cr_assert(strstr(err.msg, "not replayable from C: it calls ATen"), "%s", err.msg);
    ea_capture_free(&c);
}

/* A family replaying the Triton steps between its own ATen replicas checks only their arguments. */
Test(replay, aten_runs_have_their_triton_arguments_checked)
{
    ea_capture c = load("tests/fixtures/captures/index_add-b36c21aae6f6-955d7c11d470/capture.json");
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_check_args(&c, ea_capture_run_named(&c, "default"), &err), 0, "%s", err.msg);
    ea_capture_free(&c);
}

static void *no_buffers(void *ctx, const char *name)
{
    (void)ctx, (void)name;
    return NULL;
}

static void *one_buffer(void *ctx, const char *name)
{
    return strcmp(name, "in0") && strcmp(name, "out0") ? NULL : ctx;
}

/* Host-side refusals come before any module is loaded: a missing buffer, Triton scratch memory. */
Test(replay, binding_a_step_refuses_missing_buffers_and_scratch)
{
    ea_capture c = load(FIXTURE);
    const ea_capture_run *r = ea_capture_run_named(&c, "default");
    ea_capture_step st = r->steps[0];
    ea_replay_launch l;
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_bind_step(&c, &st, no_buffers, NULL, &l, &err), -1);
    cr_assert(strstr(err.msg, "argument 0: no device memory for buffer \"in0\""), "%s", err.msg);
    cr_assert_null(l.params, "nothing left allocated");
    st.global_scratch = 64;
    char dummy[16];
    cr_assert_eq(ea_replay_bind_step(&c, &st, one_buffer, dummy, &l, &err), -1);
    cr_assert(strstr(err.msg, "asks for Triton scratch memory (64/0 bytes)"), "%s", err.msg);
    ea_capture_free(&c);
}

Test(replay, cli_checks_plans_then_needs_a_device)
{
    ea_device_info info;
    if (ea_device_probe(&info))
        cr_skip_test("a CUDA device is present: the no-device path is not reachable here");
    /* a golden folder whose one target holds the fixture captures */
    const char *g = test_tmpdir();
    char *target = test_target(g, "H200", "2.11.0+cu130", "9.0"), caps[4096], link[4200];
    cr_assert_not_null(realpath("tests/fixtures/captures", caps));
    snprintf(link, sizeof link, "%s/captures", target);
    cr_assert_eq(symlink(caps, link), 0);
    free(target);
    cli_run r = test_cli("replay", "--golden", g, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no CUDA device"), "%s", r.err);
    cr_assert(strstr(r.err, "2 of 5 captures replayable, their plans checked on the host; the other 3 have ATen "
                         "steps"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("replay", "--golden", g, "--scope", "nothing", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no capture named nothing"), "%s", r.err);
    cli_run_free(&r);
    /* a list selects the captures it names whole: a name's prefix names none */
    r = test_cli("replay", "--golden", g, "--scope", LF_CUMSUM_SCOPE "," CAT_SCOPE, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "of 2 captures replayable"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("replay", "--golden", g, "--scope", CAT_SCOPE ",cumsum-824fbb15db5d", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no capture named cumsum-824fbb15db5d in"), "%s", r.err);
    cli_run_free(&r);
}

/* The canonical replay on the device: every Triton-only capture in golden/ reproduces its outputs. */
Test(replay, golden_captures_reproduce_their_outputs, .timeout = 600)
{
    ea_device_info info;
    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir("golden/targets/H200-torch2.11.0+cu130", &caps, &err), 0, "%s", err.msg);
    if (caps.n == 0)
        cr_skip_test("golden/targets/H200-torch2.11.0+cu130/captures is empty: run tools/capture on a GPU first");
    int replayed = 0;
    for (int i = 0; i < caps.n; i++) {
        const ea_capture_run *r = ea_capture_run_named(&caps.items[i], "default");
        if (!r->replayable)
            continue;
        ea_replay_result res;
        ea_timer_config tc = {.replays = 5};
        cr_assert_eq(ea_replay_run(&caps.items[i], r, &tc, EA_REPLAY_WARM, &res, &err), 0, "%s: %s", caps.items[i].scope, err.msg);
        cr_expect_eq(res.outputs_matching, res.outputs, "%s: %s", caps.items[i].scope, res.first_mismatch);
        cr_expect(res.kernels_match || res.cupti_error[0], "%s: CUPTI saw other kernels than the capture's",
                  caps.items[i].scope);
        ea_replay_result_free(&res);
        replayed++;
    }
    cr_log_info("replayed %d of %d captures", replayed, caps.n);
    cr_assert_gt(replayed, 0, "no replayable capture");
    ea_captures_free(&caps);
}
