/* slice_staged.h: one block's work in the shared-memory staged slice oracle (oracle_slice.cu says why and how).
 * Compiled twice: into the kernel (oracle_slice.cu, nvcc) and into the CPU emulation the tests run (C), so
 * the indexing the GPU executes is the indexing the tests check. ia_st_load/ia_st_stage put a span's
 * source range into shared memory, ia_st_build makes the span's output chunks from it; arithmetic as
 * reference.c's ia_emulate_oracle (fill + x * scale in fp32, one rounding to bf16). */
#ifndef IA_SLICE_STAGED_H
#define IA_SLICE_STAGED_H

#include <stdint.h>

#include "scope.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#define IA_ST_FN __device__ __forceinline__
#define IA_ST_UNROLL _Pragma("unroll")
#else
#include <string.h>

#include "target/gen.h"
#include "reference_impl.h"
#define IA_ST_FN static inline
#define IA_ST_UNROLL
#endif

/* Memory and arithmetic: the kernel's 16-byte accesses and fp32 intrinsics, or their C equivalents
 * (little-endian words, IEEE single precision without contraction: the same bits). */
#ifdef __CUDACC__
IA_ST_FN void ia_st_ldg16(const uint16_t *p, uint32_t *w)
{
    uint4 q = __ldg(reinterpret_cast<const uint4 *>(p));
    w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
}

IA_ST_FN void ia_st_lds16(const uint16_t *p, uint32_t *w)
{
    uint4 q = *reinterpret_cast<const uint4 *>(p);
    w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
}

IA_ST_FN void ia_st_st16(uint16_t *p, const uint32_t *w)
{
    *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
}

IA_ST_FN float ia_st_term(uint32_t bits16, float scale, float fill)
{
    return __fadd_rn(fill, __fmul_rn(__uint_as_float(bits16 << 16), scale));
}

/* Two fp32 values rounded to one bf16x2 word, a low, b high: one conversion instruction. */
IA_ST_FN uint32_t ia_st_round2(float a, float b)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

IA_ST_FN uint32_t ia_st_round(float f)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}
#else
IA_ST_FN void ia_st_ldg16(const uint16_t *p, uint32_t *w)
{
    memcpy(w, p, 16);
}

IA_ST_FN void ia_st_lds16(const uint16_t *p, uint32_t *w)
{
    memcpy(w, p, 16);
}

IA_ST_FN void ia_st_st16(uint16_t *p, const uint32_t *w)
{
    memcpy(p, w, 16);
}

IA_ST_FN float ia_st_term(uint32_t bits16, float scale, float fill)
{
    return fill + ia_bf16_to_f32((uint16_t)bits16) * scale;
}

IA_ST_FN uint32_t ia_st_round2(float a, float b)
{
    return (uint32_t)ea_f32_to_bf16(a) | (uint32_t)ea_f32_to_bf16(b) << 16;
}

IA_ST_FN uint32_t ia_st_round(float f)
{
    return ea_f32_to_bf16(f);
}
#endif

/* n / row_out: the plan's multiply-shift while n fits 32 bits (exact there), else a 64-bit division. */
IA_ST_FN int64_t ia_st_div(const ia_slice *q, int64_t n)
{
    if (q->div_row.d != 0 && n <= (int64_t)UINT32_MAX)
        return (int64_t)(uint32_t)(((((uint64_t)n * q->div_row.m) >> 32) + (uint64_t)n) >> q->div_row.s);
    return n / q->row_out;
}

/* Copied elements before out's element (r, c): the source index of the next copied one. */
IA_ST_FN int64_t ia_st_src_before(const ia_slice *q, int64_t r, int64_t c)
{
    int64_t k = c - q->col0;
    return r * q->row_src + (k < 0 ? 0 : k > q->row_src ? q->row_src : k);
}

/* What every thread of the block knows about one span. */
typedef struct {
    int64_t e0;     /* its first output element */
    int64_t r0, c0; /* e0's row and column */
    int64_t a_lo;   /* the first staged source element: s_lo rounded down to 16 bytes */
    int chunks;     /* output chunks in the span (the last span may be shorter) */
    int vecs;       /* 16-byte source vectors staged: [a_lo, a_lo + 8 * vecs) covers [s_lo, s_hi) */
} ia_st_span;

IA_ST_FN void ia_st_span_at(const ia_slice *q, int64_t span_chunks, int64_t span, ia_st_span *sp)
{
    int64_t n = q->rows * q->row_out, e1 = (span + 1) * span_chunks * 8;
    e1 = e1 < n ? e1 : n;
    sp->e0 = span * span_chunks * 8;
    sp->r0 = ia_st_div(q, sp->e0);
    sp->c0 = sp->e0 - sp->r0 * q->row_out;
    int64_t r1 = ia_st_div(q, e1), s_lo = ia_st_src_before(q, sp->r0, sp->c0);
    int64_t s_hi = ia_st_src_before(q, r1, e1 - r1 * q->row_out);
    sp->a_lo = s_lo & ~(int64_t)7;
    sp->chunks = (int)((e1 - sp->e0) / 8);
    sp->vecs = (int)((s_hi + 7 - sp->a_lo) / 8);
}

/* Thread t's share of the span's source vectors, t + i * threads: coalesced, aligned, all in flight. */
IA_ST_FN void ia_st_load(const ia_st_span *sp, const uint16_t *x, int t, uint32_t v[IA_STAGED_VECTORS][4])
{
    IA_ST_UNROLL
    for (int i = 0; i < IA_STAGED_VECTORS; i++)
        if (t + i * IA_STAGED_THREADS < sp->vecs)
            ia_st_ldg16(x + sp->a_lo + (int64_t)(t + i * IA_STAGED_THREADS) * 8, v[i]);
}

IA_ST_FN void ia_st_stage(const ia_st_span *sp, int t, uint32_t v[IA_STAGED_VECTORS][4], uint16_t *smem)
{
    IA_ST_UNROLL
    for (int i = 0; i < IA_STAGED_VECTORS; i++)
        if (t + i * IA_STAGED_THREADS < sp->vecs)
            ia_st_st16(smem + (t + i * IA_STAGED_THREADS) * 8, v[i]);
}

/* Words w[0..4] shifted down by one element when odd: 8 elements in u. */
IA_ST_FN void ia_st_shift(const uint32_t *w, int odd, uint32_t *u)
{
    IA_ST_UNROLL
    for (int j = 0; j < 4; j++)
        u[j] = odd ? (w[j] >> 16 | w[j + 1] << 16) : w[j];
}

/* The 8 staged elements from shared offset off, any alignment: one aligned 16-byte load, a second
 * when shifted (within the staged vectors: the last element's vector is staged). The shift is the
 * same along a row's copied columns, so the branches rarely diverge inside a warp. */
IA_ST_FN void ia_st_read8(const uint16_t *smem, int off, uint32_t *u)
{
    uint32_t w[8];
    int sh = off & 7;
    ia_st_lds16(smem + (off - sh), w);
    if (sh)
        ia_st_lds16(smem + (off - sh) + 8, w + 4);
    else
        w[4] = w[5] = w[6] = w[7] = 0;
    switch (sh >> 1) { /* constant word offsets keep w in registers */
    case 0: ia_st_shift(w, sh & 1, u); break;
    case 1: ia_st_shift(w + 1, sh & 1, u); break;
    case 2: ia_st_shift(w + 2, sh & 1, u); break;
    default: ia_st_shift(w + 3, sh & 1, u); break;
    }
}

/* Thread t's chunks of the staged span. (rr, c): the chunk's first element as rows past r0 and
 * column, divided once, then stepped by threads * 8 elements = step_rows rows + step_cols columns. */
IA_ST_FN void ia_st_build(const ia_slice *q, const ia_st_span *sp, int t, const uint16_t *smem, uint16_t *out,
                          float scale, float fill)
{
    const int64_t w_out = q->row_out, src = q->row_src, lo = q->col0, hi = q->col0 + q->row_src;
    const uint32_t f = ia_st_round(fill), ff = f | f << 16;
    /* shared offset of out's (r0 + rr, c), c copied: rr * row_src + c - col0 + base */
    const int64_t base = sp->r0 * src - sp->a_lo;
    int64_t d = sp->c0 + 8 * (int64_t)t, rr = ia_st_div(q, d), c = d - rr * w_out;
    for (int k = t; k < sp->chunks; k += IA_STAGED_THREADS) {
        uint32_t r[4];
        if (c + 8 <= w_out && (c + 8 <= lo || c >= hi)) {
            r[0] = r[1] = r[2] = r[3] = ff;
        } else if (c + 8 <= w_out && c >= lo && c + 8 <= hi) {
            uint32_t u[4];
            ia_st_read8(smem, (int)(base + rr * src + c - lo), u);
            IA_ST_UNROLL
            for (int j = 0; j < 4; j++)
                r[j] = ia_st_round2(ia_st_term(u[j] & 0xffffu, scale, fill), ia_st_term(u[j] >> 16, scale, fill));
        } else { /* across a row end (several when rows are short) or a column edge */
            int64_t er = rr, ec = c;
            r[0] = r[1] = r[2] = r[3] = 0;
            IA_ST_UNROLL
            for (int i = 0; i < 8; i++, ec++) {
                while (ec >= w_out) {
                    ec -= w_out;
                    er++;
                }
                uint32_t e = f;
                if (ec >= lo && ec < hi)
                    e = ia_st_round(ia_st_term(smem[base + er * src + ec - lo], scale, fill));
                r[i >> 1] |= e << ((i & 1) * 16);
            }
        }
        ia_st_st16(out + sp->e0 + 8 * (int64_t)k, r);
        c += q->stage.step_cols;
        rr += q->stage.step_rows;
        if (c >= w_out) {
            c -= w_out;
            rr++;
        }
    }
}

#endif
