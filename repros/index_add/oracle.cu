/* oracle.cu: the whole-scope oracles for the bf16 index_add scopes.
 * - slice (an iota index, XLNet's rel_shift backward): one pass over the output in 16-byte chunks,
 *   U per thread with every load issued before the first store; a chunk in the copied columns reads
 *   8 source elements (two aligned 16-byte loads and a shift), a chunk outside stores the fill; no
 *   atomics, each element written once. The staged variant (slice_staged.h) reads each span's source
 *   range once into shared memory with aligned loads and builds the chunks from there. The run times
 *   the seven ia_slice_variants (scope.h: U = 1, 2, 4, 8; U = 1, 2 with streaming stores; staged)
 *   and keeps the fastest that passed its checks (ea_path_tune's rule).
 * - windows (an overlapping as_strided index, Longformer): the gather form. Each 16-byte output chunk
 *   decodes its coordinates over the folded dims, sums the 1..3 windows covering its row in fp32 in
 *   window order and rounds once: deterministic, reads no index tensor.
 * - scatter (any index): the general oracle's add step, 8 source elements per thread with one 16-byte
 *   load; neighbours landing in one aligned bf16x2 word share a red.global.add.noftz.bf16x2.
 * The arithmetic matches reference.c's ia_emulate_oracle exactly: acc = fill, acc += x * scale (or, for a power-of-two
 * scale over fill 0, the unscaled sum times scale: the same bits short of subnormals and overflow). */
#include "kernels.h"

#include <math.h>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "slice_staged.h"

namespace ia_oracle { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

constexpr int kBlock = 256;

/* FAST: every coordinate fits 32 bits, divisions by multiply-shift (ia_fastdiv); else int64 and '/'. */
template <bool FAST>
struct Int {
    using T = int64_t;
};
template <>
struct Int<true> {
    using T = uint32_t;
};

template <bool FAST>
__device__ __forceinline__ typename Int<FAST>::T divq(typename Int<FAST>::T n, const ia_fastdiv &f, int64_t d)
{
    if constexpr (FAST)
        return (uint32_t)(((uint64_t)__umulhi(n, f.m) + n) >> f.s);
    else
        return n / d;
}

__device__ __forceinline__ float term(uint32_t bits16, float scale)
{
    return __fmul_rn(__uint_as_float(bits16 << 16), scale);
}

__device__ __forceinline__ uint32_t round_bf16(float f)
{
    __nv_bfloat16 b = __float2bfloat16_rn(f);
    return *reinterpret_cast<uint16_t *>(&b);
}

/* Two floats rounded to bf16 and packed low-first: one cvt.rn.bf16x2.f32, the same rounding as two
 * round_bf16 calls, a third of the instructions (the slice and window kernels are issue-bound). */
__device__ __forceinline__ uint32_t pack2(float lo, float hi)
{
    __nv_bfloat162 b = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&b);
}

__device__ __forceinline__ uint4 ld16(const uint16_t *p)
{
    return __ldg(reinterpret_cast<const uint4 *>(p));
}

__device__ __forceinline__ uint32_t lane(const uint32_t (&u)[4], int i)
{
    return (u[i >> 1] >> ((i & 1) * 16)) & 0xffffu;
}

template <bool STREAM = false>
__device__ __forceinline__ void store8(uint16_t *out, const uint32_t (&r)[8])
{
    uint4 v = make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16, r[6] | r[7] << 16);
    if constexpr (STREAM)
        __stcs(reinterpret_cast<uint4 *>(out), v);
    else
        *reinterpret_cast<uint4 *>(out) = v;
}

/* Words M..M+4 of the 8 loaded words, shifted by one element when odd: 8 source elements from s. */
template <int M>
__device__ __forceinline__ void pick(const uint32_t (&w)[8], bool odd, uint32_t (&o)[4])
{
#pragma unroll
    for (int j = 0; j < 4; j++)
        o[j] = odd ? __byte_perm(w[j + M], w[j + M + 1], 0x5432) : w[j + M];
}

/* 8 consecutive source elements starting at s, any alignment: two aligned 16-byte loads; the shift is
 * uniform along a row segment, so the switch rarely diverges. n_src % 8 == 0 keeps both loads inside. */
__device__ __forceinline__ void load8(const uint16_t *x, int64_t s, uint32_t (&o)[4])
{
    int sh = (int)(s & 7);
    const uint16_t *a = x + (s - sh);
    uint4 lo = ld16(a), hi = sh ? ld16(a + 8) : make_uint4(0, 0, 0, 0);
    uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    switch (sh >> 1) {
    case 0: pick<0>(w, sh & 1, o); break;
    case 1: pick<1>(w, sh & 1, o); break;
    case 2: pick<2>(w, sh & 1, o); break;
    default: pick<3>(w, sh & 1, o); break;
    }
}

/* One output element of the slice: fill, plus the source element its column holds, if any. */
template <typename I>
__device__ __forceinline__ uint32_t slice_elem(const ia_slice &q, const uint16_t *x, I row, I c, float scale, float fill)
{
    float acc = fill;
    if (c >= (I)q.col0 && c < (I)(q.col0 + q.row_src))
        acc = __fadd_rn(acc, term(x[row * (I)q.row_src + c - (I)q.col0], scale));
    return round_bf16(acc);
}

/* A chunk across a row end or a column edge: element by element, rows stepped, not divided. */
template <typename I>
__device__ __forceinline__ void slice_edge(const ia_slice &q, const uint16_t *x, I row, I c, float scale, float fill,
                                           uint32_t (&r)[8])
{
#pragma unroll
    for (int i = 0; i < 8; i++, c++) {
        while (c >= (I)q.row_out) {
            c -= (I)q.row_out;
            row++;
        }
        r[i] = slice_elem<I>(q, x, row, c, scale, fill);
    }
}

template <bool FAST>
__global__ void ia_oracle_slice_scalar(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                       float fill)
{
    using I = typename Int<FAST>::T;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < items; t += (int64_t)gridDim.x * blockDim.x) {
        I row = divq<FAST>((I)t, q.div_row, q.row_out);
        out[t] = (uint16_t)slice_elem<I>(q, x, row, (I)t - row * (I)q.row_out, scale, fill);
    }
}

/* U 16-byte chunks per thread (a block covers U * blockDim consecutive chunks, each pass coalesced):
 * every chunk's loads are issued before the first store, U * 32 bytes in flight per thread. */
template <int U, bool FAST, bool STREAM>
__global__ void ia_oracle_slice_vec8(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                     float fill)
{
    using I = typename Int<FAST>::T;
    enum { FILL, DATA, EDGE, NONE };
    const uint32_t f = round_bf16(fill);
    const I row_out = (I)q.row_out, col0 = (I)q.col0, col1 = (I)(q.col0 + q.row_src);
    const int64_t first = (int64_t)blockIdx.x * U * blockDim.x + threadIdx.x;
    uint32_t u[U][4];
    I row[U], c[U];
    int kind[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        int64_t t = first + (int64_t)k * blockDim.x;
        kind[k] = NONE;
        if (t >= items)
            continue;
        I e0 = (I)t * 8;
        row[k] = divq<FAST>(e0, q.div_row, q.row_out);
        c[k] = e0 - row[k] * row_out;
        bool inside = c[k] + 8 <= row_out;
        kind[k] = inside && (c[k] + 8 <= col0 || c[k] >= col1) ? FILL
                  : inside && c[k] >= col0 && c[k] + 8 <= col1 ? DATA
                                                              : EDGE;
        if (kind[k] == DATA)
            load8(x, (int64_t)(row[k] * (I)q.row_src + c[k] - col0), u[k]);
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint32_t r[8];
        if (kind[k] == NONE)
            continue;
        if (kind[k] == FILL) {
#pragma unroll
            for (int i = 0; i < 8; i++)
                r[i] = f;
        } else if (kind[k] == DATA) {
#pragma unroll
            for (int i = 0; i < 8; i++)
                r[i] = round_bf16(__fadd_rn(fill, term(lane(u[k], i), scale)));
        } else {
            slice_edge<I>(q, x, row[k], c[k], scale, fill, r);
        }
        store8<STREAM>(out + (int64_t)(first + (int64_t)k * blockDim.x) * 8, r);
    }
}

/* U chunks per thread in blocks of kShflBlock (a block covers U * kShflBlock consecutive chunks, each pass
 * coalesced, every pass's loads issued before the first shuffle), a row's misalignment handled without a
 * second load: a row's data chunks all share one shift, so the aligned source vector a lane needs after
 * its own is the one the next lane loaded in the same pass, fetched by warp shuffle; only the last lane of
 * a run (the warp's or the row's) loads it itself. Same arithmetic and edge path as ia_oracle_slice_vec8. */
constexpr int kShflBlock = 128;

template <bool FAST, bool POW2, int U>
__global__ void ia_oracle_slice_shfl(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                     float fill)
{
    using I = typename Int<FAST>::T;
    using A = typename std::conditional<FAST, int32_t, long long>::type;
    const unsigned all = 0xffffffffu;
    const I row_out = (I)q.row_out, col0 = (I)q.col0, col1 = (I)(q.col0 + q.row_src);
    const int64_t first = (int64_t)blockIdx.x * U * blockDim.x + threadIdx.x;
    I e0[U], row[U], c[U];
    bool live[U], data[U];
    int sh[U];
    A a[U];
    uint4 lo[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        const int64_t t = first + (int64_t)k * blockDim.x;
        live[k] = t < items;
        e0[k] = live[k] ? (I)t * 8 : 0;
        row[k] = divq<FAST>(e0[k], q.div_row, q.row_out);
        c[k] = e0[k] - row[k] * row_out;
        data[k] = live[k] && c[k] + 8 <= row_out && c[k] >= col0 && c[k] + 8 <= col1;
        const int64_t s = data[k] ? (int64_t)(row[k] * (I)q.row_src + c[k] - col0) : 0;
        sh[k] = (int)(s & 7);
        a[k] = data[k] ? (A)(s - sh[k]) : -1; /* the aligned vector this lane loads */
        lo[k] = data[k] ? ld16(x + a[k]) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint4 hi; /* every lane takes part in the shuffles, live or not */
        hi.x = __shfl_down_sync(all, lo[k].x, 1);
        hi.y = __shfl_down_sync(all, lo[k].y, 1);
        hi.z = __shfl_down_sync(all, lo[k].z, 1);
        hi.w = __shfl_down_sync(all, lo[k].w, 1);
        const A next = __shfl_down_sync(all, a[k], 1); /* lane 31 gets its own: never a + 8 */
        if (!live[k])
            continue;
        if (data[k]) {
            if (sh[k] && next != a[k] + 8)
                hi = ld16(x + a[k] + 8);
            uint32_t w[8] = {lo[k].x, lo[k].y, lo[k].z, lo[k].w, hi.x, hi.y, hi.z, hi.w}, u[4];
            switch (sh[k] >> 1) {
            case 0: pick<0>(w, sh[k] & 1, u); break;
            case 1: pick<1>(w, sh[k] & 1, u); break;
            case 2: pick<2>(w, sh[k] & 1, u); break;
            default: pick<3>(w, sh[k] & 1, u); break;
            }
            uint4 v;
            if constexpr (POW2) { /* fill 0, scale 2^k: x * scale is exact, so one bf16x2 fma rounds as the fp32 path */
                const __nv_bfloat162 s2 = __float2bfloat162_rn(scale), z = __float2bfloat162_rn(0.0f);
                uint32_t *vw = reinterpret_cast<uint32_t *>(&v);
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    __nv_bfloat162 h = __hfma2(*reinterpret_cast<const __nv_bfloat162 *>(&u[j]), s2, z);
                    vw[j] = *reinterpret_cast<uint32_t *>(&h);
                }
            } else {
                float f8[8];
#pragma unroll
                for (int i = 0; i < 8; i++)
                    f8[i] = __fadd_rn(fill, term(lane(u, i), scale));
                v = make_uint4(pack2(f8[0], f8[1]), pack2(f8[2], f8[3]), pack2(f8[4], f8[5]), pack2(f8[6], f8[7]));
            }
            *reinterpret_cast<uint4 *>(out + e0[k]) = v;
            continue;
        }
        uint32_t r[8];
        if (c[k] + 8 <= row_out && (c[k] + 8 <= col0 || c[k] >= col1)) {
            const uint32_t f = round_bf16(fill);
#pragma unroll
            for (int i = 0; i < 8; i++)
                r[i] = f;
        } else {
            slice_edge<I>(q, x, row[k], c[k], scale, fill, r);
        }
        store8(out + e0[k], r);
    }
}

/* The staged slice kernel; its block code is slice_staged.h, shared with the CPU emulation. Why staged:
 * out's rows (XLNet: 1023 elements) shift each row's source elements against the 16-byte grid, so the
 * unstaged kernel reads two source vectors per output chunk. Here a launch splits out's 16-byte chunks
 * into spans (ia_slice_stage_split); block b takes spans b, b + grid, ... For a span:
 * - its copied elements' source indices form one contiguous range [s_lo, s_hi): out's rows map to
 *   source rows in order and the copied columns are one interval, so the count of copied elements
 *   before out's element (r, c), r * row_src + clamp(c - col0, 0, row_src), grows with r * row_out + c;
 * - ia_st_load reads that range widened to 16-byte alignment with aligned 16-byte loads, at most
 *   IA_STAGED_VECTORS per thread (the planner bounds every span's range to the buffer), each source
 *   byte once, and ia_st_stage puts the registers into shared memory;
 * - ia_st_build makes each thread's chunks t, t + threads, ... from shared memory at any element
 *   shift (two aligned 16-byte shared loads and a funnel shift), fill chunks without a read, chunks
 *   across a row end or a column edge element by element; rows are walked, not divided per chunk.
 * Arithmetic as reference.c's ia_emulate_oracle: acc = fill, acc += x * scale in fp32, one rounding.
 *
 * Persistent over its spans (ia_slice_split): the next span's loads are issued before the current
 * span is built, so they are in flight during its stores. Two barriers per span: the stage waits for
 * every thread's reads of the previous span, the build for the whole stage. */
__global__ void __launch_bounds__(IA_STAGED_THREADS)
    ia_oracle_slice_staged(uint16_t *out, const uint16_t *x, ia_slice q, ia_slice_split l, float scale, float fill)
{
    __shared__ uint4 buf[IA_STAGED_SHARED_ELEMS / 8];
    uint16_t *smem = reinterpret_cast<uint16_t *>(buf);
    const int t = threadIdx.x;
    uint32_t v[IA_STAGED_VECTORS][4];
    ia_st_span cur, next;
    int64_t span = blockIdx.x;
    if (span < l.spans) {
        ia_st_span_at(&q, l.span_chunks, span, &next);
        ia_st_load(&next, x, t, v);
    }
    while (span < l.spans) {
        cur = next;
        __syncthreads();
        ia_st_stage(&cur, t, v, smem);
        __syncthreads();
        span += gridDim.x;
        if (span < l.spans) {
            ia_st_span_at(&q, l.span_chunks, span, &next);
            ia_st_load(&next, x, t, v);
        }
        ia_st_build(&q, &cur, t, smem, out, scale, fill);
    }
}

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

unsigned grid_for(int64_t items, int block = kBlock)
{
    int64_t blocks = (items + block - 1) / block;
    return (unsigned)(blocks < 1 ? 1 : blocks > (1 << 30) ? (1 << 30) : blocks);
}

bool fits32(int64_t n)
{
    return n >= 0 && n < ((int64_t)1 << 31);
}

/* Staged blocks resident on the whole current device. Queried at a device's first launch, which the
 * run makes eagerly: a launch inside a graph capture then makes no query, only the launch. */
int64_t staged_resident(cudaError_t *rc)
{
    static int seen = -1;
    static int64_t resident;
    int dev = 0, sms = 0, per_sm = 0;
    if ((*rc = cudaGetDevice(&dev)) != cudaSuccess || dev == seen)
        return resident;
    if ((*rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) == cudaSuccess &&
        (*rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ia_oracle_slice_staged, IA_STAGED_THREADS, 0)) ==
            cudaSuccess) {
        seen = dev;
        resident = (int64_t)sms * per_sm;
    }
    return resident;
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

/* A scale of 2^k over a fill of +0: x * scale is exact and rounding commutes with it, so the products summed
 * term by term are the unscaled sum times scale, bit for bit, short of fp32's subnormals and overflow (a sum past
 * FLT_MAX that the scale would have brought back, or the reverse). */
static bool pow2_over_zero(float scale, float fill)
{
    int e;
    return fill == 0.0f && !signbit(fill) && scale > 0.0f && frexpf(scale, &e) == 0.5f;
}

extern "C" int ia_oracle_slice(const ia_slice *q, void *out, const void *x, float scale, float fill, void *stream)
{
    int64_t n = q->rows * q->row_out, items = q->vec == 8 ? n / 8 : n;
    bool fast = fits32(n) && fits32(q->rows * q->row_src) && q->div_row.d != 0;
    cudaStream_t st = (cudaStream_t)stream;
    uint16_t *o = (uint16_t *)out;
    const uint16_t *in = (const uint16_t *)x;
    int u = q->unroll == 2 || q->unroll == 4 || q->unroll == 8 ? q->unroll : 1;
    unsigned grid = grid_for((items + u - 1) / u);
    if (q->staged) { /* persistent: one block per resident slot, as the occupancy of this GPU allows */
        cudaError_t rc = q->vec == 8 && q->stage.span_max > 0 ? cudaSuccess : cudaErrorInvalidValue;
        int64_t resident = rc == cudaSuccess ? staged_resident(&rc) : 0;
        if (rc != cudaSuccess)
            return (int)rc;
        ia_slice_split l;
        ia_slice_stage_split(q, resident, &l);
        ia_oracle_slice_staged<<<(unsigned)l.grid, IA_STAGED_THREADS, 0, st>>>(o, in, *q, l, scale, fill);
        return (int)cudaGetLastError();
    }
    if (q->vec == 8 && q->shfl) {
        /* the instances below, so that the grid and the kernel agree */
        const int us = q->unroll == 2 || q->unroll == 4 ? q->unroll : 1;
        unsigned g = (unsigned)((items + (int64_t)us * kShflBlock - 1) / ((int64_t)us * kShflBlock));
        const bool pow2 = pow2_over_zero(scale, fill);
#define IA_SHFL_U(U)                                                                                       \
    (fast && pow2 ? ia_oracle_slice_shfl<true, true, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill) \
     : fast       ? ia_oracle_slice_shfl<true, false, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill) \
                  : ia_oracle_slice_shfl<false, false, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill))
        switch (us) {
        case 2: IA_SHFL_U(2); break;
        case 4: IA_SHFL_U(4); break;
        default: IA_SHFL_U(1); break;
        }
#undef IA_SHFL_U
        return (int)cudaGetLastError();
    }
    if (q->vec != 8) {
        if (fast)
            ia_oracle_slice_scalar<true><<<grid_for(items), kBlock, 0, st>>>(o, in, *q, items, scale, fill);
        else
            ia_oracle_slice_scalar<false><<<grid_for(items), kBlock, 0, st>>>(o, in, *q, items, scale, fill);
        return (int)cudaGetLastError();
    }
#define IA_SLICE_S(U, S)                                                                                 \
    (fast ? ia_oracle_slice_vec8<U, true, S><<<grid, kBlock, 0, st>>>(o, in, *q, items, scale, fill)       \
          : ia_oracle_slice_vec8<U, false, S><<<grid, kBlock, 0, st>>>(o, in, *q, items, scale, fill))
#define IA_SLICE(U) (q->streaming ? IA_SLICE_S(U, true) : IA_SLICE_S(U, false))
    switch (u) {
    case 2: IA_SLICE(2); break;
    case 4: IA_SLICE(4); break;
    case 8: IA_SLICE(8); break;
    default: IA_SLICE(1); break;
    }
#undef IA_SLICE
#undef IA_SLICE_S
    return (int)cudaGetLastError();
}

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
