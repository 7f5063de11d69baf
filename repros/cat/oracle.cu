/* oracle.cu: the cat scope's fused oracles (contract in kernels.h). */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"
#include "stream_block.h"

template <int V> struct word;
template <> struct word<8> { typedef uint4 T; };
template <> struct word<4> { typedef uint2 T; };
template <> struct word<2> { typedef unsigned int T; };
template <> struct word<1> { typedef unsigned short T; };

/* V bf16 values as one access of 2V bytes */
template <int V> union pack {
    typename word<V>::T w;
    unsigned short h[V];
};

template <int V> __device__ __forceinline__ pack<V> load(const unsigned short *p)
{
    pack<V> r;
    r.w = __ldg(reinterpret_cast<const typename word<V>::T *>(p));
    return r;
}

template <int V> __device__ __forceinline__ void store(unsigned short *p, const pack<V> &v)
{
    *reinterpret_cast<typename word<V>::T *>(p) = v.w;
}

template <int V, int U> __global__ void __launch_bounds__(256) cat_stream(const __grid_constant__ cat_args a)
{
    extern __shared__ __align__(16) unsigned char table[];
    cat_chan *tab = reinterpret_cast<cat_chan *>(table);
    const uint16_t **src = reinterpret_cast<const uint16_t **>(table + a.tab_cap * sizeof(cat_chan));
    const int n = blockIdx.y, row = a.c * a.hw, span = U * blockDim.x * V;
    const int first = cat_span_first(&a, blockIdx.x, span), nch = cat_span_channels(&a, blockIdx.x, span);
    for (int j = threadIdx.x; j < nch; j += blockDim.x)
        cat_span_entry(&a, n, first + j, &tab[j], &src[j]);
    __syncthreads();
    pack<V> v[U];
    int e[U], jj[U], rr[U];
#pragma unroll
    for (int u = 0; u < U; u++) { /* every load first: U vectors in flight per thread */
        e[u] = blockIdx.x * span + (u * blockDim.x + threadIdx.x) * V;
        if (e[u] < row)
            v[u] = load<V>(cat_span_locate(&a, src, first, e[u], &jj[u], &rr[u]));
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (e[u] >= row)
            continue;
        pack<V> y;
        cat_span_apply(&a, tab, jj[u], rr[u], v[u].h, y.h, V);
        store<V>((unsigned short *)a.y + (size_t)n * row + e[u], y);
    }
}

/* Sum over the CTA, returned to every thread; red holds 32 doubles. */
__device__ double block_sum(double x, double *red)
{
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads(); /* red is reused: the previous sum's readers are done */
    if (lane == 0)
        red[wid] = x;
    __syncthreads();
    double t = 0;
    for (int w = 0; w < nw; w++)
        t += red[w];
    return t;
}

#define CAT_IN_FLIGHT 8 /* loads per thread issued before the first is used */

template <int V, bool TRAIN, bool POOL> __global__ void __launch_bounds__(256) cat_channel(const __grid_constant__ cat_args a)
{
    extern __shared__ float xs[]; /* the channel's N*H*W values, sample-major */
    __shared__ double red[32];
    __shared__ cat_chan cq;
    const int c = blockIdx.x, m = a.n * a.hw;
    float w = 0, b = 0, v2 = 0, mean0 = 0; /* v2: the running variance */
    if (threadIdx.x == 0) { /* loaded first, used last: the parameters' latency overlaps the values' */
        if (TRAIN) {
            w = ((const float *)a.weight)[c], b = ((const float *)a.bias)[c], v2 = ((const float *)a.var)[c];
        } else {
            mean0 = cat_bf(cat_ldg((const uint16_t *)a.mean + c)), v2 = cat_bf(cat_ldg((const uint16_t *)a.var + c));
            w = cat_bf(cat_ldg((const uint16_t *)a.weight + c)), b = cat_bf(cat_ldg((const uint16_t *)a.bias + c));
        }
    }
    int i = 0;
    while (c >= a.seg[i + 1])
        i++;
    const int lc = c - a.seg[i], chi = a.seg[i + 1] - a.seg[i];
    const unsigned short *src = (const unsigned short *)a.in[i];
    double part = 0;
    const int step = blockDim.x * V;
    for (int base = threadIdx.x * V; base < m; base += step * CAT_IN_FLIGHT) {
        pack<V> v[CAT_IN_FLIGHT]; /* every load of the batch first: a channel is latency-bound */
#pragma unroll
        for (int k = 0; k < CAT_IN_FLIGHT; k++) {
            const int e = base + k * step, n = e / a.hw, p = e - n * a.hw;
            if (e < m)
                v[k] = load<V>(src + ((size_t)n * chi + lc) * a.hw + p);
        }
#pragma unroll
        for (int k = 0; k < CAT_IN_FLIGHT; k++) {
            const int e = base + k * step, n = e / a.hw, p = e - n * a.hw;
            if (e >= m)
                continue;
            if (TRAIN)
                store<V>((unsigned short *)a.cat + ((size_t)n * a.c + c) * a.hw + p, v[k]);
#pragma unroll
            for (int j = 0; j < V; j++) {
                xs[e + j] = cat_bf(v[k].h[j]);
                part += xs[e + j];
            }
        }
    }
    if (TRAIN) { /* two passes in fp64 over the staged values: each thread reads back what it wrote */
        const double mean = block_sum(part, red) / m;
        double dev = 0;
        for (int e = threadIdx.x * V; e < m; e += blockDim.x * V)
#pragma unroll
            for (int j = 0; j < V; j++)
                dev += ((double)xs[e + j] - mean) * ((double)xs[e + j] - mean);
        const double var = block_sum(dev, red) / m;
        if (threadIdx.x == 0) {
            cq.mean = (float)mean;
            cq.r = (float)(1.0 / sqrt(var + a.eps_d));
            cq.w = w, cq.b = b;
            ((float *)a.out_mean)[c] = cq.mean;
            ((float *)a.out_rstd)[c] = cq.r;
            ((float *)a.out_rv)[c] = (float)(var * a.bessel_momentum + (double)v2 * a.decay);
        }
    } else if (threadIdx.x == 0) {
        cat_terms(&a, mean0, v2, w, b, &cq);
    }
    __syncthreads();
    const cat_chan q = cq;
    if (!POOL) {
        for (int e = threadIdx.x * V; e < m; e += blockDim.x * V) {
            const int n = e / a.hw, p = e - n * a.hw;
            pack<V> y;
#pragma unroll
            for (int j = 0; j < V; j++)
                y.h[j] = cat_round(cat_bn_relu(xs[e + j], &q));
            store<V>((unsigned short *)a.y + ((size_t)n * a.c + c) * a.hw + p, y);
        }
    } else {
        /* a thread per sample sums relu(y) over H*W in order p = 0, 1, ...: the order whose result is
         * torch's y bit for bit on every golden point (test_cat's emulation) */
        for (int n = threadIdx.x; n < a.n; n += blockDim.x) {
            float s = 0;
            for (int p = 0; p < a.hw; p++)
                s = __fadd_rn(s, cat_bn_relu(xs[n * a.hw + p], &q));
            ((unsigned short *)a.y)[(size_t)n * a.c + c] = cat_round(cat_div(s, (float)a.hw));
        }
    }
}

__device__ __forceinline__ double warp_sum(double x)
{
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

/* cat_channel's work with a warp per channel and CAT_WARP_CHANNELS channels per CTA: the same loads,
 * arithmetic and outputs, the reductions by shuffles (no CTA barrier), so a channel's latency chain
 * does not hold a whole CTA; the train profile showed one CTA per channel at 25% occupancy. */
template <int V, bool TRAIN, bool POOL>
__global__ void __launch_bounds__(32 * CAT_WARP_CHANNELS) cat_channel_warp(const __grid_constant__ cat_args a)
{
    extern __shared__ float xw[]; /* per warp: its channel's N*H*W values, sample-major */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, c = blockIdx.x * CAT_WARP_CHANNELS + warp;
    if (c >= a.c) /* a whole warp leaves: nothing below waits on it */
        return;
    const int m = a.n * a.hw;
    float *xs = xw + (size_t)warp * m;
    float w = 0, b = 0, v2 = 0, mean0 = 0;
    if (lane == 0) {
        if (TRAIN) {
            w = ((const float *)a.weight)[c], b = ((const float *)a.bias)[c], v2 = ((const float *)a.var)[c];
        } else {
            mean0 = cat_bf(cat_ldg((const uint16_t *)a.mean + c)), v2 = cat_bf(cat_ldg((const uint16_t *)a.var + c));
            w = cat_bf(cat_ldg((const uint16_t *)a.weight + c)), b = cat_bf(cat_ldg((const uint16_t *)a.bias + c));
        }
    }
    int i = 0;
    while (c >= a.seg[i + 1])
        i++;
    const int lc = c - a.seg[i], chi = a.seg[i + 1] - a.seg[i];
    const unsigned short *src = (const unsigned short *)a.in[i];
    double part = 0;
    const int step = 32 * V;
    for (int base = lane * V; base < m; base += step * CAT_IN_FLIGHT) {
        pack<V> v[CAT_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < CAT_IN_FLIGHT; k++) {
            const int e = base + k * step, n = e / a.hw, p = e - n * a.hw;
            if (e < m)
                v[k] = load<V>(src + ((size_t)n * chi + lc) * a.hw + p);
        }
#pragma unroll
        for (int k = 0; k < CAT_IN_FLIGHT; k++) {
            const int e = base + k * step, n = e / a.hw, p = e - n * a.hw;
            if (e >= m)
                continue;
            if (TRAIN)
                store<V>((unsigned short *)a.cat + ((size_t)n * a.c + c) * a.hw + p, v[k]);
#pragma unroll
            for (int j = 0; j < V; j++) {
                xs[e + j] = cat_bf(v[k].h[j]);
                part += xs[e + j];
            }
        }
    }
    cat_chan q;
    if (TRAIN) { /* two passes in fp64 over the staged values: each lane reads back what it wrote */
        const double mean = warp_sum(part) / m;
        double dev = 0;
        for (int e = lane * V; e < m; e += step)
#pragma unroll
            for (int j = 0; j < V; j++)
                dev += ((double)xs[e + j] - mean) * ((double)xs[e + j] - mean);
        const double var = warp_sum(dev) / m;
        q.mean = (float)mean;
        q.r = (float)(1.0 / sqrt(var + a.eps_d));
        q.w = __shfl_sync(0xffffffffu, w, 0), q.b = __shfl_sync(0xffffffffu, b, 0);
        if (lane == 0) {
            ((float *)a.out_mean)[c] = q.mean;
            ((float *)a.out_rstd)[c] = q.r;
            ((float *)a.out_rv)[c] = (float)(var * a.bessel_momentum + (double)v2 * a.decay);
        }
    } else {
        cat_terms(&a, __shfl_sync(0xffffffffu, mean0, 0), __shfl_sync(0xffffffffu, v2, 0),
                  __shfl_sync(0xffffffffu, w, 0), __shfl_sync(0xffffffffu, b, 0), &q);
    }
    if (!POOL) {
        for (int e = lane * V; e < m; e += step) {
            const int n = e / a.hw, p = e - n * a.hw;
            pack<V> y;
#pragma unroll
            for (int j = 0; j < V; j++)
                y.h[j] = cat_round(cat_bn_relu(xs[e + j], &q));
            store<V>((unsigned short *)a.y + ((size_t)n * a.c + c) * a.hw + p, y);
        }
    } else {
        __syncwarp(); /* a lane sums a sample the other lanes staged, in cat_channel's order */
        for (int n = lane; n < a.n; n += 32) {
            float s = 0;
            for (int p = 0; p < a.hw; p++)
                s = __fadd_rn(s, cat_bn_relu(xs[n * a.hw + p], &q));
            ((unsigned short *)a.y)[(size_t)n * a.c + c] = cat_round(cat_div(s, (float)a.hw));
        }
    }
}

template <int V, bool TRAIN, bool POOL> static int channel(const cat_plan *p, const cat_args *a, cudaStream_t st)
{
    void (*k)(const cat_args) = p->kind == CAT_ORACLE_WARP ? cat_channel_warp<V, TRAIN, POOL> : cat_channel<V, TRAIN, POOL>;
    if (p->shared_bytes > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->shared_bytes);
        if (e != cudaSuccess)
            return (int)e;
    }
    k<<<(unsigned)p->grid_x, p->threads, (size_t)p->shared_bytes, st>>>(*a);
    return (int)cudaGetLastError();
}

template <int V> static int by_mode(const cat_plan *p, int train, int pooled, int unroll, const cat_args *a,
                                    cudaStream_t st)
{
    if (p->kind == CAT_ORACLE_STREAM) {
        dim3 grid((unsigned)p->grid_x, (unsigned)p->grid_y);
        if (unroll == 1)
            cat_stream<V, 1><<<grid, p->threads, (size_t)p->shared_bytes, st>>>(*a);
        else if (unroll == 2)
            cat_stream<V, 2><<<grid, p->threads, (size_t)p->shared_bytes, st>>>(*a);
        else if (unroll == 4)
            cat_stream<V, 4><<<grid, p->threads, (size_t)p->shared_bytes, st>>>(*a);
        else if (unroll == 8)
            cat_stream<V, 8><<<grid, p->threads, (size_t)p->shared_bytes, st>>>(*a);
        else
            return (int)cudaErrorInvalidValue;
        return (int)cudaGetLastError();
    }
    if (train)
        return pooled ? channel<V, true, true>(p, a, st) : channel<V, true, false>(p, a, st);
    return pooled ? channel<V, false, true>(p, a, st) : channel<V, false, false>(p, a, st);
}

extern "C" int cat_oracle(const cat_plan *p, int train, int pooled, int unroll, const cat_args *args, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    cat_args planned = *args;
    const cat_args *a = &planned;
    cat_args_plan(&planned, p);
    switch (p->vec) {
    case 8: return by_mode<8>(p, train, pooled, unroll, a, st);
    case 4: return by_mode<4>(p, train, pooled, unroll, a, st);
    case 2: return by_mode<2>(p, train, pooled, unroll, a, st);
    case 1: return by_mode<1>(p, train, pooled, unroll, a, st);
    default: return (int)cudaErrorInvalidValue;
    }
}
