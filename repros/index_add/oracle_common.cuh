/* oracle_common.cuh: what oracle.cu (windows, scatter) and oracle_slice.cu (slice) share: the index width,
 * the fp32 arithmetic that reference.c's ia_emulate_oracle matches (acc = fill, acc += x * scale, one
 * rounding), 16-byte loads and stores, and the launch sizes. CUDA only; everything has internal linkage. */
#ifndef IA_ORACLE_COMMON_CUH
#define IA_ORACLE_COMMON_CUH

#include <math.h>
#include <stdint.h>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "scope.h"

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
static __device__ __forceinline__ typename Int<FAST>::T divq(typename Int<FAST>::T n, const ia_fastdiv &f, int64_t d)
{
    if constexpr (FAST)
        return (uint32_t)(((uint64_t)__umulhi(n, f.m) + n) >> f.s);
    else
        return n / d;
}

static __device__ __forceinline__ float term(uint32_t bits16, float scale)
{
    return __fmul_rn(__uint_as_float(bits16 << 16), scale);
}

static __device__ __forceinline__ uint32_t round_bf16(float f)
{
    __nv_bfloat16 b = __float2bfloat16_rn(f);
    return *reinterpret_cast<uint16_t *>(&b);
}

/* Two floats rounded to bf16 and packed low-first: one cvt.rn.bf16x2.f32, the same rounding as two
 * round_bf16 calls, a third of the instructions (the slice and window kernels are issue-bound). */
static __device__ __forceinline__ uint32_t pack2(float lo, float hi)
{
    __nv_bfloat162 b = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&b);
}

static __device__ __forceinline__ uint4 ld16(const uint16_t *p)
{
    return __ldg(reinterpret_cast<const uint4 *>(p));
}

static __device__ __forceinline__ uint32_t lane(const uint32_t (&u)[4], int i)
{
    return (u[i >> 1] >> ((i & 1) * 16)) & 0xffffu;
}

template <bool STREAM = false>
static __device__ __forceinline__ void store8(uint16_t *out, const uint32_t (&r)[8])
{
    uint4 v = make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16, r[6] | r[7] << 16);
    if constexpr (STREAM)
        __stcs(reinterpret_cast<uint4 *>(out), v);
    else
        *reinterpret_cast<uint4 *>(out) = v;
}

/* Words M..M+4 of the 8 loaded words, shifted by one element when odd: 8 source elements from s. */
template <int M>
static __device__ __forceinline__ void pick(const uint32_t (&w)[8], bool odd, uint32_t (&o)[4])
{
#pragma unroll
    for (int j = 0; j < 4; j++)
        o[j] = odd ? __byte_perm(w[j + M], w[j + M + 1], 0x5432) : w[j + M];
}

/* 8 consecutive source elements starting at s, any alignment: two aligned 16-byte loads; the shift is
 * uniform along a row segment, so the switch rarely diverges. n_src % 8 == 0 keeps both loads inside. */
static __device__ __forceinline__ void load8(const uint16_t *x, int64_t s, uint32_t (&o)[4])
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

static inline unsigned grid_for(int64_t items, int block = kBlock)
{
    int64_t blocks = (items + block - 1) / block;
    return (unsigned)(blocks < 1 ? 1 : blocks > (1 << 30) ? (1 << 30) : blocks);
}

static inline bool fits32(int64_t n)
{
    return n >= 0 && n < ((int64_t)1 << 31);
}

/* A scale of 2^k over a fill of +0: x * scale is exact and rounding commutes with it, so the products summed
 * term by term are the unscaled sum times scale, bit for bit, short of fp32's subnormals and overflow (a sum past
 * FLT_MAX that the scale would have brought back, or the reverse). */
static inline bool pow2_over_zero(float scale, float fill)
{
    int e;
    return fill == 0.0f && !signbit(fill) && scale > 0.0f && frexpf(scale, &e) == 0.5f;
}

} // namespace ia_oracle

#endif
