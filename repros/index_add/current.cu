/* current.cu: what torch 2.11 runs for a functional bf16 index_add on CUDA, rewritten from a reading of
 * aten/src/ATen/native/cuda/Indexing.cu (index_add_cuda_impl, indexFuncSmallIndex/LargeIndex,
 * indexShouldBeMajor), KernelUtils.cuh (fastSpecializedAtomicAdd for BFloat16) and TensorInfo.cuh
 * (IndexToOffset). The scope around it: the zero fill of self, then index_add's result.copy_(self),
 * then the kernel on result. Host-side selection (which instance, grid, block) is plan.c's. */
#include "kernels.h"

#include <cuda_bf16.h>
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

/* CUDA_KERNEL_ASSERT stays on in release builds: a bounds compare per element. */
__device__ __forceinline__ void kernel_assert(bool ok)
{
    if (!ok)
        __trap();
}

/* c10::BFloat16 * c10::BFloat16: both to fp32, product rounded to nearest even. */
__device__ __forceinline__ __nv_bfloat16 mul_bf16(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(b));
}

template <typename IndexType, int DstDim, int SrcDim, int IdxDim>
__global__ void indexFuncSmallIndex(TensorInfo<__nv_bfloat16, IndexType> dst,
                                    TensorInfo<const __nv_bfloat16, IndexType> src,
                                    TensorInfo<const int64_t, IndexType> indices, int dstAddDim, int srcAddDim,
                                    IndexType innerSize, int64_t dstAddDimSize, int64_t dstNumel,
                                    __nv_bfloat16 alpha)
{
    /* every thread walks all indices: reloading a few indices is cheaper than spreading them */
    for (IndexType srcIndex = 0; srcIndex < indices.sizes[0]; ++srcIndex) {
        IndexType dstIndex = indices.data[IndexToOffset<IndexType, IdxDim>::get(srcIndex, indices)];
        kernel_assert(dstIndex < dstAddDimSize);
        for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < innerSize;
             linearIndex += gridDim.x * blockDim.x) {
            IndexType dstOffset = IndexToOffset<IndexType, DstDim>::get(linearIndex, dst);
            dstOffset += dstIndex * dst.strides[dstAddDim];
            IndexType srcOffset = IndexToOffset<IndexType, SrcDim>::get(linearIndex, src);
            srcOffset += srcIndex * src.strides[srcAddDim];
            fast_atomic_add(dst.data, (int64_t)dstOffset, dstNumel, mul_bf16(src.data[srcOffset], alpha));
        }
    }
}

template <typename IndexType, int DstDim, int SrcDim, int IdxDim, bool IndexIsMajor>
__global__ void indexFuncLargeIndex(TensorInfo<__nv_bfloat16, IndexType> dst,
                                    TensorInfo<const __nv_bfloat16, IndexType> src,
                                    TensorInfo<const int64_t, IndexType> indices, int dstAddDim, int srcAddDim,
                                    IndexType totalSize, IndexType innerSize, int64_t dstAddDimSize,
                                    int64_t dstNumel, __nv_bfloat16 alpha)
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
        kernel_assert(dstIndex < dstAddDimSize);
        IndexType dstOffset = IndexToOffset<IndexType, DstDim>::get(elementInSlice, dst);
        dstOffset += dstIndex * dst.strides[dstAddDim];
        IndexType srcOffset = IndexToOffset<IndexType, SrcDim>::get(elementInSlice, src);
        srcOffset += srcIndex * src.strides[srcAddDim];
        fast_atomic_add(dst.data, (int64_t)dstOffset, dstNumel, mul_bf16(src.data[srcOffset], alpha));
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
    indexFuncLargeIndex<IndexType, DstDim, SrcDim, IdxDim, Major><<<p->grid, p->block, 0, a.stream>>>(
        info<__nv_bfloat16, IndexType>(a.result, p->dst), info<const __nv_bfloat16, IndexType>(a.source, p->src),
        info<const int64_t, IndexType>(a.index, p->idx), p->dst_add_dim, p->src_add_dim, (IndexType)p->total_size,
        (IndexType)p->inner_size, (int64_t)p->dst_add_dim_size, (int64_t)p->dst_numel, a.alpha);
    return (int)cudaGetLastError();
}

template <int DstDim, int SrcDim, int IdxDim>
int launch_small(const Args &a)
{
    const ia_aten_plan *p = a.p;
    indexFuncSmallIndex<unsigned, DstDim, SrcDim, IdxDim><<<p->grid, p->block, 0, a.stream>>>(
        info<__nv_bfloat16, unsigned>(a.result, p->dst), info<const __nv_bfloat16, unsigned>(a.source, p->src),
        info<const int64_t, unsigned>(a.index, p->idx), p->dst_add_dim, p->src_add_dim, (unsigned)p->slice_size,
        (int64_t)p->dst_add_dim_size, (int64_t)p->dst_numel, a.alpha);
    return (int)cudaGetLastError();
}

/* The bf16 fill: 16-byte stores, grid-stride (as a vectorised elementwise fill writes). */
__global__ void ia_fill_kernel(uint4 *out, int64_t n16, __nv_bfloat16 *tail, int64_t ntail, __nv_bfloat16 v)
{
    __nv_bfloat162 v2 = __halves2bfloat162(v, v);
    uint32_t w = *reinterpret_cast<uint32_t *>(&v2);
    uint4 q = make_uint4(w, w, w, w);
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride)
        out[i] = q;
    if (blockIdx.x == 0 && threadIdx.x < ntail)
        tail[threadIdx.x] = v;
}

} // namespace ia_aten

using namespace ia_aten;

extern "C" int ia_fill_bf16(void *out, int64_t n, float value, void *stream)
{
    int64_t n16 = n / 8, blocks = (n16 + 255) / 256;
    blocks = blocks < 1 ? 1 : blocks > 65536 ? 65536 : blocks;
    ia_fill_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(
        (uint4 *)out, n16, (__nv_bfloat16 *)out + n16 * 8, n - n16 * 8, __float2bfloat16_rn(value));
    return (int)cudaGetLastError();
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
