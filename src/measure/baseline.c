/* baseline.c: annotating run results, the baselines document, its strict reader and the table.
 * - ea_run_annotate adds to one result (repro.h) what needs the whole run: the class (from the golden
 *   classification, "unclassified" without it), the copy bandwidth and launch time its floor is taken at
 *   (fractions.h derives the floor, speedups and fractions from them when read), each path's after-timing check
 *   folded to "same" when it is the first check's, and the replica's fidelity. That is,
 *   under "torch_op", the current path against the same op timed alone in torch on this GPU model
 *   (torch_ops.h), per index mode: faithful against faithful, fabricated against fabricated, each
 *   within EA_FIDELITY_TOLERANCE or not ("no torch measurement" when the file or the point is absent);
 *   and, as context, the ratio to the torch eager time of a capture of the point ("no capture" without
 *   one), judged only when that capture prices the same work (ea_fidelity_comparable), else with a note.
 * The strict reader and ea_baseline_record are baseline_read.c's. */
#include "measure/baseline.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/fractions.h"
#include "base/json.h"
#include "measure/path.h"
#include "measure/prose.h"
#include "target/target_layout.h"

/* 1 when name is one of the ", "-separated names in list, compared whole ("lowered" is not
 * "conditional_lowered"). */
static int named_in(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p; p = strstr(p, ", ") ? strstr(p, ", ") + 2 : NULL)
        if (!strncmp(p, name, len) && (p[len] == '\0' || !strncmp(p + len, ", ", 2)))
            return 1;
    return 0;
}

/* The classes of the point's occurrences: one name, or "mixed: a, b" when they disagree. */
static void class_of(const char *point, const cJSON *classification, char *out, size_t n)
{
    const cJSON *e;
    char names[256] = "";
    int found = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(classification, "occurrences")) {
        const char *p = ej_str(e, "point"), *c = ej_str(e, "class");
        if (!p || !c || strcmp(p, point) || named_in(names, c))
            continue;
        size_t k = strlen(names);
        snprintf(names + k, sizeof names - k, "%s%s", found++ ? ", " : "", c);
    }
    snprintf(out, n, "%s%s", found > 1 ? "mixed: " : "", found ? names : "unclassified");
}

/* A result's capture: that of the first of its scope groups one covers, else of any group of its point. */
static const ea_capture *capture_of(const ea_captures *caps, const cJSON *result, const cJSON *point)
{
    const cJSON *v, *g;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(result, "scope_ids")) {
        int i = 0;
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes")) {
            const char *id = ej_str(g, "scope_id");
            const ea_capture *c = cJSON_IsString(v) && id && !strcmp(id, v->valuestring)
                                      ? ea_capture_of_point(caps, point, i, NULL)
                                      : NULL;
            if (c)
                return c;
            i++;
        }
    }
    return ea_capture_of_point(caps, point, -1, NULL);
}

/* The capture's run prices what the replica runs only when its other steps are fills: a captured
 * partition that also builds the index or runs consumers (iota, clone, sum) is a bigger workload. */
static int ea_fidelity_comparable(const ea_capture_run *run, const char *op, cJSON *extra)
{
    char call[256];
    snprintf(call, sizeof call, "torch.ops.%s", op ? op : "");
    for (int i = 0; i < run->nsteps; i++) {
        const ea_capture_step *st = &run->steps[i];
        const char *name = st->triton ? st->kernel : st->call;
        if (st->triton ? !strstr(name, "_full_") : strcmp(name, call) != 0)
            cJSON_AddItemToArray(extra, cJSON_CreateString(name ? name : "?"));
    }
    return cJSON_GetArraySize(extra) == 0;
}

/* The configuration's capture path, up to its first space ("... run \"default\""); "" without one. */
static void config_capture(const cJSON *result, char *buf, size_t n)
{
    const char *s = ej_str(cJSON_GetObjectItemCaseSensitive(result, "config"), "capture");
    snprintf(buf, n, "%.*s", s ? (int)strcspn(s, " ") : 0, s ? s : "");
}

int ea_fidelity_capture(const cJSON *result, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "fidelity"), "capture");
    if (v)
        snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
    else
        config_capture(result, buf, n);
    return buf[0] != '\0';
}

/* "within 5%" or "OUTSIDE 5%": tolerance EA_FIDELITY_TOLERANCE (torch's op) or EA_CAPTURE_TOLERANCE. */
static const char *tolerance_text(int within, double tolerance, char *buf, size_t n)
{
    snprintf(buf, n, "%s %g%%", within ? "within" : "OUTSIDE", tolerance * 100);
    return buf;
}

/* One index mode of the current path against torch's time of the op alone; counts what it judged. */
static void op_mode(cJSON *o, const char *mode, const ea_torch_time *t, const cJSON *result, int *compared,
                    int *within)
{
    double mine = ea_path_median(ea_path_named(result, "current", mode));
    if (!t->timed) /* absent: no torch measurement in this mode (schema 3; the note id fidelity_no_torch_mode) */
        return;
    cJSON *m = cJSON_AddObjectToObject(o, mode);
    if (isnan(mine)) { /* torch's time and kernels are the torch-ops file's: not copied here (schema 3) */
        cJSON_AddStringToObject(m, "note", "fidelity_replica_not_run");
        return;
    }
    int ok = fabs(mine / t->median_us - 1) <= EA_FIDELITY_TOLERANCE;
    cJSON_AddNumberToObject(m, "ratio", mine / t->median_us); /* the replica's time: the mode's current path's */
    cJSON_AddBoolToObject(m, "within_tolerance", ok);
    ++*compared;
    *within &= ok;
}

/* The fidelity the replica is held to: the same op, inputs and index mode timed alone in torch on this
 * GPU model (the captures time larger partitions, so they cannot judge a replica of one op). */
static void torch_op_fidelity(cJSON *fid, const cJSON *result, const ea_torch_ops *ops)
{
    cJSON *o = cJSON_AddObjectToObject(fid, "torch_op");
    const ea_torch_op *op = ea_torch_ops_find(ops, ej_text(result, "point"));
    int compared = 0, within = 1;
    if (!ops || !ops->loaded) {
        cJSON_AddStringToObject(o, "note", "fidelity_torch_ops_absent");
        return;
    }
    if (!op) { /* the file and its torch version are the target's torch-ops file's: not copied (schema 3) */
        cJSON_AddStringToObject(o, "note", "fidelity_torch_ops_no_entry");
        return;
    }
    if (cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(result, "config"), "consumer")) {
        cJSON_AddStringToObject(o, "note", "fidelity_scope_beyond_op"); /* its current runs a consumer kernel too */
        return;
    }
    op_mode(o, "faithful", &op->faithful, result, &compared, &within);
    op_mode(o, "fabricated", &op->fabricated, result, &compared, &within);
    if (compared)
        cJSON_AddBoolToObject(o, "within_tolerance", within);
}

cJSON *ea_result_fidelity(const cJSON *result, const cJSON *point, const ea_captures *caps, const ea_torch_ops *ops)
{
    cJSON *f = cJSON_CreateObject();
    torch_op_fidelity(f, result, ops);
    const ea_capture *c = capture_of(caps, result, point);
    const ea_capture_run *run = c ? ea_capture_run_named(c, "default") : NULL;
    if (!run) {
        cJSON_AddNullToObject(f, "capture");
        cJSON_AddStringToObject(f, "note", "fidelity_no_capture");
        return f;
    }
    /* Inductor's own kernels are priced against the compiled partition; an ATen replica against the eager
     * op, whose capture's own index decides which replica path it priced. */
    const char *source = ej_str(cJSON_GetObjectItemCaseSensitive(result, "config"), "current_source");
    int inductor = source && !strcmp(source, "inductor");
    const char *mode = "faithful";
    for (int i = 0; i < c->ninputs && !inductor; i++)
        if (c->inputs[i].values.kind == EA_GEN_RANDINT)
            mode = "fabricated";
    char rel[512], planned[512];
    ea_tf_capture(NULL, c->scope, rel, sizeof rel);
    config_capture(result, planned, sizeof planned);
    if (strcmp(planned, rel)) /* absent: the config's */
        cJSON_AddStringToObject(f, "capture", rel);
    const char *torch = ej_str(c->environment, "torch");
    if (torch)
        cJSON_AddStringToObject(f, "torch", torch);
    cJSON_AddStringToObject(f, "mode", mode);
    double torch_us = inductor ? run->compiled.median_us : run->eager.median_us;
    double mine = ea_path_median(ea_path_named(result, "current", mode));
    cJSON_AddNumberToObject(f, inductor ? "torch_compiled_us" : "torch_eager_us", torch_us);
    if (isnan(mine) || torch_us <= 0) {
        cJSON_AddStringToObject(f, "note", "fidelity_replica_not_run_capture_mode");
        return f;
    }
    cJSON_AddNumberToObject(f, "ratio", mine / torch_us); /* mine: the current path's time in this mode */
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "config"),
                                                      "capture_comparable"))) {
        cJSON_AddBoolToObject(f, "comparable", 0);
        cJSON_AddStringToObject(f, "note", "fidelity_capture_not_comparable");
        return f;
    }
    cJSON *extra = cJSON_CreateArray();
    /* a replay of the captured partition runs what the compiled time priced, whatever its steps */
    int same = inductor ||
               ea_fidelity_comparable(run, ej_str(cJSON_GetObjectItemCaseSensitive(point, "signature"), "op"), extra);
    cJSON_AddBoolToObject(f, "comparable", same);
    if (same) {
        cJSON_Delete(extra);
        cJSON_AddBoolToObject(f, "within_tolerance", fabs(mine / torch_us - 1) <= EA_CAPTURE_TOLERANCE);
        return f;
    }
    cJSON_AddItemToObject(f, "capture_extra_steps", extra);
    cJSON_AddStringToObject(f, "note", "fidelity_capture_larger_partition");
    return f;
}

void ea_run_annotate(cJSON *result, const cJSON *point, const ea_run_env *env, const ea_captures *caps,
                     const ea_torch_ops *ops, const cJSON *classification)
{
    char cls[256];
    class_of(ej_text(result, "point"), classification, cls, sizeof cls);
    cJSON_AddStringToObject(result, "class", cls);
    ea_result_floor(result, env->kernel_bytes_per_s > env->memcpy_bytes_per_s ? env->kernel_bytes_per_s
                                                                              : env->memcpy_bytes_per_s,
                    env->launch_us);
    ea_paths_fold_checks(result);
    cJSON_AddItemToObject(result, "fidelity", ea_result_fidelity(result, point, caps, ops));
}

static void drop_captured_times(cJSON *obj)
{
    cJSON *c;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "torch_compiled_us");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "torch_eager_us");
    cJSON_ArrayForEach(c, obj)
        if (cJSON_IsObject(c))
            drop_captured_times(c);
}

void ea_result_on_other_gpu(cJSON *result)
{
    cJSON *f = cJSON_CreateObject(), *view = cJSON_GetObjectItemCaseSensitive(result, "view");
    cJSON_AddNullToObject(f, "capture");
    cJSON_AddStringToObject(f, "note", "fidelity_other_gpu");
    if (!cJSON_ReplaceItemInObjectCaseSensitive(result, "fidelity", f))
        cJSON_AddItemToObject(result, "fidelity", f);
    if (cJSON_IsObject(view))
        drop_captured_times(view);
}

cJSON *ea_baseline_doc(cJSON *results, const ea_run_env *env)
{
    cJSON *d = cJSON_CreateObject(), *g, *bw, *r;
    /* the torch-ops file's build (the judged comparison), else the first capture's a fidelity names */
    const char *torch = env->torch[0] ? env->torch : NULL;
    int passed = 1;
    cJSON_ArrayForEach(r, results) {
        passed &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed"));
        if (!torch)
            torch = ej_str(cJSON_GetObjectItemCaseSensitive(r, "fidelity"), "torch");
    }
    cJSON_AddStringToObject(d, "schema", EA_BASELINES_SCHEMA);
    cJSON_AddNumberToObject(d, "schema_version", EA_BASELINES_VERSION);
    cJSON_AddStringToObject(d, "command", env->command);
    g = cJSON_AddObjectToObject(d, "gpu");
    cJSON_AddStringToObject(g, "name", env->gpu);
    cJSON_AddStringToObject(g, "model", env->model);
    cJSON_AddStringToObject(g, "capability", env->capability);
    cJSON_AddNumberToObject(g, "sm_count", env->sm_count);
    cJSON_AddNumberToObject(g, "l2_bytes", (double)env->l2_bytes);
    cJSON_AddNumberToObject(g, "memory_bytes", (double)env->memory_bytes);
    cJSON_AddStringToObject(d, "driver", env->driver);
    cJSON_AddStringToObject(d, "toolkit", env->toolkit);
    if (torch)
        cJSON_AddStringToObject(d, "torch", torch);
    else
        cJSON_AddNullToObject(d, "torch");
    cJSON_AddNumberToObject(d, "calls_per_replay", env->calls_per_replay);
    cJSON_AddNumberToObject(d, "replays", env->replays);
    cJSON_AddNumberToObject(d, "warmup_ms", env->warmup_ms);
    bw = cJSON_AddObjectToObject(d, "copy_bandwidth");
    cJSON_AddNumberToObject(bw, "bytes", (double)env->copy_bytes);
    cJSON_AddNumberToObject(bw, "kernel_bytes_per_s", env->kernel_bytes_per_s);
    cJSON_AddNumberToObject(bw, "memcpy_bytes_per_s", env->memcpy_bytes_per_s);
    if (env->copy_kernel[0]) {
        cJSON_AddStringToObject(bw, "kernel", env->copy_kernel);
        cJSON_AddNumberToObject(bw, "strided_kernel_bytes_per_s", env->strided_bytes_per_s);
    }
    cJSON_AddNumberToObject(d, "launch_us", env->launch_us);
    if (env->launch_chains > 0)
        cJSON_AddItemToObject(d, "launch_floor", ea_launch_floor_json(env->chain_us, env->chain_cold_us,
                                                                      env->launch_chains, env->chain_cold_note));
    cJSON_AddItemToObject(d, "scopes", results);
    cJSON_AddBoolToObject(d, "passed", passed);
    return d;
}

/* ---- the table ---- */

/* A note id as its sentence (prose.h). */
static const char *said(const char *id)
{
    return ea_note_text(id) ? ea_note_text(id) : id;
}

static void print_path(const cJSON *p, FILE *f)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "time"), *c = cJSON_GetObjectItemCaseSensitive(p, "check");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(p, "unroll");
    char label[96];
    int k = snprintf(label, sizeof label, "%s %s", ej_str(p, "name"), ej_str(p, "mode"));
    if (ej_str(p, "variant") && cJSON_IsNumber(u)) /* the launch variant a tuned path kept */
        snprintf(label + k, sizeof label - (size_t)k, " [%.16s u%d]", ej_str(p, "variant"), u->valueint);
    else if (ej_str(p, "variant"))
        snprintf(label + k, sizeof label - (size_t)k, " [%.16s]", ej_str(p, "variant"));
    double cold = ej_num(cJSON_GetObjectItemCaseSensitive(p, "time_cold"), "median_us");
    char cold_text[32] = "-"; /* recorded before cold timing */
    if (!isnan(cold))
        snprintf(cold_text, sizeof cold_text, "%.1f", cold);
    fprintf(f, "  %-28s %10.1f %8.1f %10s   rel L2 %.2e, %s%s%s\n", label, ej_num(t, "median_us"), ej_num(t, "iqr_us"),
            cold_text, ej_num(c, "rel_l2"), ej_num(c, "unwritten") > 0 ? "UNWRITTEN elements" : "all written",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "passed")) ? "" : ": FAILED ",
            ej_text(p, "failure"));
}

/* "fidelity vs torch 2.11.0+cu130, the op alone (torch_ops/H200.json): faithful 1.02 (...)", and the
 * kernels torch ran; nothing for a result recorded before the comparison existed. */
static void print_torch_op(const cJSON *result, const ea_torch_ops *ops, FILE *f)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "fidelity"), "torch_op");
    const ea_torch_op *op = ea_torch_ops_find(ops, ej_text(result, "point"));
    const char *sep = "";
    char tol[32];
    if (!o)
        return;
    if (ej_str(o, "note")) {
        fprintf(f, "  fidelity vs torch op: %s\n", said(ej_str(o, "note")));
        return;
    }
    fprintf(f, "  fidelity vs torch %s, the op alone (%s):", ops && ops->loaded ? ops->torch : "?",
            ops && ops->loaded ? ops->rel : "?");
    for (int i = 0; i < 2; i++, sep = ";") {
        const char *mode = i ? "fabricated" : "faithful";
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, mode);
        if (!m || ej_str(m, "note"))
            fprintf(f, "%s %s: %s", sep, mode, said(m ? ej_str(m, "note") : "fidelity_no_torch_mode"));
        else {
            char torch_us[32] = "?"; /* torch's time is the torch-ops file's: "?" where none is loaded for the point */
            if (op)
                snprintf(torch_us, sizeof torch_us, "%.1f", i ? op->fabricated.median_us : op->faithful.median_us);
            fprintf(f, "%s %s %.2f (replica %.1f us, torch %s us, %s)", sep, mode, ej_num(m, "ratio"),
                    ea_path_median(ea_path_named(result, "current", mode)), torch_us,
                    tolerance_text(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "within_tolerance")), EA_FIDELITY_TOLERANCE, tol,
                                   sizeof tol));
        }
    }
    fprintf(f, "\n");
    sep = "  torch kernels: ";
    for (int i = 0; op && i < op->nkernels; i++) {
        fprintf(f, "%s%s", sep, op->kernels[i]);
        sep = "; ";
    }
    if (strcmp(sep, "; ") == 0)
        fprintf(f, "\n");
}

/* The torch time a fidelity ratio divides by: the compiled partition's for Inductor's own kernels, the eager
 * op's for an ATen replica (ea_result_fidelity records the one it used). */
static const char *torch_time(const cJSON *fid, double *us)
{
    int compiled = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fid, "torch_compiled_us"));
    *us = ej_num(fid, compiled ? "torch_compiled_us" : "torch_eager_us");
    return compiled ? "compiled" : "eager";
}

void ea_baseline_print(const cJSON *doc, const ea_torch_ops *ops, FILE *f)
{
    const cJSON *s, *p;
    char tol[32];
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
    char policy[640];
    ea_run_policy_text(doc, policy, sizeof policy);
    fprintf(f, "%s, driver %s, toolkit %s; copy bandwidth %.2f TB/s, launch %.1f us; %s\n", ej_str(g, "name"),
            ej_str(doc, "driver"), ej_str(doc, "toolkit"),
            fmax(ej_num(cJSON_GetObjectItemCaseSensitive(doc, "copy_bandwidth"), "kernel_bytes_per_s"),
                 ej_num(cJSON_GetObjectItemCaseSensitive(doc, "copy_bandwidth"), "memcpy_bytes_per_s")) / 1e12,
            ej_num(doc, "launch_us"), policy);
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const cJSON *fid = cJSON_GetObjectItemCaseSensitive(s, "fidelity");
        if (ej_str(s, "unsupported")) { /* refused by its family: nothing ran */
            fprintf(f, "\n%s %s (%s, %.0f occurrences)\n  UNSUPPORTED: %s\n", ej_str(s, "family"), ej_str(s, "alias"),
                    ej_str(s, "point"), ej_num(s, "occurrences"), ej_str(s, "unsupported"));
            continue;
        }
        fprintf(f, "\n%s %s (%s, %.0f occurrences, class %s)\n", ej_str(s, "family"), ej_str(s, "alias"), ej_str(s, "point"),
                ej_num(s, "occurrences"), ej_str(s, "class"));
        fprintf(f, "  %-28s %10s %8s %10s\n", "path", "median us", "IQR us", "cold us");
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "paths"))
            print_path(p, f);
        ea_figures x;
        ea_result_figures(s, &x);
        fprintf(f, "  %-28s %10.1f %8s %10s   %.1f MB at %.2f TB/s + %.1f us launch\n", "floor", x.floor_us, "", "",
                x.bytes / 1e6, x.bytes_per_s / 1e12, x.launch_us);
        if (ea_floor_note_text(doc, s))
            fprintf(f, "  floor: %s\n", ea_floor_note_text(doc, s));
        fprintf(f, "  speedup %.2fx", x.speedup);
        if (!isnan(x.speedup_cold))
            fprintf(f, " (cold %.2fx)", x.speedup_cold);
        fprintf(f, ", oracle at %.0f%% of the floor (%.0f%% of copy bandwidth", 100 * x.floor_fraction,
                100 * x.bandwidth_fraction);
        if (!isnan(x.measured_fraction))
            fprintf(f, ", %.0f%% of the measured floor", 100 * x.measured_fraction);
        fprintf(f, "; %s); capture ", x.basis_cold ? "cold" : "warm");
        double torch_us;
        const char *against = torch_time(fid, &torch_us);
        if (ej_str(fid, "note") && !isnan(ej_num(fid, "ratio")))
            fprintf(f, "replica / torch %s %.2f (%.1f us), not comparable: %s\n", against, ej_num(fid, "ratio"),
                    torch_us, said(ej_str(fid, "note")));
        else if (ej_str(fid, "note"))
            fprintf(f, "fidelity: %s\n", said(ej_str(fid, "note")));
        else
            fprintf(f, "fidelity %.2f (torch %s %s %.1f us, %s)\n", ej_num(fid, "ratio"),
                    ej_str(fid, "torch") ? ej_str(fid, "torch") : "(version not captured)", against, torch_us,
                    tolerance_text(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fid, "within_tolerance")), EA_CAPTURE_TOLERANCE, tol,
                                   sizeof tol));
        print_torch_op(s, ops, f);
        char verdict[256];
        ea_verdict_text(s, verdict, sizeof verdict);
        if (verdict[0])
            fprintf(f, "  verdict: %s\n", verdict);
        fprintf(f, "  %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "passed")) ? "passed" : "FAILED");
    }
}
