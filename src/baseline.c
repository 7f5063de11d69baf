/* baseline.c: annotating run results, the baselines document, its strict reader and the table.
 * - ea_run_annotate adds to one result (repro.h) what needs the whole run: the class (from the golden
 *   classification, "unclassified" without it), the floor (floor bytes / the copy bandwidth measured
 *   in this run, plus one launch), the speedup of the oracle over the faithful current path, the
 *   oracle's fraction of the floor and of the copy bandwidth, and the replica's fidelity. That is,
 *   under "torch_op", the current path against the same op timed alone in torch on this GPU model
 *   (torch_ops.h), per index mode: faithful against faithful, fabricated against fabricated, each
 *   within EA_FIDELITY_TOLERANCE or not ("no torch measurement" when the file or the point is absent);
 *   and, as context, the ratio to the torch eager time of a capture of the point ("no capture" without
 *   one), judged only when that capture prices the same work (ea_fidelity_comparable), else with a note.
 * - ea_baseline_validate reads a document back strictly: unknown keys, wrong types, non-finite numbers,
 *   another schema or version fail with the file and JSON path named. ea_baseline_record runs it
 *   before writing, so --record never leaves a file the reader (or a later run) rejects. */
#include "baseline.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

void ea_gpu_model(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    if (!strncmp(name, "NVIDIA ", 7))
        name += 7;
    for (; *name && k + 1 < n; name++)
        if (isalnum((unsigned char)*name) || *name == '.' || *name == '-' || *name == '_')
            buf[k++] = *name;
        else if (*name == ' ' && k > 0 && buf[k - 1] != '-')
            buf[k++] = '-';
    while (k > 0 && buf[k - 1] == '-')
        k--;
    if (n)
        buf[k] = '\0';
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

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
        const char *p = str(e, "point"), *c = str(e, "class");
        if (!p || !c || strcmp(p, point) || named_in(names, c))
            continue;
        size_t k = strlen(names);
        snprintf(names + k, sizeof names - k, "%s%s", found++ ? ", " : "", c);
    }
    snprintf(out, n, "%s%s", found > 1 ? "mixed: " : "", found ? names : "unclassified");
}

static int listed(const cJSON *arr, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
        if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
            return 1;
    return 0;
}

/* A capture of the point: named by one of its scope ids, or covering one of its occurrences. */
static const ea_capture *capture_of(const ea_captures *caps, const cJSON *result, const cJSON *point)
{
    for (int i = 0; caps && i < caps->n; i++) {
        const ea_capture *c = &caps->items[i];
        if (listed(cJSON_GetObjectItemCaseSensitive(result, "scope_ids"), c->scope))
            return c;
        const cJSON *g, *o;
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes"))
            cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences"))
                for (int k = 0; k < c->ncovers; k++)
                    if (str(o, "id") && !strcmp(str(o, "id"), c->covers[k]))
                        return c;
    }
    return NULL;
}

static const cJSON *path_named(const cJSON *result, const char *name, const char *mode)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths"))
        if (!strcmp(str(p, "name") ? str(p, "name") : "", name) && (!mode || !strcmp(str(p, "mode"), mode)))
            return p;
    return NULL;
}

static double median_of(const cJSON *path)
{
    return path ? num(cJSON_GetObjectItemCaseSensitive(path, "time"), "median_us") : NAN;
}

/* The capture's run prices what the replica runs only when its other steps are fills: a captured
 * partition that also builds the index or runs consumers (iota, clone, sum) is a bigger workload. */
int ea_fidelity_comparable(const ea_capture_run *run, const char *op, cJSON *extra)
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

/* "within 15%" or "OUTSIDE 15%", from EA_FIDELITY_TOLERANCE. */
static const char *tolerance_text(int within, char *buf, size_t n)
{
    snprintf(buf, n, "%s %g%%", within ? "within" : "OUTSIDE", EA_FIDELITY_TOLERANCE * 100);
    return buf;
}

/* One index mode of the current path against torch's time of the op alone; counts what it judged. */
static void op_mode(cJSON *o, const char *mode, const ea_torch_time *t, const cJSON *result, int *compared,
                    int *within)
{
    cJSON *m = cJSON_AddObjectToObject(o, mode);
    double mine = median_of(path_named(result, "current", mode));
    if (!t->timed) {
        cJSON_AddStringToObject(m, "note", "no torch measurement in this mode");
        return;
    }
    cJSON_AddNumberToObject(m, "torch_us", t->median_us);
    cJSON_AddNumberToObject(m, "torch_q1_us", t->q1_us);
    cJSON_AddNumberToObject(m, "torch_q3_us", t->q3_us);
    if (isnan(mine)) {
        cJSON_AddStringToObject(m, "note", "the replica did not run in this mode (see --mode)");
        return;
    }
    int ok = fabs(mine / t->median_us - 1) <= EA_FIDELITY_TOLERANCE;
    cJSON_AddNumberToObject(m, "replica_us", mine);
    cJSON_AddNumberToObject(m, "ratio", mine / t->median_us);
    cJSON_AddBoolToObject(m, "within_tolerance", ok);
    ++*compared;
    *within &= ok;
}

/* The fidelity the replica is held to: the same op, inputs and index mode timed alone in torch on this
 * GPU model (the captures time larger partitions, so they cannot judge a replica of one op). */
static void torch_op_fidelity(cJSON *fid, const cJSON *result, const ea_torch_ops *ops)
{
    cJSON *o = cJSON_AddObjectToObject(fid, "torch_op");
    const ea_torch_op *op = ea_torch_ops_find(ops, str(result, "point") ? str(result, "point") : "");
    char note[4400];
    int compared = 0, within = 1;
    if (!ops || !ops->loaded) {
        cJSON_AddNullToObject(o, "file");
        snprintf(note, sizeof note, "no torch measurement: %s absent (tools/capture/op_timing.py writes it)",
                 ops && ops->file[0] ? ops->file : "golden/torch_ops/<gpu model>.json");
        cJSON_AddStringToObject(o, "note", note);
        return;
    }
    cJSON_AddStringToObject(o, "file", ops->rel);
    cJSON_AddStringToObject(o, "torch", ops->torch);
    if (!op) {
        snprintf(note, sizeof note, "no torch measurement: %s has no entry for this point", ops->rel);
        cJSON_AddStringToObject(o, "note", note);
        return;
    }
    op_mode(o, "faithful", &op->faithful, result, &compared, &within);
    op_mode(o, "fabricated", &op->fabricated, result, &compared, &within);
    if (compared)
        cJSON_AddBoolToObject(o, "within_tolerance", within);
    cJSON *k = cJSON_AddArrayToObject(o, "kernels");
    for (int i = 0; i < op->nkernels; i++)
        cJSON_AddItemToArray(k, cJSON_CreateString(op->kernels[i]));
}

static void fidelity(cJSON *result, const cJSON *point, const ea_captures *caps, const ea_torch_ops *ops)
{
    cJSON *f = cJSON_AddObjectToObject(result, "fidelity");
    torch_op_fidelity(f, result, ops);
    const ea_capture *c = capture_of(caps, result, point);
    const ea_capture_run *run = c ? ea_capture_run_named(c, "default") : NULL;
    if (!run) {
        cJSON_AddNullToObject(f, "capture");
        cJSON_AddStringToObject(f, "note", "no capture");
        return;
    }
    /* Inductor's own kernels are priced against the compiled partition; an ATen replica against the eager
     * op, whose capture's own index decides which replica path it priced. */
    const char *source = str(cJSON_GetObjectItemCaseSensitive(result, "config"), "current_source");
    int inductor = source && !strcmp(source, "inductor");
    const char *mode = "faithful";
    for (int i = 0; i < c->ninputs && !inductor; i++)
        if (c->inputs[i].values.kind == EA_GEN_RANDINT)
            mode = "fabricated";
    char rel[512];
    snprintf(rel, sizeof rel, "captures/%s/capture.json", c->scope);
    cJSON_AddStringToObject(f, "capture", rel);
    const char *torch = str(c->environment, "torch");
    if (torch)
        cJSON_AddStringToObject(f, "torch", torch);
    cJSON_AddStringToObject(f, "mode", mode);
    double torch_us = inductor ? run->compiled.median_us : run->eager.median_us;
    double mine = median_of(path_named(result, "current", mode));
    cJSON_AddNumberToObject(f, inductor ? "torch_compiled_us" : "torch_eager_us", torch_us);
    if (isnan(mine) || torch_us <= 0) {
        cJSON_AddStringToObject(f, "note", "the replica did not run in the capture's mode");
        return;
    }
    cJSON_AddNumberToObject(f, "replica_us", mine);
    cJSON_AddNumberToObject(f, "ratio", mine / torch_us);
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "config"),
                                                      "capture_comparable"))) {
        cJSON_AddBoolToObject(f, "comparable", 0);
        cJSON_AddStringToObject(f, "note", "another form of the scope or other inputs than the capture's run "
                                           "(config.capture_comparable false): the ratio is no fidelity check");
        return;
    }
    cJSON *extra = cJSON_CreateArray();
    /* a replay of the captured partition runs what the compiled time priced, whatever its steps */
    int same = inductor ||
               ea_fidelity_comparable(run, str(cJSON_GetObjectItemCaseSensitive(point, "signature"), "op"), extra);
    cJSON_AddBoolToObject(f, "comparable", same);
    if (same) {
        cJSON_Delete(extra);
        cJSON_AddBoolToObject(f, "within_tolerance", fabs(mine / torch_us - 1) <= EA_FIDELITY_TOLERANCE);
        return;
    }
    cJSON_AddItemToObject(f, "capture_extra_steps", extra);
    cJSON_AddStringToObject(f, "note", "the capture times a larger partition than the replica (its extra steps "
                                       "are listed): the ratio is no fidelity check");
}

void ea_run_annotate(cJSON *result, const cJSON *point, const ea_run_env *env, const ea_captures *caps,
                     const ea_torch_ops *ops, const cJSON *classification)
{
    char cls[256];
    class_of(str(result, "point") ? str(result, "point") : "", classification, cls, sizeof cls);
    cJSON_AddStringToObject(result, "class", cls);
    double bytes = num(cJSON_GetObjectItemCaseSensitive(result, "config"), "floor_bytes");
    double bw = env->kernel_bytes_per_s > env->memcpy_bytes_per_s ? env->kernel_bytes_per_s : env->memcpy_bytes_per_s;
    cJSON *fl = cJSON_AddObjectToObject(result, "floor");
    double transfer = bytes / bw * 1e6, floor_us = transfer + env->launch_us;
    cJSON_AddNumberToObject(fl, "bytes", bytes);
    cJSON_AddNumberToObject(fl, "bytes_per_s", bw);
    cJSON_AddNumberToObject(fl, "transfer_us", transfer);
    cJSON_AddNumberToObject(fl, "launch_us", env->launch_us);
    cJSON_AddNumberToObject(fl, "us", floor_us);
    /* warm replays keep such a working set in L2 between calls: DRAM's rate is no bound for it then */
    if (env->l2_bytes > 0 && bytes <= (double)env->l2_bytes)
        cJSON_AddStringToObject(fl, "note", "the scope's bytes fit in L2 and the replays are warm: the copy-bandwidth "
                                            "floor is a reference, not a bound (a fraction above 1 is possible)");
    const cJSON *oracle = path_named(result, "oracle", NULL);
    double cur = median_of(path_named(result, "current", "faithful"));
    double orc = median_of(oracle ? oracle : path_named(result, "oracle_general", NULL));
    if (!isnan(orc) && orc > 0) {
        if (!isnan(cur))
            cJSON_AddNumberToObject(result, "speedup", cur / orc);
        cJSON_AddNumberToObject(result, "floor_fraction", floor_us / orc);
        cJSON_AddNumberToObject(result, "bandwidth_fraction", bytes / (orc * 1e-6) / bw);
    }
    fidelity(result, point, caps, ops);
}

cJSON *ea_baseline_doc(cJSON *results, const ea_run_env *env)
{
    cJSON *d = cJSON_CreateObject(), *g, *bw, *r;
    const char *torch = NULL;
    int passed = 1;
    cJSON_ArrayForEach(r, results) {
        passed &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed"));
        const cJSON *fid = cJSON_GetObjectItemCaseSensitive(r, "fidelity");
        const char *t = str(cJSON_GetObjectItemCaseSensitive(fid, "torch_op"), "torch"); /* the judged one first */
        torch = torch ? torch : t ? t : str(fid, "torch");
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
    cJSON_AddStringToObject(d, "cache_policy", env->cache_policy);
    bw = cJSON_AddObjectToObject(d, "copy_bandwidth");
    cJSON_AddNumberToObject(bw, "bytes", (double)env->copy_bytes);
    cJSON_AddNumberToObject(bw, "kernel_bytes_per_s", env->kernel_bytes_per_s);
    cJSON_AddNumberToObject(bw, "memcpy_bytes_per_s", env->memcpy_bytes_per_s);
    if (env->copy_kernel[0]) {
        cJSON_AddStringToObject(bw, "kernel", env->copy_kernel);
        cJSON_AddNumberToObject(bw, "strided_kernel_bytes_per_s", env->strided_bytes_per_s);
    }
    cJSON_AddNumberToObject(d, "launch_us", env->launch_us);
    cJSON_AddItemToObject(d, "scopes", results);
    cJSON_AddBoolToObject(d, "passed", passed);
    return d;
}

/* ---- the strict reader ---- */

static int numbers(ej_val o, const char *const *keys, ea_error *err)
{
    double v;
    for (; *keys; keys++)
        if (ej_get_number(o, *keys, &v, err))
            return -1;
    return 0;
}

static int object_with(ej_val parent, const char *key, const char *const *allowed, const char *const *nums,
                       ea_error *err)
{
    ej_val o;
    return ej_field(parent, key, 1, &o, err) || ej_object(o, allowed, err) || numbers(o, nums, err) ? -1 : 0;
}

static int strings(ej_val arr, ea_error *err)
{
    int n;
    const char *s;
    if (ej_array(arr, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (ej_as_string(ej_index(arr, i), &s, err))
            return -1;
    return 0;
}

/* check.nonfinite and check_after_timing.nonfinite: a finite number when present. */
static int optional_counts(ej_val p, ea_error *err)
{
    ej_val c, v;
    double x;
    for (int i = 0; i < 2; i++)
        if (ej_field(p, i ? "check_after_timing" : "check", 1, &c, err) || ej_field(c, "nonfinite", 0, &v, err) ||
            (v.v && ej_get_number(c, "nonfinite", &x, err)))
            return -1;
    return 0;
}

static int validate_path(ej_val p, ea_error *err)
{
    static const char *const keys[] = {"name", "mode", "kernels", "kernels_note", "time", "check",
                                       "check_after_timing", "passed", "failure", "variant", "unroll",
                                       "candidates", NULL};
    static const char *const time_keys[] = {"median_us", "q1_us", "q3_us", "iqr_us", "samples", "calls_per_replay",
                                            "cache_policy", NULL};
    static const char *const time_nums[] = {"median_us", "q1_us", "q3_us", "iqr_us", "samples", NULL};
    /* nonfinite: optional, absent in files written before it was counted */
    static const char *const check_keys[] = {"rel_l2", "max_abs", "unwritten", "mismatched", "nonfinite", NULL};
    static const char *const check_nums[] = {"rel_l2", "max_abs", "unwritten", "mismatched", NULL};
    const char *s;
    int b;
    ej_val k;
    return ej_object(p, keys, err) || ej_get_string(p, "name", &s, err) || ej_get_string(p, "mode", &s, err) ||
                   ej_field(p, "kernels", 1, &k, err) || strings(k, err) ||
                   object_with(p, "time", time_keys, time_nums, err) ||
                   object_with(p, "check", check_keys, check_nums, err) ||
                   object_with(p, "check_after_timing", check_keys, check_nums, err) || optional_counts(p, err) ||
                   ej_get_bool(p, "passed", &b, err)
               ? -1
               : 0;
}

/* fidelity.torch_op; absent in files written before the torch-op comparison existed. */
static int validate_torch_op(ej_val fid, ea_error *err)
{
    static const char *const keys[] = {"file", "torch", "faithful", "fabricated", "within_tolerance", "kernels",
                                       "note", NULL};
    static const char *const mode_keys[] = {"torch_us", "torch_q1_us", "torch_q3_us", "replica_us", "ratio",
                                            "within_tolerance", "note", NULL};
    ej_val o, file, v;
    const char *s;
    if (ej_field(fid, "torch_op", 0, &o, err) || !o.v)
        return o.v ? -1 : 0;
    if (ej_object(o, keys, err) || ej_field(o, "file", 1, &file, err) ||
        (!cJSON_IsNull(file.v) && ej_as_string(file, &s, err)))
        return -1;
    for (int i = 0; i < 2; i++)
        if (ej_field(o, i ? "fabricated" : "faithful", 0, &v, err) || (v.v && ej_object(v, mode_keys, err)))
            return -1;
    return ej_field(o, "kernels", 0, &v, err) || (v.v && strings(v, err)) ? -1 : 0;
}

/* A family's configuration block is its own (docs/schema.md); what the table and the annotation read is
 * common: the floor's bytes, the notes and where the current path comes from. */
static int config_common(ej_val cfg, ea_error *err)
{
    ej_val notes, v;
    const char *src;
    double bytes;
    int n;
    if (ej_map(cfg, &n, err) || ej_get_number(cfg, "floor_bytes", &bytes, err) || ej_field(cfg, "notes", 1, &notes, err) ||
        ej_array(notes, &n, err) || strings(notes, err) || ej_field(cfg, "capture_comparable", 0, &v, err) ||
        (v.v && ej_as_bool(v, &n, err)) || ej_field(cfg, "current_source", 0, &v, err))
        return -1;
    if (!v.v)
        return 0;
    if (ej_as_string(v, &src, err))
        return -1;
    return strcmp(src, "inductor") && strcmp(src, "aten")
               ? ej_bad_field(cfg, "current_source", "\"inductor\" or \"aten\"", src, err)
               : 0;
}

static int optional_verdict(ej_val s, ea_error *err)
{
    ej_val v;
    const char *x;
    int n;
    if (ej_field(s, "verdict", 0, &v, err) || (v.v && ej_as_string(v, &x, err)) || ej_field(s, "view", 0, &v, err))
        return -1;
    return v.v ? ej_map(v, &n, err) : 0;
}

static int validate_scope(ej_val s, ea_error *err)
{
    static const char *const keys[] = {"family", "point", "alias", "occurrences", "scope_ids", "config", "paths",
                                       "passed", "failure", "class", "floor", "speedup", "floor_fraction",
                                       "bandwidth_fraction", "fidelity", "verdict", "view", NULL};
    static const char *const floor_keys[] = {"bytes", "bytes_per_s", "transfer_us", "launch_us", "us", NULL};
    static const char *const floor_allowed[] = {"bytes", "bytes_per_s", "transfer_us", "launch_us", "us", "note",
                                                NULL};
    const char *x;
    int64_t occ;
    int b, n;
    ej_val ids, cfg, paths, fid;
    if (ej_object(s, keys, err) || ej_get_string(s, "family", &x, err) || ej_get_string(s, "point", &x, err) ||
        ej_get_string(s, "alias", &x, err) || ej_get_int(s, "occurrences", &occ, err) ||
        ej_field(s, "scope_ids", 1, &ids, err) || strings(ids, err) || ej_field(s, "config", 1, &cfg, err) ||
        config_common(cfg, err) || ej_get_bool(s, "passed", &b, err) || ej_get_string(s, "class", &x, err) ||
        optional_verdict(s, err) ||
        object_with(s, "floor", floor_allowed, floor_keys, err) || ej_field(s, "fidelity", 1, &fid, err) ||
        ej_object(fid, (const char *const[]){"torch_op", "capture", "torch", "mode", "torch_eager_us",
                                             "torch_compiled_us", "replica_us", "ratio", "comparable",
                                             "capture_extra_steps", "within_tolerance", "note", NULL},
                  err) ||
        validate_torch_op(fid, err) || ej_field(s, "paths", 1, &paths, err) || ej_array(paths, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_path(ej_index(paths, i), err))
            return -1;
    return 0;
}

int ea_baseline_validate(const char *file, const cJSON *doc, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "command", "gpu", "driver", "toolkit", "torch",
                                       "cache_policy", "copy_bandwidth", "launch_us", "scopes", "passed", NULL};
    static const char *const gpu_keys[] = {"name", "model", "capability", "sm_count", "l2_bytes", "memory_bytes",
                                           NULL};
    static const char *const bw_keys[] = {"bytes", "kernel_bytes_per_s", "memcpy_bytes_per_s", NULL,
                                          "kernel", "strided_kernel_bytes_per_s", NULL};
    static const char *const bw_allowed[] = {"bytes", "kernel_bytes_per_s", "memcpy_bytes_per_s", "kernel",
                                             "strided_kernel_bytes_per_s", NULL};
    ej_val root = {file, doc, "$"}, scopes, torch;
    const char *s;
    double launch;
    int n, b;
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_BASELINES_SCHEMA, EA_BASELINES_VERSION, err) ||
        ej_get_string(root, "command", &s, err) || object_with(root, "gpu", gpu_keys, gpu_keys + 3, err) ||
        ej_get_string(root, "driver", &s, err) || ej_get_string(root, "toolkit", &s, err) ||
        ej_field(root, "torch", 1, &torch, err) || (!cJSON_IsNull(torch.v) && ej_as_string(torch, &s, err)) ||
        ej_get_string(root, "cache_policy", &s, err) || object_with(root, "copy_bandwidth", bw_allowed, bw_keys, err) ||
        ej_get_number(root, "launch_us", &launch, err) || ej_get_bool(root, "passed", &b, err) ||
        ej_field(root, "scopes", 1, &scopes, err) || ej_array(scopes, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_scope(ej_index(scopes, i), err))
            return -1;
    return 0;
}

int ea_baseline_record(const char *file, const cJSON *doc, ea_error *err)
{
    ea_error why;
    if (ea_baseline_validate(file, doc, &why))
        return ea_fail(err, "not written, the document would not read back: %s", why.msg);
    return ej_write_atomic(file, doc, err);
}

/* ---- the table ---- */

static void print_path(const cJSON *p, FILE *f)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "time"), *c = cJSON_GetObjectItemCaseSensitive(p, "check");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(p, "unroll");
    char label[96];
    int k = snprintf(label, sizeof label, "%s %s", str(p, "name"), str(p, "mode"));
    if (str(p, "variant") && cJSON_IsNumber(u)) /* the launch variant a tuned path kept */
        snprintf(label + k, sizeof label - (size_t)k, " [%.16s u%d]", str(p, "variant"), u->valueint);
    else if (str(p, "variant"))
        snprintf(label + k, sizeof label - (size_t)k, " [%.16s]", str(p, "variant"));
    fprintf(f, "  %-28s %10.1f %8.1f   rel L2 %.2e, %s%s%s\n", label, num(t, "median_us"), num(t, "iqr_us"),
            num(c, "rel_l2"), num(c, "unwritten") > 0 ? "UNWRITTEN elements" : "all written",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "passed")) ? "" : ": FAILED ",
            str(p, "failure") ? str(p, "failure") : "");
}

/* "fidelity vs torch 2.11.0+cu130, the op alone (torch_ops/H200.json): faithful 1.02 (...)", and the
 * kernels torch ran; nothing for a result recorded before the comparison existed. */
static void print_torch_op(const cJSON *o, FILE *f)
{
    const cJSON *k;
    const char *sep = "";
    char tol[32];
    if (!o)
        return;
    if (str(o, "note")) {
        fprintf(f, "  fidelity vs torch op: %s\n", str(o, "note"));
        return;
    }
    fprintf(f, "  fidelity vs torch %s, the op alone (%s):", str(o, "torch"), str(o, "file"));
    for (int i = 0; i < 2; i++, sep = ";") {
        const char *mode = i ? "fabricated" : "faithful";
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, mode);
        if (str(m, "note"))
            fprintf(f, "%s %s: %s", sep, mode, str(m, "note"));
        else
            fprintf(f, "%s %s %.2f (replica %.1f us, torch %.1f us, %s)", sep, mode, num(m, "ratio"),
                    num(m, "replica_us"), num(m, "torch_us"),
                    tolerance_text(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "within_tolerance")), tol,
                                   sizeof tol));
    }
    fprintf(f, "\n");
    sep = "  torch kernels: ";
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "kernels")) {
        fprintf(f, "%s%s", sep, cJSON_IsString(k) ? k->valuestring : "?");
        sep = "; ";
    }
    if (strcmp(sep, "; ") == 0)
        fprintf(f, "\n");
}

void ea_baseline_print(const cJSON *doc, FILE *f)
{
    const cJSON *s, *p;
    char tol[32];
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
    fprintf(f, "%s, driver %s, toolkit %s; copy bandwidth %.2f TB/s, launch %.1f us; %s\n", str(g, "name"),
            str(doc, "driver"), str(doc, "toolkit"),
            fmax(num(cJSON_GetObjectItemCaseSensitive(doc, "copy_bandwidth"), "kernel_bytes_per_s"),
                 num(cJSON_GetObjectItemCaseSensitive(doc, "copy_bandwidth"), "memcpy_bytes_per_s")) / 1e12,
            num(doc, "launch_us"), str(doc, "cache_policy"));
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const cJSON *fl = cJSON_GetObjectItemCaseSensitive(s, "floor"), *fid = cJSON_GetObjectItemCaseSensitive(s, "fidelity");
        fprintf(f, "\n%s %s (%s, %.0f occurrences, class %s)\n", str(s, "family"), str(s, "alias"), str(s, "point"),
                num(s, "occurrences"), str(s, "class"));
        fprintf(f, "  %-28s %10s %8s\n", "path", "median us", "IQR us");
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "paths"))
            print_path(p, f);
        fprintf(f, "  %-28s %10.1f %8s   %.1f MB at %.2f TB/s + %.1f us launch\n", "floor", num(fl, "us"), "",
                num(fl, "bytes") / 1e6, num(fl, "bytes_per_s") / 1e12, num(fl, "launch_us"));
        if (str(fl, "note"))
            fprintf(f, "  floor: %s\n", str(fl, "note"));
        fprintf(f, "  speedup %.2fx, oracle at %.0f%% of the floor (%.0f%% of copy bandwidth); capture ",
                num(s, "speedup"), 100 * num(s, "floor_fraction"), 100 * num(s, "bandwidth_fraction"));
        if (str(fid, "note") && !isnan(num(fid, "ratio")))
            fprintf(f, "replica / torch eager %.2f (%.1f us), not comparable: %s\n", num(fid, "ratio"),
                    num(fid, "torch_eager_us"), str(fid, "note"));
        else if (str(fid, "note"))
            fprintf(f, "fidelity: %s\n", str(fid, "note"));
        else
            fprintf(f, "fidelity %.2f (torch %s %s %.1f us, %s)\n", num(fid, "ratio"),
                    str(fid, "torch") ? str(fid, "torch") : "(version not captured)",
                    isnan(num(fid, "torch_compiled_us")) ? "eager" : "compiled",
                    isnan(num(fid, "torch_compiled_us")) ? num(fid, "torch_eager_us") : num(fid, "torch_compiled_us"),
                    tolerance_text(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fid, "within_tolerance")), tol,
                                   sizeof tol));
        print_torch_op(cJSON_GetObjectItemCaseSensitive(fid, "torch_op"), f);
        if (str(s, "verdict"))
            fprintf(f, "  verdict: %s\n", str(s, "verdict"));
        fprintf(f, "  %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "passed")) ? "passed" : "FAILED");
    }
}
