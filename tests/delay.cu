/* delay.cu: the waiting kernel (contract in delay.h). */
#include <cuda_runtime.h>

#include "delay.h"

static __device__ unsigned long long now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void delay_kernel(unsigned long long ns)
{
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns)
        ;
}

extern "C" int ea_enqueue_delay(void *ctx, void *stream, ea_error *err)
{
    delay_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((unsigned long long)(*(const double *)ctx * 1000.0));
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : ea_fail(err, "delay kernel: %s", cudaGetErrorString(e));
}
