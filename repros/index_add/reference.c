/* reference.c: inputs, the fp64 reference and exact CPU emulations of the index_add scope.
 * - ia_inputs_make generates every input with src/target/gen.c (docs/reference/schema.md generators): the source (or
 *   the mul's input x, then source = bf16(x * scale) as the graph's mul rounds it) uniform with seed
 *   IA_SEED_SOURCE, the faithful index rebuilt exactly from its value properties, the fabricated index
 *   from randint(0, 100) with seed IA_SEED_FABRICATED, as the attribution pipeline's replay draws it.
 * - ia_reference is the whole scope in fp64 (self + alpha * sum of scale * x, times the consumer's scalar when
 *   the scope holds one), over out's row-major elements. ia_emulate_current rounds to bf16 after every add in
 *   source order, as ATen's bf16 atomics do (in some order), then applies the consumer as Inductor's kernel
 *   does; ia_emulate_oracle reproduces the structured oracle bit for bit (fp32 sums in
 *   window order, one rounding), so a GPU result can be compared exactly.
 * - ia_compare measures relative L2 error against the reference, counts elements still holding the
 *   0xFF poison (never written), elements written as NaN or infinity (these scopes have finite inputs,
 *   so any other NaN is a wrong result, and it would make the L2 error NaN, which no bound catches
 *   with '>') and, given an exact emulation, elements that differ from it.
 * - ia_index_check rebuilds the multiplicity histogram, range and coverage of an index and compares
 *   them with the golden properties; a difference is an error naming the first field that differs. */
#include "reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/gen.h"
#include "reference_impl.h"

float ia_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

const uint16_t *ia_oracle_input(const ia_plan *p, const ia_inputs *in)
{
    return p->fold_scale ? in->x : in->source;
}

static int fill(cJSON *g, const ea_tensor *t, void *buf, const char *what, ea_error *err)
{
    char where[128];
    snprintf(where, sizeof where, "index_add %s", what);
    int rc = ea_gen_fill(g, t, buf, where, err);
    cJSON_Delete(g);
    return rc;
}

static void *alloc_for(const ea_tensor *t, const char *what, ea_error *err)
{
    int64_t bytes = ea_storage_bytes(t);
    void *p = bytes > 0 ? malloc((size_t)bytes) : NULL;
    if (!p)
        ea_fail(err, "index_add %s: cannot allocate %" PRId64 " bytes of host memory", what, bytes);
    return p;
}

static cJSON *uniform(int seed)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "generator", "uniform");
    cJSON_AddNumberToObject(g, "seed", seed);
    return g;
}

int ia_inputs_make(const ia_scope *s, int fabricated, ia_inputs *in, ea_error *err)
{
    memset(in, 0, sizeof *in);
    const ea_tensor *gen = s->scaled ? &s->x : &s->source;
    if (s->scaled && !(ea_tensor_is_contiguous(&s->x) && ea_tensor_is_contiguous(&s->source)))
        return ea_fail(err, "%s %s: the producer mul's input and output must be contiguous", s->file, s->path);
    if (!(in->x = alloc_for(gen, "source", err)) || fill(uniform(IA_SEED_SOURCE), gen, in->x, "source", err))
        goto fail;
    in->source = in->x;
    if (s->scaled) { /* the graph's mul(x, scale) on bf16: fp32 multiply, rounded to bf16 */
        int64_t n = ea_tensor_numel(&s->source);
        if (!(in->source = alloc_for(&s->source, "scaled source", err)))
            goto fail;
        for (int64_t i = 0; i < n; i++)
            in->source[i] = ea_f32_to_bf16(ia_bf16_to_f32(in->x[i]) * (float)s->scale);
    }
    if (!s->self_const && (!(in->self = alloc_for(&s->self, "self", err)) ||
                           fill(uniform(IA_SEED_SELF), &s->self, in->self, "self", err)))
        goto fail;
    cJSON *g = ia_index_generator(s, 0);
    if (g && (!(in->index = alloc_for(&s->index, "index", err)) || fill(g, &s->index, in->index, "index", err)))
        goto fail;
    if (fabricated && (!(in->fabricated = alloc_for(&s->index, "fabricated index", err)) ||
                       fill(ia_index_generator(s, 1), &s->index, in->fabricated, "fabricated index", err)))
        goto fail;
    return 0;
fail:
    ia_inputs_free(in);
    return -1;
}

void ia_inputs_free(ia_inputs *in)
{
    if (in->source != in->x)
        free(in->source);
    free(in->x);
    free(in->self);
    free(in->index);
    free(in->fabricated);
    memset(in, 0, sizeof *in);
}

int ia_index_check(const ia_scope *s, const int64_t *index, ea_error *err)
{
    const ia_index *ix = &s->idx;
    int64_t n = ea_tensor_numel(&s->index), len = ix->kind == IA_INDEX_IOTA ? ix->length : ix->of;
    if (ix->kind == IA_INDEX_UNKNOWN || len <= 0 || ix->step == 0)
        return ea_fail(err, "%s %s: no index properties to check against", s->file, s->path);
    unsigned char *mult = calloc((size_t)len, 1);
    int64_t hist[EA_MULT_BUCKETS] = {0}, mn = INT64_MAX, mx = INT64_MIN, distinct = 0;
    if (!mult)
        return ea_fail(err, "index_add index check: cannot allocate %" PRId64 " bytes", len);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = index[i], pos = (v - ix->start) / ix->step;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        if (pos >= 0 && pos < len && mult[pos] < EA_MULT_BUCKETS - 1)
            distinct += mult[pos]++ == 0;
    }
    for (int64_t pos = 0; pos < len; pos++)
        hist[mult[pos]]++;
    free(mult);
    const char *field = mn != ix->min ? "min" : mx != ix->max ? "max" : distinct != ix->distinct ? "distinct"
                        : len - hist[0] != ix->covered ? "coverage.covered" : NULL;
    for (int m = 1; !field && m < EA_MULT_BUCKETS; m++)
        if (hist[m] != ix->hist[m])
            field = "multiplicity_histogram";
    if (field)
        return ea_fail(err, "%s %s: the rebuilt index differs from the golden value properties at %s (min %" PRId64
                       ", max %" PRId64 ", distinct %" PRId64 ", covered %" PRId64 ")", s->file, s->path, field, mn,
                       mx, distinct, len - hist[0]);
    return 0;
}

/* Calls fn(ctx, source element (row-major), out element (row-major)) for every source element in
 * row-major order, the dim coordinate mapped through index. Source and out are contiguous here. */
typedef void (*pair_fn)(void *ctx, int64_t src, int64_t dst);

static void for_each_pair(const ia_scope *s, const int64_t *index, pair_fn fn, void *ctx)
{
    int64_t outer = 1, inner = 1, L = s->source.sizes[s->dim], D = s->out.sizes[s->dim];
    for (int d = 0; d < s->out.ndim; d++)
        *(d < s->dim ? &outer : &inner) *= d == s->dim ? 1 : s->out.sizes[d];
    for (int64_t o = 0, src = 0; o < outer; o++)
        for (int64_t l = 0; l < L; l++)
            for (int64_t i = 0; i < inner; i++, src++)
                fn(ctx, src, (o * D + index[l]) * inner + i);
}

typedef struct {
    const ia_scope *s;
    const ia_inputs *in;
    int fold;
    double *ref;
    uint16_t *bf;
} acc_ctx;

static void add_fp64(void *vctx, int64_t src, int64_t dst)
{
    acc_ctx *c = vctx;
    double v = c->fold ? (double)ia_bf16_to_f32(c->in->x[src]) * c->s->scale : ia_bf16_to_f32(c->in->source[src]);
    c->ref[dst] += c->s->alpha * v;
}

static void add_bf16(void *vctx, int64_t src, int64_t dst)
{
    acc_ctx *c = vctx;
    /* ATen: val = src * alpha in bf16, then atomicAdd: fp32 add of the two, rounded to bf16 */
    float alpha = ia_bf16_to_f32(ea_f32_to_bf16((float)c->s->alpha));
    float v = ia_bf16_to_f32(ea_f32_to_bf16(ia_bf16_to_f32(c->in->source[src]) * alpha));
    c->bf[dst] = ea_f32_to_bf16(ia_bf16_to_f32(c->bf[dst]) + v);
}

static int contiguous_run(const ia_scope *s, ea_error *err)
{
    if (!ea_tensor_is_contiguous(&s->out) || !ea_tensor_is_contiguous(&s->source) ||
        (!s->self_const && !ea_tensor_is_contiguous(&s->self)))
        return ea_fail(err, "%s %s: the reference handles contiguous self, out and source only", s->file, s->path);
    return 0;
}

int ia_reference(const ia_scope *s, const ia_plan *p, const ia_inputs *in, const int64_t *index, double **ref,
                 ea_error *err)
{
    int64_t n = ea_tensor_numel(&s->out);
    if (contiguous_run(s, err))
        return -1;
    if (!index)
        return ea_fail(err, "%s %s: no index to compute the reference with", s->file, s->path);
    if (!(*ref = malloc(sizeof **ref * (size_t)(n ? n : 1))))
        return ea_fail(err, "index_add reference: cannot allocate %" PRId64 " doubles", n);
    for (int64_t i = 0; i < n; i++)
        (*ref)[i] = s->self_const ? s->fill : ia_bf16_to_f32(in->self[i]);
    acc_ctx c = {s, in, p->fold_scale, *ref, NULL};
    for_each_pair(s, index, add_fp64, &c);
    for (int64_t i = 0; s->consumed && i < n; i++)
        (*ref)[i] *= s->consumer_scale;
    return 0;
}

void ia_emulate_current(const ia_scope *s, const ia_inputs *in, const int64_t *index, uint16_t *out)
{
    int64_t n = ea_tensor_numel(&s->out);
    for (int64_t i = 0; i < n; i++) /* the fill, then result.copy_(self) */
        out[i] = s->self_const ? ea_f32_to_bf16((float)s->fill) : in->self[i];
    acc_ctx c = {s, in, 0, NULL, out};
    for_each_pair(s, index, add_bf16, &c);
    for (int64_t i = 0; s->consumed && i < n; i++) /* Inductor's kernel: fp32 multiply by the scalar, rounded */
        out[i] = ea_f32_to_bf16(ia_bf16_to_f32(out[i]) * (float)s->consumer_scale);
}

/* The oracles' arithmetic, shared by the kernels: acc starts at fill, adds scale * x in fp32, one rounding. */
static float term(const uint16_t *x, int64_t i, float scale)
{
    return ia_bf16_to_f32(x[i]) * scale;
}

int ia_emulate_oracle(const ia_scope *s, const ia_plan *p, const ia_inputs *in, uint16_t *out)
{
    const float fillv = (float)p->oracle_fill, scale = (float)p->oracle_scale;
    const uint16_t *x = ia_oracle_input(p, in);
    if (p->oracle == IA_ORACLE_SLICE) {
        const ia_slice *q = &p->slice;
        for (int64_t r = 0; r < q->rows; r++)
            for (int64_t c = 0; c < q->row_out; c++) {
                float acc = fillv;
                if (c >= q->col0 && c < q->col0 + q->row_src)
                    acc += term(x, r * q->row_src + c - q->col0, scale);
                out[r * q->row_out + c] = ea_f32_to_bf16(acc);
            }
        return 0;
    }
    if (p->oracle != IA_ORACLE_WINDOWS)
        return -1;
    const ia_windows *w = &p->win;
    for (int64_t e = 0; e < w->n_out; e++)
        out[e] = ea_f32_to_bf16(fillv);
    for (int64_t pos = 0; pos < w->total; pos++) {
        int64_t q = pos, base = 0, row = 0;
        for (int d = 0; d < w->nd; d++) {
            int64_t c = q % w->size[d];
            q /= w->size[d];
            if (d == w->r)
                row = c;
            else
                base += c * w->sstride[d];
        }
        int64_t lo = row >= w->csize ? (row - w->csize) / w->k + 1 : 0, hi = row / w->k;
        float acc = fillv;
        for (int64_t win = lo; win <= hi && win < w->nwin; win++)
            acc += term(x, base + win * w->sstride_w + (row - win * w->k) * w->sstride_c, scale);
        out[w->base + pos] = ea_f32_to_bf16(acc);
    }
    return 0;
}

void ia_compare(const uint16_t *out, const double *ref, const uint16_t *exact, int64_t n, ea_check *c)
{
    double num = 0, den = 0;
    memset(c, 0, sizeof *c);
    c->n = n;
    for (int64_t i = 0; i < n; i++) {
        if (out[i] == IA_POISON) {
            c->unwritten++;
            continue;
        }
        if (!isfinite(ia_bf16_to_f32(out[i]))) {
            c->nonfinite++;
            c->mismatched += exact && exact[i] != out[i];
            continue;
        }
        double d = (double)ia_bf16_to_f32(out[i]) - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
        c->max_abs = fabs(d) > c->max_abs || isnan(d) ? fabs(d) : c->max_abs;
        c->mismatched += exact && exact[i] != out[i];
    }
    c->rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
}

int ia_contract_check(const ia_scope *s, char *why, size_t n)
{
    ea_tensor t = s->out;
    int64_t st = 1;
    for (int d = t.ndim - 1; d >= 0; st *= t.sizes[d], d--)
        t.strides[d] = st;
    t.offset = 0;
    t.dtype = EA_BF16;
    if (ea_tensor_equal(&t, &s->out))
        return 0;
    char want[256], got[256];
    ea_tensor_format(&s->out, want, sizeof want);
    ea_tensor_format(&t, got, sizeof got);
    snprintf(why, n, "output contract: expected %s (offset %" PRId64 "), the paths write %s", want, s->out.offset, got);
    return -1;
}
