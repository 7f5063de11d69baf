/* cmd_run.c: extern-audit run: plan or measure golden scopes through the repro families (repro.h),
 * annotate them with the run's copy bandwidth, the classification, the torch timings of the op alone
 * (torch_ops.h: the replica's fidelity) and the captures (baseline.h),
 * print the table or the baselines document, and record it. Exit 1 when a check failed, a point is
 * unsupported (its family refused it, unsupported.h: it is reported with the reason and the run goes on)
 * or an oracle of this run is slower than a committed candidate lowering of its scope (candidate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "gpu/bandwidth.h"
#include "measure/baseline.h"
#include "golden/candidate.h"
#include "target/classify.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "gpu/device.h"
#include "gpu/device_lock.h"
#include "base/json.h"
#include "gate/keep_from.h"
#include "measure/kit.h"
#include "measure/launch_floor.h"
#include "corpus/occurrences.h"
#include "measure/repro.h"
#include "measure/run.h"
#include "measure/run_report.h"
#include "target/target_layout.h"
#include "measure/unsupported.h"
#include "gpu/timer.h"
#include "target/target.h"
#include "target/torch_ops.h"
#include "base/readfile.h"

/* --plan sizes ATen's grids with this machine's multiprocessor count; plans print without a GPU too,
 * and then use an H200's, the GPU the committed baselines come from. Each plan says which it used. */
#define PLAN_SM_COUNT_WITHOUT_GPU 132

const char ea_usage_run[] =
    "usage: extern-audit run --scope NAME [--mode faithful|fabricated|both] [--json] [--record FILE]\n"
    "                        [--keep-from FILE] [--golden DIR] [--target NAME] [--any-gpu] [--plan | --check-only]\n"
    "                        [--quiet]\n"
    "  --scope NAME   all, a family (repros/registry.c), an alias (xlnet, routing, roberta-infer, ...), a point\n"
    "                 id or a scope id; several separated by commas; --list lists the families with their ops,\n"
    "                 aliases and points\n"
    "  --mode M       faithful (default): the indices the graphs build; fabricated: randint(0, 100) as the\n"
    "                 attribution pipeline's replay draws them; both. A family runs the modes it declares\n"
    "                 (only index_add has fabricated); a point with none of the asked ones is unsupported\n"
    "  --json         print the baselines document (docs/reference/schema.md) instead of the table (with --plan the\n"
    "                 plans, with --check-only the check-only document)\n"
    "  --record FILE  write that document to FILE atomically (the target's: DIR/targets/NAME/" EA_BASELINES_NAME ";\n"
    "                 -: standard output, instead of the table)\n"
    "  --keep-from FILE  a baselines document of this GPU model (the base target's): the document is FILE's\n"
    "                 with the measured points' results replaced and every other result kept byte for byte\n"
    "                 (ci/golden-stage measures only what a lowering recaptured); refused when FILE lacks a\n"
    "                 golden point this run did not measure\n"
    "  --golden DIR   golden folder (default golden)\n"
    "  --target NAME  DIR/targets/NAME: the captures, classification and torch timings measured against\n"
    "                 (default: $EXTERN_AUDIT_TARGET, else the target of this GPU's model, else with no GPU\n"
    "                 the only one); a target of another GPU model than this one's is refused\n"
    "  --any-gpu      measure the target's captures on this GPU even when the target is another GPU model's\n"
    "                 (a GPU with no target of its own: ratios of this run, oracle against current and floor,\n"
    "                 side by side; current is Inductor's kernels as compiled and autotuned on the target's\n"
    "                 GPU): no fidelity (the captured and torch times are the target GPU's), no candidate\n"
    "                 pricing, never --record or --keep-from; the document's gpu says which GPU measured, its\n"
    "                 command which target\n"
    "  --plan         print what would run (kernels, launch shapes, floor bytes) as a table, with --json as\n"
    "                 JSON; needs no GPU; not with --record (a plan measures nothing)\n"
    "  --check-only   every path of every point run once on its inputs and checked, nothing timed: what\n"
    "                 compute-sanitizer wraps (ci/gpu-check STEPS=sanitize); not with --record\n"
    "  --quiet        no progress lines on stderr\n"
    "  --list         list the families, aliases and points, with the models each covers ([--golden DIR] [--json])\n"
    "the replica's fidelity compares the current path with the target's " EA_TORCH_OPS_NAME ", the op timed\n"
    "alone in torch (python3 tools/capture/op_timing.py); without it: \"no torch measurement\"\n"
    "a point its family refuses (a shape, dtype or capture it does not implement) is reported unsupported,\n"
    "with the reason, and the run goes on\n"
    "every committed candidate-lowering target of the target's GPU and torch (golden price) is priced against\n"
    "this run when it ran on that GPU model: an oracle slower than a candidate of its scope is named on stderr\n"
    "with both times\n"
    "exit status: 0 every check passed, 1 a check failed, a point is unsupported or an oracle is slower than a\n"
    "candidate, 2 bad usage, bad input or no CUDA device\n";

typedef struct {
    const char *scope, *record, *golden, *target, *keep_from;
    int json, plan, quiet, record_stdout; /* --record -: stdout carries the document alone */
    int any_gpu;
    ea_run_opts ro;
    char command[1024];
} run_options;

static int parse(int argc, char **argv, run_options *o, int *help)
{
    ea_cli_options c;
    memset(o, 0, sizeof *o);
    int rc = ea_cli_parse("run", "--scope --mode --json --record --keep-from --golden --target --any-gpu --plan --check-only "
                          "--quiet",
                          argc, argv, &c, help);
    if (rc || *help)
        return rc;
    const char *mode = c.mode ? c.mode : "faithful";
    if (strcmp(mode, "faithful") && strcmp(mode, "fabricated") && strcmp(mode, "both"))
        return ea_cli_usage_error("run", "--mode expects faithful, fabricated or both, got '%s'", mode);
    if (!c.scope)
        return ea_cli_usage_error("run", "%s", "--scope is required");
    /* neither writes a baselines document: --record would otherwise be ignored without a word */
    if (c.record && (c.plan || c.check_only))
        return ea_cli_usage_error("run", "--record writes measured baselines; %s measures no time, so it is refused",
                                  c.plan ? "--plan" : "--check-only");
    if (c.keep_from && (c.plan || c.check_only))
        return ea_cli_usage_error("run", "--keep-from completes measured baselines; %s measures no time, so it is "
                                         "refused", c.plan ? "--plan" : "--check-only");
    /* a target's baselines are its own GPU's: another GPU's times never land in them */
    if (c.any_gpu && (c.record || c.keep_from))
        return ea_cli_usage_error("run", "--any-gpu measures on a GPU the target may not be for, so %s is refused: "
                                         "a baselines file holds one GPU model's times",
                                  c.record ? "--record" : "--keep-from");
    if (c.any_gpu && c.plan)
        return ea_cli_usage_error("run", "%s", "--any-gpu says where to measure; --plan measures nothing and needs "
                                               "no GPU");
    if (c.plan && c.check_only)
        return ea_cli_usage_error("run", "%s", "--plan (no GPU, nothing run) and --check-only (run once, checked) "
                                               "exclude each other");
    if ((rc = ea_cli_stdout_once("run", c.json, &c.record, 1, &o->record_stdout)))
        return rc;
    o->scope = c.scope;
    o->record = c.record;
    o->keep_from = c.keep_from;
    o->golden = c.golden;
    o->target = c.target;
    o->json = c.json;
    o->plan = c.plan;
    o->quiet = c.quiet;
    o->any_gpu = c.any_gpu;
    o->ro.faithful = strcmp(mode, "fabricated") != 0;
    o->ro.fabricated = strcmp(mode, "faithful") != 0;
    o->ro.check_only = c.check_only;
    o->ro.log = c.quiet ? NULL : stderr;
    /* the baselines record how they were made */
    size_t k = (size_t)snprintf(o->command, sizeof o->command, "extern-audit run");
    for (int i = 0; i < argc && k < sizeof o->command; i++)
        k += (size_t)snprintf(o->command + k, sizeof o->command - k, " %s", argv[i]);
    return 0;
}

/* The kernel module's version ("580.159.04") when the host exposes it, else the driver API's. */
static void driver_version(const ea_device_info *dev, char *out, size_t n)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512], *tok, *save = NULL;
    snprintf(out, n, "CUDA driver API %d.%d", dev->driver_version / 1000, dev->driver_version % 1000 / 10);
    /* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the
     * first token after "Module" that starts with a digit and has a dot */
    if (f && fgets(line, sizeof line, f) && strstr(line, "Module"))
        for (tok = strtok_r(strstr(line, "Module"), " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
            if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
                snprintf(out, n, "%.31s", tok);
                break;
            }
    if (f)
        fclose(f);
}

static int measure_env(const ea_device_info *dev, const char *command, FILE *log, ea_run_env *env, ea_error *err)
{
    ea_bandwidth bw;
    ea_timing launch;
    memset(env, 0, sizeof *env);
    snprintf(env->command, sizeof env->command, "%s", command);
    snprintf(env->gpu, sizeof env->gpu, "%s", dev->name);
    ea_gpu_model(dev->name, env->model, sizeof env->model);
    snprintf(env->capability, sizeof env->capability, "%d.%d", dev->cc_major, dev->cc_minor);
    env->sm_count = dev->sm_count;
    env->l2_bytes = dev->l2_bytes;
    env->memory_bytes = dev->global_mem_bytes;
    driver_version(dev, env->driver, sizeof env->driver);
    snprintf(env->toolkit, sizeof env->toolkit, "%d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    if (ea_copy_bandwidth(0, NULL, &bw, err)) /* each of its timings holds the device lock */
        return -1;
    env->copy_bytes = bw.bytes;
    env->kernel_bytes_per_s = bw.kernel_bytes_per_s;
    env->memcpy_bytes_per_s = bw.memcpy_bytes_per_s;
    env->strided_bytes_per_s = bw.strided_bytes_per_s;
    snprintf(env->copy_kernel, sizeof env->copy_kernel, "%s", bw.kernel_name);
    env->calls_per_replay = bw.kernel.calls_per_replay;
    env->replays = bw.kernel.replays;
    env->warmup_ms = bw.kernel.warmup_ms; /* the timer's default, every path's */
    ea_bandwidth_free(&bw);
    if (ea_time_graph(ea_enqueue_empty_kernel, NULL, NULL, &launch, err))
        return -1;
    env->launch_us = launch.per_call_us.median;
    ea_timing_free(&launch);
    /* the launch floor (launch_floor.h): what a call of k operations costs at least */
    if (ea_launch_floor_measure(env->chain_us, env->chain_cold_us, EA_LAUNCH_FLOOR_MAX, env->chain_cold_note,
                                sizeof env->chain_cold_note, err))
        return -1;
    env->launch_chains = EA_LAUNCH_FLOOR_MAX;
    if (log)
        fprintf(log, "run: %s; copy %.2f TB/s (%s; grid-stride %.2f) %.2f TB/s (memcpy); launch %.2f us; chains of 1, "
                "2, %d empty kernels %.2f, %.2f, %.2f us warm, %.2f, %.2f, %.2f us cold\n",
                dev->reason, env->kernel_bytes_per_s / 1e12, env->copy_kernel, env->strided_bytes_per_s / 1e12,
                env->memcpy_bytes_per_s / 1e12, env->launch_us, EA_LAUNCH_FLOOR_MAX, env->chain_us[0],
                env->chain_us[1], env->chain_us[EA_LAUNCH_FLOOR_MAX - 1], env->chain_cold_us[0],
                env->chain_cold_us[1], env->chain_cold_us[EA_LAUNCH_FLOOR_MAX - 1]);
    return 0;
}

/* What ea_run_annotate adds to a measured result. */
typedef struct {
    const ea_run_env *env;
    const ea_captures *caps;
    const ea_torch_ops *ops;
    const cJSON *classification;
} annotations;

static cJSON *unsupported(const ea_run_ctx *c, const ea_scope_ref *r, const char *why, FILE *log)
{
    if (log)
        fprintf(log, "run: %s $.points[%d]: unsupported: %s\n", r->file, r->index, why);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, ea_unsupported_result(c, r, why));
    return arr;
}

/* The point's plan in the modes of c->opts its family declares (ea_repro_modes: *fo becomes those, and
 * c->opts fo), or its refusal as an unsupported result (the family's reason, or the modes it lacks), which the
 * caller reports so that one refused point hides no other. *partly: some asked modes are not run. */
static cJSON *plan_or_unsupported(ea_run_ctx *c, const ea_scope_ref *r, ea_run_opts *fo, char *partly, size_t n)
{
    ea_error why;
    const ea_run_opts *asked = c->opts;
    if (!ea_repro_modes(r->family, asked, fo, why.msg, sizeof why.msg))
        return unsupported(c, r, why.msg, asked->log);
    snprintf(partly, n, "%s", why.msg);
    c->opts = fo;
    cJSON *arr = ea_repro_points(c, r, 0, &why);
    c->opts = asked;
    return arr ? arr : unsupported(c, r, why.msg, asked->log);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Every ref's results (measure 0: plans, 1: runs) appended to out, annotated when a is given; a point its
 * family refuses to plan (ro->sm_count sizes the plan) is an unsupported result, counted in *unsupported.
 * A measured result records its point's wall seconds, "point_wall_s" (plan, inputs, checks, every timing of
 * all its results): what gate --shard balances shards by. */
static int each_point(ea_run_ctx *c, const ea_run_opts *ro, const ea_scope_ref *refs, int n, int measure,
                      const annotations *a, cJSON *out, int *unsupported, ea_error *err)
{
    int partly = 0;
    char whys[2048] = ""; /* each family's "has no <mode> mode", once */
    *unsupported = 0;
    c->opts = ro;
    for (int i = 0; i < n; i++) {
        ea_run_opts fo = *ro;
        char part[sizeof(ea_error){0}.msg];
        double t0 = seconds_now();
        cJSON *arr = plan_or_unsupported(c, &refs[i], &fo, part, sizeof part), *r;
        partly += part[0] != '\0';
        if (part[0] && !strstr(whys, part))
            snprintf(whys + strlen(whys), sizeof whys - strlen(whys), "%s%s", whys[0] ? "; " : "", part);
        if (measure && !ea_unsupported_reason(cJSON_GetArrayItem(arr, 0))) { /* planned: measure it */
            cJSON_Delete(arr);
            c->opts = &fo;
            arr = ea_repro_points(c, &refs[i], 1, err);
            c->opts = ro;
        }
        if (!arr)
            return -1;
        double wall = seconds_now() - t0;
        while ((r = cJSON_DetachItemFromArray(arr, 0)) != NULL) {
            if (ea_unsupported_reason(r)) { /* refused when planned, or by the family when measured */
                ++*unsupported;
            } else if (a) {
                ea_run_annotate(r, refs[i].point, a->env, a->caps, a->ops, a->classification);
                if (ro->other_gpu)
                    ea_result_on_other_gpu(r);
                cJSON_AddNumberToObject(r, "point_wall_s", wall);
            }
            cJSON_AddItemToArray(out, r);
        }
        cJSON_Delete(arr);
    }
    if (partly && ro->log)
        fprintf(ro->log, "run: %d of %d points ran in only some of the asked modes, as their families declare (expected, "
                         "not an error; fabricated: the pipeline's randint(0, 100) inputs, measured by the families that "
                         "declare it): %s\n", partly, n, whys);
    if (*unsupported && ro->log)
        fprintf(ro->log, "run: %d of %d points unsupported (the document lists why)\n", *unsupported, n);
    return 0;
}

/* run --check-only: no copy bandwidth, no launch time, no annotation: only the paths' checks. */
static int check_all(const run_options *o, ea_run_points *pts, cJSON **doc, ea_error *err)
{
    ea_device_info dev;
    if (!ea_device_probe(&dev))
        return ea_fail(err, "no CUDA device: %s", dev.reason);
    cJSON *results = cJSON_CreateArray();
    ea_run_opts ro = o->ro;
    int unsupported;
    ro.sm_count = dev.sm_count;
    if (each_point(&pts->ctx, &ro, pts->refs, pts->n, 1, NULL, results, &unsupported, err)) {
        cJSON_Delete(results);
        return -1;
    }
    *doc = ea_run_check_doc(results, o->command, dev.name);
    return 0;
}

/* The run's table; its fidelity lines quote torch's times and kernels from the target's torch-ops file, which the
 * results do not copy (read before the measurement, so it reads now); a run on another GPU (--any-gpu) quotes none. */
static void print_table(const ea_run_ctx *c, const cJSON *doc, int other_gpu)
{
    ea_torch_ops ops = {0};
    ea_error err;
    if (!other_gpu &&
        ea_torch_ops_load_dir(c->target_dir, ej_text(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "model"), &ops, &err))
        fprintf(stderr, "run: %s\n", err.msg);
    ea_baseline_print(doc, &ops, stdout);
    ea_torch_ops_free(&ops);
}

/* run --any-gpu: 1 when this machine's GPU is another model than t's (then nothing the target measured on its GPU
 * judges this run), said once on log; 0 on t's own GPU model, where the run is an ordinary one, or with no GPU,
 * which the measurement reports. */
static int on_other_gpu(const ea_target *t, FILE *log)
{
    ea_device_info dev;
    char model[64];
    if (!ea_device_probe(&dev))
        return 0;
    ea_gpu_model(dev.name, model, sizeof model);
    if (!strcmp(model, t->gpu_model))
        return 0;
    if (log)
        fprintf(log, "run --any-gpu: the captures of %s (target GPU %s) measured on this %s: ratios of this run alone, "
                     "no fidelity, no candidate pricing, nothing recorded\n", t->name, t->gpu_model, model);
    return 1;
}

static int measure_locked(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                          const ea_device_info *dev, cJSON **doc, ea_error *err);

int ea_run_measure(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                   cJSON **doc, ea_error *err)
{
    ea_device_info dev;
    const char *target_dir = c->target_dir;
    if (!ea_device_probe(&dev))
        return ea_fail(err, "no CUDA device: %s", dev.reason);
    /* the torch timings of this GPU model, before the long measurement: a bad file stops the run early */
    if (!target_dir[0])
        return ea_fail(err, "%s: a run needs a target (its captures, classification and torch timings)", c->golden);
    /* the whole measurement holds the device: two runs or gates started at once measure one after the other,
     * each as it would alone (between points, another's work changed a 5 us scope's time by 19% on the H200) */
    if (ea_device_lock(err))
        return -1;
    int rc = measure_locked(c, command, ro, refs, n, &dev, doc, err);
    ea_device_unlock();
    return rc;
}

static int measure_locked(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                          const ea_device_info *dev_in, cJSON **doc, ea_error *err)
{
    ea_device_info dev = *dev_in;
    ea_run_env env;
    ea_torch_ops ops = {0};
    const char *target_dir = c->target_dir;
    ej_doc cls = {0};
    if (measure_env(&dev, command, ro->log, &env, err) ||
        (!ro->other_gpu && ea_torch_ops_load_dir(target_dir, env.model, &ops, err)) ||
        ea_classification_load(target_dir, &cls, err)) {
        ea_torch_ops_free(&ops);
        return -1;
    }
    if (ro->log && !ro->other_gpu)
        fprintf(ro->log, "run: fidelity against %s%s\n", ops.file,
                ops.loaded ? "" : ": absent, so every result says \"no torch measurement\"");
    cJSON *results = cJSON_CreateArray();
    const annotations a = {&env, &c->caps, &ops, cls.root};
    ea_run_opts at = *ro;
    int unsupported;
    at.sm_count = dev.sm_count; /* the plan that decides whether a point is supported sizes for this GPU */
    int rc = each_point(c, &at, refs, n, 1, &a, results, &unsupported, err);
    if (ops.loaded && ops.torch)
        snprintf(env.torch, sizeof env.torch, "%s", ops.torch);
    ea_torch_ops_free(&ops);
    ej_free(&cls);
    if (rc) {
        cJSON_Delete(results);
        return -1;
    }
    *doc = ea_baseline_doc(results, &env);
    return 0;
}

int ea_run_plan(ea_run_ctx *c, const ea_run_opts *ro, const ea_scope_ref *refs, int n, cJSON *out, int *unsupported,
                ea_error *err)
{
    cJSON *r;
    if (each_point(c, ro, refs, n, 0, NULL, out, unsupported, err))
        return -1;
    cJSON_ArrayForEach(r, out)
        cJSON_AddNumberToObject(r, "sm_count", ro->sm_count);
    return 0;
}

typedef struct {
    ea_run_points *p;
    const char *scope; /* the whole list, for messages */
    const char *files[EA_AUDIT_OPS];
    ea_error *err;
} scope_walk;

/* One name of --scope's list: its points, each once (a stage names the scopes it recaptured, which may share
 * points). */
static int add_points(const char *a, size_t len, void *arg)
{
    scope_walk *w = arg;
    ea_run_points *p = w->p;
    char name[256];
    ea_scope_ref refs[EA_RUN_MAX_REFS];
    int n;
    if (!len)
        return ea_fail(w->err, "--scope %s: expected names separated by single commas, got an empty name", w->scope);
    if (len >= sizeof name)
        return ea_fail(w->err, "--scope %s: expected names separated by single commas, each under %zu bytes",
                       w->scope, sizeof name);
    snprintf(name, sizeof name, "%.*s", (int)len, a);
    if (ea_repro_resolve(p->ctx.docs, w->files, name, refs, EA_RUN_MAX_REFS, &n, w->err))
        return -1;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < p->n; k++)
            seen |= p->refs[k].point == refs[i].point && p->refs[k].family == refs[i].family;
        if (!seen && p->n >= EA_RUN_MAX_REFS)
            return ea_fail(w->err, "--scope %s: more than %d points", w->scope, EA_RUN_MAX_REFS);
        if (!seen)
            p->refs[p->n++] = refs[i];
    }
    return 0;
}

int ea_run_points_load(const char *golden, const char *target_dir, const char *scope, ea_run_points *p,
                       ea_error *err)
{
    scope_walk w = {.p = p, .scope = scope, .err = err};
    p->n = 0;
    if (ea_run_ctx_open(&p->ctx, golden, target_dir, err))
        return -1;
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        w.files[i] = p->ctx.files[i];
    size_t len = strlen(scope);
    if (len && scope[len - 1] == ',')
        return ea_fail(err, "--scope %s: expected names separated by single commas, got a trailing comma", scope);
    if (ea_cli_each_name(scope, add_points, &w))
        return -1;
    return p->n ? 0 : ea_fail(err, "--scope '%s': expected a name", scope);
}

void ea_run_points_free(ea_run_points *p)
{
    ea_run_ctx_close(&p->ctx);
}

/* --keep-from's merger: the merged document must account for every point of the golden documents. */
static cJSON *merge_points(const char *file, const cJSON *base, const cJSON *fresh, const void *pts, ea_error *err)
{
    return ea_baselines_keep_from(file, base, fresh, ((const ea_run_points *)pts)->ctx.docs, err);
}

/* run --list [--golden DIR] [--json]: what --scope accepts. */
static int list_scopes(int argc, char **argv)
{
    char *rest[64], dir[4096];
    int n = 0, help;
    ea_cli_options c;
    ea_error err;
    cJSON *docs[EA_AUDIT_OPS];
    for (int i = 0; i < argc && n < 64; i++)
        if (strcmp(argv[i], "--list"))
            rest[n++] = argv[i];
    int rc = ea_cli_parse("run", "--golden --json", n, rest, &c, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_run, stdout), 0);
    snprintf(dir, sizeof dir, "%s/occurrences", c.golden);
    if (ea_occurrences_load(dir, docs, &err))
        return ea_cli_fail(&err);
    cJSON *list = ea_repro_list(docs);
    if (c.json)
        ea_cli_print_json(list);
    else
        ea_repro_list_print(list, stdout);
    cJSON_Delete(list);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return 0;
}

int ea_cmd_run(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--list"))
            return list_scopes(argc, argv);
    run_options o;
    int help = 0, rc = parse(argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_run, stdout), 0);
    cJSON *out = NULL;
    ea_run_points pts = {0};
    ea_error err;
    ea_target t = {0};
    /* a plan needs a target only for the families that read captures: they say so when there is none */
    int bad = (o.plan ? ea_target_find(o.golden, o.target, &t, &err)
                      : ea_target_resolve(o.golden, o.target, !o.any_gpu, &t, &err)) ||
              ea_run_points_load(o.golden, t.name[0] ? t.dir : NULL, o.scope, &pts, &err);
    if (!bad && o.any_gpu)
        o.ro.other_gpu = on_other_gpu(&t, o.ro.log);
    if (!bad && o.any_gpu && !o.target) /* the document says which target's captures it measured */
        snprintf(o.command + strlen(o.command), sizeof o.command - strlen(o.command), " --target %s", t.name);
    if (bad) {
        rc = 2;
    } else if (o.plan) {
        ea_device_info dev;
        int gpu = ea_device_probe(&dev) && dev.sm_count > 0;
        o.ro.sm_count = gpu ? dev.sm_count : PLAN_SM_COUNT_WITHOUT_GPU;
        if (o.ro.log)
            fprintf(o.ro.log, "run --plan: ATen's grids for %d multiprocessors (%s%s)\n", o.ro.sm_count,
                    gpu ? "this GPU: " : "an H200's, no usable GPU: ", dev.reason);
        out = cJSON_CreateArray();
        int unsupported;
        rc = ea_run_plan(&pts.ctx, &o.ro, pts.refs, pts.n, out, &unsupported, &err) ? 2 : 0;
        if (!rc && o.json)
            ea_cli_print_json(out);
        else if (!rc)
            ea_run_plan_print(out, &pts.ctx.caps, stdout);
        if (!rc && unsupported)
            rc = 1;
    } else if (o.ro.check_only) {
        if (check_all(&o, &pts, &out, &err))
            rc = 2;
        else if (o.json)
            ea_cli_print_json(out);
        else
            ea_run_check_print(out, stdout);
        if (out)
            rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out, "passed")) ? 0 : 1;
    } else if (ea_run_measure(&pts.ctx, o.command, &o.ro, pts.refs, pts.n, &out, &err) ||
               (o.keep_from && ea_keep_from(o.keep_from, ea_baseline_validate, merge_points, &pts, &out, &err))) {
        rc = 2;
    } else {
        if (o.json)
            ea_cli_print_json(out);
        else if (!o.record_stdout)
            print_table(&pts.ctx, out, o.ro.other_gpu);
        /* every oracle must be no slower than every committed candidate of its scope, priced on this run */
        int slower = ea_candidates_check(o.golden, &t, out, stderr, &err);
        if (slower < 0 || (o.record && ea_baseline_record(o.record, out, &err))) /* validated first: it must read back */
            rc = 2;
        else
            rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out, "passed")) && !slower ? 0 : 1;
    }
    if (rc == 2)
        fprintf(stderr, "extern-audit run: %s\n", err.msg);
    cJSON_Delete(out);
    ea_run_points_free(&pts);
    return rc;
}
