/* stream_block.h: one CTA of the stream oracle (infer without pooling), compiled into the kernel
 * (oracle.cu, nvcc) and into the CPU emulation the tests run (emulate.c), so the indexing the GPU
 * executes is the indexing the tests check.
 * CTA (bx, n) covers the `span` = unroll * threads * V consecutive elements of output row n (C*H*W
 * elements) from bx * span. It first tabulates the channels the span touches: fp32 mean, r = 1 /
 * sqrt_rn(var + eps) by div.full, weight, bias (Inductor's terms) and where the channel's row of sample
 * n starts in its input; then each thread takes `unroll` vectors of V elements, threads * V apart. A
 * vector lies in one input (segment lengths are multiples of V) and spans at most two channels
 * (V <= H*W); its source is contiguous because consecutive channels of one input are adjacent rows.
 * The table replaces, per vector, a search over the inputs, an integer division and the parameter
 * loads and square roots of both channels.
 * Elements are of the scope's dtype dt (EA_BF16, EA_F16 or EA_F32; cat_get / cat_put convert): the
 * kernels pass it as a template constant, so each instance compiles to one dtype's loads and rounding;
 * the CPU emulation passes the scope's. */
#ifndef CAT_STREAM_BLOCK_H
#define CAT_STREAM_BLOCK_H

#include <stdint.h>

#include "kernels.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define CAT_FN __device__ __forceinline__
#else
#include <math.h>
#include <string.h>

#include "target/gen.h"
#define CAT_FN static inline
#endif

typedef struct {
    float mean, r, w, b;
} cat_chan;

/* Memory and fp32 arithmetic: the kernel's intrinsics, or the C operations giving the same bits
 * (IEEE single precision, fmaf for Inductor's contracted multiply-add; 1/x for div.full, which gives
 * the correctly rounded quotient on every golden point: the emulation reproduces torch's checksums). */
#ifdef __CUDACC__
CAT_FN float cat_bf(uint16_t b)
{
    return __uint_as_float((uint32_t)b << 16);
}

/* Element i of p (dtype dt) as fp32, through the read-only cache. */
CAT_FN float cat_get(const void *p, size_t i, int dt)
{
    if (dt == EA_F32)
        return __ldg((const float *)p + i);
    const unsigned short b = __ldg((const unsigned short *)p + i);
    return dt == EA_F16 ? __half2float(__ushort_as_half(b)) : cat_bf(b);
}

/* f rounded to nearest even in dt, into element i of p. */
CAT_FN void cat_put(void *p, size_t i, int dt, float f)
{
    if (dt == EA_F32)
        ((float *)p)[i] = f;
    else
        ((unsigned short *)p)[i] = dt == EA_F16 ? __half_as_ushort(__float2half_rn(f))
                                                : __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

/* The same for an element held in registers (no cache hint). */
CAT_FN float cat_val(const void *p, size_t i, int dt)
{
    if (dt == EA_F32)
        return ((const float *)p)[i];
    const unsigned short b = ((const unsigned short *)p)[i];
    return dt == EA_F16 ? __half2float(__ushort_as_half(b)) : cat_bf(b);
}

CAT_FN float cat_div(float a, float b) /* Triton's fp32 division */
{
    float r;
    asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

CAT_FN float cat_sqrt(float x)
{
    return __fsqrt_rn(x);
}

CAT_FN float cat_bn_relu(float x, const cat_chan *q)
{
    return fmaxf(0.0f, __fmaf_rn(__fmul_rn(__fsub_rn(x, q->mean), q->r), q->w, q->b));
}
#else
CAT_FN float cat_bf(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* IEEE binary16 to fp32, exactly (subnormals, infinities and NaN included). */
CAT_FN float cat_h2f(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    float f;
    if (e == 31) {
        uint32_t u = sign | 0x7f800000u | (m << 13);
        memcpy(&f, &u, 4);
        return f;
    }
    f = e ? ldexpf((float)(m | 1024), (int)e - 25) : ldexpf((float)m, -24);
    return sign ? -f : f;
}

CAT_FN float cat_val(const void *p, size_t i, int dt)
{
    if (dt == EA_F32)
        return ((const float *)p)[i];
    const uint16_t b = ((const uint16_t *)p)[i];
    return dt == EA_F16 ? cat_h2f(b) : cat_bf(b);
}

CAT_FN float cat_get(const void *p, size_t i, int dt)
{
    return cat_val(p, i, dt);
}

CAT_FN void cat_put(void *p, size_t i, int dt, float f)
{
    if (dt == EA_F32)
        ((float *)p)[i] = f;
    else
        ((uint16_t *)p)[i] = dt == EA_F16 ? ea_f32_to_f16(f) : ea_f32_to_bf16(f);
}

CAT_FN float cat_div(float a, float b)
{
    return a / b;
}

CAT_FN float cat_sqrt(float x)
{
    return sqrtf(x);
}

/* fmaxf(0, x), its value and sign, with no libm call but for zeros (whose sign fmaxf leaves to the
 * platform): the emulations call it once per element. */
CAT_FN float cat_reluf(float x)
{
    return x > 0 ? x : x < 0 || isnan(x) ? 0.0f : fmaxf(0.0f, x);
}

CAT_FN float cat_bn_relu(float x, const cat_chan *q)
{
    return cat_reluf(fmaf((x - q->mean) * q->r, q->w, q->b));
}
#endif

/* Bytes of an element of dt (one of the three above): a constant where dt is one, as the kernels' template
 * parameter and the emulations' per-dtype loops have it. */
CAT_FN int cat_size(int dt)
{
    return dt == EA_F32 ? 4 : 2;
}

/* Inductor's terms of a channel from its running mean and variance, weight and bias. */
CAT_FN void cat_terms(const cat_args *a, float mean, float var, float w, float b, cat_chan *q)
{
    q->mean = mean;
    q->r = cat_div(1.0f, cat_sqrt(var + a->eps));
    q->w = w;
    q->b = b;
}

/* ... of channel c, from the parameters (infer: of the scope's dtype dt). */
CAT_FN void cat_infer_chan(const cat_args *a, int c, cat_chan *q, int dt)
{
    cat_terms(a, cat_get(a->mean, c, dt), cat_get(a->var, c, dt), cat_get(a->weight, c, dt), cat_get(a->bias, c, dt),
              q);
}

/* floor(e / hw) from the float reciprocal, corrected: e < 2^24 and e / hw < 2^20 keep the estimate
 * within one. */
CAT_FN int cat_channel_of(const cat_args *a, int e)
{
    int q = (int)((float)e * a->inv_hw);
    if (q * a->hw > e)
        q--;
    else if ((q + 1) * a->hw <= e)
        q++;
    return q;
}

/* The first channel of CTA bx's span and how many channels the span touches. */
CAT_FN int cat_span_first(const cat_args *a, int bx, int span)
{
    return cat_channel_of(a, bx * span);
}

CAT_FN int cat_span_channels(const cat_args *a, int bx, int span)
{
    const int row = a->c * a->hw, last = bx * span + span < row ? bx * span + span - 1 : row - 1;
    return cat_channel_of(a, last) - cat_span_first(a, bx, span) + 1;
}

/* Table entry of channel c for sample n: its terms and the start of its row in its input (bytes of
 * es-byte elements). */
CAT_FN void cat_span_entry(const cat_args *a, int n, int c, cat_chan *q, const char **src, int dt, int es)
{
    int i = 0;
    while (c >= a->seg[i + 1])
        i++;
    const int chi = a->seg[i + 1] - a->seg[i];
    *src = (const char *)a->in[i] + ((size_t)n * chi + (size_t)(c - a->seg[i])) * (size_t)a->hw * es;
    cat_infer_chan(a, c, q, dt);
}

/* The vector at row element e: its source, and the table index and offset of its first element. */
CAT_FN const char *cat_span_locate(const cat_args *a, const char *const *src, int first, int e, int *j, int *r, int es)
{
    const int c = cat_channel_of(a, e);
    *j = c - first;
    *r = e - c * a->hw;
    return src[*j] + (size_t)*r * es;
}

/* y for the v values x (dtype dt) of a vector whose first element is at offset r of table entry j. */
CAT_FN void cat_span_apply(const cat_args *a, const cat_chan *tab, int j, int r, const void *x, void *y, int v,
                           int dt)
{
    const cat_chan *q0 = &tab[j], *q1 = r + v > a->hw ? &tab[j + 1] : q0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int k = 0; k < v; k++)
        cat_put(y, k, dt, cat_bn_relu(cat_val(x, k, dt), r + k < a->hw ? q0 : q1));
}

#endif
