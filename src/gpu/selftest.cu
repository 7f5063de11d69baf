#include "gpu/device.h"
#include "gpu/device_impl.h"

#include <string.h>

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

/* nvcc defines __CUDA_ARCH_LIST__ as e.g. 900,1000; the comma needs the variadic form. */
#define EA_STRINGIFY_(...) #__VA_ARGS__
#define EA_STRINGIFY(...) EA_STRINGIFY_(__VA_ARGS__)

static const int kCount = 1024;
static const int kBlock = 256;

static __global__ void fill_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * 3 + 1;
}

static int cuda_fail(ea_error *err, const char *step, cudaError_t rc)
{
    /* The commonest field failure is a GPU this binary has no code for; say which arches it has. */
    return ea_fail(err, "selftest: %s: expected cudaSuccess, got %s (%s)%s", step, cudaGetErrorName(rc),
                   cudaGetErrorString(rc),
                   rc == cudaErrorNoKernelImageForDevice
                       ? "; this build carries code for CUDA arches " EA_STRINGIFY(__CUDA_ARCH_LIST__)
                       : "");
}

static int run_kernel(ea_error *err)
{
    int host[kCount];
    int *dev = NULL;
    int rc = -1, bad = 0, first_bad = -1;
    cudaError_t e;

    /* A leftover error from an earlier caller would otherwise be blamed on this launch. */
    (void)cudaGetLastError();
    e = cudaMalloc((void **)&dev, sizeof host);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaMalloc(4096 bytes)", e);
    /* Neither 0 (device) nor -1 (host) is ever i*3+1: a skipped element or a missed copy shows. */
    e = cudaMemset(dev, 0, sizeof host);
    if (e != cudaSuccess) {
        cuda_fail(err, "cudaMemset", e);
        goto out;
    }
    fill_kernel<<<(kCount + kBlock - 1) / kBlock, kBlock>>>(dev, kCount);
    e = cudaGetLastError();
    if (e != cudaSuccess) {
        cuda_fail(err, "fill_kernel launch", e);
        goto out;
    }
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        cuda_fail(err, "fill_kernel execution (cudaDeviceSynchronize)", e);
        goto out;
    }
    for (int i = 0; i < kCount; i++)
        host[i] = -1;
    e = cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        cuda_fail(err, "cudaMemcpy device to host", e);
        goto out;
    }
    for (int i = 0; i < kCount; i++) {
        if (host[i] != i * 3 + 1) {
            if (bad++ == 0)
                first_bad = i;
        }
    }
    if (bad) {
        ea_fail(err, "selftest: fill_kernel result[%d]: expected %d, found %d (%d of %d elements wrong)", first_bad,
                first_bad * 3 + 1, host[first_bad], bad, kCount);
        goto out;
    }
    rc = 0;
out:
    e = cudaFree(dev);
    if (e != cudaSuccess && rc == 0)
        rc = cuda_fail(err, "cudaFree", e);
    return rc;
}

/* Proves the path the cubin loader depends on: a driver function reached without linking libcuda. */
static int check_driver_entry(ea_error *err)
{
    void *fn = NULL;
    int via_entry = 0, via_runtime = 0;
    CUresult cr;
    cudaError_t e;

    if (ea_driver_entry("cuDriverGetVersion", &fn, err) != 0) {
        char inner[sizeof err->msg];
        memcpy(inner, err->msg, sizeof inner);
        return ea_fail(err, "selftest: %.1000s", inner);
    }
    cr = ((PFN_cuDriverGetVersion_v2020)fn)(&via_entry);
    if (cr != CUDA_SUCCESS)
        return ea_fail(err, "selftest: cuDriverGetVersion via entry point: expected CUDA_SUCCESS, got CUresult %d",
                       (int)cr);
    e = cudaDriverGetVersion(&via_runtime);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaDriverGetVersion", e);
    if (via_entry != via_runtime)
        return ea_fail(err, "selftest: driver version: expected cuDriverGetVersion (%d) == cudaDriverGetVersion (%d)",
                       via_entry, via_runtime);
    return 0;
}

extern "C" int ea_device_selftest(ea_error *err)
{
    if (run_kernel(err) != 0)
        return -1;
    return check_driver_entry(err);
}
