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
 * loads and square roots of both channels. */
#ifndef CAT_STREAM_BLOCK_H
#define CAT_STREAM_BLOCK_H

#include <stdint.h>

#include "kernels.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#define CAT_FN __device__ __forceinline__
#else
#include <math.h>
#include <string.h>

#include "gen.h"
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

CAT_FN uint16_t cat_ldg(const uint16_t *p)
{
    return __ldg(reinterpret_cast<const unsigned short *>(p));
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

CAT_FN uint16_t cat_round(float f)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}
#else
CAT_FN float cat_bf(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

CAT_FN uint16_t cat_ldg(const uint16_t *p)
{
    return *p;
}

CAT_FN float cat_div(float a, float b)
{
    return a / b;
}

CAT_FN float cat_sqrt(float x)
{
    return sqrtf(x);
}

CAT_FN float cat_bn_relu(float x, const cat_chan *q)
{
    return fmaxf(0.0f, fmaf((x - q->mean) * q->r, q->w, q->b));
}

CAT_FN uint16_t cat_round(float f)
{
    return ea_f32_to_bf16(f);
}
#endif

/* Inductor's terms of a channel from its running mean and variance, weight and bias. */
CAT_FN void cat_terms(const cat_args *a, float mean, float var, float w, float b, cat_chan *q)
{
    q->mean = mean;
    q->r = cat_div(1.0f, cat_sqrt(var + a->eps));
    q->w = w;
    q->b = b;
}

/* ... of channel c, from the bf16 parameters (infer). */
CAT_FN void cat_infer_chan(const cat_args *a, int c, cat_chan *q)
{
    cat_terms(a, cat_bf(cat_ldg((const uint16_t *)a->mean + c)), cat_bf(cat_ldg((const uint16_t *)a->var + c)),
              cat_bf(cat_ldg((const uint16_t *)a->weight + c)), cat_bf(cat_ldg((const uint16_t *)a->bias + c)), q);
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

/* Table entry of channel c for sample n: its terms and the start of its row in its input. */
CAT_FN void cat_span_entry(const cat_args *a, int n, int c, cat_chan *q, const uint16_t **src)
{
    int i = 0;
    while (c >= a->seg[i + 1])
        i++;
    const int chi = a->seg[i + 1] - a->seg[i];
    *src = (const uint16_t *)a->in[i] + ((size_t)n * chi + (size_t)(c - a->seg[i])) * (size_t)a->hw;
    cat_infer_chan(a, c, q);
}

/* The vector at row element e: its source, and the table index and offset of its first element. */
CAT_FN const uint16_t *cat_span_locate(const cat_args *a, const uint16_t *const *src, int first, int e, int *j,
                                       int *r)
{
    const int c = cat_channel_of(a, e);
    *j = c - first;
    *r = e - c * a->hw;
    return src[*j] + *r;
}

/* y for the v values x of a vector whose first element is at offset r of table entry j. */
CAT_FN void cat_span_apply(const cat_args *a, const cat_chan *tab, int j, int r, const uint16_t *x, uint16_t *y,
                           int v)
{
    const cat_chan *q0 = &tab[j], *q1 = r + v > a->hw ? &tab[j + 1] : q0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int k = 0; k < v; k++)
        y[k] = cat_round(cat_bn_relu(cat_bf(x[k]), r + k < a->hw ? q0 : q1));
}

#endif
