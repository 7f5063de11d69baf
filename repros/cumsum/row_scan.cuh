/* row_scan.cuh: the packed oracle's one-row-per-CTA scan shape: THREADS threads, each holding a blocked run of
 * ITEMS consecutive columns, summed by CUB's BlockScan. */
#ifndef CS_ROW_SCAN_CUH
#define CS_ROW_SCAN_CUH

#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "kernels.h"

/* Inclusive prefix sums of flags over the row; counts stay within CS_PACKED_MAX_COLS, so int suffices
 * where the graphs accumulate in i64. */
template <int THREADS, int ITEMS>
__device__ __forceinline__ void cs_row_inclusive_sum(int (&flags)[ITEMS], int (&sums)[ITEMS])
{
    typedef cub::BlockScan<int, THREADS> scan;
    __shared__ typename scan::TempStorage tmp;
    scan(tmp).InclusiveSum(flags, sums);
}

/* A transposing shape holds the row in shared memory: one over CS_PACKED_TRANSPOSE_MAX_COLS is not compiled. */
template <int THREADS, int ITEMS, bool TRANSPOSE, typename F>
static cudaError_t cs_with_items_of(F f)
{
    if constexpr (TRANSPOSE && THREADS * ITEMS > CS_PACKED_TRANSPOSE_MAX_COLS)
        return cudaErrorInvalidValue;
    else
        return f(std::integral_constant<int, THREADS>(), std::integral_constant<int, ITEMS>(),
                 std::integral_constant<bool, TRANSPOSE>());
}

template <int THREADS, bool TRANSPOSE, typename F>
static cudaError_t cs_with_items(int items, F f)
{
    switch (items) {
    case 1: return cs_with_items_of<THREADS, 1, TRANSPOSE>(f);
    case 2: return cs_with_items_of<THREADS, 2, TRANSPOSE>(f);
    case 4: return cs_with_items_of<THREADS, 4, TRANSPOSE>(f);
    case 8: return cs_with_items_of<THREADS, 8, TRANSPOSE>(f);
    case 16: return cs_with_items_of<THREADS, 16, TRANSPOSE>(f);
    default: return cudaErrorInvalidValue;
    }
}

template <bool TRANSPOSE, typename F>
static cudaError_t cs_with_threads(int threads, int items, F f)
{
    switch (threads) {
    case 128: return cs_with_items<128, TRANSPOSE>(items, f);
    case 256: return cs_with_items<256, TRANSPOSE>(items, f);
    case 512: return cs_with_items<512, TRANSPOSE>(items, f);
    case 1024: return cs_with_items<1024, TRANSPOSE>(items, f);
    default: return cudaErrorInvalidValue;
    }
}

/* Calls f(integral_constant threads, integral_constant items, integral_constant transpose) for sh's launch
 * shape; a shape none is compiled for: cudaErrorInvalidValue, f not called. */
template <typename F>
static cudaError_t cs_with_shape(const cs_packed_shape *sh, F f)
{
    return sh->transpose ? cs_with_threads<true>(sh->threads, sh->items, f)
                         : cs_with_threads<false>(sh->threads, sh->items, f);
}

#endif
