#include "target/gen.h"
#include "target/gen_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

uint64_t ea_splitmix64(uint64_t x)
{
    uint64_t z = x + GOLDEN_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t ea_gen_hash(uint64_t seed, uint64_t i)
{
    return ea_splitmix64((seed << 40) ^ i);
}

float ea_gen_uniform(uint64_t seed, uint64_t i)
{
    /* 23 random bits: every value in [0.5, 1.5) is exact in f32, so torch and C agree bit for bit */
    return 0.5f + (float)(ea_gen_hash(seed, i) >> 41) * 0x1p-23f;
}

uint16_t ea_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

uint16_t ea_f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    if (mag >= 0x7f800000u)
        return (uint16_t)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));
    if (mag >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7c00u);
    if (mag < 0x38800000u) { /* subnormal half: scale into the 10-bit field, round to nearest even */
        float a;
        memcpy(&a, &mag, sizeof a);
        return (uint16_t)(sign | (uint32_t)nearbyintf(a * 0x1p24f));
    }
    uint32_t h = ((mag - 0x38000000u) >> 13);
    uint32_t rest = mag & 0x1fffu;
    h += rest > 0x1000u || (rest == 0x1000u && (h & 1u));
    return (uint16_t)(sign | h);
}

int64_t ea_storage_bytes(const ea_tensor *t)
{
    int64_t extent = ea_tensor_extent(t);
    return extent < 0 ? -1 : extent * ea_dtype_size(t->dtype);
}

/* Row-major walk by runs: fn(ctx, i, at, len, step) for logical elements i .. i + len - 1, which sit at
 * storage elements at, at + step, ... A run spans the trailing dimensions that lie evenly spaced in storage
 * (a contiguous tensor is one run), so the per-element work is a tight loop rather than a call each. */
typedef void (*visit_fn)(void *ctx, int64_t i, int64_t at, int64_t len, int64_t step);

static void visit(const ea_tensor *t, visit_fn fn, void *ctx)
{
    int64_t n = ea_tensor_numel(t), idx[EA_MAX_DIMS] = {0}, at = t->offset, len = 1, step = 1;
    int outer = t->ndim; /* dimensions 0 .. outer-1 are walked one index at a time */
    if (n <= 0)
        return;
    if (outer > 0) {
        step = t->strides[--outer], len = t->sizes[outer];
        while (outer > 0 && t->strides[outer - 1] == len * step)
            len *= t->sizes[--outer];
    }
    for (int64_t i = 0; i < n; i += len) {
        fn(ctx, i, at, len, step);
        for (int d = outer - 1; d >= 0; d--) {
            at += t->strides[d];
            if (++idx[d] < t->sizes[d])
                break;
            at -= t->sizes[d] * t->strides[d];
            idx[d] = 0;
        }
    }
}

typedef struct {
    const ea_tensor *t;
    unsigned char *storage;
    int size; /* bytes of an element */
    int kind; /* generator */
    uint64_t seed;
    int64_t lo, span;
    double constant;
    const int64_t *values; /* precomputed per logical element (iota, as_strided_iota, topk_ids) */
} fill_ctx;

enum { G_UNIFORM, G_RANDINT, G_BOOL, G_CONSTANT, G_TABLE };

static inline void store(const fill_ctx *c, ea_dtype dt, int64_t at, double v, int64_t iv, int is_int)
{
    unsigned char *p = c->storage + at * c->size;
    switch (dt) {
    case EA_BF16: { uint16_t b = ea_f32_to_bf16((float)v); memcpy(p, &b, 2); break; }
    case EA_F16: { uint16_t b = ea_f32_to_f16((float)v); memcpy(p, &b, 2); break; }
    case EA_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case EA_F64: memcpy(p, &v, 8); break;
    case EA_I64: case EA_U64: { int64_t x = is_int ? iv : (int64_t)v; memcpy(p, &x, 8); break; }
    case EA_I32: { int32_t x = (int32_t)(is_int ? iv : (int64_t)v); memcpy(p, &x, 4); break; }
    case EA_I16: { int16_t x = (int16_t)(is_int ? iv : (int64_t)v); memcpy(p, &x, 2); break; }
    case EA_I8: case EA_U8: case EA_B8: *p = (unsigned char)(is_int ? iv : (int64_t)v); break;
    default: break;
    }
}

static inline void fill_one(const fill_ctx *c, int kind, ea_dtype dt, int64_t i, int64_t at)
{
    switch (kind) {
    case G_UNIFORM: store(c, dt, at, ea_gen_uniform(c->seed, (uint64_t)i), 0, 0); break;
    case G_RANDINT:
        store(c, dt, at, 0, c->lo + (int64_t)((ea_gen_hash(c->seed, (uint64_t)i) >> 1) % (uint64_t)c->span), 1);
        break;
    case G_BOOL: store(c, dt, at, 0, (int64_t)(ea_gen_hash(c->seed, (uint64_t)i) >> 63), 1); break;
    case G_CONSTANT: store(c, dt, at, c->constant, (int64_t)c->constant, ea_dtype_is_float(dt) == 0); break;
    default: store(c, dt, at, 0, c->values[i], 1); break;
    }
}

/* A run's elements, kind and dt constants where inlined (fill_run), so the loop holds neither switch. */
static inline __attribute__((always_inline)) void fill_elems(const fill_ctx *c, int kind, ea_dtype dt, int64_t i,
                                                            int64_t at, int64_t len, int64_t step)
{
    for (int64_t k = 0; k < len; k++)
        fill_one(c, kind, dt, i + k, at + k * step);
}

/* The uniform floats, which are most of what the suite and a run generate (the cat family's inputs: about
 * 7 * 10^8 elements a suite run), get a loop of their own. */
static void fill_run(void *vctx, int64_t i, int64_t at, int64_t len, int64_t step)
{
    const fill_ctx *c = vctx;
    if (c->kind == G_UNIFORM && c->t->dtype == EA_BF16)
        fill_elems(c, G_UNIFORM, EA_BF16, i, at, len, step);
    else if (c->kind == G_UNIFORM && c->t->dtype == EA_F16)
        fill_elems(c, G_UNIFORM, EA_F16, i, at, len, step);
    else if (c->kind == G_UNIFORM && c->t->dtype == EA_F32)
        fill_elems(c, G_UNIFORM, EA_F32, i, at, len, step);
    else
        fill_elems(c, c->kind, c->t->dtype, i, at, len, step);
}

static int num(const cJSON *g, const char *key, double *out, const char *where, ea_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, key);
    if (!cJSON_IsNumber(v))
        return ea_fail(err, "%s: generator needs a number \"%s\"", where, key);
    *out = v->valuedouble;
    return 0;
}

/* Values of an as_strided view of an iota, row-major over the view's size. */
static int as_strided_values(const cJSON *g, int64_t n, int64_t *out, const char *where, ea_error *err)
{
    const cJSON *iota = cJSON_GetObjectItem(g, "iota"), *size = cJSON_GetObjectItem(g, "size");
    const cJSON *stride = cJSON_GetObjectItem(g, "stride");
    double start = 0, step = 0, offset = 0;
    int nd = cJSON_GetArraySize(size);
    if (num(iota, "start", &start, where, err) || num(iota, "step", &step, where, err) ||
        num(g, "offset", &offset, where, err))
        return -1;
    ea_tensor view = {.dtype = EA_I64, .ndim = nd, .offset = (int64_t)offset};
    if (nd < 1 || nd > EA_MAX_DIMS || cJSON_GetArraySize(stride) != nd)
        return ea_fail(err, "%s: as_strided_iota needs size and stride of equal length (1..%d)", where, EA_MAX_DIMS);
    for (int d = 0; d < nd; d++) {
        view.sizes[d] = (int64_t)cJSON_GetArrayItem(size, d)->valuedouble;
        view.strides[d] = (int64_t)cJSON_GetArrayItem(stride, d)->valuedouble;
    }
    if (ea_tensor_numel(&view) != n)
        return ea_fail(err, "%s: as_strided_iota has %" PRId64 " values, the tensor %" PRId64, where,
                       ea_tensor_numel(&view), n);
    int64_t idx[EA_MAX_DIMS] = {0}, pos = view.offset;
    for (int64_t i = 0; i < n; i++) {
        out[i] = (int64_t)start + (int64_t)step * pos;
        for (int d = nd - 1; d >= 0; d--) {
            pos += view.strides[d];
            if (++idx[d] < view.sizes[d])
                break;
            pos -= view.sizes[d] * view.strides[d];
            idx[d] = 0;
        }
    }
    return 0;
}

/* seed, experts and k (the tensor's second dim) of a top-k id generator. */
static int topk_args(const cJSON *g, const ea_tensor *t, uint64_t *seed, int64_t *E, int64_t *k, const char *where,
                     ea_error *err)
{
    double s = 0, experts = 0;
    if (num(g, "seed", &s, where, err) || num(g, "experts", &experts, where, err))
        return -1;
    *seed = (uint64_t)s;
    *E = (int64_t)experts;
    *k = t->ndim == 2 ? t->sizes[1] : 0;
    return 0;
}

/* One Fisher-Yates step: position j takes a hash-chosen element of perm[j..E). */
static int64_t shuffle_step(int64_t *perm, int64_t j, int64_t E, uint64_t h)
{
    int64_t r = j + (int64_t)(h % (uint64_t)(E - j)), tmp = perm[j];
    perm[j] = perm[r];
    perm[r] = tmp;
    return perm[j];
}

/* Per token, a partial Fisher-Yates shuffle of 0..E-1: k distinct experts. */
static int topk_values(const cJSON *g, const ea_tensor *t, int64_t *out, const char *where, ea_error *err)
{
    uint64_t seed;
    int64_t E, k;
    if (topk_args(g, t, &seed, &E, &k, where, err))
        return -1;
    if (k < 1 || k > E || E > 4096)
        return ea_fail(err, "%s: topk_ids needs a [tokens, k] tensor with 1 <= k <= experts <= 4096", where);
    int64_t perm[4096];
    for (int64_t tok = 0; tok < t->sizes[0]; tok++) {
        for (int64_t e = 0; e < E; e++)
            perm[e] = e;
        for (int64_t j = 0; j < k; j++)
            out[tok * k + j] = shuffle_step(perm, j, E, ea_gen_hash(seed, (uint64_t)(tok * E + j)));
    }
    return 0;
}

/* topk_ids_skewed (docs/reference/schema.md): per-expert integer weights from a seeded rank shuffle (rank r weighs
 * 2^20 / (3r + 2), the last E / 8 ranks 0), then per token k draws without replacement, each the first
 * expert by id whose running weight sum exceeds h % (remaining total). */
static int topk_skewed_values(const cJSON *g, const ea_tensor *t, int64_t *out, const char *where, ea_error *err)
{
    uint64_t s;
    int64_t E, k;
    if (topk_args(g, t, &s, &E, &k, where, err))
        return -1;
    if (E < 1 || E > 4096 || k < 1 || k > E - E / 8)
        return ea_fail(err, "%s: topk_ids_skewed needs a [tokens, k] tensor with 1 <= k <= experts - experts / 8, "
                       "experts <= 4096", where);
    uint64_t base[4096], w[4096];
    int64_t perm[4096];
    for (int64_t e = 0; e < E; e++)
        perm[e] = e;
    for (int64_t j = 0; j + 1 < E; j++)
        shuffle_step(perm, j, E, ea_splitmix64(ea_gen_hash(s, (uint64_t)j)));
    for (int64_t r = 0; r < E; r++)
        base[perm[r]] = r < E - E / 8 ? (UINT64_C(1) << 20) / (uint64_t)(3 * r + 2) : 0;
    for (int64_t tok = 0; tok < t->sizes[0]; tok++) {
        memcpy(w, base, sizeof *w * (size_t)E);
        for (int64_t j = 0; j < k; j++) {
            uint64_t total = 0;
            for (int64_t e = 0; e < E; e++)
                total += w[e];
            uint64_t x = ea_gen_hash(s, (uint64_t)(tok * E + j)) % total;
            int64_t e = 0;
            while (x >= w[e])
                x -= w[e++];
            out[tok * k + j] = e;
            w[e] = 0;
        }
    }
    return 0;
}

int ea_gen_fill(const cJSON *g, const ea_tensor *t, void *storage, const char *where, ea_error *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "generator");
    if (!cJSON_IsString(name))
        return ea_fail(err, "%s: expected a generator object {\"generator\": ...}", where);
    if (t->symbolic)
        return ea_fail(err, "%s: cannot generate a symbolic-shape tensor", where);
    const char *n = name->valuestring;
    fill_ctx c = {t, storage, ea_dtype_size(t->dtype), 0, 0, 0, 0, 0, NULL};
    double seed = 0, lo = 0, hi = 0;
    int64_t numel = ea_tensor_numel(t);
    int64_t *table = NULL;
    int rc = 0;
    memset(storage, 0, (size_t)ea_storage_bytes(t));
    if (!strcmp(n, "uniform") || !strcmp(n, "bool")) {
        c.kind = n[0] == 'u' ? G_UNIFORM : G_BOOL;
        rc = num(g, "seed", &seed, where, err);
    } else if (!strcmp(n, "randint")) {
        c.kind = G_RANDINT;
        rc = num(g, "seed", &seed, where, err) || num(g, "low", &lo, where, err) || num(g, "high", &hi, where, err);
        if (rc == 0 && hi <= lo)
            rc = ea_fail(err, "%s: randint needs low < high, got [%g, %g)", where, lo, hi);
    } else if (!strcmp(n, "constant")) {
        c.kind = G_CONSTANT;
        rc = num(g, "value", &c.constant, where, err);
    } else if (!strcmp(n, "iota") || !strcmp(n, "as_strided_iota") || !strcmp(n, "topk_ids") ||
               !strcmp(n, "topk_ids_skewed")) {
        c.kind = G_TABLE;
        table = malloc(sizeof *table * (size_t)(numel ? numel : 1));
        if (!table)
            return ea_fail(err, "%s: out of memory for %" PRId64 " values", where, numel);
        if (n[0] == 'i') {
            double start = 0, step = 0;
            rc = num(g, "start", &start, where, err) || num(g, "step", &step, where, err);
            for (int64_t i = 0; rc == 0 && i < numel; i++)
                table[i] = (int64_t)start + (int64_t)step * i;
        } else {
            rc = n[0] == 'a'                      ? as_strided_values(g, numel, table, where, err)
                 : !strcmp(n, "topk_ids_skewed") ? topk_skewed_values(g, t, table, where, err)
                                                  : topk_values(g, t, table, where, err);
        }
    } else {
        return ea_fail(err, "%s: unknown generator \"%s\" (expected uniform, randint, bool, constant, iota, "
                       "as_strided_iota, topk_ids or topk_ids_skewed)", where, n);
    }
    if (rc == 0) {
        c.seed = (uint64_t)seed;
        c.lo = (int64_t)lo;
        c.span = (int64_t)(hi - lo);
        c.values = table;
        visit(t, fill_run, &c);
    }
    free(table);
    return rc ? -1 : 0;
}

typedef struct {
    const unsigned char *storage;
    int size;
    uint64_t sum;
} sum_ctx;

/* An element's bytes, zero-extended (little-endian); the switch sits outside sum_elems's loop once inlined. */
static inline uint64_t bits_of(const unsigned char *p, int size)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (size) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    default: memcpy(&b8, p, 8); return b8;
    }
}

/* A run's sum, size a constant where inlined (sum_run), so the loop holds no switch. */
static inline __attribute__((always_inline)) uint64_t sum_elems(const unsigned char *p, int64_t i, int64_t len,
                                                               int64_t stride, const int size)
{
    uint64_t sum = 0;
    for (int64_t k = 0; k < len; k++, p += stride)
        sum += ea_splitmix64(bits_of(p, size) + (uint64_t)(i + k) * GOLDEN_GAMMA);
    return sum;
}

static void sum_run(void *vctx, int64_t i, int64_t at, int64_t len, int64_t step)
{
    sum_ctx *c = vctx;
    const unsigned char *p = c->storage + at * c->size;
    const int64_t stride = step * c->size;
    switch (c->size) {
    case 1: c->sum += sum_elems(p, i, len, stride, 1); break;
    case 2: c->sum += sum_elems(p, i, len, stride, 2); break;
    case 4: c->sum += sum_elems(p, i, len, stride, 4); break;
    default: c->sum += sum_elems(p, i, len, stride, 8); break;
    }
}

static double f16_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return h & 0x8000u ? -v : v;
}

static double float_at(const unsigned char *p, ea_dtype d)
{
    uint16_t h;
    uint32_t u;
    float f;
    double x;
    switch (d) {
    case EA_BF16:
        memcpy(&h, p, 2);
        u = (uint32_t)h << 16;
        memcpy(&f, &u, 4);
        return f;
    case EA_F16: memcpy(&h, p, 2); return f16_value(h);
    case EA_F32: memcpy(&f, p, 4); return f;
    case EA_F64: memcpy(&x, p, 8); return x;
    default: return NAN;
    }
}

double ea_sampled_rel_l2(const ea_tensor *t, const void *storage, int64_t stride, const double *ref, int64_t n)
{
    const unsigned char *base = storage;
    int size = ea_dtype_size(t->dtype);
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = i * stride, at = t->offset;
        for (int d = t->ndim - 1; d >= 0; d--) { /* row-major index k -> storage element */
            at += (k % t->sizes[d]) * t->strides[d];
            k /= t->sizes[d];
        }
        double x = float_at(base + at * size, t->dtype);
        if (!isfinite(x))
            return NAN;
        num += (x - ref[i]) * (x - ref[i]);
        den += ref[i] * ref[i];
    }
    return sqrt(num) / fmax(sqrt(den), 1e-30);
}

uint64_t ea_checksum(const ea_tensor *t, const void *storage)
{
    sum_ctx c = {storage, ea_dtype_size(t->dtype), 0};
    visit(t, sum_run, &c);
    return c.sum;
}
