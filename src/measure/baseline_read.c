/* baseline_read.c: the baselines document read back strictly (contract in baseline.h): unknown keys,
 * wrong types, non-finite numbers, another schema or version fail with the file and JSON path named.
 * ea_baseline_record runs it before writing, so --record never leaves a file the reader (or a later
 * run) rejects. A family's configuration block is its own; only what the table reads is checked. */
#include "measure/baseline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/drift.h"
#include "measure/path.h"
#include "base/json.h"
#include "measure/prose.h"

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

static const char *const check_keys[] = {"rel_l2", "max_abs", "unwritten", "mismatched", "nonfinite", NULL};
static const char *const check_nums[] = {"rel_l2", "max_abs", "unwritten", "mismatched", NULL};

/* A check object (nonfinite optional: absent in files written before it was counted, a number when present). */
static int check_object(ej_val c, ea_error *err)
{
    ej_val v;
    double x;
    return ej_object(c, check_keys, err) || numbers(c, check_nums, err) || ej_field(c, "nonfinite", 0, &v, err) ||
                   (v.v && ej_get_number(c, "nonfinite", &x, err))
               ? -1
               : 0;
}

/* "check", and "check_after_timing": its own object, or "same" where it was the first check's (ea_paths_fold_checks). */
static int checks(ej_val p, ea_error *err)
{
    ej_val c, a;
    const char *s;
    if (ej_field(p, "check", 1, &c, err) || check_object(c, err) || ej_field(p, "check_after_timing", 1, &a, err))
        return -1;
    if (!cJSON_IsString(a.v))
        return check_object(a, err);
    s = a.v->valuestring;
    return strcmp(s, "same") ? ej_bad_field(p, "check_after_timing", "an object or \"same\" (the check's)", s, err) : 0;
}

static const char *const time_keys[] = {"median_us", "q1_us", "q3_us", "iqr_us", "samples", "calls_per_replay",
                                        "resolution_us", "operations", NULL};

/* A "time" or "time_cold" object: its keys, then its numbers as the drift rule reads them; a cold one also the
 * operations of a call (what its cache policy's sentence quotes, prose.h). */
static int time_object(ej_val parent, const char *key, ea_error *err)
{
    ej_val o;
    ea_drift_time t;
    int64_t ops;
    return ej_field(parent, key, 1, &o, err) || ej_object(o, time_keys, err) || ea_drift_time_read(o, &t, err) ||
                   (!strcmp(key, "time_cold") && ej_get_int_min(o, "operations", 1, &ops, err))
               ? -1
               : 0;
}

/* An array of ids, each one known (a note id of prose.c). */
static int note_ids(ej_val arr, ea_error *err)
{
    int n;
    const char *s;
    if (ej_array(arr, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(arr, i);
        if (ej_as_string(e, &s, err))
            return -1;
        if (!ea_note_text(s))
            return ea_fail(err, "%s %s: expected a note id (src/measure/prose.c; a sentence is no note id), got \"%.80s%s\"",
                           e.file, e.path, s, strlen(s) > 80 ? "..." : "");
    }
    return 0;
}

/* A launch's durations over its calls: min <= median <= max, positive and below EJ_MAX_TIME_US (CUPTI's
 * nanosecond stamps give no 0 for a kernel, a copy or a memset). */
static int launch_durations(ej_val l, ea_error *err)
{
    double t[3];
    static const char *const keys[] = {"min_us", "median_us", "max_us"};
    for (int i = 0; i < 3; i++) {
        char got[64];
        if (ej_get_number(l, keys[i], &t[i], err))
            return -1;
        snprintf(got, sizeof got, "%.9g", t[i]);
        if (!(t[i] > 0 && t[i] < EJ_MAX_TIME_US))
            return ej_bad_field(l, keys[i], "a time in us above 0 and below 1e9", got, err);
        if (i && !(t[i - 1] <= t[i]))
            return ej_bad_field(l, keys[i], i == 1 ? "at least min_us" : "at least median_us", got, err);
    }
    return 0;
}

/* time_cold (the same fields as time) and kernel_launches: absent in files written before cold timing
 * and per-kernel durations existed; time_cold_note: why a path has no cold time (no CUPTI). */
static int optional_cold_and_launches(ej_val p, ea_error *err)
{
    static const char *const launch_keys[] = {"name", "grid", "block", "shared_bytes", "median_us", "min_us",
                                              "max_us", "calls", "bytes", NULL}; /* bytes: a copy's, a memset's */
    ej_val v, l, d;
    const char *s;
    int n, m;
    if (ej_field(p, "time_cold", 0, &v, err) || (v.v && time_object(p, "time_cold", err)) ||
        ej_field(p, "time_cold_note", 0, &v, err) || (v.v && ej_as_string(v, &s, err)) ||
        ej_field(p, "kernel_launches_note", 0, &v, err) || (v.v && ej_as_string(v, &s, err)) ||
        ej_field(p, "kernel_launches", 0, &v, err) || (v.v && ej_array(v, &n, err)))
        return -1;
    for (int i = 0; v.v && i < n; i++) {
        l = ej_index(v, i);
        int64_t bytes, shared, calls; /* sizes and counts: integers, as the copy bandwidth's */
        if (ej_object(l, launch_keys, err) || ej_get_string(l, "name", &s, err) || launch_durations(l, err) ||
            ej_get_int_min(l, "shared_bytes", 0, &shared, err) || ej_get_int_min(l, "calls", 1, &calls, err) ||
            ej_field(l, "bytes", 0, &d, err) || (d.v && ej_get_int_min(l, "bytes", 0, &bytes, err)))
            return -1;
        for (int k = 0; k < 2; k++) {
            int64_t x;
            if (ej_field(l, k ? "block" : "grid", 1, &d, err) || ej_array(d, &m, err))
                return -1;
            for (int j = 0; j < m; j++)
                if (ej_as_int(ej_index(d, j), &x, err))
                    return -1;
        }
    }
    return 0;
}

/* "candidates": [{"variant", "median_us", "passed", and the variant's own knobs}], the variants a tuned path timed:
 * each median a positive time below EJ_MAX_TIME_US, and the entry of the path's kept variant (and unroll) holding
 * the path's warm median: the table and the time come from one run (gate --propose takes them together), so a
 * table older than its time, which would name another variant the fastest, is refused. */
static int optional_candidates(ej_val p, ea_error *err)
{
    ej_val c, e;
    const char *s;
    double us;
    int n, b;
    char got[32], want[160];
    if (ej_field(p, "candidates", 0, &c, err) || !c.v)
        return c.v ? -1 : 0;
    if (ej_array(c, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        e = ej_index(c, i);
        if (ej_get_string(e, "variant", &s, err) || ej_get_number(e, "median_us", &us, err) ||
            ej_get_bool(e, "passed", &b, err))
            return -1;
        snprintf(got, sizeof got, "%g", us);
        if (!(us > 0 && us < EJ_MAX_TIME_US))
            return ej_bad_field(e, "median_us", "a positive time below 1e9 us", got, err);
    }
    if (!ej_str(p.v, "variant") || !ea_path_table_stale(p.v)) /* the path's time is validated before */
        return 0;
    snprintf(want, sizeof want, "an entry of the kept variant \"%s\" at the path's warm median %g us (time.median_us)",
             ej_str(p.v, "variant"), ea_path_median(p.v));
    return ej_bad_field(p, "candidates", want, "none: a table older than its time", err);
}

/* "margin": the gate's relative margin for this path (drift.h), set by a reviewer; in (0, 1). */
static int optional_margin(ej_val p, ea_error *err)
{
    ej_val v;
    double m;
    char got[32];
    if (ej_field(p, "margin", 0, &v, err) || !v.v)
        return v.v ? -1 : 0;
    if (ej_as_number(v, &m, err))
        return -1;
    snprintf(got, sizeof got, "%g", m);
    return m > 0 && m < 1 ? 0 : ej_bad_field(p, "margin", "a relative margin in (0, 1)", got, err);
}

/* A point's results are its family's configurations (gate.c pairs them by what they measure), a result's paths are
 * looked up by name and mode, an unmeasured point by its id: a copy of any would be judged or counted twice. */
static int same_result(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "family") && ej_same_key(a, b, "point") && ej_same_key(a, b, "config");
}

static int same_path(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "name") && ej_same_key(a, b, "mode");
}

static int same_point(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "point");
}

static int validate_path(ej_val p, ea_error *err)
{
    static const char *const keys[] = {"name", "mode", "kernels", "kernels_note", "time", "check",
                                       "check_after_timing", "passed", "failure", "variant", "unroll",
                                       "candidates", "margin", "time_cold", "kernel_launches", "kernel_launches_note",
                                       "time_cold_note", NULL};
    const char *s;
    int b;
    ej_val k;
    return ej_object(p, keys, err) || ej_get_string(p, "name", &s, err) || ej_get_string(p, "mode", &s, err) ||
                   ej_field(p, "kernels", 1, &k, err) || strings(k, err) ||
                   time_object(p, "time", err) || optional_cold_and_launches(p, err) ||
                   checks(p, err) ||
                   ej_get_bool(p, "passed", &b, err) || optional_margin(p, err) || optional_candidates(p, err)
               ? -1
               : 0;
}

/* o's "note", when present: a note id (prose.c), never a sentence. */
static int optional_note_id(ej_val o, ea_error *err)
{
    ej_val v;
    const char *s;
    if (ej_field(o, "note", 0, &v, err) || (v.v && ej_as_string(v, &s, err)))
        return -1;
    return v.v && !ea_note_text(s) ? ea_fail(err, "%s %s: expected a note id (src/measure/prose.c; a sentence is no note id), "
                                                  "got \"%.80s%s\"", v.file, v.path, s, strlen(s) > 80 ? "..." : "")
                                   : 0;
}

/* fidelity.torch_op; absent in files written before the torch-op comparison existed. */
static int validate_torch_op(ej_val fid, ea_error *err)
{
    /* its file and torch version are the target's torch-ops file's (target_layout.h), not copied (schema 3) */
    static const char *const keys[] = {"faithful", "fabricated", "within_tolerance", "note", NULL};
    /* torch's times and kernels are the torch-ops file's, not copied (schema 3) */
    static const char *const mode_keys[] = {"ratio", "within_tolerance", "note", NULL};
    ej_val o, v;
    if (ej_field(fid, "torch_op", 0, &o, err) || !o.v)
        return o.v ? -1 : 0;
    if (ej_object(o, keys, err))
        return -1;
    for (int i = 0; i < 2; i++)
        if (ej_field(o, i ? "fabricated" : "faithful", 0, &v, err) || (v.v && ej_object(v, mode_keys, err)) ||
            (v.v && optional_note_id(v, err)))
            return -1;
    return optional_note_id(o, err);
}

/* A family's configuration block is its own (docs/reference/schema.md); what the table and the annotation read is
 * common: the floor's bytes, the notes and where the current path comes from. */
static int config_common(ej_val cfg, ea_error *err)
{
    ej_val notes, v;
    const char *src;
    double bytes;
    int n;
    if (ej_map(cfg, &n, err) || ej_get_number(cfg, "floor_bytes", &bytes, err) || ej_field(cfg, "notes", 1, &notes, err) ||
        note_ids(notes, err) || ej_field(cfg, "capture_comparable", 0, &v, err) ||
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

/* A family's view holds what its tests read beside the paths: counts, sizes, times, errors, never negative nor
 * past what a double holds exactly (a 1e308 count would read as a count). */
static int view_numbers(ej_val v, ea_error *err)
{
    if (cJSON_IsNumber(v.v)) {
        double d = v.v->valuedouble;
        return d >= 0 && d < 0x1p53 ? 0
                                    : ea_fail(err, "%s %s: expected a count, size, time or error in [0, 2^53), got %.17g",
                                              v.file, v.path, d);
    }
    if (cJSON_IsArray(v.v)) {
        for (int i = 0; i < cJSON_GetArraySize(v.v); i++)
            if (view_numbers(ej_index(v, i), err))
                return -1;
    } else if (cJSON_IsObject(v.v)) {
        const char *key;
        for (int i = 0; i < cJSON_GetArraySize(v.v); i++)
            if (view_numbers(ej_member(v, i, &key), err))
                return -1;
    }
    return 0;
}

/* verdict and view. */
static int optional_verdict(ej_val s, ea_error *err)
{
    ej_val v;
    const char *x;
    int n;
    if (ej_field(s, "verdict", 0, &v, err) || (v.v && ej_as_string(v, &x, err)))
        return -1;
    if (v.v && !ea_verdict_known(x))
        return ej_bad_field(s, "verdict", "a verdict id (src/measure/prose.c: no_material_headroom, headroom, fused_kernel)", x,
                            err);
    if (ej_field(s, "view", 0, &v, err))
        return -1;
    return v.v ? ej_map(v, &n, err) || view_numbers(v, err) : 0;
}

/* A point its family refused (unsupported.h): who, why, and passed false. */
static int validate_unsupported(ej_val s, ea_error *err)
{
    static const char *const keys[] = {"family", "point", "alias", "occurrences", "scope_ids", "unsupported",
                                       "passed", NULL};
    const char *x;
    int64_t occ;
    int b;
    ej_val ids;
    if (ej_object(s, keys, err) || ej_get_string(s, "family", &x, err) || ej_get_string(s, "point", &x, err) ||
        ej_get_string(s, "alias", &x, err) || ej_get_int(s, "occurrences", &occ, err) ||
        ej_field(s, "scope_ids", 1, &ids, err) || strings(ids, err) || ej_get_string(s, "unsupported", &x, err) ||
        ej_get_bool(s, "passed", &b, err))
        return -1;
    return b ? ej_bad_field(s, "passed", "false (an unsupported point did not run)", "true", err) : 0;
}

/* "point_wall_s": the wall seconds run took for the result's point (gate --shard's weight); absent in files
 * written before it was recorded. */
static int optional_wall(ej_val s, ea_error *err)
{
    ej_val v;
    double w;
    char got[32];
    if (ej_field(s, "point_wall_s", 0, &v, err) || !v.v)
        return v.v ? -1 : 0;
    if (ej_as_number(v, &w, err))
        return -1;
    snprintf(got, sizeof got, "%g", w);
    return w >= 0 ? 0 : ej_bad_field(s, "point_wall_s", "seconds >= 0", got, err);
}

/* The fidelity's times, where given (null: not measured): positive and below EJ_MAX_TIME_US. */
static int fidelity_times(ej_val fid, ea_error *err)
{
    static const char *const keys[] = {"torch_eager_us", "torch_compiled_us"};
    for (int i = 0; i < 2; i++) {
        ej_val v;
        double us;
        char got[32];
        if (ej_field(fid, keys[i], 0, &v, err) || (v.v && !cJSON_IsNull(v.v) && ej_as_number(v, &us, err)))
            return -1;
        snprintf(got, sizeof got, "%g", us = v.v && cJSON_IsNumber(v.v) ? v.v->valuedouble : 1);
        if (!(us > 0 && us < EJ_MAX_TIME_US))
            return ej_bad_field(fid, keys[i], "null or a positive time below 1e9 us", got, err);
    }
    return 0;
}

static int validate_scope(ej_val s, ea_error *err)
{
    static const char *const keys[] = {"family", "point", "alias", "occurrences", "scope_ids", "config", "paths",
                                       "passed", "failure", "class", "floor", "fidelity", "verdict", "view",
                                       "point_wall_s", NULL};
    /* the run's copy rate and launch time; the floor itself, speedups and fractions are derived (fractions.h) */
    static const char *const floor_keys[] = {"bytes_per_s", "launch_us", NULL};
    const char *x;
    int64_t occ;
    int b, n;
    ej_val ids, cfg, paths, fid;
    if (cJSON_GetObjectItemCaseSensitive(s.v, "unsupported"))
        return validate_unsupported(s, err);
    if (ej_object(s, keys, err) || ej_get_string(s, "family", &x, err) || ej_get_string(s, "point", &x, err) ||
        ej_get_string(s, "alias", &x, err) || ej_get_int(s, "occurrences", &occ, err) ||
        ej_field(s, "scope_ids", 1, &ids, err) || strings(ids, err) || ej_field(s, "config", 1, &cfg, err) ||
        config_common(cfg, err) || ej_get_bool(s, "passed", &b, err) || ej_get_string(s, "class", &x, err) ||
        optional_verdict(s, err) || optional_wall(s, err) ||
        object_with(s, "floor", floor_keys, floor_keys, err) || ej_field(s, "fidelity", 1, &fid, err) ||
        ej_object(fid, (const char *const[]){"torch_op", "capture", "torch", "mode", "torch_eager_us",
                                             "torch_compiled_us", "ratio", "comparable",
                                             "capture_extra_steps", "within_tolerance", "note", NULL},
                  err) ||
        validate_torch_op(fid, err) || optional_note_id(fid, err) || fidelity_times(fid, err) || ej_field(s, "paths", 1, &paths, err) ||
        ej_array(paths, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_path(ej_index(paths, i), err))
            return -1;
    if (ej_each_once(paths, same_path, "each path once (its name and mode)", err))
        return -1;
    ej_val fl;
    ej_field(s, "floor", 1, &fl, err);
    for (int i = 0; i < 2; i++) {
        const char *k = floor_keys[i];
        double v = ej_num(fl.v, k);
        char got[32];
        snprintf(got, sizeof got, "%g", v);
        if (!(v > 0 && v < 1e300))
            return ej_bad_field(fl, k, "a positive number", got, err);
    }
    ej_val cfg_bytes, written;
    int64_t nbytes, nwritten;
    if (ej_field(cfg, "floor_bytes", 1, &cfg_bytes, err) || ej_get_int_min(cfg, "floor_bytes", 0, &nbytes, err) ||
        ej_field(cfg, "floor_written_bytes", 0, &written, err) ||
        (written.v && ej_get_int_min(cfg, "floor_written_bytes", 1, &nwritten, err)))
        return -1;
    if (written.v && nwritten > nbytes) {
        char got[32], want[64];
        snprintf(got, sizeof got, "%" PRId64, nwritten);
        snprintf(want, sizeof want, "a part of floor_bytes (%" PRId64 ")", nbytes);
        return ej_bad_field(cfg, "floor_written_bytes", want, got, err);
    }
    return 0;
}

const char *ea_baseline_unmeasured_reason(const cJSON *doc, const char *point)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(doc, "unmeasured"))
        if (!strcmp(ej_str(u, "point"), point))
            return ea_unmeasured_text(ej_str(u, "reason"));
    return NULL;
}

/* "unmeasured": [{"point", "reason"}], the golden points a document holds no result for, and why. */
static int optional_unmeasured(ej_val root, ea_error *err)
{
    static const char *const keys[] = {"point", "reason", NULL};
    ej_val u, e;
    const char *s;
    int n;
    if (ej_field(root, "unmeasured", 0, &u, err) || !u.v)
        return u.v ? -1 : 0;
    if (ej_array(u, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        if (e = ej_index(u, i), ej_object(e, keys, err) || ej_get_string(e, "point", &s, err) ||
                                    ej_get_string(e, "reason", &s, err))
            return -1;
        char got[232];
        snprintf(got, sizeof got, "\"%.200s\"", s);
        if (!ea_unmeasured_text(s))
            return ej_bad_field(e, "reason", "a reason id (src/measure/prose.c; a sentence is no id)", got, err);
    }
    return ej_each_once(u, same_point, "each unmeasured point once", err);
}

int ea_baseline_validate(const char *file, const cJSON *doc, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "command", "gpu", "driver", "toolkit", "torch",
                                       "calls_per_replay", "replays", "warmup_ms", "copy_bandwidth", "launch_us",
                                       "scopes", "passed", "unmeasured", "launch_floor", NULL};
    static const char *const gpu_keys[] = {"name", "model", "capability", "sm_count", "l2_bytes", "memory_bytes",
                                           NULL};
    static const char *const bw_keys[] = {"bytes", "kernel_bytes_per_s", "memcpy_bytes_per_s", NULL,
                                          "kernel", "strided_kernel_bytes_per_s", NULL};
    static const char *const bw_allowed[] = {"bytes", "kernel_bytes_per_s", "memcpy_bytes_per_s", "kernel",
                                             "strided_kernel_bytes_per_s", NULL};
    ej_val root = {file, doc, "$"}, scopes, torch, lf;
    const char *s;
    double launch, warmup;
    int64_t version, calls, replays;
    int n, b;
    /* an older file is named as one before its keys (schema 2's cache_policy) are */
    if (cJSON_IsObject(doc) && ej_get_int(root, "schema_version", &version, err) == 0 && (version == 1 || version == 2))
        return ea_fail(err, "%s $.schema_version: expected %d, got %d: a baselines file of schema %d (%s stored in it); "
                       "run `extern-audit golden migrate` to rewrite every committed target's", file, EA_BASELINES_VERSION,
                       (int)version, (int)version, version == 1 ? "sentences" : "derived numbers and copies");
    if (ej_object(root, keys, err))
        return -1;
    if (ej_expect_schema(root, EA_BASELINES_SCHEMA, EA_BASELINES_VERSION, err) ||
        ej_get_string(root, "command", &s, err) || object_with(root, "gpu", gpu_keys, gpu_keys + 3, err) ||
        ej_get_string(root, "driver", &s, err) || ej_get_string(root, "toolkit", &s, err) ||
        ej_field(root, "torch", 1, &torch, err) || (!cJSON_IsNull(torch.v) && ej_as_string(torch, &s, err)) ||
        ej_get_int_min(root, "calls_per_replay", 1, &calls, err) || ej_get_int_min(root, "replays", 1, &replays, err) ||
        object_with(root, "copy_bandwidth", bw_allowed, bw_keys, err) ||
        ej_get_number(root, "launch_us", &launch, err) || ej_get_number(root, "warmup_ms", &warmup, err) || ej_get_bool(root, "passed", &b, err) ||
        ej_field(root, "scopes", 1, &scopes, err) || ej_array(scopes, &n, err) || optional_unmeasured(root, err) ||
        ej_field(root, "launch_floor", 0, &lf, err) || (lf.v && ea_launch_floor_validate(lf, err)))
        return -1;
    ej_val bw;
    int64_t bytes;
    if (ej_field(root, "copy_bandwidth", 1, &bw, err) || ej_get_int_min(bw, "bytes", 1, &bytes, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_scope(ej_index(scopes, i), err))
            return -1;
    return ej_each_once(scopes, same_result, "each result once (its family, point and config)", err);
}

int ea_baseline_record(const char *file, const cJSON *doc, ea_error *err)
{
    ea_error why;
    if (ea_baseline_validate(file, doc, &why))
        return ea_fail(err, "not written, the document would not read back: %s", why.msg);
    if (!strcmp(file, "-")) { /* standard output, as every FILE option takes it */
        char *text = ej_print_layered(doc, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER);
        int rc = text && printf("%s\n", text) >= 0 ? 0 : ea_fail(err, "standard output: cannot write the document");
        free(text);
        return rc;
    }
    return ej_write_layered_atomic(file, doc, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER, err);
}
