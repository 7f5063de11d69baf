/* row_scan.cuh: the packed oracle's one-row-per-CTA scan shape: CS_SCAN_THREADS threads, each
 * holding a blocked run of ITEMS consecutive columns, summed by CUB's BlockScan. */
#ifndef CS_ROW_SCAN_CUH
#define CS_ROW_SCAN_CUH

#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "kernels.h"

/* Inclusive prefix sums of flags over the row; counts stay below CS_SCAN_MAX_COLS, so int suffices
 * where the graphs accumulate in i64. */
template <int ITEMS>
__device__ __forceinline__ void cs_row_inclusive_sum(int (&flags)[ITEMS], int (&sums)[ITEMS])
{
    typedef cub::BlockScan<int, CS_SCAN_THREADS> scan;
    __shared__ typename scan::TempStorage tmp;
    scan(tmp).InclusiveSum(flags, sums);
}

/* Calls f(std::integral_constant<int, ITEMS>) for the row's item count (cs_scan_items). */
template <typename F>
static cudaError_t cs_with_items(int64_t cols, F f)
{
    switch (cs_scan_items(cols)) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 4: return f(std::integral_constant<int, 4>());
    case 8: return f(std::integral_constant<int, 8>());
    case 16: return f(std::integral_constant<int, 16>());
    default: return cudaErrorInvalidValue;
    }
}

#endif
