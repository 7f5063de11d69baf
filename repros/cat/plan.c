/* plan.c: what runs for a cat scope, host-only (contract in cat.h). */
#include "cat.h"

#include <inttypes.h>
#include <string.h>

const int cat_unrolls[CAT_UNROLLS] = {1, 2, 4, 8};

#define CAT_THREADS 256         /* stream CTAs */
#define CAT_CHANNEL_THREADS 128 /* a channel's 196 to 3136 values: small CTAs keep every channel in one wave */
#define CAT_TABLE_ENTRY 24      /* stream table: fp32 mean, r, weight, bias and a source pointer */
#define CAT_MAX_SHARED (96 * 1024) /* the channel kernel's fp32 staging, well inside an sm_90 CTA */

int64_t cat_floor_bytes(int train, int pooled, int64_t n, int64_t c, int64_t hw)
{
    int64_t x = n * c * hw * 2, y = pooled ? n * c * 2 : x;
    /* infer: bf16 running mean, var, weight, bias; train: f32 running var, weight, bias in, and the cat,
     * mean, rstd, running var out */
    return train ? x + 3 * c * 4 + x + 3 * c * 4 + y : x + 4 * c * 2 + y;
}

/* The widest access (elements, at most 8 = 16 bytes) every run of the kernel's indexing allows. */
static int vec_for(const cat_scope *s, int stream)
{
    for (int v = 8; v > 1; v /= 2) {
        int ok = stream ? v <= s->hw : s->hw % v == 0;
        for (int i = 0; stream && i < s->k; i++)
            ok &= (s->ch[i] * s->hw) % v == 0;
        if (ok)
            return v;
    }
    return 1;
}

int cat_plan_make(const cat_scope *s, int unroll, cat_plan *p, ea_error *err)
{
    memset(p, 0, sizeof *p);
    p->kind = s->train || s->pooled ? CAT_ORACLE_CHANNEL : CAT_ORACLE_STREAM;
    p->threads = p->kind == CAT_ORACLE_STREAM ? CAT_THREADS : CAT_CHANNEL_THREADS;
    p->vec = vec_for(s, p->kind == CAT_ORACLE_STREAM);
    p->floor_bytes = cat_floor_bytes(s->train, s->pooled, s->n, s->c, s->hw);
    if (unroll < 1)
        return ea_fail(err, "cat %s: expected an unroll >= 1, got %d", s->alias, unroll);
    if (s->n * s->c * s->hw >= INT32_MAX / 2)
        return ea_fail(err, "%s %s: expected fewer than 2^30 output elements (the kernels index in 32 bits), got %"
                       PRId64, s->file, s->path, s->n * s->c * s->hw);
    if (p->kind == CAT_ORACLE_STREAM) {
        int64_t vectors = s->c * s->hw / p->vec, per_cta = (int64_t)p->threads * unroll;
        p->grid_x = (vectors + per_cta - 1) / per_cta;
        p->grid_y = s->n;
        p->tab_cap = per_cta * p->vec / s->hw + 2; /* a span of per_cta vectors touches at most this many */
        if (p->tab_cap > s->c)
            p->tab_cap = s->c;
        p->shared_bytes = p->tab_cap * CAT_TABLE_ENTRY;
    } else {
        p->grid_x = s->c;
        p->grid_y = 1;
        p->shared_bytes = s->n * s->hw * 4;
        if (p->shared_bytes > CAT_MAX_SHARED)
            return ea_fail(err, "%s %s: a channel holds %" PRId64 " values (N*H*W); the one-CTA-per-channel oracle "
                           "stages at most %d bytes", s->file, s->path, s->n * s->hw, CAT_MAX_SHARED);
    }
    return 0;
}

int cat_plan_warp(const cat_scope *s, cat_plan *p, ea_error *err)
{
    if (cat_plan_make(s, 1, p, err))
        return -1;
    if (p->kind != CAT_ORACLE_CHANNEL)
        return ea_fail(err, "cat %s: the warp-per-channel oracle is for train or pooled scopes", s->alias);
    p->kind = CAT_ORACLE_WARP;
    p->threads = 32 * CAT_WARP_CHANNELS;
    p->grid_x = (s->c + CAT_WARP_CHANNELS - 1) / CAT_WARP_CHANNELS;
    p->shared_bytes = (int64_t)CAT_WARP_CHANNELS * s->n * s->hw * 4;
    if (p->shared_bytes > CAT_MAX_SHARED)
        return ea_fail(err, "%s %s: %d channels of %" PRId64 " values (N*H*W) need %" PRId64 " bytes of staging; "
                       "the warp-per-channel oracle has at most %d", s->file, s->path, CAT_WARP_CHANNELS,
                       s->n * s->hw, p->shared_bytes, CAT_MAX_SHARED);
    return 0;
}

static cJSON *launch_json(const char *kernel, int64_t gx, int64_t gy, int64_t block, int64_t shared)
{
    cJSON *o = cJSON_CreateObject();
    double grid[2] = {(double)gx, (double)gy};
    cJSON_AddStringToObject(o, "kernel", kernel);
    cJSON_AddItemToObject(o, "grid", cJSON_CreateDoubleArray(grid, 2));
    cJSON_AddNumberToObject(o, "block", (double)block);
    cJSON_AddNumberToObject(o, "shared_bytes", (double)shared);
    return o;
}

cJSON *cat_config_json(const cat_scope *s, const cat_plan *p, const ea_capture *cap, const cJSON *view)
{
    static const char *const outs[CAT_NOUTS] = {"cat", "mean", "rstd", "running_var", "y"};
    char text[1024];
    cJSON *o = cJSON_CreateObject(), *a, *notes;
    cJSON_AddStringToObject(o, "mode", s->train ? "train" : "infer");
    cJSON_AddBoolToObject(o, "pooled", s->pooled);
    double shape[4] = {(double)s->n, (double)s->c, (double)s->h, (double)s->w}, ch[CAT_MAX_INPUTS];
    cJSON_AddItemToObject(o, "shape", cJSON_CreateDoubleArray(shape, 4));
    for (int i = 0; i < s->k; i++)
        ch[i] = (double)s->ch[i];
    cJSON_AddItemToObject(o, "input_channels", cJSON_CreateDoubleArray(ch, s->k));
    cJSON_AddStringToObject(o, "layout", "NCHW contiguous");
    cJSON_AddNumberToObject(o, "eps", s->eps);
    if (s->train) {
        cJSON_AddNumberToObject(o, "bessel", s->bessel);
        cJSON_AddNumberToObject(o, "momentum", s->momentum);
    }
    a = cJSON_AddArrayToObject(o, "outputs");
    for (int r = 0; r < CAT_NOUTS; r++)
        if (s->out[r] >= 0)
            cJSON_AddItemToArray(a, cJSON_CreateString(outs[r]));
    cJSON_AddStringToObject(o, "current_source", "inductor");
    cJSON_AddStringToObject(o, "capture", s->capture);
    const ea_capture_run *run = ea_capture_run_named(cap, "default");
    a = cJSON_AddArrayToObject(o, "current");
    for (int i = 0; run && i < run->nsteps; i++)
        cJSON_AddItemToArray(a, launch_json(run->steps[i].function, run->steps[i].grid[0], run->steps[i].grid[1],
                                            run->steps[i].block[0], run->steps[i].shared));
    cJSON *orc = cJSON_AddObjectToObject(o, "oracle");
    if (p->kind == CAT_ORACLE_STREAM) {
        cJSON_AddStringToObject(orc, "kind", "stream: one fused kernel, every input read once, y written once");
        a = cJSON_AddArrayToObject(orc, "variants");
        for (int u = 0; u < CAT_UNROLLS; u++) {
            cat_plan q;
            if (cat_plan_make(s, cat_unrolls[u], &q, &(ea_error){{0}}) == 0) {
                snprintf(text, sizeof text, "cat_stream<vec %d, unroll %d>", p->vec, cat_unrolls[u]);
                cJSON *l = launch_json(text, q.grid_x, q.grid_y, q.threads, q.shared_bytes);
                cJSON_AddNumberToObject(l, "unroll", cat_unrolls[u]);
                cJSON_AddItemToArray(a, l);
            }
        }
    } else {
        cJSON_AddStringToObject(orc, "kind", s->train ? "channel: one CTA per channel reads it once, writes the cat, "
                                                        "fp64 statistics, normalized output"
                                                      : "channel: one CTA per channel, normalized and pooled");
        a = cJSON_AddArrayToObject(orc, "variants");
        snprintf(text, sizeof text, "cat_channel<vec %d, %s%s>", p->vec, s->train ? "train" : "infer",
                 s->pooled ? ", pooled" : "");
        cJSON_AddItemToArray(a, launch_json(text, p->grid_x, p->grid_y, p->threads, p->shared_bytes));
        cat_plan q;
        if (cat_plan_warp(s, &q, &(ea_error){{0}}) == 0) {
            snprintf(text, sizeof text, "cat_channel_warp<vec %d, %s%s>", q.vec, s->train ? "train" : "infer",
                     s->pooled ? ", pooled" : "");
            cJSON_AddItemToArray(a, launch_json(text, q.grid_x, q.grid_y, q.threads, q.shared_bytes));
        }
    }
    cJSON_AddNumberToObject(orc, "vector_elements", p->vec);
    cJSON_AddNumberToObject(orc, "launches", 1);
    cJSON_AddNumberToObject(o, "current_launches", run ? run->nsteps : 0);
    cJSON_AddNumberToObject(o, "floor_bytes", (double)p->floor_bytes);
    notes = cJSON_AddArrayToObject(o, "notes");
    const cJSON *b = view ? cat_view_block(view, s) : NULL;
    if (b) {
        cat_view_line(b, text, sizeof text);
        cJSON_AddItemToArray(notes, cJSON_CreateString(text));
    }
    cJSON_AddItemToArray(notes, cJSON_CreateString(
        "current: the captured Inductor kernels replayed (ea_replay_run); its check counts output tensors whose "
        "checksum differs from torch's (mismatched) and reports as rel_l2/max_abs the CPU emulation of Inductor's "
        "fp32 arithmetic against fp64 (the replay returns checksums, not values)"));
    snprintf(text, sizeof text,
             "tolerance: the cat bit-exact; y within 2^-8 |ref| (bf16 rounding) + 2^-16 of its terms' magnitude; "
             "statistics within 2^-16 relative; the oracle no less accurate than the current path%s",
             s->train ? "; statistics accumulate in fp64" : "");
    cJSON_AddItemToArray(notes, cJSON_CreateString(text));
    return o;
}
