#include "target/capture_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The dynamic shared memory a block may opt into on sm_90 and sm_100: 227 KiB. */
#define EA_MAX_SHARED_BYTES 232448

const char *const ea_launch_kinds[EA_LAUNCH_KINDS + 1] = {"poi", "red", "per", "spl", "for", "tem", NULL};

/* ---- scalar argument types ---- */

/* Integers: the low bytes of the value truncated toward zero, so -1 is all ones at every width; values
 * in [2^63, 2^64) are taken as unsigned, values outside the 64-bit ranges saturate and NaN is 0. */
static void encode_int(double d, unsigned char *out, int bytes)
{
    uint64_t u;
    if (d != d)
        u = 0;
    else if (d >= 0x1p64)
        u = UINT64_MAX;
    else if (d >= 0x1p63)
        u = (uint64_t)d;
    else if (d < -0x1p63)
        u = (uint64_t)INT64_MIN;
    else
        u = (uint64_t)(int64_t)d;
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(u >> (8 * i));
}

static void encode_i1(double d, unsigned char *out) { encode_int(d, out, 1); }
static void encode_i2(double d, unsigned char *out) { encode_int(d, out, 2); }
static void encode_i4(double d, unsigned char *out) { encode_int(d, out, 4); }
static void encode_i8(double d, unsigned char *out) { encode_int(d, out, 8); }

static void encode_fp64(double d, unsigned char *out)
{
    memcpy(out, &d, 8);
}

static void encode_fp32(double d, unsigned char *out)
{
    float f = (float)d;
    memcpy(out, &f, 4);
}

static void put16(uint16_t h, unsigned char *out)
{
    out[0] = (unsigned char)h;
    out[1] = (unsigned char)(h >> 8);
}

/* Round to nearest even straight from the double: going through f32 first could round twice. */
static void encode_fp16(double d, unsigned char *out)
{
    uint16_t sign = signbit(d) ? 0x8000u : 0, h;
    double a = fabs(d);
    int e;
    if (isnan(d))
        h = 0x7e00u;
    else if (a >= 65520.0) /* the largest half is 65504; from 65520 on, the nearest is infinity */
        h = 0x7c00u;
    else if (a < 0x1p-14) /* subnormal: units of 2^-24; rounding up to 2^-14 gives the smallest normal */
        h = (uint16_t)nearbyint(a * 0x1p24);
    else { /* a = m * 2^e with m in [0.5, 1): 11 significant bits; 2048 carries into the exponent */
        frexp(a, &e);
        h = (uint16_t)(((unsigned)(e + 14) << 10) + (unsigned)nearbyint(ldexp(a, 11 - e)) - 1024u);
    }
    put16((uint16_t)(sign | h), out);
}

static void encode_bf16(double d, unsigned char *out)
{
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    put16((uint16_t)(u >> 16), out);
}

const ea_scalar_type ea_scalar_types[] = {
    {"i1", 1, encode_i1},     {"i8", 1, encode_i1},     {"i16", 2, encode_i2},    {"i32", 4, encode_i4},
    {"i64", 8, encode_i8},    {"u1", 1, encode_i1},     {"u8", 1, encode_i1},     {"u16", 2, encode_i2},
    {"u32", 4, encode_i4},    {"u64", 8, encode_i8},    {"fp16", 2, encode_fp16}, {"bf16", 2, encode_bf16},
    {"fp32", 4, encode_fp32}, {"fp64", 8, encode_fp64}, {NULL, 0, NULL},
};

const ea_scalar_type *ea_scalar_type_named(const char *name)
{
    for (const ea_scalar_type *t = ea_scalar_types; name && t->name; t++)
        if (!strcmp(t->name, name))
            return t;
    return NULL;
}

/* ---- runs ---- */

static int read_evidence(ea_capture *c, ej_val run, ea_capture_evidence *ev, ea_error *err)
{
    static const char *const keys[] = {"aten_calls", "extern_kernels", "triton_launches", "alias_slices",
                                       "workspace_zeroing", "scan_kernels", "atomic_kernels", NULL};
    ej_val v, tl;
    int64_t total = 0;
    if (ej_field(run, "evidence", 1, &v, err) || ej_object(v, keys, err) ||
        cap_str_list(c, v, "aten_calls", 0, &ev->aten_calls, &ev->naten_calls, err) ||
        cap_str_list(c, v, "extern_kernels", 0, &ev->extern_kernels, &ev->nextern_kernels, err) ||
        ej_field(v, "triton_launches", 1, &tl, err) || ej_object(tl, ea_launch_kinds, err))
        return -1;
    for (int k = 0; k < EA_LAUNCH_KINDS; k++) {
        if (ej_get_int_min(tl, ea_launch_kinds[k], 0, &ev->launches[k], err) != 0)
            return -1;
        total += ev->launches[k];
    }
    if (ej_get_int_min(v, "alias_slices", 0, &ev->alias_slices, err) ||
        ej_get_int_min(v, "workspace_zeroing", 0, &ev->workspace_zeroing, err) ||
        ej_get_int_min(v, "scan_kernels", 0, &ev->scan_kernels, err) ||
        ej_get_int_min(v, "atomic_kernels", 0, &ev->atomic_kernels, err))
        return -1;
    /* a kernel is counted when launched, so neither marker can exceed the launches */
    const char *over = ev->scan_kernels > total ? "scan_kernels" : ev->atomic_kernels > total ? "atomic_kernels" : NULL;
    if (over) {
        char what[64], got[24];
        snprintf(what, sizeof what, "at most the %" PRId64 " Triton launches", total);
        snprintf(got, sizeof got, "%" PRId64, over[0] == 's' ? ev->scan_kernels : ev->atomic_kernels);
        return ej_bad_field(v, over, what, got, err);
    }
    return 0;
}

static int known_buffer(const ea_capture *c, const ea_capture_run *r, const char *name)
{
    for (int i = 0; i < c->ninputs; i++)
        if (!strcmp(c->inputs[i].name, name))
            return 1;
    for (int i = 0; i < c->noutputs; i++)
        if (!strcmp(c->outputs[i].name, name))
            return 1;
    for (int i = 0; i < r->nbuffers; i++)
        if (!strcmp(r->buffers[i].name, name))
            return 1;
    return 0;
}

static int read_buffers(ea_capture *c, ej_val run, ea_capture_run *r, ea_error *err)
{
    static const char *const keys[] = {"name", "bytes", NULL};
    ej_val arr;
    int n;
    if (cap_obj_list(c, run, "buffers", sizeof *r->buffers, (void **)&r->buffers, &n, &arr, err) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(arr, i);
        ea_capture_buffer *b = &r->buffers[i];
        if (ej_object(e, keys, err) || ej_get_string(e, "name", &b->name, err) ||
            ej_get_int_min(e, "bytes", 0, &b->bytes, err))
            return -1;
        r->nbuffers = i; /* the names before this one */
        int dup = known_buffer(c, r, b->name);
        r->nbuffers = i + 1;
        if (dup)
            return ej_bad_field(e, "name", "a name no input, output or earlier buffer has", b->name, err);
    }
    return 0;
}

static int read_arg(const ea_capture *c, const ea_capture_run *r, ej_val v, ea_capture_arg *a, ea_error *err)
{
    static const char *const buffer_keys[] = {"buffer", "offset", NULL};
    static const char *const scalar_keys[] = {"scalar", "type", NULL};
    ej_val b;
    if (ej_field(v, "buffer", 0, &b, err) != 0)
        return -1;
    if (b.v) {
        if (ej_object(v, buffer_keys, err) || ej_get_string(v, "buffer", &a->buffer, err) ||
            ej_get_int_min(v, "offset", 0, &a->offset, err))
            return -1;
        if (known_buffer(c, r, a->buffer))
            return 0;
        char got[96];
        snprintf(got, sizeof got, "\"%.80s\"", a->buffer);
        return ej_bad_field(v, "buffer", "an input, output or buffer of this run", got, err);
    }
    if (ej_object(v, scalar_keys, err) || ej_get_number(v, "scalar", &a->scalar, err) ||
        ej_get_string(v, "type", &a->type, err))
        return -1;
    if (ea_scalar_type_named(a->type))
        return 0;
    return ej_bad_field(v, "type", "a Triton scalar type (" EA_SCALAR_TYPE_NAMES ")", a->type, err);
}

static int read_triton(ea_capture *c, ea_capture_run *r, ej_val v, ea_capture_step *s, ea_error *err)
{
    static const char *const keys[] = {"kind", "kernel", "cubin", "function", "num_warps", "shared", "grid", "block",
                                       "global_scratch", "profile_scratch", "args", NULL};
    const char *cubin;
    int n;
    ej_val args;
    struct stat st;
    if (ej_object(v, keys, err) || ej_get_string(v, "kernel", &s->kernel, err) ||
        ej_get_string(v, "cubin", &cubin, err) || ej_get_string(v, "function", &s->function, err) ||
        ej_get_int_min(v, "num_warps", 1, &s->num_warps, err) || ej_get_int_min(v, "shared", 0, &s->shared, err) ||
        cap_int_list(v, "grid", 1, 3, 3, s->grid, &n, err) || cap_int_list(v, "block", 1, 3, 3, s->block, &n, err) ||
        ej_get_int_min(v, "global_scratch", 0, &s->global_scratch, err) ||
        ej_get_int_min(v, "profile_scratch", 0, &s->profile_scratch, err))
        return -1;
    if (s->shared > EA_MAX_SHARED_BYTES) {
        char got[32];
        snprintf(got, sizeof got, "%" PRId64, s->shared);
        return ej_bad_field(v, "shared", "at most 232448 bytes (227 KiB, the most an sm_90 or sm_100 block can have)",
                            got, err);
    }
    /* the cubin travels with the capture: a path outside its folder would not */
    if (!*cubin || cubin[0] == '/' || strstr(cubin, ".."))
        return ej_bad_field(v, "cubin", "a file name inside the capture's folder", cubin, err);
    if (!(s->cubin = cap_join(c, c->dir, cubin)))
        return cap_oom(v.file, err);
    int missing = stat(s->cubin, &st) != 0;
    if (missing || !S_ISREG(st.st_mode)) {
        char got[600];
        snprintf(got, sizeof got, "\"%s\" (%s: %s)", cubin, s->cubin, missing ? strerror(errno) : "not a regular file");
        return ej_bad_field(v, "cubin", "a cubin file in the capture's folder", got, err);
    }
    if (cap_obj_list(c, v, "args", sizeof *s->args, (void **)&s->args, &s->nargs, &args, err) != 0)
        return -1;
    for (int i = 0; i < s->nargs; i++)
        if (read_arg(c, r, ej_index(args, i), &s->args[i], err) != 0)
            return -1;
    return 0;
}

static int read_steps(ea_capture *c, ej_val run, ea_capture_run *r, ea_error *err)
{
    static const char *const aten_keys[] = {"kind", "call", NULL};
    ej_val arr;
    int first_aten = -1;
    if (cap_obj_list(c, run, "steps", sizeof *r->steps, (void **)&r->steps, &r->nsteps, &arr, err) != 0)
        return -1;
    for (int i = 0; i < r->nsteps; i++) {
        ej_val e = ej_index(arr, i);
        ea_capture_step *s = &r->steps[i];
        const char *kind;
        if (ej_get_string(e, "kind", &kind, err) != 0)
            return -1;
        s->triton = !strcmp(kind, "triton");
        if (s->triton) {
            if (read_triton(c, r, e, s, err) != 0)
                return -1;
        } else if (!strcmp(kind, "aten")) {
            if (ej_object(e, aten_keys, err) || ej_get_string(e, "call", &s->call, err))
                return -1;
            first_aten = first_aten < 0 ? i : first_aten;
        } else {
            return ej_bad_field(e, "kind", "\"triton\" or \"aten\"", kind, err);
        }
    }
    if (ej_get_bool(run, "replayable", &r->replayable, err) != 0)
        return -1;
    if (r->replayable == (first_aten < 0))
        return 0;
    char what[64];
    snprintf(what, sizeof what,
             first_aten < 0 ? "true (every step is a Triton launch)" : "false (step %d is an ATen call)", first_aten);
    return ej_bad_field(run, "replayable", what, r->replayable ? "true" : "false", err);
}

int cap_read_stats(ej_val timing, const char *key, ea_capture_stats *s, ea_error *err)
{
    static const char *const keys[] = {"median_us", "q1_us", "q3_us", "samples", NULL};
    ej_val v;
    if (ej_field(timing, key, 1, &v, err) || ej_object(v, keys, err) ||
        ej_get_number(v, "median_us", &s->median_us, err) || ej_get_number(v, "q1_us", &s->q1_us, err) ||
        ej_get_number(v, "q3_us", &s->q3_us, err) || ej_get_int_min(v, "samples", 1, &s->samples, err))
        return -1;
    if (0 <= s->q1_us && s->q1_us <= s->median_us && s->median_us <= s->q3_us && s->q3_us < EJ_MAX_TIME_US)
        return 0;
    char got[32];
    snprintf(got, sizeof got, "%g", s->q3_us);
    if (!(s->q3_us < EJ_MAX_TIME_US))
        return ej_bad_field(v, "q3_us", "a time below 1e9 us", got, err);
    return ej_bad_field(v, "median_us", "0 <= q1_us <= median_us <= q3_us", "quartiles out of order", err);
}

static int read_timing(ej_val run, ea_capture_run *r, ea_error *err)
{
    static const char *const keys[] = {"method", "calls_per_replay", "replays", "eager", "compiled", NULL};
    ej_val v;
    return ej_field(run, "timing", 1, &v, err) || ej_object(v, keys, err) ||
                   ej_get_string(v, "method", &r->timing_method, err) ||
                   ej_get_int_min(v, "calls_per_replay", 1, &r->calls_per_replay, err) ||
                   ej_get_int_min(v, "replays", 1, &r->replays, err) || cap_read_stats(v, "eager", &r->eager, err) ||
                   cap_read_stats(v, "compiled", &r->compiled, err)
               ? -1
               : 0;
}

/* config is "default", "coordinate_descent" or "probe_<dtype>" with probe {"dtype": <dtype>}; a capture made
 * under a candidate lowering also has "without_lowering": the default config compiled without the patch in
 * the same process, so the candidate and today's compiled code are timed in one run on one GPU. */
static int read_config(const ea_capture *c, ej_val run, ea_capture_run *r, ea_error *err)
{
    static const char *const probe_keys[] = {"dtype", NULL};
    ej_val probe, ic;
    int n;
    ea_dtype dt;
    if (ej_get_string(run, "config", &r->config, err) || ej_field(run, "inductor_config", 1, &ic, err) ||
        ej_map(ic, &n, err) || ej_field(run, "probe", 1, &probe, err))
        return -1;
    r->inductor_config = ic.v;
    int is_probe = !strncmp(r->config, "probe_", 6);
    int unpatched = c->lowering && !strcmp(r->config, "without_lowering");
    if (!is_probe && !unpatched && strcmp(r->config, "default") && strcmp(r->config, "coordinate_descent"))
        return ej_bad_field(run, "config",
                            c->lowering ? "\"default\", \"coordinate_descent\", \"without_lowering\" or \"probe_<dtype>\""
                                        : "\"default\", \"coordinate_descent\" or \"probe_<dtype>\"",
                            r->config, err);
    if (cJSON_IsNull(probe.v)) {
        if (is_probe)
            return ej_bad_field(run, "probe", "{\"dtype\": ...} for a probe run", "null", err);
        return 0;
    }
    if (ej_object(probe, probe_keys, err) || cap_dtype_field(probe, "dtype", &dt, err) ||
        ej_get_string(probe, "dtype", &r->probe_dtype, err))
        return -1;
    if (is_probe && !strcmp(r->config + 6, r->probe_dtype))
        return 0;
    char what[64];
    snprintf(what, sizeof what, "null, or config \"probe_%s\"", r->probe_dtype);
    return ej_bad_field(run, "probe", what, r->config, err);
}

static int read_run(ea_capture *c, ej_val v, ea_capture_run *r, ea_error *err)
{
    static const char *const keys[] = {"config", "inductor_config", "probe", "evidence", "wrapper", "buffers", "steps",
                                       "replayable", "timing", "fp64_error", NULL};
    const char *wrapper;
    if (ej_object(v, keys, err) || read_config(c, v, r, err) || read_evidence(c, v, &r->ev, err) ||
        ej_get_string(v, "wrapper", &wrapper, err) || read_buffers(c, v, r, err) || read_steps(c, v, r, err) ||
        read_timing(v, r, err) || cap_error_list(c, v, "fp64_error", &r->fp64_error, err))
        return -1;
    if (r->fp64_error && !c->fp64_eager)
        return ej_bad_field(v, "fp64_error", "none without the capture's fp64 reference ($.fp64.eager_error)",
                            "an array", err);
    return (r->wrapper = cap_join(c, c->dir, wrapper)) ? 0 : cap_oom(v.file, err);
}

int cap_read_runs(ea_capture *c, ej_val root, ea_error *err)
{
    ej_val arr;
    int n;
    if (cap_obj_list(c, root, "runs", sizeof *c->runs, (void **)&c->runs, &n, &arr, err) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(arr, i);
        if (read_run(c, e, &c->runs[i], err) != 0)
            return -1;
        c->nruns = i; /* the configs before this one */
        int dup = ea_capture_run_named(c, c->runs[i].config) != NULL;
        c->nruns = i + 1;
        if (dup)
            return ej_bad_field(e, "config", "each config once", c->runs[i].config, err);
    }
    static const char *const required[] = {"default", "coordinate_descent"};
    for (int i = 0; i < 2; i++)
        if (!ea_capture_run_named(c, required[i]))
            return ea_fail(err, "%s $.runs: expected a run with config \"%s\", got none", c->file, required[i]);
    return 0;
}

const ea_capture_run *ea_capture_run_named(const ea_capture *c, const char *config)
{
    for (int i = 0; i < c->nruns; i++)
        if (!strcmp(c->runs[i].config, config))
            return &c->runs[i];
    return NULL;
}

const ea_capture_run *ea_capture_run_tuned_replayable(const ea_capture *c)
{
    const ea_capture_run *r = ea_capture_run_named(c, "coordinate_descent");
    return r && r->replayable ? r : NULL;
}

int ea_capture_stats_timed(const ea_capture_stats *s)
{
    return s->samples >= 1 && s->median_us > 0;
}
