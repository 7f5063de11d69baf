/* bandwidth.cu: the copy probe (contract in bandwidth.h). */
#include "gpu/bandwidth.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpu/pattern.h"

enum { COPY_BLOCK = 256 };

/* Four independent 16-byte loads in flight per thread before any store: enough bytes outstanding
 * to cover HBM latency with one resident wave of blocks. */
static __global__ void copy16_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride)
        dst[i] = src[i];
}

/* One chunk per thread, a grid covering the buffer: on an H200 this beats the grid-stride loop by ~9%
 * (4.28 against 3.92 TB/s at 1 GiB), and the floor must divide by the best copy we can write. */
static __global__ void copy16_flat_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i];
}

static __global__ void pattern_kernel(uint4 *buf, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t w[4];
        ea_pattern_word(i, w);
        buf[i] = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

static __global__ void compare_kernel(const uint4 *a, const uint4 *b, size_t n, unsigned long long *bad)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 x = a[i], y = b[i];
        mine += (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
    }
    if (mine)
        atomicAdd(bad, mine);
}

typedef struct {
    uint4 *dst;
    const uint4 *src;
    size_t n;
    int grid;      /* grid-stride kernel: one block per resident slot */
    int flat_grid; /* one chunk per thread */
} copy_ctx;

static int fail(ea_error *err, const char *step, cudaError_t rc)
{
    return ea_fail(err, "copy bandwidth: %s: %s (%s)", step, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

static int enqueue_kernel(void *ctx, void *stream, ea_error *err)
{
    copy_ctx *c = (copy_ctx *)ctx;
    copy16_kernel<<<c->grid, COPY_BLOCK, 0, (cudaStream_t)stream>>>(c->dst, c->src, c->n);
    cudaError_t rc = cudaGetLastError();
    return rc == cudaSuccess ? 0 : fail(err, "copy16_kernel launch", rc);
}

static int enqueue_flat(void *ctx, void *stream, ea_error *err)
{
    copy_ctx *c = (copy_ctx *)ctx;
    copy16_flat_kernel<<<c->flat_grid, COPY_BLOCK, 0, (cudaStream_t)stream>>>(c->dst, c->src, c->n);
    cudaError_t rc = cudaGetLastError();
    return rc == cudaSuccess ? 0 : fail(err, "copy16_flat_kernel launch", rc);
}

static int enqueue_memcpy(void *ctx, void *stream, ea_error *err)
{
    copy_ctx *c = (copy_ctx *)ctx;
    cudaError_t rc = cudaMemcpyAsync(c->dst, c->src, c->n * sizeof(uint4), cudaMemcpyDeviceToDevice,
                                     (cudaStream_t)stream);
    return rc == cudaSuccess ? 0 : fail(err, "cudaMemcpyAsync", rc);
}

/* Poison, time, verify: a method that wrote nothing cannot pass on the previous method's output. */
static int time_one(copy_ctx *c, ea_enqueue_fn fn, const char *what, const ea_timer_config *cfg, ea_timing *t,
                    unsigned long long *bad_dev, ea_error *err)
{
    unsigned long long bad = 0;
    cudaError_t rc;

    /* Synchronised: the timer's stream does not wait for the legacy stream's memset. */
    if ((rc = cudaMemset(c->dst, 0xff, c->n * sizeof(uint4))) != cudaSuccess || (rc = cudaDeviceSynchronize()) != cudaSuccess)
        return fail(err, "cudaMemset(destination)", rc);
    if (ea_time_graph(fn, c, cfg, t, err) != 0)
        return -1;
    if ((rc = cudaMemset(bad_dev, 0, sizeof bad)) != cudaSuccess)
        return fail(err, "cudaMemset(counter)", rc);
    compare_kernel<<<c->grid, COPY_BLOCK>>>(c->dst, c->src, c->n, bad_dev);
    if ((rc = cudaGetLastError()) != cudaSuccess || (rc = cudaDeviceSynchronize()) != cudaSuccess)
        return fail(err, "compare_kernel", rc);
    if ((rc = cudaMemcpy(&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return fail(err, "cudaMemcpy(counter)", rc);
    if (bad)
        return ea_fail(err, "copy bandwidth: %s: expected the destination to equal the source, %llu of %zu 16-byte "
                            "words differ", what, bad, c->n);
    return 0;
}

extern "C" int ea_copy_bandwidth(size_t bytes, const ea_timer_config *cfg, ea_bandwidth *out, ea_error *err)
{
    copy_ctx c;
    uint4 *src = NULL, *dst = NULL;
    unsigned long long *bad = NULL;
    int dev = 0, sms = 0, per_sm = 0, rc = -1;
    cudaError_t e;

    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    if (bytes == 0)
        bytes = (size_t)1 << 30;
    if (bytes % sizeof(uint4) != 0)
        return ea_fail(err, "copy bandwidth: expected a size that is a multiple of 16 bytes, got %zu", bytes);
    out->bytes = bytes;
    (void)cudaGetLastError();
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy16_kernel, COPY_BLOCK, 0)) != cudaSuccess)
        return fail(err, "device query", e);
    c.grid = sms * (per_sm > 0 ? per_sm : 1);
    c.n = bytes / sizeof(uint4);
    if ((c.n + COPY_BLOCK - 1) / COPY_BLOCK > 0x7fffffffu)
        return ea_fail(err, "copy bandwidth: %zu bytes need more than 2^31 - 1 blocks of one chunk per thread", bytes);
    c.flat_grid = (int)((c.n + COPY_BLOCK - 1) / COPY_BLOCK);
    out->block = COPY_BLOCK;
    if ((e = cudaMalloc((void **)&src, bytes)) != cudaSuccess || (e = cudaMalloc((void **)&dst, bytes)) != cudaSuccess ||
        (e = cudaMalloc((void **)&bad, sizeof *bad)) != cudaSuccess) {
        fail(err, "cudaMalloc (two buffers of the copy size)", e);
        goto out;
    }
    c.src = src;
    c.dst = dst;
    pattern_kernel<<<c.grid, COPY_BLOCK>>>(src, c.n);
    if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaDeviceSynchronize()) != cudaSuccess) {
        fail(err, "pattern_kernel", e);
        goto out;
    }
    ea_timing strided;
    memset(&strided, 0, sizeof strided);
    if (time_one(&c, enqueue_kernel, "copy16_kernel", cfg, &strided, bad, err) != 0 ||
        time_one(&c, enqueue_flat, "copy16_flat_kernel", cfg, &out->kernel, bad, err) != 0 ||
        time_one(&c, enqueue_memcpy, "cudaMemcpyAsync", cfg, &out->memcpy, bad, err) != 0) {
        ea_timing_free(&strided);
        goto out;
    }
    out->strided_bytes_per_s = 2.0 * (double)bytes / (strided.per_call_us.median * 1e-6);
    out->grid = c.flat_grid;
    snprintf(out->kernel_name, sizeof out->kernel_name, "copy16_flat_kernel");
    if (strided.per_call_us.median < out->kernel.per_call_us.median) { /* keep the faster copy */
        ea_timing t = out->kernel;
        out->kernel = strided;
        strided = t;
        out->grid = c.grid;
        snprintf(out->kernel_name, sizeof out->kernel_name, "copy16_kernel (grid-stride)");
    }
    ea_timing_free(&strided);
    out->kernel_bytes_per_s = 2.0 * (double)bytes / (out->kernel.per_call_us.median * 1e-6);
    out->memcpy_bytes_per_s = 2.0 * (double)bytes / (out->memcpy.per_call_us.median * 1e-6);
    rc = 0;
out:
    cudaFree(src);
    cudaFree(dst);
    cudaFree(bad);
    if (rc != 0)
        ea_bandwidth_free(out);
    return rc;
}

extern "C" void ea_bandwidth_free(ea_bandwidth *b)
{
    ea_timing_free(&b->kernel);
    ea_timing_free(&b->memcpy);
}
