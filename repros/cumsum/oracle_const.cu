/* oracle_const.cu: OPT's positions from its attention mask of ones: the f32 scan of a constant row is
 * (j + 1) * fill, exact while every partial sum is an integer below 2^24 (scope.c refuses others),
 * so one pointwise kernel writes the scope's output (CPU reference: reference.c, const_reference,
 * which sums sequentially). */
#include <math.h>

#include <cuda_runtime.h>

#include "kernels_impl.h"

/* A thread per column computes its value once and writes it down the rows (grid.y strides them), so
 * no thread divides: the first version, a thread per element taking i % cols in 64 bits, measured 1.14 us
 * on an H200 against Inductor's 0.96 for OPT's 4 x 2048; this one 1.04 (baselines.json). I32: every value
 * lies within +-2^30 (cs_const_i32), so f32 -> i32 -> i64 gives the f32 -> i64 conversion's bits with the
 * 32-bit instruction, as Inductor's kernel converts (F2I.S64 is a longer operation on sm_90). */
template <bool I32>
__global__ void cs_const_kernel(int64_t *__restrict__ out, int64_t rows, int cols, float fill, float sub, int64_t add)
{
    const int j = blockIdx.x * CS_CONST_THREADS + threadIdx.x;
    if (j >= cols)
        return;
    const float x = (float)(j + 1) * fill - sub;
    const int64_t v = (I32 ? (int64_t)(int)x : (int64_t)x) + add;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        out[r * cols + j] = v;
}

extern "C" int cs_const_i32(int64_t cols, double fill, double sub)
{
    return fill >= 0 && fill * (double)cols + fabs(sub) < CS_CONST_I32_BOUND;
}

extern "C" int cs_oracle_const(int64_t rows, int64_t cols, float fill, float sub, int64_t add, int64_t *out,
                               void *stream)
{
    const dim3 grid((unsigned)((cols + CS_CONST_THREADS - 1) / CS_CONST_THREADS),
                    (unsigned)(rows < CS_CONST_MAX_ROWS ? rows : CS_CONST_MAX_ROWS));
    if (cs_const_i32(cols, fill, sub))
        cs_const_kernel<true><<<grid, CS_CONST_THREADS, 0, (cudaStream_t)stream>>>(out, rows, (int)cols, fill, sub, add);
    else
        cs_const_kernel<false><<<grid, CS_CONST_THREADS, 0, (cudaStream_t)stream>>>(out, rows, (int)cols, fill, sub, add);
    return (int)cudaGetLastError();
}
