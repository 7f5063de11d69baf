/* plan.c: what runs for a scope. ATen's kernel choice is re-derived here on the host, step by step as
 * torch 2.11's index_add_cuda_impl (aten/src/ATen/native/cuda/Indexing.cu) makes it, so the replica
 * launches the same template instance with the same grid; the oracles' parameters come from the
 * index's value properties alone (no index tensor is read). */
#include "scope.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "consumer.h"
#include "target/gen.h"
#include "scope_impl.h"

const ia_slice_variant ia_slice_variants[IA_SLICE_VARIANTS] = {
    {"vec8", 1, 0, 0, 0},    {"vec8", 2, 0, 0, 0},    {"vec8", 4, 0, 0, 0}, {"vec8", 8, 0, 0, 0},
    {"vec8-cs", 1, 0, 1, 0}, {"vec8-cs", 2, 0, 1, 0}, {"staged", 0, 1, 0, 0}, {"vec8-shfl", 1, 0, 0, 1},
    {"vec8-shfl", 2, 0, 0, 1}, {"vec8-shfl", 4, 0, 0, 1},
};

void ia_slice_variant_json(cJSON *o, int v)
{
    cJSON_AddStringToObject(o, "variant", ia_slice_variants[v].name);
    if (!ia_slice_variants[v].staged)
        cJSON_AddNumberToObject(o, "unroll", ia_slice_variants[v].unroll);
}

/* getDefaultMaxThreadsPerBlock() on CUDA; grids are capped at 8 blocks per multiprocessor. */
#define ATEN_THREADS 128

/* canUse32BitIndexMath: numel and the largest offset both below INT32_MAX. */
static int can_use_32bit(const ea_tensor *t)
{
    int64_t n = ea_tensor_numel(t), off = 0, lin = n - 1;
    if (n >= INT32_MAX)
        return 0;
    for (int d = t->ndim - 1; d >= 0 && n > 0; d--) {
        off += (lin % t->sizes[d]) * t->strides[d];
        lin /= t->sizes[d];
    }
    return off < INT32_MAX;
}

static ia_tinfo tinfo(const ea_tensor *t)
{
    ia_tinfo ti = {.dims = t->ndim};
    for (int d = 0; d < t->ndim; d++) {
        ti.sizes[d] = (uint64_t)t->sizes[d];
        ti.strides[d] = (uint64_t)t->strides[d];
    }
    return ti;
}

/* at::collapse_dims: the fewest dims ordering the elements the same way, keeping `exclude`; returns
 * the excluded dim's new position (0 when everything collapses to a point). */
static int collapse(ia_tinfo *t, int exclude)
{
    int stop = exclude == -1 ? t->dims : exclude, nidx = -1, old = 0, remapped = -1;
    while (old < t->dims) {
        for (; old < stop; ++old) {
            if (t->sizes[old] == 1)
                continue;
            ++nidx;
            t->sizes[nidx] = t->sizes[old];
            t->strides[nidx] = t->strides[old];
            ++old;
            break;
        }
        for (; old < stop; ++old) {
            if (t->sizes[old] == 1)
                continue;
            if (t->strides[nidx] == t->sizes[old] * t->strides[old]) {
                t->sizes[nidx] *= t->sizes[old];
                t->strides[nidx] = t->strides[old];
            } else {
                ++nidx;
                t->sizes[nidx] = t->sizes[old];
                t->strides[nidx] = t->strides[old];
            }
        }
        if (old != t->dims) {
            ++nidx;
            t->sizes[nidx] = t->sizes[old];
            t->strides[nidx] = t->strides[old];
            remapped = nidx;
            ++old;
            stop = t->dims;
        }
    }
    if (nidx == -1 || (nidx == 0 && t->sizes[0] == 1)) {
        t->dims = 1;
        t->sizes[0] = t->strides[0] = 1;
        return 0;
    }
    t->dims = nidx + 1;
    return remapped;
}

/* indexShouldBeMajor: some other dim of the slice has a smaller stride than the indexed one. */
static int index_should_be_major(const ia_tinfo *t, int slice_dim)
{
    uint32_t slice_stride = (uint32_t)t->strides[slice_dim];
    for (int i = 0; i < t->dims; i++)
        if (i != slice_dim && t->sizes[i] > 1 && (uint32_t)t->strides[i] < slice_stride)
            return 1;
    return 0;
}

ia_fastdiv ia_fastdiv_make(int64_t d)
{
    ia_fastdiv f = {0, 0, 0};
    if (d < 1 || d >= (INT64_C(1) << 31))
        return f;
    while ((INT64_C(1) << f.s) < d)
        f.s++;
    f.d = (uint32_t)d;
    f.m = (uint32_t)(((UINT64_C(1) << 32) * ((UINT64_C(1) << f.s) - (uint64_t)d)) / (uint64_t)d + 1);
    return f;
}

int64_t ia_slice_source_bound(const ia_slice *q, int64_t elems)
{
    /* a window shorter than a row meets at most two copied intervals, and when it meets two it holds
     * the whole gap of row_out - row_src between them: either way at most min(rest, row_src) */
    if (q->row_out < 1) /* no rows: nothing is copied */
        return 0;
    int64_t rest = elems % q->row_out;
    return elems / q->row_out * q->row_src + (rest < q->row_src ? rest : q->row_src);
}

int64_t ia_slice_staged_elems(const ia_slice *q, int64_t chunks)
{
    /* [s_lo, s_hi) widened to [s_lo & ~7, ceil8(s_hi)): at most 7 more at each end, a multiple of 8 */
    return (ia_slice_source_bound(q, chunks * 8) + 7) / 8 * 8 + 8;
}

void ia_slice_stage_make(ia_slice *q)
{
    memset(&q->stage, 0, sizeof q->stage);
    if (q->vec != 8)
        return;
    /* the bound grows with the span: the longest span whose range always fits the buffer */
    int64_t c = IA_STAGED_MAX_CHUNKS * IA_STAGED_THREADS, w = q->row_out > 0 ? q->row_out : 1;
    while (c > 1 && ia_slice_staged_elems(q, c) > IA_STAGED_SHARED_ELEMS)
        c--;
    q->stage.span_max = c;
    q->stage.step_rows = 8 * IA_STAGED_THREADS / w;
    q->stage.step_cols = 8 * IA_STAGED_THREADS % w;
}

void ia_slice_stage_split(const ia_slice *q, int64_t resident, ia_slice_split *l)
{
    int64_t n = q->rows * q->row_out / 8, g = resident < 1 ? 1 : resident, cap = q->stage.span_max;
    int64_t steps = (n + g * cap - 1) / (g * cap);
    steps = steps < 1 ? 1 : steps;
    /* steps spans per block cover n with spans of ceil(n / (g * steps)) <= cap chunks */
    l->span_chunks = (n + g * steps - 1) / (g * steps);
    l->span_chunks = l->span_chunks < 1 ? 1 : l->span_chunks;
    l->spans = (n + l->span_chunks - 1) / l->span_chunks;
    l->grid = l->spans < g ? (l->spans < 1 ? 1 : l->spans) : g;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

int ia_aten_plan_make(const ea_tensor *self, const ea_tensor *index, const ea_tensor *source, int dim, int sm_count,
                      ia_aten_plan *p, ea_error *err)
{
    memset(p, 0, sizeof *p);
    if (sm_count < 1)
        return ea_fail(err, "index_add plan: expected a multiprocessor count >= 1, got %d", sm_count);
    /* index_add (functional) allocates result contiguous with self's sizes; the kernels see result */
    ea_tensor result = *self;
    int64_t st = 1;
    for (int d = self->ndim - 1; d >= 0; st *= self->sizes[d], d--)
        result.strides[d] = st;
    result.offset = 0;
    p->slice_size = 1;
    for (int d = 0; d < self->ndim; d++)
        if (d != dim)
            p->slice_size *= (uint64_t)self->sizes[d];
    p->total_size = (uint64_t)ea_tensor_numel(source);
    p->num_index = (uint64_t)ea_tensor_numel(index);
    p->dst_add_dim_size = (uint64_t)self->sizes[dim];
    p->dst_numel = (uint64_t)ea_tensor_numel(self);
    p->wide = !(can_use_32bit(&result) && can_use_32bit(source) && can_use_32bit(index));
    int ind_contig = ea_tensor_is_contiguous(index);
    p->dst = tinfo(&result);
    p->src = tinfo(source);
    p->idx = tinfo(index);
    if (p->idx.dims == 0) { /* a 0-d index is viewed as 1-d */
        p->idx.dims = 1;
        p->idx.sizes[0] = p->idx.strides[0] = 1;
    }
    p->dst_add_dim = collapse(&p->dst, dim);
    p->dst.sizes[p->dst_add_dim] = 1;
    p->src_add_dim = collapse(&p->src, dim);
    p->src.sizes[p->src_add_dim] = 1;
    collapse(&p->idx, -1);
    int same = p->dst.dims == p->src.dims && p->dst.dims <= 3 && ind_contig;
    p->small = !p->wide && p->num_index <= 16;
    p->dst_dims = p->src_dims = !p->wide && same ? p->dst.dims : -1;
    p->idx_dims = p->dst_dims == -1 ? -1 : -2;
    p->index_major = p->small || p->dst_dims == -1 || p->dst_dims == 1 || index_should_be_major(&p->dst, p->dst_add_dim);
    uint64_t cap = (uint64_t)sm_count * 8, work = p->small ? p->slice_size : p->total_size;
    p->grid = (unsigned)min_u64((work + ATEN_THREADS - 1) / ATEN_THREADS, cap);
    p->block = (unsigned)min_u64(work, ATEN_THREADS);
    p->inner_size = p->index_major ? p->slice_size : p->num_index;
    if (p->small)
        snprintf(p->name, sizeof p->name, "indexFuncSmallIndex<bf16,i64,u32,%d,%d,%d>", p->dst_dims, p->src_dims,
                 p->idx_dims);
    else
        snprintf(p->name, sizeof p->name, "indexFuncLargeIndex<bf16,i64,%s,%d,%d,%d,%s>", p->wide ? "u64" : "u32",
                 p->dst_dims, p->src_dims, p->idx_dims, p->index_major ? "true" : "false");
    return 0;
}

/* One pair (w, c) of the view overlaps: stride_w = k * stride_c with 0 < k < size_c; with the pair
 * folded into a row axis r = w*k + c of (size_w - 1)*k + size_c rows, the view must tile its range
 * densely. Then each output element sums the 1..ceil(size_c/k) windows covering its row. */
static int windows_make(const ia_index *ix, int64_t n_out, ia_windows *w, char *why, size_t n)
{
    int64_t sz[EA_MAX_DIMS], st[EA_MAX_DIMS], sst[EA_MAX_DIMS], run = 1;
    int nd = 0;
    for (int d = ix->ndim - 1; d >= 0; run *= ix->size[d], d--)
        if (ix->size[d] > 1) { /* size-1 dims move nothing */
            sz[nd] = ix->size[d];
            st[nd] = ix->stride[d];
            sst[nd++] = run;
        }
    memset(w, 0, sizeof *w);
    for (int a = 0; a < nd; a++)
        for (int c = 0; c < nd; c++) {
            if (a == c || st[c] <= 0 || st[a] <= st[c] || st[a] % st[c] || st[a] / st[c] >= sz[c])
                continue;
            /* fold: the remaining dims plus the row axis, ordered by output stride (innermost first) */
            int64_t fs[EA_MAX_DIMS], fst[EA_MAX_DIMS], fsst[EA_MAX_DIMS];
            int m = 0, r = -1;
            for (int d = 0; d < nd; d++) {
                if (d == a)
                    continue;
                fs[m] = d == c ? (sz[a] - 1) * (st[a] / st[c]) + sz[c] : sz[d];
                fst[m] = st[d];
                fsst[m] = d == c ? 0 : sst[d];
                if (d == c)
                    r = m;
                m++;
            }
            for (int i = 1; i < m; i++) /* insertion sort by stride, r followed */
                for (int j = i; j > 0 && fst[j - 1] > fst[j]; j--) {
                    int64_t t0 = fs[j], t1 = fst[j], t2 = fsst[j];
                    fs[j] = fs[j - 1], fst[j] = fst[j - 1], fsst[j] = fsst[j - 1];
                    fs[j - 1] = t0, fst[j - 1] = t1, fsst[j - 1] = t2;
                    r = r == j ? j - 1 : r == j - 1 ? j : r;
                }
            int64_t expect = 1;
            int dense = m <= IA_MAX_FOLD;
            for (int i = 0; i < m && dense; expect *= fs[i], i++)
                dense = fst[i] == expect;
            int64_t base = ix->start + ix->offset;
            if (!dense || ix->step != 1 || base < 0 || base + expect > n_out)
                continue;
            w->nd = m;
            w->r = r;
            for (int i = 0; i < m; i++) {
                w->size[i] = fs[i];
                w->sstride[i] = fsst[i];
            }
            w->nwin = sz[a];
            w->k = st[a] / st[c];
            w->csize = sz[c];
            w->sstride_w = sst[a];
            w->sstride_c = sst[c];
            w->base = base;
            w->total = expect;
            w->n_out = n_out;
            for (int i = 0; i < m; i++)
                w->div[i] = ia_fastdiv_make(fs[i]);
            w->div_k = ia_fastdiv_make(w->k);
            w->vec = r != 0 && fs[0] % 8 == 0 && fsst[0] == 1 && base % 8 == 0 && expect % 8 == 0 && n_out % 8 == 0 ? 8 : 1;
            return 0;
        }
    snprintf(why, n, "the as_strided index (size/stride of %d dims) has no single overlapping window pair "
             "that tiles its range densely with step 1", ix->ndim);
    return -1;
}

static int contiguous(const ea_tensor *t)
{
    return ea_tensor_is_contiguous(t) && t->offset == 0;
}

int ia_plan_make(const ia_scope *s, int sm_count, ia_plan *p, ea_error *err)
{
    memset(p, 0, sizeof *p);
    if (ia_aten_plan_make(&s->self, &s->index, &s->source, s->dim, sm_count, &p->aten, err))
        return -1;
    p->fold_scale = s->scaled && !s->scale_escapes;
    const double post = s->consumed ? s->consumer_scale : 1.0;
    p->oracle_scale = s->alpha * (p->fold_scale ? s->scale : 1.0) * post;
    p->oracle_fill = s->fill * post;
    const ea_tensor *in = p->fold_scale ? &s->x : &s->source;
    p->floor_bytes = ea_storage_bytes(in) + ea_storage_bytes(&s->out) + (s->self_const ? 0 : ea_storage_bytes(&s->self));
    ia_general *g = &p->general;
    g->outer = g->inner = 1;
    for (int d = 0; d < s->out.ndim; d++)
        *(d < s->dim ? &g->outer : &g->inner) *= d == s->dim ? 1 : s->out.sizes[d];
    g->L = s->source.sizes[s->dim];
    g->D = s->out.sizes[s->dim];
    g->n_src = ea_tensor_numel(&s->source);
    g->n_out = ea_tensor_numel(&s->out);
    g->div_inner = ia_fastdiv_make(g->inner);
    g->div_L = ia_fastdiv_make(g->L);
    p->general_ok = contiguous(&s->out) && contiguous(&s->self) && contiguous(in) && ea_tensor_is_contiguous(&s->index) &&
                    ea_tensor_equal(&s->out, &s->self);
    p->oracle = IA_ORACLE_GENERAL;
    char why[256] = "";
    if (!p->general_ok)
        snprintf(why, sizeof why, "out, self and source are not all contiguous with equal layouts: no oracle");
    else if (s->idx.kind == IA_INDEX_UNKNOWN || !s->self_const)
        snprintf(why, sizeof why, "general oracle only (%.200s)", s->note);
    else if (s->idx.kind == IA_INDEX_IOTA && s->idx.step == 1) {
        p->oracle = IA_ORACLE_SLICE;
        /* the default, vec8 at unroll 2, is what a launch that is not tuned runs; a run times all ten
         * ia_slice_variants (vec8 at 1, 2, 4, 8, vec8-cs at 1, 2, staged, vec8-shfl at 1, 2, 4) and keeps the fastest
         * that passed (on the H200, vec8-shfl at 2: golden/targets/H200-torch2.11.0+cu130/baselines.json) */
        p->slice = (ia_slice){g->outer, g->D * g->inner, g->L * g->inner, s->idx.start * g->inner, 1, 2,
                              ia_fastdiv_make(g->D * g->inner), 0, {0, 0, 0}, 0, 0};
        p->slice.vec = (g->n_out % 8 == 0 && g->n_src % 8 == 0) ? 8 : 1;
        ia_slice_stage_make(&p->slice);
    } else if (s->idx.kind == IA_INDEX_AS_STRIDED && g->outer == 1 && g->inner == 1) {
        if (windows_make(&s->idx, g->n_out, &p->win, why, sizeof why) == 0)
            p->oracle = IA_ORACLE_WINDOWS;
    } else {
        snprintf(why, sizeof why, "the index structure (%s, step %" PRId64 ", slices of %" PRId64 ") has no "
                 "structured oracle", s->idx.kind == IA_INDEX_IOTA ? "iota" : "as_strided", s->idx.step, g->inner);
    }
    if (why[0])
        snprintf(p->note, sizeof p->note, "%s", why);
    return 0;
}

/* The configuration block, with the plan it describes: family.c prints it for a plan, run.c heads a result
 * with it. */
static cJSON *launch_json(const char *kernel, int64_t grid, int64_t block)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kernel", kernel);
    cJSON_AddNumberToObject(o, "grid", (double)grid);
    cJSON_AddNumberToObject(o, "block", (double)block);
    return o;
}

static int64_t blocks(int64_t items, int64_t threads)
{
    return (items + threads - 1) / threads; /* the oracle kernels' one item per thread */
}

static cJSON *index_json(const ia_index *ix)
{
    cJSON *o = cJSON_CreateObject();
    static const char *const kinds[] = {"unknown", "iota", "as_strided_iota"};
    cJSON_AddStringToObject(o, "kind", kinds[ix->kind]);
    if (ix->kind == IA_INDEX_UNKNOWN)
        return o;
    cJSON_AddNumberToObject(o, "start", (double)ix->start);
    cJSON_AddNumberToObject(o, "step", (double)ix->step);
    cJSON_AddNumberToObject(o, "length", (double)ix->length);
    if (ix->kind == IA_INDEX_AS_STRIDED) {
        double sz[EA_MAX_DIMS], st[EA_MAX_DIMS];
        for (int d = 0; d < ix->ndim; d++)
            sz[d] = (double)ix->size[d], st[d] = (double)ix->stride[d];
        cJSON_AddItemToObject(o, "size", cJSON_CreateDoubleArray(sz, ix->ndim));
        cJSON_AddItemToObject(o, "stride", cJSON_CreateDoubleArray(st, ix->ndim));
        cJSON_AddNumberToObject(o, "offset", (double)ix->offset);
    }
    cJSON_AddNumberToObject(o, "max_multiplicity", ix->max_multiplicity);
    return o;
}

/* A captured consumer kernel's launch, with where it was captured. */
static cJSON *captured_json(const ia_consumer_step *c)
{
    char where[400];
    cJSON *k = launch_json(c->step->function, c->step->grid[0], c->step->block[0]);
    snprintf(where, sizeof where, "%s $.runs[%d].steps[%d]", c->cap->scope, c->run_index, c->step_index);
    cJSON_AddStringToObject(k, "captured", where);
    return k;
}

cJSON *ia_config_json(const ia_scope *s, const ia_plan *p, const ia_consumer_step *cs, const ia_consumer_step *tuned)
{
    static const char *const oracles[] = {"general", "slice", "windows"};
    char text[256];
    cJSON *o = cJSON_CreateObject(), *cur, *orc, *notes;
    cJSON_AddNumberToObject(o, "dim", s->dim);
    cJSON_AddNumberToObject(o, "alpha", s->alpha);
    ea_tensor_format(&s->out, text, sizeof text);
    cJSON_AddStringToObject(o, "out", text);
    ea_tensor_format(&s->source, text, sizeof text);
    cJSON_AddStringToObject(o, "source", text);
    if (s->self_const)
        cJSON_AddNumberToObject(o, "self_fill", s->fill);
    cJSON_AddItemToObject(o, "index", index_json(&s->idx));
    if (s->scaled) { /* mul(x, scale); escapes: materialized, every path reads it; else folded into the oracles */
        cJSON *pr = cJSON_AddObjectToObject(o, "producer");
        cJSON_AddNumberToObject(pr, "scale", s->scale);
        cJSON_AddBoolToObject(pr, "escapes", s->scale_escapes);
    }
    if (s->consumed) { /* the scope's output is the consumer's: out * scalar, over out's own elements */
        cJSON *co = cJSON_AddObjectToObject(o, "consumer");
        cJSON_AddStringToObject(co, "op", s->consumer_op);
        cJSON_AddNumberToObject(co, "by", s->consumer_by);
        cJSON_AddNumberToObject(co, "views", s->consumer_views);
        ea_tensor_format(&s->final, text, sizeof text);
        cJSON_AddStringToObject(co, "output", text);
    }
    cJSON_AddStringToObject(o, "current_source", "aten");
    cur = cJSON_AddArrayToObject(o, "current");
    if (s->self_const)
        cJSON_AddItemToArray(cur, launch_json("fill (full)", blocks(ea_tensor_numel(&s->out) / 8, 256), 256));
    cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemcpyAsync device-to-device (result.copy_(self))"));
    cJSON_AddItemToArray(cur, launch_json(p->aten.name, p->aten.grid, p->aten.block));
    if (cs && cs->step) { /* Inductor's kernel for the consumer, as captured; the tuned run's after the same replica */
        cJSON_AddItemToArray(cur, captured_json(cs));
        if (tuned && tuned->step) /* the launches that differ from current's: the replica's are the same */
            cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "current_tuned"), captured_json(tuned));
    } else if (s->consumed) {
        snprintf(text, sizeof text, "%s: Inductor's kernel not captured for this target", s->consumer_op);
        cJSON_AddItemToArray(cur, cJSON_CreateString(text));
    }
    orc = cJSON_AddObjectToObject(o, "oracle");
    cJSON_AddStringToObject(orc, "kind", p->general_ok ? oracles[p->oracle] : "none");
    if (p->oracle == IA_ORACLE_SLICE) { /* the grid depends on the variant the run picks */
        cJSON_AddStringToObject(orc, "kernel", p->slice.vec == 8 ? "ia_oracle_slice_vec8<unroll, fast, streaming>, "
                                                                   "ia_oracle_slice_shfl<fast> or ia_oracle_slice_staged"
                                                                 : "ia_oracle_slice_scalar");
        if (p->slice.vec == 8) {
            cJSON *vs = cJSON_AddArrayToObject(orc, "variants"); /* the run times each, keeps the best */
            for (int v = 0; v < IA_SLICE_VARIANTS; v++) {
                cJSON *one = cJSON_CreateObject();
                ia_slice_variant_json(one, v);
                cJSON_AddItemToArray(vs, one);
            }
            cJSON *st = cJSON_AddObjectToObject(orc, "staged");
            cJSON_AddNumberToObject(st, "block", IA_STAGED_THREADS);
            cJSON_AddNumberToObject(st, "shared_bytes", IA_STAGED_SHARED_ELEMS * 2);
            cJSON_AddNumberToObject(st, "span_chunks_max", (double)p->slice.stage.span_max);
            cJSON_AddNumberToObject(st, "span_source_elems_max",
                                    (double)ia_slice_source_bound(&p->slice, p->slice.stage.span_max * 8));
            cJSON_AddStringToObject(st, "grid", "index_add_staged_grid"); /* an id: prose.c */
        }
    }
    if (p->oracle == IA_ORACLE_WINDOWS) {
        cJSON_AddItemToObject(orc, "launch", launch_json("ia_oracle_windows_kernel", blocks(p->win.n_out / p->win.vec, 128), 128));
        cJSON_AddNumberToObject(orc, "windows", (double)p->win.nwin);
        cJSON_AddNumberToObject(orc, "window_step_rows", (double)p->win.k);
        cJSON_AddNumberToObject(orc, "window_rows", (double)p->win.csize);
    }
    if (p->oracle != IA_ORACLE_GENERAL)
        cJSON_AddNumberToObject(orc, "vector_elements", p->oracle == IA_ORACLE_SLICE ? p->slice.vec : p->win.vec);
    cJSON_AddNumberToObject(o, "floor_bytes", (double)p->floor_bytes);
    cJSON_AddNumberToObject(o, "floor_written_bytes", (double)ea_storage_bytes(&s->out));
    notes = cJSON_AddArrayToObject(o, "notes");
    /* note ids (prose.c) for what s->note and p->note say in sentences */
    if (s->idx.kind == IA_INDEX_UNKNOWN)
        cJSON_AddItemToArray(notes, cJSON_CreateString("index_add_index_unknown"));
    if (!s->self_const)
        cJSON_AddItemToArray(notes, cJSON_CreateString("index_add_self_generated"));
    if (!p->general_ok)
        cJSON_AddItemToArray(notes, cJSON_CreateString("index_add_no_oracle"));
    else if (p->oracle == IA_ORACLE_GENERAL && s->idx.kind != IA_INDEX_UNKNOWN && s->self_const)
        cJSON_AddItemToArray(notes, cJSON_CreateString("index_add_no_structured_oracle"));
    return o;
}
