/* plan.c: what runs for a cat scope, host-only (contract in cat.h). */
#include "cat.h"
#include "cat_impl.h"

#include <inttypes.h>
#include <string.h>

const int cat_unrolls[CAT_UNROLLS] = {1, 2, 4, 8};

#define CAT_THREADS 256         /* stream CTAs */
#define CAT_CHANNEL_THREADS 128 /* a channel's 196 to 3136 values: small CTAs keep every channel in one wave */
#define CAT_TABLE_ENTRY 24      /* stream table: fp32 mean, r, weight, bias and a source pointer */
#define CAT_MAX_SHARED (96 * 1024) /* the channel kernel's fp32 staging, well inside an sm_90 CTA */

int64_t cat_floor_bytes(int train, int pooled, int64_t n, int64_t c, int64_t hw, int es, int64_t *written)
{
    int64_t x = n * c * hw * es, y = pooled ? n * c * es : x;
    /* train: the cat, f32 mean, rstd and running var out beside the result */
    int64_t w = train ? x + 3 * c * 4 + y : y;
    if (written)
        *written = w;
    /* the inputs, and infer: running mean, var, weight, bias of the dtype; train: f32 running var, weight, bias */
    return x + (train ? 3 * c * 4 : 4 * c * es) + w;
}

/* The widest access (elements, at most 16 bytes) every run of the kernel's indexing allows. */
static int vec_for(const cat_scope *s, int stream)
{
    for (int v = 16 / ea_dtype_size(s->dt); v > 1; v /= 2) {
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
    p->unroll = unroll;
    p->floor_bytes =
        cat_floor_bytes(s->train, s->pooled, s->n, s->c, s->hw, ea_dtype_size(s->dt), &p->floor_written_bytes);
    if (s->dt != EA_BF16 && s->dt != EA_F16 && s->dt != EA_F32)
        return ea_fail(err, "%s %s: expected bf16, f16 or f32 values (the kernels' instances), got %s", s->file, s->path,
                       ea_dtype_name(s->dt));
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

/* A layout of CAT_WARP_CHANNELS warps per CTA, a unit of work (a channel or a tile) per warp. */
static void warps(cat_plan *p, cat_oracle_kind kind, int64_t units)
{
    p->kind = kind;
    p->threads = 32 * CAT_WARP_CHANNELS;
    p->grid_x = (units + CAT_WARP_CHANNELS - 1) / CAT_WARP_CHANNELS;
    p->grid_y = 1;
}

_Static_assert(CAT_UNROLLS <= CAT_MAX_VARIANTS, "every stream unroll is a variant");

int cat_plan_variants(const cat_scope *s, cat_plan v[CAT_MAX_VARIANTS], ea_error *err)
{
    if (cat_plan_make(s, cat_unrolls[0], &v[0], err))
        return -1;
    if (v[0].kind == CAT_ORACLE_STREAM) {
        for (int u = 1; u < CAT_UNROLLS; u++)
            if (cat_plan_make(s, cat_unrolls[u], &v[u], err))
                return -1;
        return CAT_UNROLLS;
    }
    int nv = 1;
    const int64_t m = s->n * s->hw;
    cat_plan q = v[0];
    warps(&q, CAT_ORACLE_WARP, s->c);
    q.shared_bytes = (int64_t)CAT_WARP_CHANNELS * m * 4;
    if (q.shared_bytes <= CAT_MAX_SHARED)
        v[nv++] = q;
    int64_t packs = 1, lane_vectors = (m / v[0].vec + 31) / 32;
    while (packs < lane_vectors)
        packs *= 2;
    if (s->train && !s->pooled && packs <= CAT_REGS_MAX_PACKS) {
        q = v[0];
        warps(&q, CAT_ORACLE_REGS, s->c);
        q.packs = (int)packs;
        q.shared_bytes = 0;
        v[nv++] = q;
    }
    if (!s->train && s->pooled) {
        q = v[0];
        q.rows = 32;
        for (int i = 0; i < s->k; i++)
            while (s->ch[i] % q.rows)
                q.rows /= 2;
        warps(&q, CAT_ORACLE_ROWS, s->n * s->c / q.rows);
        for (q.vec = 16 / ea_dtype_size(s->dt); (q.rows * s->hw) % q.vec; q.vec /= 2)
            ;
        q.shared_bytes = (int64_t)CAT_WARP_CHANNELS * q.rows * s->hw * ea_dtype_size(s->dt);
        if (q.shared_bytes <= CAT_MAX_SHARED)
            v[nv++] = q;
    }
    return nv;
}

const char *cat_variant_name(const cat_plan *p)
{
    static const char *const names[] = {"stream", "channel", "channel-warp", "channel-regs", "rows"};
    return names[p->kind];
}

void cat_variant_kernel(const cat_scope *s, const cat_plan *p, char *buf, size_t n)
{
    const char *mode = s->train ? s->pooled ? "train, pooled" : "train" : s->pooled ? "infer, pooled" : "infer";
    switch (p->kind) {
    case CAT_ORACLE_STREAM: snprintf(buf, n, "cat_stream<vec %d, unroll %d>", p->vec, p->unroll); break;
    case CAT_ORACLE_CHANNEL: snprintf(buf, n, "cat_channel<vec %d, %s>", p->vec, mode); break;
    case CAT_ORACLE_WARP: snprintf(buf, n, "cat_channel_warp<vec %d, %s>", p->vec, mode); break;
    case CAT_ORACLE_REGS: snprintf(buf, n, "cat_channel_regs<vec %d, packs %d>", p->vec, p->packs); break;
    case CAT_ORACLE_ROWS: snprintf(buf, n, "cat_rows<vec %d, %d channels per tile>", p->vec, p->rows); break;
    }
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

cJSON *cat_config_json(const cat_scope *s, const cat_plan *p, const ea_capture *cap, const char *block_note)
{
    static const char *const outs[CAT_NOUTS] = {"cat", "mean", "rstd", "running_var", "y"};
    char text[1024];
    cJSON *o = cJSON_CreateObject(), *a, *notes;
    cJSON_AddStringToObject(o, "mode", s->train ? "train" : "infer");
    cJSON_AddStringToObject(o, "dtype", ea_dtype_name(s->dt));
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
    if (cap)
        cJSON_AddStringToObject(o, "capture", s->capture);
    else
        cJSON_AddNullToObject(o, "capture");
    /* the current path is the capture's default run: its launches are the capture's (run --plan prints them from
     * there, run_report.h), only their count is the plan's */
    const ea_capture_run *run = cap ? ea_capture_run_named(cap, "default") : NULL;
    cJSON *orc = cJSON_AddObjectToObject(o, "oracle");
    /* an id (src/measure/prose.c renders it) */
    cJSON_AddStringToObject(orc, "kind", p->kind == CAT_ORACLE_STREAM ? "cat_oracle_stream"
                                         : s->train                   ? "cat_oracle_channel_train"
                                                                      : "cat_oracle_channel_infer");
    a = cJSON_AddArrayToObject(orc, "variants");
    cat_plan v[CAT_MAX_VARIANTS];
    int nv = cat_plan_variants(s, v, &(ea_error){{0}});
    for (int i = 0; i < nv; i++) {
        cat_variant_kernel(s, &v[i], text, sizeof text);
        cJSON *l = launch_json(text, v[i].grid_x, v[i].grid_y, v[i].threads, v[i].shared_bytes);
        cJSON_AddStringToObject(l, "variant", cat_variant_name(&v[i]));
        if (v[i].kind == CAT_ORACLE_STREAM)
            cJSON_AddNumberToObject(l, "unroll", v[i].unroll);
        cJSON_AddItemToArray(a, l);
    }
    cJSON_AddNumberToObject(orc, "vector_elements", p->vec);
    cJSON_AddNumberToObject(orc, "launches", 1);
    cJSON_AddNumberToObject(o, "current_launches", run ? run->nsteps : 0);
    cJSON_AddNumberToObject(o, "floor_bytes", (double)p->floor_bytes);
    cJSON_AddNumberToObject(o, "floor_written_bytes", (double)p->floor_written_bytes);
    notes = cJSON_AddArrayToObject(o, "notes");
    if (block_note && block_note[0])
        cJSON_AddItemToArray(notes, cJSON_CreateString("cat_block"));
    cJSON_AddItemToArray(notes, cJSON_CreateString("cat_current_replayed"));
    if (!cap)
        cJSON_AddItemToArray(notes, cJSON_CreateString("no_capture_unsupported"));
    cJSON_AddItemToArray(notes, cJSON_CreateString("cat_tolerance"));
    return o;
}
