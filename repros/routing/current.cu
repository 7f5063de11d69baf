/* current.cu: the ATen kernels torch 2.11 launches for the routing scope's two fallbacks, rewritten from
 * a reading of aten/src/ATen/native/cuda/{Sort.cpp, Sort.h, Sort.cu, SortUtils.cuh} (sort),
 * RangeFactories.cu (arange), SummaryOps.cu and CUDAApplyUtils.cuh (histc) and the fill of at::zeros
 * (kernels.h says which path of each and why).
 * histc: SummaryOps.cu for torch 2.11.0 (the target's "torch"). The v2.11.0 tag of pytorch/pytorch could
 * not be read here (the repository's snapshot is too large to fetch, and no stored copy of SummaryOps.cu is at
 * torch 2.11's commit 70d99e998b49); the code was read at cyyever/pytorch
 * 0d188885a9a2 (a fork tracking main), whose histogram code matches the other recent copy in the index:
 * line 20 RATIO_OF_GMEM_ATOMIC_ADD_TO_SMEM_ATOMIC_ADD 8, line 29 enum {SHARED, GLOBAL} (no MULTI_BLOCK),
 * lines 62-124 kernelHistogram1D, lines 190-215 CUDA_tensor_histogram's launch: getApplyBlock (512),
 * getApplyGrid, SHARED when nbins * sizeof(output_t) + 8 < sharedMemPerBlock, then the optimalGrid
 * balancing. The index's pytorch/pytorch copy (5ad7430b1d1f) is older: SHARED only below 100 bins
 * (THRESH_NUMBER_BINS_FOR_MULTI_BLOCK_MEM), MULTI_BLOCK to 1000. The torch profiler on the H200 saw
 * torch 2.11 run 128 bins in SHARED mode, grid 8 x 512, 520 bytes (issue 10): the newer code's launch
 * (rt_hist_grid(4000, 128, 132) = 8), not the older's (MULTI_BLOCK, no shared memory). The sort is CUB's BlockRadixSort called as ATen calls
 * it (key and value types, all 64 bits, block and items per thread, the padding key): the same routine
 * gives the same order, the stable one (a radix sort ranks equal keys in input order). */
#include "kernels.h"

#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/std/limits>

#include <cmath>

#include "../aten_tensor_info.cuh"

namespace rt_aten { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

using ea_aten::info_1d;
using ea_aten::TensorInfo;

/* arange's lambda: start + idx * step in the accumulate type (int64 for Long). */
struct ArangeOp {
    int64_t start, step;
    __device__ int64_t operator()(int idx) const { return start + static_cast<int64_t>(idx) * step; }
};

template <typename index_t, typename func_t>
__global__ void __launch_bounds__(RT_ARANGE_THREADS)
elementwise_kernel_with_index(index_t N, func_t f, int64_t *data)
{
    index_t idx = RT_ARANGE_THREADS * blockIdx.x + threadIdx.x;
    if (idx < N)
        data[idx] = f(idx);
}

/* FillFunctor through the vectorized loop; a 32-element tensor takes its unrolled tail path. */
template <typename scalar_t>
struct FillFunctor {
    scalar_t value;
    __device__ scalar_t operator()() const { return value; }
};

template <int vec_size, typename func_t>
__global__ void __launch_bounds__(RT_FILL_THREADS) vectorized_elementwise_kernel(int N, func_t f, int32_t *data)
{
    int base = blockIdx.x * RT_FILL_THREADS * RT_FILL_ELEMS;
#pragma unroll
    for (int i = 0; i < RT_FILL_ELEMS; i++) {
        int idx = base + threadIdx.x + i * RT_FILL_THREADS;
        if (idx < N)
            data[idx] = f();
    }
}

/* SummaryOps.cu: histc's weight op returns 1 (an int64) per element. */
struct DummyOp {
    __device__ int64_t operator()(int64_t) const { return 1; }
};

enum class CUDAHistogramMemoryType { SHARED, MULTI_BLOCK, GLOBAL };

template <typename input_t, typename IndexType>
__device__ static IndexType getBin(input_t bVal, int64_t minvalue, int64_t maxvalue, int64_t nbins)
{
    IndexType bin = (int)(((bVal - minvalue)) * nbins / (maxvalue - minvalue)); /* int64 arithmetic */
    if (bin == nbins) /* the last bin is closed: max goes into it */
        bin -= 1;
    return bin;
}

/* The SHARED branch of kernelHistogram1D (every histogram whose bins fit a CTA's shared memory); 1-d tensors, so the
 * IndexToOffset of every operand is linearIndex * stride. */
template <typename output_t, typename input_t, typename IndexType, int ADims, int PDims, int BDims,
          CUDAHistogramMemoryType MemoryType, typename Op>
__global__ void __launch_bounds__(RT_HIST_THREADS)
kernelHistogram1D(TensorInfo<output_t, IndexType> a, TensorInfo<output_t, IndexType> p,
                  TensorInfo<input_t, IndexType> b, int64_t nbins, int64_t minvalue, int64_t maxvalue,
                  IndexType totalElements, Op getOp)
{
    extern __shared__ unsigned char my_smem[];
    output_t *smem = reinterpret_cast<output_t *>(my_smem);
    for (IndexType i = threadIdx.x; i < a.sizes[0]; i += blockDim.x)
        smem[i] = 0;
    __syncthreads();
    for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < totalElements;
         linearIndex += gridDim.x * blockDim.x) {
        const auto bVal = b.data[linearIndex * b.strides[0]];
        if (bVal >= minvalue && bVal <= maxvalue) {
            const IndexType bin = getBin<input_t, IndexType>(bVal, minvalue, maxvalue, nbins);
            atomicAdd(&smem[bin], static_cast<output_t>(getOp(linearIndex)));
        }
    }
    __syncthreads();
    for (IndexType i = threadIdx.x; i < a.sizes[0]; i += blockDim.x)
        atomicAdd(&a.data[i * a.strides[0]], smem[i]);
}

template <int KeyDims, int ValueDims, int block_size, int items_per_thread, typename K, typename V,
          typename IndexType>
__global__ void __launch_bounds__(block_size)
radixSortKVInPlace(TensorInfo<K, IndexType> keys, IndexType keySlices, IndexType keySliceSize,
                   IndexType keySliceStride, TensorInfo<V, IndexType> values, IndexType valueSliceStride,
                   bool descending)
{
    if (blockIdx.x >= keySlices) /* one slice: the scope's single sort */
        return;
    using LoadKeys = cub::BlockLoad<K, block_size, items_per_thread, cub::BLOCK_LOAD_TRANSPOSE>;
    using LoadValues = cub::BlockLoad<V, block_size, items_per_thread, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<K, block_size, items_per_thread, V>;
    using StoreKeys = cub::BlockStore<K, block_size, items_per_thread, cub::BLOCK_STORE_TRANSPOSE>;
    using StoreValues = cub::BlockStore<V, block_size, items_per_thread, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename LoadKeys::TempStorage load_keys;
        typename LoadValues::TempStorage load_values;
        typename Sort::TempStorage sort;
        typename StoreKeys::TempStorage store_keys;
        typename StoreValues::TempStorage store_values;
    } tmp;
    /* the padding sorts last: the largest key ascending, the lowest descending (cub's MAX/LOWEST_KEY) */
    const K invalid_key = descending ? cuda::std::numeric_limits<K>::lowest() : cuda::std::numeric_limits<K>::max();
    K *key_slice = keys.data + static_cast<IndexType>(blockIdx.x) * keys.strides[0];
    V *value_slice = values.data + static_cast<IndexType>(blockIdx.x) * values.strides[0];
    K local_keys[items_per_thread];
    V local_values[items_per_thread];
    LoadKeys(tmp.load_keys).Load(key_slice, local_keys, keySliceSize, invalid_key);
    __syncthreads();
    LoadValues(tmp.load_values).Load(value_slice, local_values, keySliceSize, V(0));
    __syncthreads();
    if (descending)
        Sort(tmp.sort).SortDescending(local_keys, local_values);
    else
        Sort(tmp.sort).Sort(local_keys, local_values);
    __syncthreads();
    StoreKeys(tmp.store_keys).Store(key_slice, local_keys, keySliceSize);
    __syncthreads();
    StoreValues(tmp.store_values).Store(value_slice, local_values, keySliceSize);
}

template <int sort_size>
static cudaError_t fixed_size_sort(int64_t *keys, int64_t *values, unsigned n, cudaStream_t stream)
{
    constexpr int block = sort_size / RT_SORT_ITEMS;
    /* contiguous keys: KeyDims -2, values -1, 32-bit indexing (canUse32BitIndexMath) */
    radixSortKVInPlace<-2, -1, block, RT_SORT_ITEMS><<<1, block, 0, stream>>>(
        info_1d<int64_t, unsigned>(keys, n), 1u, n, 1u, info_1d<int64_t, unsigned>(values, n), 1u, false);
    return cudaGetLastError();
}

} // namespace rt_aten

extern "C" int rt_sort_size(int64_t n)
{
    if (n < RT_SORT_MIN || n > RT_SORT_MAX)
        return 0;
    if (n <= RT_WARP_SORT_MAX)
        return RT_WARP_SORT_MAX;
    int p = 1;
    while (p < n)
        p *= 2;
    return p < 1024 ? 1024 : p;
}

extern "C" int rt_arange_i64(int64_t *out, int64_t n, void *stream)
{
    int grid = (int)((n + RT_ARANGE_THREADS - 1) / RT_ARANGE_THREADS);
    rt_aten::elementwise_kernel_with_index<int><<<grid, RT_ARANGE_THREADS, 0, (cudaStream_t)stream>>>(
        (int)n, rt_aten::ArangeOp{0, 1}, out);
    return (int)cudaGetLastError();
}

extern "C" int rt_copy_d2d(void *dst, const void *src, size_t bytes, void *stream)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
}

extern "C" int rt_aten_sort_kv(int64_t *keys, int64_t *values, int64_t n, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    switch (rt_sort_size(n)) {
    case 4096: return (int)rt_aten::fixed_size_sort<4096>(keys, values, (unsigned)n, s);
    case 2048: return (int)rt_aten::fixed_size_sort<2048>(keys, values, (unsigned)n, s);
    case 1024: return (int)rt_aten::fixed_size_sort<1024>(keys, values, (unsigned)n, s);
    case RT_WARP_SORT_MAX: return rt_aten_warp_sort_kv(keys, values, n, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int rt_fill_zero_i32(int32_t *out, int64_t n, void *stream)
{
    int per_block = RT_FILL_THREADS * RT_FILL_ELEMS, grid = (int)((n + per_block - 1) / per_block);
    rt_aten::vectorized_elementwise_kernel<4><<<grid, RT_FILL_THREADS, 0, (cudaStream_t)stream>>>(
        (int)n, rt_aten::FillFunctor<int32_t>{0}, out);
    return (int)cudaGetLastError();
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* CUDA_tensor_histogram's grid in SHARED mode, in ATen's integer types: optimalGrid is unsigned, the
 * products int64, ceil_div<size_t>, and the sqrt of an int64 quotient truncated. */
extern "C" int64_t rt_hist_grid(int64_t n, int64_t bins, int sms)
{
    uint64_t apply = ceil_div((uint64_t)n, RT_HIST_THREADS); /* getApplyGrid */
    if (apply > 2147483647u)                                   /* maxGridSize[0] */
        apply = 2147483647u;
    unsigned optimal = (unsigned)ceil_div((uint64_t)(RT_HIST_GMEM_PER_SMEM * n), (uint64_t)(bins * sms));
    if (optimal < (unsigned)sms)
        optimal = 1 + (unsigned)std::sqrt((double)(RT_HIST_GMEM_PER_SMEM * n / bins));
    uint64_t steps = ceil_div((uint64_t)n, (uint64_t)(optimal * RT_HIST_THREADS));
    optimal = (unsigned)ceil_div((uint64_t)n, steps * RT_HIST_THREADS);
    return (int64_t)(apply < optimal ? apply : optimal);
}

extern "C" int64_t rt_hist_shared_bytes(int64_t bins)
{
    return bins * (int64_t)sizeof(int32_t) + 8; /* 8 guard bytes, as ATen asks */
}

extern "C" int rt_aten_histc_i32(int32_t *out, const int32_t *in, int64_t n, int64_t bins, int64_t min, int64_t max,
                                 int sms, void *stream)
{
    using namespace rt_aten;
    size_t shared = (size_t)rt_hist_shared_bytes(bins);
    if (n < 1 || bins < 1 || sms < 1 || shared >= RT_HIST_SHARED_PER_BLOCK)
        return (int)cudaErrorInvalidValue; /* ATen's GLOBAL mode: not replicated */
    int grid = (int)rt_hist_grid(n, bins, sms);
    TensorInfo<int32_t, int64_t> p = {}; /* no partial output in SHARED mode */
    kernelHistogram1D<int32_t, int32_t, int64_t, 1, 2, -1, CUDAHistogramMemoryType::SHARED>
        <<<grid, RT_HIST_THREADS, shared, (cudaStream_t)stream>>>(
            info_1d<int32_t, int64_t>(out, bins), p, info_1d<int32_t, int64_t>(const_cast<int32_t *>(in), n), bins,
            min, max, n, DummyOp{});
    return (int)cudaGetLastError();
}
