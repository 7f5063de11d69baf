/* kernels.h: the CUDA side of the index_add repro, callable from C.
 * Contract: every function enqueues its work on `stream` (a cudaStream_t; NULL: the legacy stream)
 * without synchronising, so a sequence of them can be captured into a CUDA graph, and returns the
 * launch's cudaError_t as an int (0: success). Pointers are device pointers from cudaMalloc (256-byte
 * aligned, which the 16-byte paths rely on). Values are bf16 bit patterns; index is int64.
 * - current.cu: ia_fill_bf16 (the fill of self as ATen launches it: vectorized_elementwise_kernel<8>,
 *   128 threads, 1024 elements a block), ia_copy_d2d (result.copy_(self): cudaMemcpyAsync, as
 *   ATen copies a contiguous same-dtype tensor), ia_aten_index_add (the template instance of
 *   indexFuncSmallIndex / indexFuncLargeIndex the plan names, with its grid, block and bf16x2 atomics).
 * - oracle_slice.cu and oracle.cu: the structured oracles (slice, windows: each output element written
 *   once, 16-byte accesses, no atomics) and, in oracle.cu, the general scatter (paired bf16x2
 *   red.global.add after a fill: oracle_fill.cu's ia_oracle_fill_bf16, the faster fill, since an oracle
 *   owes ATen nothing). */
#ifndef IA_KERNELS_H
#define IA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

int ia_fill_bf16(void *out, int64_t n, float value, void *stream);
int ia_oracle_fill_bf16(void *out, int64_t n, float value, void *stream);
int ia_copy_d2d(void *dst, const void *src, size_t bytes, void *stream);
int ia_aten_index_add(const ia_aten_plan *p, void *result, const void *source, const int64_t *index, float alpha,
                      void *stream);

int ia_oracle_slice(const ia_slice *q, void *out, const void *x, float scale, float fill, void *stream);
int ia_oracle_windows(const ia_windows *w, void *out, const void *x, float scale, float fill, void *stream);
/* Adds scale * x into out (already holding self): the general oracle's scatter step. */
int ia_oracle_scatter(const ia_general *g, void *out, const void *x, const int64_t *index, float scale, void *stream);

#ifdef __cplusplus
}
#endif

#endif
