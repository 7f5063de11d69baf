/* sort_warp.cu: aten.sort.stable on 33..128 int64 keys (kernels.h), as torch 2.11 sorts one slice that small.
 * Read at the stored copies named (the v2.11.0 tag is not stored; each step is the same in the copies read):
 * - aten/src/ATen/native/cuda/Sort.cu sortKeyValueInplace (cyyever/pytorch 1410d025c7cf, a fork tracking
 *   main; the file's last function): up to 32 keys with stable=False take SmallBitonicSort (unstable: not replicated),
 *   up to 128 WarpMergeSort<128>, above MediumRadixSort (current.cu);
 * - Sort.cu struct WarpMergeSort<sort_size>::sort: max_block_y 16, block (warp size, block_y) with block_y =
 *   min(16, max(1, slices / minimum grid for occupancy)), so one slice gets one warp: grid 1, block 32 x 1;
 *   ascending: LTOp<K, true> and the invalid key numeric_limits<K>::upper_bound() (INT64_MAX: no NaN);
 * - aten/src/ATen/native/cuda/SortUtils.cuh (017943b70f69) warpMergeSortKVInPlace: cub::WarpLoad
 *   (WARP_LOAD_TRANSPOSE) of sort_size / 32 items per lane, keys padded with the invalid key and values with
 *   V{}, cub::WarpMergeSort<K, items, 32, V>::StableSort(keys, values, comp, slice size, invalid key),
 *   cub::WarpStore (WARP_STORE_TRANSPOSE) of the slice size; the launch bound 32 x max_block_y.
 * The small-sort path around it is MediumRadixSort's (Sort.cpp: arange, the two copies). A stable merge sort
 * of keys paired with their positions: the reference's permutation, bit-exact. */
#include "kernels.h"

#include <cuda_runtime.h>

#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_store.cuh>

#include <cuda/std/limits>

#include "../aten_tensor_info.cuh"

namespace rt_aten { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

using ea_aten::info_1d;
using ea_aten::TensorInfo;

/* SortingCommon.cuh LTOp<scalar_t, handleNaN>: integers have no NaN, so a < b. */
template <typename scalar_t, bool handleNaN = false>
struct LTOp {
    __device__ bool operator()(const scalar_t &a, const scalar_t &b) const { return a < b; }
};

template <int KeyDims, int ValueDims, int sort_size, int max_block_dim_y, typename K, typename V, typename Comparator,
          typename IndexType>
__global__ void __launch_bounds__(32 * max_block_dim_y)
warpMergeSortKVInPlace(TensorInfo<K, IndexType> keys, IndexType keySlices, IndexType keySliceSize,
                       IndexType keySliceStride, TensorInfo<V, IndexType> values, IndexType valueSliceStride,
                       Comparator comp, K invalid_key)
{
    const IndexType linearIndex = blockIdx.x * blockDim.y + threadIdx.y;
    if (linearIndex >= keySlices) /* one slice: the scope's single sort */
        return;
    constexpr int items_per_thread = sort_size / 32;
    using LoadKeys = cub::WarpLoad<K, items_per_thread, cub::WARP_LOAD_TRANSPOSE>;
    using LoadValues = cub::WarpLoad<V, items_per_thread, cub::WARP_LOAD_TRANSPOSE>;
    using Sort = cub::WarpMergeSort<K, items_per_thread, 32, V>;
    using StoreKeys = cub::WarpStore<K, items_per_thread, cub::WARP_STORE_TRANSPOSE>;
    using StoreValues = cub::WarpStore<V, items_per_thread, cub::WARP_STORE_TRANSPOSE>;
    __shared__ union {
        typename LoadKeys::TempStorage load_keys;
        typename LoadValues::TempStorage load_values;
        typename Sort::TempStorage sort;
        typename StoreKeys::TempStorage store_keys;
        typename StoreValues::TempStorage store_values;
    } tmp_storage[max_block_dim_y];
    auto &warp_storage = tmp_storage[threadIdx.y];
    K *key_slice = keys.data + linearIndex * keys.strides[0];
    V *value_slice = values.data + linearIndex * values.strides[0];
    K local_keys[items_per_thread];
    V local_values[items_per_thread];
    LoadKeys(warp_storage.load_keys).Load(key_slice, local_keys, (int)keySliceSize, invalid_key);
    __syncwarp();
    LoadValues(warp_storage.load_values).Load(value_slice, local_values, (int)keySliceSize, V{});
    __syncwarp();
    Sort(warp_storage.sort).StableSort(local_keys, local_values, comp, (int)keySliceSize, invalid_key);
    __syncwarp();
    StoreKeys(warp_storage.store_keys).Store(key_slice, local_keys, (int)keySliceSize);
    __syncwarp();
    StoreValues(warp_storage.store_values).Store(value_slice, local_values, (int)keySliceSize);
}

} // namespace rt_aten

extern "C" int rt_aten_warp_sort_kv(int64_t *keys, int64_t *values, int64_t n, void *stream)
{
    using namespace rt_aten;
    if (n < RT_SORT_MIN || n > RT_WARP_SORT_MAX)
        return (int)cudaErrorInvalidValue;
    /* contiguous keys: KeyDims -2, values -1, 32-bit indexing; one slice: block_y 1 */
    warpMergeSortKVInPlace<-2, -1, RT_WARP_SORT_MAX, RT_WARP_SORT_MAX_Y>
        <<<1, dim3(32, 1), 0, (cudaStream_t)stream>>>(
            info_1d<int64_t, unsigned>(keys, n), 1u, (unsigned)n, 1u, info_1d<int64_t, unsigned>(values, n), 1u,
            LTOp<int64_t, true>(), cuda::std::numeric_limits<int64_t>::max());
    return (int)cudaGetLastError();
}
