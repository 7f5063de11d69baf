/* The committed golden data agree with each other: every occurrence is classified from a capture and
 * the stored classification is what the captures say; every capture's launch plan is sound. These
 * run in CI on a CPU machine. */
#include <criterion/criterion.h>
#include <string.h>

#include "target/capture.h"
#include "helpers.h"
#include "target/replay.h"

Test(golden, classification_matches_the_captures)
{
    cli_run r = test_cli("classify", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "aten.histc.default                          true_fallback"), "%s", r.out);
    cli_run_free(&r);
}

Test(golden, every_capture_plan_is_sound)
{
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir("golden/targets/H200-torch2.11.0+cu130", &caps, &err), 0, "%s", err.msg);
    cr_assert_gt(caps.n, 0, "golden/targets/H200-torch2.11.0+cu130/captures is empty");
    int replayable = 0;
    for (int i = 0; i < caps.n; i++) {
        const ea_capture_run *r = ea_capture_run_named(&caps.items[i], "default");
        if (!r->replayable)
            continue;
        replayable++;
        cr_assert_eq(ea_replay_check(&caps.items[i], r, &err), 0, "%s", err.msg);
    }
    cr_log_info("%d captures, %d replayable from C", caps.n, replayable);
    cr_assert_gt(replayable, 0);
    ea_captures_free(&caps);
}
