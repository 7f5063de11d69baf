/* sort_cub.cu: aten.sort.stable above ATen's small-sort bound (kernels.h), as torch 2.11 runs it for the
 * routing scope's one contiguous slice of int64 ids.
 * The path, read at the pytorch/pytorch versions the search index stores (the v2.11.0 tag, 70d99e998b49, is
 * not among them and the repository is too large to fetch; each step is the same in every stored version):
 * - aten/src/ATen/native/Sorting.cpp TORCH_IMPL_FUNC(sort_stable_out): values.copy_(self), then sort_stub
 *   (read at cyyever/pytorch 4b33b2071d72, a fork tracking main);
 * - aten/src/ATen/native/cuda/Sort.cpp (07e6f4ac0d27) sort_cuda_kernel: line 79 should_use_small_sort is
 *   false (more than 4096 ids), line 94 a dense slice of stride 1 is sorted where it lies, lines 105 and 115
 *   values and indices are written directly (same strides, no overlap), line 118 launch_stable_sort_kernel;
 * - aten/src/ATen/native/cuda/SortStable.cu (061531e83b8f; 420d374dfeb7 is the same here)
 *   do_launch_stable_sort_kernel: one slice (nsegments == 1) takes segmented_sort_large_segments (line 110):
 *   line 122 grid GET_BLOCKS(nsort) of CUDA_NUM_THREADS (128), line 123 a scratch DeviceArray of nsort
 *   indices, line 100 fill_reverse_indices_kernel writing nsort_divider.mod(idx) (line 105: idx itself, one
 *   slice), line 130 at::cuda::cub::radix_sort_pairs(self, values, scratch, indices, nsort);
 * - aten/src/ATen/cuda/cub.h: the int64 indices reinterpreted as OpaqueType<8> (the newest stored form,
 *   a uint64_t member; older ones hold char[8]: the same eight bytes moved);
 * - aten/src/ATen/cuda/cub-RadixSortPairs.cuh (3ea79bed01b5) lines 10-57 radix_sort_pairs_impl: CUB_WRAPPER
 *   (cub.cuh: size query, caching-allocator scratch, call) around cub::DeviceRadixSort::SortPairs with
 *   num_items the int64_t n (so CUB's offsets are unsigned long long), bits 0..64.
 * CUB is the toolkit's (CCCL 13.0, CUB 3.0.1), as torch 2.11+cu130 is built with CUDA 13.0's: on sm_90 its
 * Policy900 sorts more than a single tile (256 x 9 items of 8 bytes) with onesweep: two memsets, the
 * histogram kernel, the exclusive-sum kernel, then per 8-bit digit a lookback memset and the onesweep
 * kernel. A stable LSD radix sort of keys paired with their positions: the permutation is ascending id,
 * then ascending position, the reference's order, bit-exact. */
#include "kernels.h"

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

namespace rt_aten { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

/* cub.h's opaque value type for 8-byte values (the int64 indices). */
struct alignas(8) OpaqueType8 {
    uint64_t data;
};

/* aten/src/ATen/cuda/detail/IntegerDivider.cuh IntDivider<uint32_t>: division by a magic multiply. */
struct IntDivider {
    unsigned divisor, m1, shift;
    explicit IntDivider(unsigned d) : divisor(d)
    {
        for (shift = 0; shift < 32; shift++)
            if ((1u << shift) >= divisor)
                break;
        uint64_t one = 1, magic = ((one << 32) * ((one << shift) - divisor)) / divisor + 1;
        m1 = (unsigned)magic;
    }
    __device__ unsigned div(unsigned n) const { return (__umulhi(n, m1) + n) >> shift; }
    __device__ unsigned mod(unsigned n) const { return n - div(n) * divisor; }
};

/* SortStable.cu fill_reverse_indices_kernel under KernelUtils.cuh's CUDA_KERNEL_LOOP (an int index). */
__global__ void __launch_bounds__(RT_CUB_FILL_THREADS)
fill_reverse_indices_kernel(int64_t *data, int numel, IntDivider nsort_divider)
{
    int64_t index = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = (int)index; index < numel; index += (int64_t)blockDim.x * gridDim.x, i = (int)index)
        data[i] = nsort_divider.mod((unsigned)i);
}

/* What ATen's call instantiates: int64 keys, opaque 8-byte values, int64 num_items. */
static cudaError_t sort_pairs(void *temp, size_t &bytes, const int64_t *keys_in, int64_t *keys_out,
                              const int64_t *values_in, int64_t *values_out, int64_t n, cudaStream_t stream)
{
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out,
                                           reinterpret_cast<const OpaqueType8 *>(values_in),
                                           reinterpret_cast<OpaqueType8 *>(values_out), n, 0, 64, stream);
}

/* CUB's sm_90 tuning for these types: what the plan prints. */
using hub = cub::detail::radix::policy_hub<int64_t, OpaqueType8, unsigned long long>;
using sm90 = hub::Policy900;
static_assert(sm90::ONESWEEP, "CUB sorts 8-byte keys with onesweep on sm_90");

} // namespace rt_aten

extern "C" int rt_cub_sort_shape(int64_t n, rt_cub_sort_plan *p)
{
    using namespace rt_aten;
    p->single_tile_items = sm90::SingleTilePolicy::BLOCK_THREADS * sm90::SingleTilePolicy::ITEMS_PER_THREAD;
    p->radix_bits = sm90::ONESWEEP_RADIX_BITS;
    p->passes = (64 + p->radix_bits - 1) / p->radix_bits;
    p->onesweep_threads = sm90::OnesweepPolicy::BLOCK_THREADS;
    p->onesweep_tile = sm90::OnesweepPolicy::BLOCK_THREADS * sm90::OnesweepPolicy::ITEMS_PER_THREAD;
    p->onesweep_blocks = (n + p->onesweep_tile - 1) / p->onesweep_tile;
    p->histogram_threads = sm90::HistogramPolicy::BLOCK_THREADS;
    p->exclusive_sum_threads = sm90::ExclusiveSumPolicy::BLOCK_THREADS;
    /* the replica implements the onesweep path only; n <= the single tile is ATen's small sort anyway */
    return n > p->single_tile_items && n <= RT_SORT_LARGE_MAX ? 0 : -1;
}

extern "C" int rt_aten_sort_large_temp_bytes(int64_t n, size_t *bytes)
{
    *bytes = 0;
    return (int)rt_aten::sort_pairs(nullptr, *bytes, nullptr, nullptr, nullptr, nullptr, n, 0);
}

extern "C" int rt_aten_sort_large(const int64_t *self, int64_t *values, int64_t *scratch, int64_t *indices,
                                  int64_t n, void *temp, size_t temp_bytes, void *stream)
{
    using namespace rt_aten;
    cudaStream_t s = (cudaStream_t)stream;
    if (n <= RT_SORT_MAX || n > RT_SORT_LARGE_MAX)
        return (int)cudaErrorInvalidValue;
    cudaError_t rc = cudaMemcpyAsync(values, self, (size_t)n * 8, cudaMemcpyDeviceToDevice, s); /* sort_stable_out */
    if (rc != cudaSuccess)
        return (int)rc;
    int grid = (int)((n + RT_CUB_FILL_THREADS - 1) / RT_CUB_FILL_THREADS);
    fill_reverse_indices_kernel<<<grid, RT_CUB_FILL_THREADS, 0, s>>>(scratch, (int)n, IntDivider((unsigned)n));
    if ((rc = cudaGetLastError()) != cudaSuccess)
        return (int)rc;
    size_t bytes = temp_bytes;
    return (int)sort_pairs(temp, bytes, self, values, scratch, indices, n, s);
}
