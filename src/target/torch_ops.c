/* torch_ops.c: a target's torch_ops.json read strictly (contract in torch_ops.h). */
#include "target/torch_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/device.h"
#include "target/capture.h"
#include "base/readfile.h"
#include "target/target_layout.h"

#define MAX_INPUTS 64 /* an op's tensors: index_add has four, DenseNet's cats up to 25 */

/* A string value as the "got" half of a message: quoted, cut at 80 characters. */
static const char *quoted(const char *s, char *buf, size_t n)
{
    snprintf(buf, n, "\"%.80s\"", s);
    return buf;
}

/* An array of strings: *out (NULL-terminated, pointing into the document) is the caller's to free. */
static int strings(ej_val obj, const char *key, const char ***out, int *n, ea_error *err)
{
    ej_val arr;
    *out = NULL;
    if (ej_field(obj, key, 1, &arr, err) || ej_array(arr, n, err))
        return -1;
    if (!(*out = calloc((size_t)*n + 1, sizeof **out)))
        return ea_fail(err, "%s: out of memory", obj.file);
    for (int i = 0; i < *n; i++)
        if (ej_as_string(ej_index(arr, i), &(*out)[i], err))
            return -1;
    return 0;
}

/* {"call", "median_us", "q1_us", "q3_us", "samples"}, or null: the mode was not timed. */
static int read_time(ej_val point, const char *mode, ea_torch_time *t, ea_error *err)
{
    static const char *const keys[] = {"call", "median_us", "q1_us", "q3_us", "samples", NULL};
    char got[128];
    ej_val v;
    memset(t, 0, sizeof *t);
    if (ej_field(point, mode, 1, &v, err))
        return -1;
    if (cJSON_IsNull(v.v))
        return 0;
    if (ej_object(v, keys, err) || ej_get_string(v, "call", &t->call, err) ||
        ej_get_number(v, "median_us", &t->median_us, err) || ej_get_number(v, "q1_us", &t->q1_us, err) ||
        ej_get_number(v, "q3_us", &t->q3_us, err) || ej_get_int_min(v, "samples", 1, &t->samples, err))
        return -1;
    /* a ratio against a zero or inverted summary would be meaningless: refuse the file instead */
    if (!(t->median_us > 0 && t->q1_us <= t->median_us && t->median_us <= t->q3_us)) {
        snprintf(got, sizeof got, "q1 %g, median %g, q3 %g", t->q1_us, t->median_us, t->q3_us);
        return ej_bad_field(v, "median_us", "a positive median between q1_us and q3_us", got, err);
    }
    snprintf(got, sizeof got, "%g", t->q3_us);
    if (!(t->q3_us < EJ_MAX_TIME_US))
        return ej_bad_field(v, "q3_us", "a time below 1e9 us", got, err);
    if (t->samples < 2) {
        snprintf(got, sizeof got, "%" PRId64, t->samples);
        return ej_bad_field(v, "samples", "at least 2 samples", got, err);
    }
    t->timed = 1;
    return 0;
}

/* The op's tensors in capture.json's input format, each name once. */
static int read_inputs(ej_val point, ea_error *err)
{
    ea_capture_tensor t[MAX_INPUTS];
    char what[32], got[96];
    ej_val arr;
    int n;
    if (ej_field(point, "inputs", 1, &arr, err) || ej_array(arr, &n, err))
        return -1;
    if (n > MAX_INPUTS) {
        snprintf(what, sizeof what, "at most %d inputs", MAX_INPUTS);
        snprintf(got, sizeof got, "%d", n);
        return ej_bad_field(point, "inputs", what, got, err);
    }
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(arr, i);
        if (ea_capture_read_input(e, &t[i], err))
            return -1;
        for (int k = 0; k < i; k++)
            if (!strcmp(t[k].name, t[i].name))
                return ej_bad_field(e, "name", "a name no other input has", quoted(t[i].name, got, sizeof got), err);
    }
    return 0;
}

/* {"call", "calls_per_replay": 1, "replays", "min_us", "steady_us"}, absent in files older than it. */
static int read_pipeline(ej_val point, ea_torch_pipeline *t, ea_error *err)
{
    static const char *const keys[] = {"call", "calls_per_replay", "replays", "min_us", "steady_us", NULL};
    char got[96];
    int64_t calls;
    ej_val v;
    memset(t, 0, sizeof *t);
    if (ej_field(point, "pipeline", 0, &v, err))
        return -1;
    if (!v.v)
        return 0;
    if (ej_object(v, keys, err) || ej_get_string(v, "call", &t->call, err) ||
        ej_get_int(v, "calls_per_replay", &calls, err) || ej_get_int(v, "replays", &t->replays, err) ||
        ej_get_number(v, "min_us", &t->min_us, err) || ej_get_number(v, "steady_us", &t->steady_us, err))
        return -1;
    snprintf(got, sizeof got, "%" PRId64, calls);
    if (calls != 1) /* the pipeline's method: what one lone call costs */
        return ej_bad_field(v, "calls_per_replay", "1", got, err);
    snprintf(got, sizeof got, "%" PRId64, t->replays);
    if (t->replays < 2)
        return ej_bad_field(v, "replays", "at least 2 replays", got, err);
    snprintf(got, sizeof got, "min %g, steady %g", t->min_us, t->steady_us);
    if (!(t->min_us > 0 && t->steady_us > 0 && t->min_us < EJ_MAX_TIME_US && t->steady_us < EJ_MAX_TIME_US))
        return ej_bad_field(v, "min_us", "positive min_us and steady_us below 1e9 us", got, err);
    t->timed = 1;
    return 0;
}

static int read_point(ej_val p, ea_torch_op *op, ea_error *err)
{
    static const char *const keys[] = {"point", "op", "inputs", "setup", "faithful", "fabricated", "pipeline",
                                       "kernels", "kernels_note", NULL};
    const char **setup = NULL;
    ej_val note;
    int nsetup, rc;
    rc = ej_object(p, keys, err) || ej_get_string(p, "point", &op->point, err) ||
         ej_get_string(p, "op", &op->op, err) || read_inputs(p, err) || strings(p, "setup", &setup, &nsetup, err) ||
         read_time(p, "faithful", &op->faithful, err) || read_time(p, "fabricated", &op->fabricated, err) ||
         read_pipeline(p, &op->pipeline, err) ||
         strings(p, "kernels", &op->kernels, &op->nkernels, err) || ej_field(p, "kernels_note", 0, &note, err) ||
         (note.v && ej_as_string(note, &op->kernels_note, err));
    free(setup); /* validated only: the C side never runs it */
    return rc ? -1 : 0;
}

static int read_head(ej_val root, const char *model, ea_torch_ops *t, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "command", "environment", "timing", "points",
                                       NULL};
    static const char *const env_keys[] = {"torch", "torch_git", "triton", "gpu", "capability", "driver", "cuda",
                                           NULL};
    static const char *const timing_keys[] = {"method", "calls_per_replay", "replays", "warmup_ms", NULL};
    const char *s;
    int64_t k;
    double ms;
    char m[64];
    ej_val env, tm;
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_TORCH_OPS_SCHEMA, EA_TORCH_OPS_VERSION, err) ||
        ej_get_string(root, "command", &s, err) || ej_field(root, "environment", 1, &env, err) ||
        ej_object(env, env_keys, err))
        return -1;
    for (const char *const *key = env_keys; *key; key++) {
        if (ej_get_string(env, *key, &s, err))
            return -1;
        if (!strcmp(*key, "torch"))
            t->torch = s;
        else if (!strcmp(*key, "gpu"))
            t->gpu = s;
    }
    ea_gpu_model(t->gpu, m, sizeof m);
    /* a file measured on another GPU model would judge this replica against the wrong hardware */
    if (model && strcmp(m, model)) {
        char what[96], got[96];
        snprintf(what, sizeof what, "a GPU of model %.40s (the file is read for it)", model);
        return ej_bad_field(env, "gpu", what, quoted(t->gpu, got, sizeof got), err);
    }
    return ej_field(root, "timing", 1, &tm, err) || ej_object(tm, timing_keys, err) ||
                   ej_get_string(tm, "method", &s, err) || ej_get_int_min(tm, "calls_per_replay", 1, &k, err) ||
                   ej_get_int_min(tm, "replays", 1, &k, err) || ej_get_number(tm, "warmup_ms", &ms, err)
               ? -1
               : 0;
}

static int read_doc(const char *model, ea_torch_ops *t, ea_error *err)
{
    ej_val root = ej_root(&t->doc), pts;
    char got[96];
    if (read_head(root, model, t, err) || ej_field(root, "points", 1, &pts, err) || ej_array(pts, &t->n, err))
        return -1;
    if (!(t->ops = calloc((size_t)t->n + 1, sizeof *t->ops)))
        return ea_fail(err, "%s: out of memory", t->file);
    for (int i = 0; i < t->n; i++) {
        ej_val p = ej_index(pts, i);
        if (read_point(p, &t->ops[i], err))
            return -1;
        for (int k = 0; k < i; k++)
            if (!strcmp(t->ops[k].point, t->ops[i].point))
                return ej_bad_field(p, "point", "each point once", quoted(t->ops[i].point, got, sizeof got), err);
    }
    return 0;
}

int ea_torch_ops_load(const char *path, const char *model, ea_torch_ops *t, ea_error *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->file, sizeof t->file, "%s", path);
    snprintf(t->rel, sizeof t->rel, "%s", path);
    if (ej_load(path, &t->doc, err) || read_doc(model, t, err)) {
        ea_torch_ops_free(t);
        return -1;
    }
    t->loaded = 1;
    return 0;
}

int ea_torch_ops_load_dir(const char *target_dir, const char *model, ea_torch_ops *t, ea_error *err)
{
    char path[4096], rel[256] = EA_TORCH_OPS_NAME;
    ea_tf_path(target_dir, EA_TF_TORCH_OPS, path, sizeof path);
    int present = ea_file_present(path, err);
    if (present < 0)
        return -1;
    if (!present) { /* not measured yet: the caller says so, naming file */
        memset(t, 0, sizeof *t);
        snprintf(t->file, sizeof t->file, "%s", path);
    } else if (ea_torch_ops_load(path, model, t, err)) {
        return -1;
    }
    snprintf(t->rel, sizeof t->rel, "%s", rel);
    return 0;
}

void ea_torch_ops_free(ea_torch_ops *t)
{
    for (int i = 0; t->ops && i < t->n; i++)
        free(t->ops[i].kernels);
    free(t->ops);
    ej_free(&t->doc);
    t->ops = NULL;
    t->n = 0;
    t->loaded = 0;
}

const ea_torch_op *ea_torch_ops_find(const ea_torch_ops *t, const char *point)
{
    for (int i = 0; t && t->loaded && i < t->n; i++)
        if (!strcmp(t->ops[i].point, point))
            return &t->ops[i];
    return NULL;
}
