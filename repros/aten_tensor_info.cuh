/* aten_tensor_info.cuh: ATen's TensorInfo (aten/src/ATen/cuda/detail/TensorInfo.cuh) as the replicas of
 * ATen kernels take it: a pointer, MAX_TENSORINFO_DIMS sizes and strides, the dimension count, so each
 * replica's kernel parameters are as large as ATen's (parameter size changes launch cost). */
#ifndef EA_ATEN_TENSOR_INFO_CUH
#define EA_ATEN_TENSOR_INFO_CUH

namespace ea_aten {

constexpr int kMaxTensorInfoDims = 25; /* MAX_TENSORINFO_DIMS */

template <typename T, typename IndexType>
struct TensorInfo {
    T *data;
    IndexType sizes[kMaxTensorInfoDims];
    IndexType strides[kMaxTensorInfoDims];
    int dims;
};

/* A contiguous 1-D tensor of n elements. */
template <typename T, typename IndexType>
static TensorInfo<T, IndexType> info_1d(T *data, IndexType n)
{
    TensorInfo<T, IndexType> t = {};
    t.data = data;
    t.sizes[0] = n;
    t.strides[0] = 1;
    t.dims = 1;
    return t;
}

} // namespace ea_aten

#endif
