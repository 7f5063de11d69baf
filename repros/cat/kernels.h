/* kernels.h: the cat scope's oracles (oracle.cu), callable from C.
 * Contract: cat_oracle enqueues one launch on stream (a cudaStream_t; NULL: the legacy stream) without
 * synchronising, so it can be captured into a CUDA graph, and returns its cudaError_t as an int.
 * Pointers are device pointers from cudaMalloc (256-byte aligned; the vector widths of cat_plan rely
 * on it). Values are of the scope's dtype (bf16, f16 or f32: a->dt; every kernel is instantiated per dtype,
 * and a plan's vector is at most 16 bytes of it), statistics and train parameters fp32.
 * - stream (infer, not pooled): stream_block.h's CTA: a table of the channels of its span, then
 *   `unroll` vectors of p->vec elements per thread. y = relu(fma((x - mean) * r, w, b)) with r = 1 /
 *   sqrt_rn(var + eps) by div.full, the fp32 operations and order of Inductor's kernel: y is torch's bit
 *   for bit (the capture's checksums: on the CPU through this block code for every golden point, and
 *   on an H200 with the same arithmetic).
 * - channel, warp (train, or pooled): a CTA, or a warp (CAT_WARP_CHANNELS per CTA), per channel loads
 *   its N*H*W values in batches (CAT_IN_FLIGHT loads per thread before the first is used) into shared
 *   memory as fp32 (train: copying them into the cat on the way), computes mean and biased variance
 *   from fp64 sums of the values and their squares (train; one pass, justified in oracle.cu), then
 *   writes y, or per sample the mean over H*W of relu(y) summed in order (pooled), and the statistics.
 * - regs (train, not pooled): a warp per channel as above, its values held in registers (p->packs
 *   vectors per lane), no staging.
 * - rows (infer, pooled): a warp per tile of p->rows channels of one sample: the tile copied to shared
 *   memory, then a lane per channel sums relu(y) over H*W in the same order. */
#ifndef CAT_KERNELS_H
#define CAT_KERNELS_H

#include "cat.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const void *in[CAT_MAX_INPUTS];
    int seg[CAT_MAX_INPUTS + 1]; /* channel offset of each input, and C */
    int k, n, c, hw;
    int dt;       /* the values' ea_dtype: EA_BF16, EA_F16 or EA_F32 */
    const void *mean, *var, *weight, *bias; /* infer: running stats and affine of dt; train: var = the f32
                                               running variance, weight and bias f32, mean unused */
    void *cat, *y, *out_mean, *out_rstd, *out_rv; /* NULL where the scope does not keep it */
    float eps;
    double eps_d, bessel_momentum, decay;
    float inv_hw; /* 1 / (H*W) in fp32: the stream kernel's channel estimate (stream_block.h) */
    int tab_cap;  /* stream: channels one CTA's span touches at most (its shared-memory table) */
    int rows;     /* rows: channels per tile */
} cat_args;

/* The argument block stays within the 4 KiB every CUDA version takes for a kernel's parameters. */
#ifdef __cplusplus
static_assert(sizeof(cat_args) <= 4096, "cat_args: kernel parameters over 4 KiB");
#else
_Static_assert(sizeof(cat_args) <= 4096, "cat_args: kernel parameters over 4 KiB");
#endif

/* a's fields that follow from the plan (a->hw set): the stream kernel's 1 / (H*W) and table size, the
 * rows kernel's tile. */
static inline void cat_args_plan(cat_args *a, const cat_plan *p)
{
    a->inv_hw = 1.0f / (float)a->hw;
    a->tab_cap = (int)p->tab_cap;
    a->rows = p->rows;
}

/* Launches p's kernel with a's plan fields set from p (cat_args_plan); cudaErrorInvalidValue for a plan
 * with no kernel instance (cat_plan_variants makes none such). */
int cat_oracle(const cat_plan *p, int train, int pooled, const cat_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
