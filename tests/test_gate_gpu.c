/* The gate on a GPU, through gate --run's loop (gate_run.h: measure, compare, measure the unsettled points
 * again): one point's fresh measurement against the committed baselines of this GPU model is SAME, the same
 * point with a known delay added to one path is SLOWER on that path alone after being measured again, a delay
 * in its first measurement alone is measured again and cleared, and two gates started at once both see the
 * committed verdict. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "gpu/device.h"
#include "gate/gate.h"
#include "gate/gate_run_impl.h"
#include "delay.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/path.h"
#include "measure/path_impl.h"
#include "measure/run.h"
#include "target/target.h"

#define ALIAS "longformer-bf16-6291456"
#define LABEL "index_add longformer-bf16-6291456 current" /* the faithful and fabricated current paths */

/* The committed baselines of this GPU's target and the Longformer point, or the test skipped with the reason. */
typedef struct {
    ej_doc stored;
    char base[4400];
    ea_run_points pts;
} gpu_gate;

static gpu_gate g;

static void open_gate(void)
{
    ea_target target;
    ea_error err;
    test_skip_without_target(&target);
    snprintf(g.base, sizeof g.base, "%s/baselines.json", target.dir);
    if (access(g.base, F_OK) != 0)
        cr_skip_test("no baseline for GPU model %s: %s absent", target.gpu_model, g.base);
    cr_assert_eq(ej_load(g.base, &g.stored, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_run_points_load("golden", target.dir, ALIAS, &g.pts, &err), 0, "%s", err.msg);
}

static void close_gate(void)
{
    ea_run_points_free(&g.pts);
    ej_free(&g.stored);
}

/* gate --run as the CLI runs it (ea_gate_run), or measuring with measure: *rounds the rounds of measuring again. */
static cJSON *gate_run(ea_gate_measure_fn *measure, int retries, int *rounds)
{
    ea_run_opts ro = {.faithful = 1, .fabricated = 1, .log = stderr, .cold_from = g.stored.root};
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *fresh = NULL, *report = NULL;
    ea_error err;
    int rc = measure ? ea_gate_run_measured(measure, g.base, g.stored.root, &g.pts, &ro, &rule, retries, "gate GPU test",
                                            &fresh, &report, &err)
                     : ea_gate_run(g.base, g.stored.root, &g.pts, &ro, &rule, retries, "gate GPU test", &fresh, &report,
                                   &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cJSON_Delete(fresh);
    *rounds = (int)ej_num(report, "remeasurements");
    return report;
}

/* A fifth of the larger stored current median of the point (the fabricated index costs Longformer B 37x the
 * faithful one), added to every call of both current paths: each moves by 20% or more. *timed: the current
 * entries the gate judges, each mode warm, and cold where one is stored. */
static double delay_us(int *timed)
{
    const cJSON *r;
    const char *point = ej_text(g.pts.refs[0].point, "point");
    double us = 0;
    *timed = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(g.stored.root, "scopes"))
        if (!strcmp(ej_text(r, "point"), point))
            for (int fab = 0; fab < 2; fab++) {
                const cJSON *p = ea_path_named(r, "current", fab ? "fabricated" : "faithful");
                us = fmax(us, 0.2 * ea_path_median(p));
                *timed += p ? 1 + cJSON_HasObjectItem(p, "time_cold") : 0;
            }
    return us;
}

static double delay;

/* The first measurement with the delay on both current paths, every later one without. */
static int delayed_once(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                        cJSON **doc, ea_error *err)
{
    static int calls;
    if (calls++ == 0)
        ea_path_inject(LABEL, ea_enqueue_delay, &delay);
    int rc = ea_run_measure(c, command, ro, refs, n, doc, err);
    ea_path_inject(NULL, NULL, NULL);
    return rc;
}

Test(gate_gpu, fresh_run_is_same_and_an_injected_delay_is_slower, .timeout = 600)
{
    int rounds, timed;
    open_gate();
    cJSON *report = gate_run(NULL, 2, &rounds);
    char *text = cJSON_Print(report);
    cr_assert_eq(ea_gate_exit(report), 0, "the fresh run is not all SAME after %d round(s) of measuring again: %s",
                 rounds, text);
    free(text);
    cJSON_Delete(report);

    delay = delay_us(&timed);
    cr_assert_gt(delay, 1.0);
    ea_path_inject(LABEL, ea_enqueue_delay, &delay);
    report = gate_run(NULL, 1, &rounds);
    ea_path_inject(NULL, NULL, NULL);
    text = cJSON_Print(report);
    const cJSON *e;
    int slower = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        int current = !strcmp(ej_text(e, "path"), "current");
        if (!strcmp(ej_text(e, "path"), EA_PATH_FLOOR) && !ea_gate_entry_holds(e))
            continue; /* the yardstick: reported, not gated (gate.h), and no delay was put in it */
        cr_assert_str_eq(ej_text(e, "status"), current ? "SLOWER" : "SAME", "%s", text);
        slower += current;
    }
    cr_assert_eq(slower, timed, "%s", text);
    cr_assert_geq(timed, 2);
    cr_assert_eq(rounds, 1, "the move was measured again before it stood: %s", text);
    free(text);
    cJSON_Delete(report);
    close_gate();
}

/* The loop's point on a GPU: a move only the first measurement shows is measured again and cleared. */
Test(gate_gpu, a_delay_in_the_first_measurement_alone_is_measured_again_and_same, .timeout = 600)
{
    int rounds, timed;
    open_gate();
    delay = delay_us(&timed);
    cr_assert_gt(delay, 1.0);
    cJSON *report = gate_run(delayed_once, 2, &rounds);
    char *text = cJSON_Print(report);
    cr_assert_geq(rounds, 1, "the delayed first measurement was not measured again: %s", text);
    cr_assert_eq(ea_gate_exit(report), 0, "not all SAME after %d round(s) of measuring again: %s", rounds, text);
    free(text);
    cJSON_Delete(report);
    close_gate();
}

/* Two gates started at once on one GPU, as two `make test` or a gate beside a test run would: each measures
 * under the device lock (device_lock.h), so both see the committed verdict. Longformer B's index_add, 100 us of
 * memory-bound work per call (3.4 ms on the fabricated index): two measurements sharing the card would each run
 * far slower. XLNet's (710 us, 19.2 s of the card per gate by its committed point_wall_s) took 2.5 times as long
 * as this does (7.7 s per gate in the H200 lock log). The CLI is the one make
 * built ($EXTERN_AUDIT_CLI in a GPU bundle); this process takes no lock itself, so it never blocks them. */
Test(gate_gpu, two_gates_started_at_once_both_get_the_committed_verdict, .timeout = 600)
{
    ea_device_info dev;
    char why[512];
    const char *cli = getenv("EXTERN_AUDIT_CLI");
    /* not test_skip_without_target: its share of the device lock would keep both gates waiting */
    if (!ea_device_probe(&dev))
        cr_skip_test("no CUDA device: %s", dev.reason);
    if (test_gpu_without_target(why, sizeof why))
        cr_skip_test("%s", why);
    cli = cli && *cli ? cli : "build/extern-audit";
    cr_assert_eq(access(cli, X_OK), 0, "%s: no CLI to run (make builds it; a GPU bundle sets EXTERN_AUDIT_CLI)", cli);
    const char *dir = test_tmpdir();
    char out[2][4200];
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        snprintf(out[k], sizeof out[k], "%s/gate-%d.txt", dir, k);
        kids[k] = fork();
        cr_assert_geq(kids[k], 0);
        if (kids[k] == 0) {
            int fd = open(out[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 1);
            dup2(fd, 2);
            execl(cli, cli, "gate", "--run", "--scope", ALIAS, (char *)NULL);
            _exit(127);
        }
    }
    for (int k = 0; k < 2; k++) {
        int st;
        cr_assert_eq(waitpid(kids[k], &st, 0), kids[k]);
        char *text = test_read(out[k]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "gate %d of 2 started together is not all SAME (exit %d):\n%s",
                  k + 1, WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
        free(text);
    }
}

/* Two shards of two cumsum points, run one after the other and merged: every result of both in the merged report,
 * each measured result with its point's wall seconds, the joined fresh document holding both shards' results. */
Test(gate_gpu, two_run_shards_merge_into_one_gate_with_recorded_point_seconds, .timeout = 600)
{
    ea_error err;
    ea_target t;
    test_skip_without_target(&t);
    ea_run_points pts;
    cr_assert_eq(ea_run_points_load("golden", t.dir, "cumsum", &pts, &err), 0, "%s", err.msg);
    char scope[256], files[2][512], fresh[2][512], joined[512];
    snprintf(scope, sizeof scope, "%s,%s", ej_text(pts.refs[0].point, "point"), ej_text(pts.refs[1].point, "point"));
    ea_run_points_free(&pts);
    const char *dir = test_tmpdir();
    for (int i = 0; i < 2; i++) {
        char shard[16];
        snprintf(shard, sizeof shard, "%d/2", i + 1);
        snprintf(fresh[i], sizeof fresh[i], "%s/fresh-%d.json", dir, i + 1);
        cli_run r = test_cli("gate", "--run", "--target", t.name, "--scope", scope, "--shard", shard, "--save", fresh[i],
                             "--json", "--quiet", NULL);
        cr_assert(r.status == 0 || r.status == 1, "shard %s: exit %d: %s", shard, r.status, r.err);
        snprintf(files[i], sizeof files[i], "%s/gate-%d.json", dir, i + 1);
        free(test_write(dir, strrchr(files[i], '/') + 1, r.out));
        cli_run_free(&r);
        ej_doc d;
        cr_assert_eq(ej_load(fresh[i], &d, &err), 0, "%s", err.msg);
        const cJSON *x;
        int results = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(d.root, "scopes")) {
            cr_assert_gt(ej_num(x, "point_wall_s"), 0.0, "shard %s: a result without its point's wall seconds", shard);
            results++;
        }
        cr_assert_gt(results, 0, "shard %s measured nothing", shard);
        ej_free(&d);
    }
    snprintf(joined, sizeof joined, "%s/joined.json", dir);
    cli_run m = test_cli("gate", "merge", "--json", "--save", joined, files[0], files[1], NULL);
    cr_assert(m.status == 0 || m.status == 1, "merge: exit %d: %s", m.status, m.err);
    cJSON *merged = cJSON_Parse(m.out);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(merged, "entries"))
        cr_assert(!ea_gate_entry_holds(e) || (strcmp(ej_text(e, "status"), "MISSING") && strcmp(ej_text(e, "status"), "ADDED")),
                  "every stored result judged: %s", m.out);
    cJSON_Delete(merged);
    ej_doc j;
    cr_assert_eq(ej_load(joined, &j, &err), 0, "%s", err.msg);
    const cJSON *x;
    int points = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(j.root, "scopes"))
        points += strstr(scope, ej_text(x, "point")) != NULL;
    cr_assert_eq(points, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j.root, "scopes")));
    cr_assert_geq(points, 2);
    ej_free(&j);
    cli_run_free(&m);
}
