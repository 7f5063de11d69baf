/* current.cu: what torch 2.11 runs for a functional bf16 index_add on CUDA, rewritten from a reading of
 * the ATen source (pytorch/pytorch; commits read: Indexing.cu at d4c718120da9, CUDALoops.cuh at
 * 002a5676bab5, KernelUtils.cuh at 01cda3677d3f, torch/headeronly/cuda/AtomicAdd.h at 01cda3677d3f,
 * torch/headeronly/macros/Macros.h at 0090aaf26c4a; the installed torch is 2.11.0+cu130, git
 * 70d99e998b49, which the stored copies do not hold, so each point below names the function read):
 * - Indexing.cu index_add_cuda_impl: result.copy_(self), then indexFuncSmallIndex / indexFuncLargeIndex
 *   <T, IndicesType, IndexType, DstDim, SrcDim, IdxDim, [IndexIsMajor,] func_t>, whose last two
 *   parameters are `const func_t& op` (the file's `static ReduceAdd reduce_add`, passed by reference)
 *   and `T alpha`; each element does `T val = src.data[srcOffset] * alpha; op(dst.data, dstOffset,
 *   dstNumel, &val);` after `CUDA_KERNEL_ASSERT(dstIndex < dstAddDimSize)`.
 * - ReduceAdd::operator(): fastAtomicAdd(self_data_start, index, numel, *src_data, true), i.e.
 *   AtomicAdd.h fastSpecializedAtomicAdd<BFloat16> (the bf16x2 pairing below).
 * - Macros.h CUDA_KERNEL_ASSERT (CUDA, not ROCm): `if (C10_UNLIKELY(!(cond))) __assert_fail(#cond,
 *   __FILE__, __LINE__, __func__);`, kept in release builds: a call to the device-side assert, not a
 *   trap (an earlier replica used __trap(): 16 registers against torch's 32, see docs/evidence/replica_gap.md).
 * - CUDALoops.cuh launch_vectorized_kernel: the zero fill of self is vectorized_elementwise_kernel<8,
 *   FillFunctor<BFloat16>> over 128 threads (num_threads()), 8 elements a thread (elems_per_thread<2>),
 *   grid ceil(N / 1024), __launch_bounds__(128); a full block stores one 16-byte vector a thread, the
 *   last partial block stores element by element (policies::unroll).
 * Host-side selection (which instance, grid, block) is plan.c's. */
#include "kernels.h"

#include <assert.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "../aten_tensor_info.cuh"

namespace ia_aten { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

using ea_aten::TensorInfo;

/* IndexToOffset: static Dims unrolls (Dims == -2 leaves only linearId * strides[0]); -1 loops. */
template <typename IndexType, int Dims>
struct IndexToOffset {
    template <typename T>
    __device__ static IndexType get(IndexType linearId, const TensorInfo<T, IndexType> &info)
    {
        IndexType offset = 0;
        for (int i = Dims - 1; i > 0; --i) {
            IndexType cur = linearId % info.sizes[i];
            offset += cur * info.strides[i];
            linearId /= info.sizes[i];
        }
        return offset + linearId * info.strides[0];
    }
};

template <typename IndexType>
struct IndexToOffset<IndexType, -1> {
    template <typename T>
    __device__ static IndexType get(IndexType linearId, const TensorInfo<T, IndexType> &info)
    {
        IndexType offset = 0;
        for (int i = info.dims - 1; i > 0; --i) {
            IndexType cur = linearId % info.sizes[i];
            offset += cur * info.strides[i];
            linearId /= info.sizes[i];
        }
        return offset + linearId * info.strides[0];
    }
};

/* fastAtomicAdd(..., fast_atomics=true) for bf16 on sm_80+: pad the value with a zero into the aligned
 * bf16x2 word holding it (atom.add.noftz.bf16x2), unless that word would leave the tensor. */
__device__ __forceinline__ void fast_atomic_add(__nv_bfloat16 *tensor, int64_t index, int64_t numel, __nv_bfloat16 v)
{
    __nv_bfloat16 *target = tensor + index;
    bool low = reinterpret_cast<uintptr_t>(target) % sizeof(__nv_bfloat162) == 0;
    if (low && index < numel - 1) {
        __nv_bfloat162 v2;
        v2.x = v;
        v2.y = __int2bfloat16_rz(0);
        atomicAdd(reinterpret_cast<__nv_bfloat162 *>(target), v2);
    } else if (!low && index > 0) {
        __nv_bfloat162 v2;
        v2.x = __int2bfloat16_rz(0);
        v2.y = v;
        atomicAdd(reinterpret_cast<__nv_bfloat162 *>(target - 1), v2);
    } else {
        atomicAdd(target, v);
    }
}

/* CUDA_KERNEL_ASSERT as Macros.h spells it for CUDA: on in release builds, a call to __assert_fail. */
#define ATEN_KERNEL_ASSERT(cond)                                                                      \
    if (__builtin_expect(!(cond), 0)) {                                                               \
        __assert_fail(#cond, __FILE__, static_cast<unsigned int>(__LINE__), __func__);                \
    }

/* Indexing.cu's ReduceAdd: the op index_add passes by reference to its kernels. */
struct ReduceAdd {
    __device__ __forceinline__ void operator()(__nv_bfloat16 *self_data_start, int64_t index, int64_t numel,
                                               const __nv_bfloat16 *src_data) const
    {
        fast_atomic_add(self_data_start, index, numel, *src_data);
    }
};
static ReduceAdd reduce_add; /* host object, as in Indexing.cu: the kernels take its address and never read it */

/* c10::BFloat16 * c10::BFloat16: both to fp32, product rounded to nearest even. */
__device__ __forceinline__ __nv_bfloat16 mul_bf16(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(b));
}

template <typename T, typename IndicesType, typename IndexType, int DstDim, int SrcDim, int IdxDim, typename func_t>
__global__ void indexFuncSmallIndex(TensorInfo<T, IndexType> dst, TensorInfo<const T, IndexType> src,
                                    TensorInfo<const IndicesType, IndexType> indices, int dstAddDim, int srcAddDim,
                                    IndexType innerSize, int64_t dstAddDimSize, int64_t dstNumel, const func_t &op,
                                    T alpha)
{
    /* every thread walks all indices: reloading a few indices is cheaper than spreading them */
    for (IndexType srcIndex = 0; srcIndex < indices.sizes[0]; ++srcIndex) {
        IndexType dstIndex = indices.data[IndexToOffset<IndexType, IdxDim>::get(srcIndex, indices)];
        ATEN_KERNEL_ASSERT(dstIndex < dstAddDimSize);
        for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < innerSize;
             linearIndex += gridDim.x * blockDim.x) {
            IndexType dstOffset = IndexToOffset<IndexType, DstDim>::get(linearIndex, dst);
            dstOffset += dstIndex * dst.strides[dstAddDim];
            IndexType srcOffset = IndexToOffset<IndexType, SrcDim>::get(linearIndex, src);
            srcOffset += srcIndex * src.strides[srcAddDim];
            T val = mul_bf16(src.data[srcOffset], alpha);
            op(dst.data, dstOffset, dstNumel, &val);
        }
    }
}

template <typename T, typename IndicesType, typename IndexType, int DstDim, int SrcDim, int IdxDim, bool IndexIsMajor,
          typename func_t>
__global__ void indexFuncLargeIndex(TensorInfo<T, IndexType> dst, TensorInfo<const T, IndexType> src,
                                    TensorInfo<const IndicesType, IndexType> indices, int dstAddDim, int srcAddDim,
                                    IndexType totalSize, IndexType innerSize, int64_t dstAddDimSize,
                                    int64_t dstNumel, const func_t &op, T alpha)
{
    /* one grid-stride walk over every source element; the index is re-read per element */
    for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < totalSize;
         linearIndex += gridDim.x * blockDim.x) {
        IndexType srcIndex, elementInSlice;
        if (IndexIsMajor) {
            srcIndex = linearIndex / innerSize;
            elementInSlice = linearIndex % innerSize;
        } else {
            elementInSlice = linearIndex / innerSize;
            srcIndex = linearIndex % innerSize;
        }
        IndexType dstIndex = indices.data[IndexToOffset<IndexType, IdxDim>::get(srcIndex, indices)];
        ATEN_KERNEL_ASSERT(dstIndex < dstAddDimSize);
        IndexType dstOffset = IndexToOffset<IndexType, DstDim>::get(elementInSlice, dst);
        dstOffset += dstIndex * dst.strides[dstAddDim];
        IndexType srcOffset = IndexToOffset<IndexType, SrcDim>::get(elementInSlice, src);
        srcOffset += srcIndex * src.strides[srcAddDim];
        T val = mul_bf16(src.data[srcOffset], alpha);
        op(dst.data, dstOffset, dstNumel, &val);
    }
}

template <typename T, typename IndexType>
TensorInfo<T, IndexType> info(T *data, const ia_tinfo &t)
{
    TensorInfo<T, IndexType> ti{};
    ti.data = data;
    ti.dims = t.dims;
    for (int d = 0; d < t.dims; d++) {
        ti.sizes[d] = (IndexType)t.sizes[d];
        ti.strides[d] = (IndexType)t.strides[d];
    }
    return ti;
}

struct Args {
    const ia_aten_plan *p;
    __nv_bfloat16 *result;
    const __nv_bfloat16 *source;
    const int64_t *index;
    __nv_bfloat16 alpha;
    cudaStream_t stream;
};

template <typename IndexType, int DstDim, int SrcDim, int IdxDim, bool Major>
int launch_large(const Args &a)
{
    const ia_aten_plan *p = a.p;
    indexFuncLargeIndex<__nv_bfloat16, int64_t, IndexType, DstDim, SrcDim, IdxDim, Major>
        <<<p->grid, p->block, 0, a.stream>>>(
        info<__nv_bfloat16, IndexType>(a.result, p->dst), info<const __nv_bfloat16, IndexType>(a.source, p->src),
        info<const int64_t, IndexType>(a.index, p->idx), p->dst_add_dim, p->src_add_dim, (IndexType)p->total_size,
        (IndexType)p->inner_size, (int64_t)p->dst_add_dim_size, (int64_t)p->dst_numel, reduce_add, a.alpha);
    return (int)cudaGetLastError();
}

template <int DstDim, int SrcDim, int IdxDim>
int launch_small(const Args &a)
{
    const ia_aten_plan *p = a.p;
    indexFuncSmallIndex<__nv_bfloat16, int64_t, unsigned, DstDim, SrcDim, IdxDim>
        <<<p->grid, p->block, 0, a.stream>>>(
        info<__nv_bfloat16, unsigned>(a.result, p->dst), info<const __nv_bfloat16, unsigned>(a.source, p->src),
        info<const int64_t, unsigned>(a.index, p->idx), p->dst_add_dim, p->src_add_dim, (unsigned)p->slice_size,
        (int64_t)p->dst_add_dim_size, (int64_t)p->dst_numel, reduce_add, a.alpha);
    return (int)cudaGetLastError();
}

/* The bf16 fill as CUDALoops.cuh's vectorized_elementwise_kernel<8, FillFunctor<BFloat16>> runs it:
 * 128 threads, 1024 elements a block; a full block stores one 16-byte vector a thread, the block
 * holding the remainder (or every block, when out is not 16-byte aligned: can_vectorize_up_to gives
 * 1 and ATen runs unrolled_elementwise_kernel, the same loop) stores element by element. */
constexpr int kFillThreads = 128, kFillPerThread = 8, kFillBlockWork = kFillThreads * kFillPerThread;

__global__ void __launch_bounds__(kFillThreads) ia_fill_kernel(int n, __nv_bfloat16 *out, __nv_bfloat16 v, bool vec)
{
    int remaining = n - kFillBlockWork * (int)blockIdx.x;
    __nv_bfloat16 *base = out + (int64_t)kFillBlockWork * blockIdx.x;
    if (!vec || remaining < kFillBlockWork) {
#pragma unroll
        for (int i = 0; i < kFillPerThread; i++) {
            int idx = (int)threadIdx.x + i * kFillThreads;
            if (idx < remaining)
                base[idx] = v;
        }
        return;
    }
    __nv_bfloat162 v2 = __halves2bfloat162(v, v);
    uint32_t w = *reinterpret_cast<uint32_t *>(&v2);
    reinterpret_cast<uint4 *>(base)[threadIdx.x] = make_uint4(w, w, w, w);
}

} // namespace ia_aten

using namespace ia_aten;

extern "C" int ia_fill_bf16(void *out, int64_t n, float value, void *stream)
{
    /* TensorIterator keeps each launch under 2^31 elements (32-bit indexing), splitting larger fills */
    const int64_t chunk = (INT32_MAX / kFillBlockWork) * (int64_t)kFillBlockWork;
    __nv_bfloat16 v = __float2bfloat16_rn(value);
    for (int64_t done = 0; done < n; done += chunk) {
        int m = (int)(n - done < chunk ? n - done : chunk);
        __nv_bfloat16 *p = (__nv_bfloat16 *)out + done;
        bool vec = reinterpret_cast<uintptr_t>(p) % 16 == 0;
        ia_fill_kernel<<<(unsigned)((m + kFillBlockWork - 1) / kFillBlockWork), kFillThreads, 0, (cudaStream_t)stream>>>(
            m, p, v, vec);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return 0;
}

extern "C" int ia_copy_d2d(void *dst, const void *src, size_t bytes, void *stream)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
}

extern "C" int ia_aten_index_add(const ia_aten_plan *p, void *result, const void *source, const int64_t *index,
                                 float alpha, void *stream)
{
    Args a = {p, (__nv_bfloat16 *)result, (const __nv_bfloat16 *)source, index, __float2bfloat16_rn(alpha),
              (cudaStream_t)stream};
    if (p->wide)
        return launch_large<uint64_t, -1, -1, -1, true>(a);
    if (p->small) {
        switch (p->dst_dims) {
        case 1: return launch_small<1, 1, -2>(a);
        case 2: return launch_small<2, 2, -2>(a);
        case 3: return launch_small<3, 3, -2>(a);
        default: return launch_small<-1, -1, -1>(a);
        }
    }
    switch (p->dst_dims * 2 + (p->index_major ? 1 : 0)) {
    case 3: return launch_large<unsigned, 1, 1, -2, true>(a);
    case 5: return launch_large<unsigned, 2, 2, -2, true>(a);
    case 4: return launch_large<unsigned, 2, 2, -2, false>(a);
    case 7: return launch_large<unsigned, 3, 3, -2, true>(a);
    case 6: return launch_large<unsigned, 3, 3, -2, false>(a);
    default: return launch_large<unsigned, -1, -1, -1, true>(a);
    }
}
