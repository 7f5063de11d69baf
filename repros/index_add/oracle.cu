/* oracle.cu: the whole-scope oracles for the bf16 index_add scopes other than the slice (oracle_slice.cu).
 * - windows (an overlapping as_strided index, Longformer): the gather form. Each 16-byte output chunk
 *   decodes its coordinates over the folded dims, sums the 1..3 windows covering its row in fp32 in
 *   window order and rounds once: deterministic, reads no index tensor.
 * - scatter (any index): the general oracle's add step, 8 source elements per thread with one 16-byte
 *   load; neighbours landing in one aligned bf16x2 word share a red.global.add.noftz.bf16x2.
 * The arithmetic matches reference.c's ia_emulate_oracle exactly: acc = fill, acc += x * scale (or, for a power-of-two
 * scale over fill 0, the unscaled sum times scale: the same bits short of subnormals and overflow). */
#include "kernels.h"

#include "oracle_common.cuh"

namespace ia_oracle {

/* VEC consecutive source elements: one 16-byte load (VEC 8) or one element; added in lane order. */
template <int VEC>
struct Chunk {
    uint32_t u[(VEC + 1) / 2];
    __device__ __forceinline__ static Chunk load(const uint16_t *p)
    {
        Chunk c;
        if constexpr (VEC == 8) {
            uint4 q = ld16(p);
            c.u[0] = q.x, c.u[1] = q.y, c.u[2] = q.z, c.u[3] = q.w;
        } else {
            c.u[0] = *p;
        }
        return c;
    }
    /* UNIT: the terms are x itself, summed unscaled (scale 1, or the pow2 kernel scales the sum once) */
    template <bool UNIT>
    __device__ __forceinline__ void add_to(float (&acc)[VEC], float scale) const
    {
#pragma unroll
        for (int i = 0; i < VEC; i++) {
            uint32_t h = (u[i >> 1] >> ((i & 1) * 16)) & 0xffffu;
            acc[i] = __fadd_rn(acc[i], UNIT ? __uint_as_float(h << 16) : term(h, scale));
        }
    }
};

constexpr int kWin = 4; /* windows loaded together; Longformer needs 3 (A) and 2 (B) */

/* 128 threads: Longformer A 14.5 against 14.9 us at 256, B equal (scratch measurement, H200) */
constexpr int kWindowsBlock = 128;

/* One output chunk per thread, no grid-stride loop: on the H200 the loop's 64-bit bookkeeping cost
 * Longformer A 16.1 against 14.3 us (scratch measurement, same buffers); grid_for covers every item. */
template <int VEC, bool FAST, bool UNIT, bool POST>
__device__ __forceinline__ void windows_chunk(uint16_t *out, const uint16_t *x, ia_windows w, int64_t items,
                                              float scale, float fill)
{
    using I = typename Int<FAST>::T;
    const I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    if ((int64_t)t >= items)
        return;
    const I e0 = t * VEC;
    if ((int64_t)e0 < w.base || (int64_t)e0 >= w.base + w.total) {
        const uint32_t f = round_bf16(fill);
        uint32_t r[VEC];
#pragma unroll
        for (int i = 0; i < VEC; i++)
            r[i] = f;
        if constexpr (VEC == 8)
            store8(out + e0, r);
        else
            out[e0] = (uint16_t)r[0];
        return;
    }
    I q = (I)(e0 - (I)w.base), row = 0, src = 0;
#pragma unroll
    for (int d = 0; d < IA_MAX_FOLD; d++) {
        if (d >= w.nd)
            break;
        I next = divq<FAST>(q, w.div[d], w.size[d]), c = q - next * (I)w.size[d];
        q = next;
        if (d == w.r)
            row = c;
        else
            src += c * (I)w.sstride[d];
    }
    I csize = (I)w.csize, k = (I)w.k;
    I lo = row >= csize ? divq<FAST>(row - csize, w.div_k, w.k) + 1 : 0, hi = divq<FAST>(row, w.div_k, w.k);
    hi = hi < (I)w.nwin - 1 ? hi : (I)w.nwin - 1;
    float acc[VEC];
#pragma unroll
    for (int i = 0; i < VEC; i++)
        acc[i] = fill;
    /* every window's load issued before the first add: up to kWin reads in flight per thread */
    Chunk<VEC> v[kWin];
#pragma unroll
    for (int j = 0; j < kWin; j++)
        if (lo + j <= hi)
            v[j] = Chunk<VEC>::load(x + src + (lo + j) * (I)w.sstride_w + (row - (lo + j) * k) * (I)w.sstride_c);
#pragma unroll
    for (int j = 0; j < kWin; j++)
        if (lo + j <= hi)
            v[j].template add_to<UNIT>(acc, scale);
    for (I win = lo + kWin; win <= hi; win++) /* windows beyond kWin: one at a time */
        Chunk<VEC>::load(x + src + win * (I)w.sstride_w + (row - win * k) * (I)w.sstride_c)
            .template add_to<UNIT>(acc, scale);
    if constexpr (POST) /* 2^k over fill 0 (pow2_over_zero): one multiply, the bits of one per term */
#pragma unroll
        for (int i = 0; i < VEC; i++)
            acc[i] = __fmul_rn(acc[i], scale);
    if constexpr (VEC == 8)
        *reinterpret_cast<uint4 *>(out + e0) =
            make_uint4(pack2(acc[0], acc[1]), pack2(acc[2], acc[3]), pack2(acc[4], acc[5]), pack2(acc[6], acc[7]));
    else
        out[e0] = (uint16_t)round_bf16(acc[0]);
}

/* The per-term kernel; UNIT: scale 1. The sum scaled once is a kernel of its own: with a runtime test of the scale
 * in this one, gate --run measured the unit case at 7.64 us against the 7.13 stored (Longformer 6291456, H200,
 * 2026-12-06). As it is, the PTX of its 32-bit instantiations is the one before that runtime test. */
template <int VEC, bool FAST, bool UNIT>
__global__ void ia_oracle_windows_kernel(uint16_t *out, const uint16_t *x, ia_windows w, int64_t items, float scale,
                                         float fill)
{
    windows_chunk<VEC, FAST, UNIT, false>(out, x, w, items, scale, fill);
}

/* The unscaled sum times scale, a power of two over fill 0 (pow2_over_zero). */
template <int VEC, bool FAST>
__global__ void ia_oracle_windows_pow2_kernel(uint16_t *out, const uint16_t *x, ia_windows w, int64_t items,
                                              float scale, float fill)
{
    windows_chunk<VEC, FAST, true, true>(out, x, w, items, scale, fill);
}

__device__ __forceinline__ void red_bf16(uint16_t *p, uint32_t v)
{
    asm volatile("red.global.add.noftz.bf16 [%0], %1;" ::"l"(p), "h"((unsigned short)v) : "memory");
}

__device__ __forceinline__ void red_bf16x2(uint16_t *p, uint32_t lo, uint32_t hi)
{
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(lo | hi << 16) : "memory");
}

template <bool FAST>
__device__ __forceinline__ int64_t scatter_dst(const ia_general &g, const int64_t *index, int64_t s)
{
    using I = typename Int<FAST>::T;
    I li = divq<FAST>((I)s, g.div_inner, g.inner), i = (I)s - li * (I)g.inner;
    I o = divq<FAST>(li, g.div_L, g.L), l = li - o * (I)g.L;
    return ((int64_t)o * g.D + __ldg(index + l)) * g.inner + (int64_t)i;
}

template <int VEC, bool FAST>
__global__ void ia_oracle_scatter_kernel(uint16_t *out, const uint16_t *x, const int64_t *index, ia_general g,
                                         int64_t items, float scale)
{
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < items; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t s0 = t * VEC;
        uint32_t v[VEC];
        if constexpr (VEC == 8) {
            uint4 q = ld16(x + s0);
            uint32_t u[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
                v[i] = round_bf16(term(lane(u, i), scale));
        } else {
            v[0] = round_bf16(term(x[s0], scale));
        }
#pragma unroll
        for (int i = 0; i < VEC; i += 2) {
            int64_t d0 = scatter_dst<FAST>(g, index, s0 + i);
            if (i + 1 >= VEC) {
                red_bf16(out + d0, v[i]);
                continue;
            }
            int64_t d1 = scatter_dst<FAST>(g, index, s0 + i + 1);
            if (d1 == d0 + 1 && (d0 & 1) == 0) {
                red_bf16x2(out + d0, v[i], v[i + 1]);
            } else {
                red_bf16(out + d0, v[i]);
                red_bf16(out + d1, v[i + 1]);
            }
        }
    }
}

} // namespace ia_oracle

using namespace ia_oracle;

/* One launcher per oracle: pick the vector width and the index width, then launch. */
/* kernel(V, F) names the instance for vec V and fast F (a macro below each kernel family) */
#define IA_LAUNCH(kernel, block, vec, fast, items, ...)                                                  \
    do {                                                                                                 \
        unsigned g_ = grid_for(items, block);                                                            \
        cudaStream_t s_ = (cudaStream_t)stream;                                                          \
        if (vec == 8 && fast)                                                                            \
            kernel(8, true)<<<g_, block, 0, s_>>>(__VA_ARGS__);                                          \
        else if (vec == 8)                                                                               \
            kernel(8, false)<<<g_, block, 0, s_>>>(__VA_ARGS__);                                         \
        else if (fast)                                                                                   \
            kernel(1, true)<<<g_, block, 0, s_>>>(__VA_ARGS__);                                          \
        else                                                                                             \
            kernel(1, false)<<<g_, block, 0, s_>>>(__VA_ARGS__);                                         \
    } while (0)
#define IA_WINDOWS_UNIT(V, F) ia_oracle_windows_kernel<V, F, true>
#define IA_WINDOWS_SCALED(V, F) ia_oracle_windows_kernel<V, F, false>
#define IA_WINDOWS_POW2(V, F) ia_oracle_windows_pow2_kernel<V, F>
#define IA_SCATTER(V, F) ia_oracle_scatter_kernel<V, F>

extern "C" int ia_oracle_windows(const ia_windows *w, void *out, const void *x, float scale, float fill, void *stream)
{
    int64_t items = w->vec == 8 ? w->n_out / 8 : w->n_out, src = 1;
    if (items > (int64_t)kWindowsBlock << 30) /* one item per thread: grid_for's cap must cover them all */
        return (int)cudaErrorInvalidValue;
    bool fast = fits32(w->n_out) && w->div_k.d != 0;
    for (int d = 0; d < w->nd; d++) {
        fast = fast && w->div[d].d != 0;
        src *= d == w->r ? w->csize * w->nwin : w->size[d];
    }
    fast = fast && fits32(src);
    if (scale == 1.0f)
        IA_LAUNCH(IA_WINDOWS_UNIT, kWindowsBlock, w->vec, fast, items, (uint16_t *)out, (const uint16_t *)x, *w, items,
                  scale, fill);
    else if (pow2_over_zero(scale, fill))
        IA_LAUNCH(IA_WINDOWS_POW2, kWindowsBlock, w->vec, fast, items, (uint16_t *)out, (const uint16_t *)x, *w, items,
                  scale, fill);
    else
        IA_LAUNCH(IA_WINDOWS_SCALED, kWindowsBlock, w->vec, fast, items, (uint16_t *)out, (const uint16_t *)x, *w, items,
                  scale, fill);
    return (int)cudaGetLastError();
}

extern "C" int ia_oracle_scatter(const ia_general *g, void *out, const void *x, const int64_t *index, float scale,
                                 void *stream)
{
    int vec = g->n_src % 8 == 0 ? 8 : 1;
    int64_t items = g->n_src / vec;
    bool fast = fits32(g->n_src) && g->div_inner.d != 0 && g->div_L.d != 0;
    IA_LAUNCH(IA_SCATTER, kBlock, vec, fast, items, (uint16_t *)out, (const uint16_t *)x, index, *g, items,
              scale);
    return (int)cudaGetLastError();
}
