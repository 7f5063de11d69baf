/* oracle_const.cu: OPT's positions from its attention mask of ones: the f32 scan of a constant row is
 * (j + 1) * fill, exact while every partial sum is an integer below 2^24 (scope.c refuses others),
 * so one pointwise kernel writes the scope's output (CPU reference: reference.c, const_reference,
 * which sums sequentially). */
#include <cuda_runtime.h>

#include "kernels.h"

__global__ void cs_const_kernel(int64_t *__restrict__ out, int64_t n, int cols, float fill, float sub, int64_t add)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (int64_t)((float)(i % cols + 1) * fill - sub) + add;
}

extern "C" int cs_oracle_const(int64_t rows, int64_t cols, float fill, float sub, int64_t add, int64_t *out,
                               void *stream)
{
    const int64_t n = rows * cols;
    cs_const_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(out, n, (int)cols, fill, sub, add);
    return (int)cudaGetLastError();
}
