/* kernels.h: the CUDA side of the routing repro, callable from C.
 * Contract: every function enqueues its work on `stream` (a cudaStream_t; NULL: the legacy stream)
 * without synchronising, so a call sequence can be captured into a CUDA graph, and returns the launch's
 * cudaError_t as an int (0: success). Pointers are cudaMalloc'd device pointers; ids are int64 in
 * [0, experts) (the point's value properties), counts and offsets int32.
 * - current.cu: what torch 2.11 launches for the scope's two ATen fallbacks. aten.sort.stable on
 *   33..4096 int64 keys (Sort.cpp sort_cuda_kernel -> should_use_small_sort -> Sort.cu
 *   sortKeyValueInplace -> MediumRadixSort above 128, WarpMergeSort<128> below): fillSliceWithIndex (arange kernel, then a device copy into
 *   the indices), values.copy_(self), then SortUtils.cuh radixSortKVInPlace: one CTA of sort_size / 32
 *   threads, 32 items each, cub::BlockRadixSort<int64, block, 32, int64> over all 64 key bits, padded
 *   with the largest key. aten.histc on int32 (SummaryOps.cu _histc_cuda_template): at::zeros (the fill
 *   kernel), then kernelHistogram1D in SHARED memory mode (bins * 4 + 8 bytes below the device's
 *   sharedMemPerBlock; no bins threshold in torch 2.11: rt_hist_grid cites the source): blocks of 512,
 *   the grid rt_hist_grid gives for the device's multiprocessor count, getBin in int64, shared then
 *   global atomics. A histogram past shared memory (ATen's GLOBAL mode) is not replicated:
 *   cudaErrorInvalidValue. sharedMemPerBlock is 48 KiB on sm_90 and sm_100 (RT_HIST_SHARED_PER_BLOCK).
 * - sort_warp.cu: the small sort's kernel for 33..128 keys, cub::WarpMergeSort as Sort.cu's WarpMergeSort<128>
 *   launches it (one warp); the path around it (arange, copies) is MediumRadixSort's.
 * - sort_cub.cu: aten.sort.stable above 4096 int64 keys (Sort.cpp: not the small sort; SortStable.cu
 *   segmented_sort_large_segments): values.copy_(self) (Sorting.cpp sort_stable_out), the
 *   fill_reverse_indices_kernel into a scratch array, then cub::DeviceRadixSort::SortPairs (the toolkit's
 *   CUB, ATen's types: onesweep on sm_90). rt_cub_sort_shape describes that launch sequence without a
 *   GPU; the sort's CUB scratch is sized by rt_aten_sort_large_temp_bytes (a device query) and allocated
 *   by the caller, outside any graph capture, as ATen's caching allocator does.
 * - oracle.cu: rt_oracle_route, the whole scope in one launch, a stable counting sort at one of
 *   RT_ROUTE_VARIANTS variants (the run times each that applies, rt_route_applies, and keeps the fastest
 *   by ea_path_tune's rule): RT_ROUTE_CLUSTER, one cluster of CTAs (histogram, scan, scatter; up to
 *   RT_ORACLE_MAX_IDS ids, in rt_oracle_rounds(n) rounds of one id per thread above RT_ORACLE_CLUSTER *
 *   RT_ORACLE_THREADS), or RT_ROUTE_PER_EXPERT, a CTA per expert that reads every id and writes its
 *   expert's run (up to RT_EXPERT_MAX_IDS ids, ids 16-byte aligned); both take 2 to RT_ORACLE_THREADS
 *   experts, whose tables then stay within the 48 KiB a CTA has without opting in; else
 *   cudaErrorInvalidValue. rt_oracle_offsets: the narrow form (boundaries of the sorted ids). */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launch shapes, shared with the plan (plan.c) so what it prints is what runs. */
#define RT_ARANGE_THREADS 64     /* RangeFactories.cu: num_threads = 2 warps, one element each */
#define RT_FILL_THREADS 128      /* CUDALoops.cuh: num_threads() */
#define RT_FILL_ELEMS 4          /* ... and elements per thread of the unrolled tail path */
#define RT_HIST_THREADS 512      /* CUDAApplyUtils.cuh: AT_APPLY_THREADS_PER_BLOCK */
#define RT_HIST_GMEM_PER_SMEM 8  /* SummaryOps.cu: RATIO_OF_GMEM_ATOMIC_ADD_TO_SMEM_ATOMIC_ADD */
#define RT_HIST_SHARED_PER_BLOCK 49152 /* sharedMemPerBlock of sm_90 and sm_100: the plan's SHARED bound */
#define RT_SORT_ITEMS 32         /* Sort.cu MediumRadixSort: items per thread on CUDA */
#define RT_ORACLE_CLUSTER 8      /* the whole-scope oracle: a cluster of 8 CTAs (the portable size) */
#define RT_ORACLE_THREADS 512    /* ... one id per thread, so up to 4096 ids and 512 experts */
#define RT_NARROW_THREADS 256    /* the narrow oracle: one boundary per thread */
#define RT_ORACLE_ROUNDS 16      /* ... above 4096 ids, up to 16 rounds of one id per thread: */
#define RT_ORACLE_MAX_IDS (RT_ORACLE_CLUSTER * RT_ORACLE_THREADS * RT_ORACLE_ROUNDS)
#define RT_EXPERT_THREADS 512    /* the per-expert oracle: a CTA per expert, */
#define RT_EXPERT_ITEMS 4        /* ... each thread 4 consecutive ids a round (two 16-byte loads), */
#define RT_EXPERT_ROUNDS 2       /* ... 2 rounds: (round, warp) is one count per lane of a warp */
#define RT_EXPERT_MAX_IDS (RT_EXPERT_THREADS * RT_EXPERT_ITEMS * RT_EXPERT_ROUNDS)
#define RT_SORT_MIN 33           /* Sort.cu sortKeyValueInplace: WarpMergeSort<128> from 33 ids (fewer: bitonic) */
#define RT_WARP_SORT_MAX 128     /* ... up to 128, MediumRadixSort above ... */
#define RT_WARP_SORT_MAX_Y 16    /* Sort.cu WarpMergeSort::sort: max_block_y, the kernel's launch bound / 32 */
#define RT_SORT_MAX 4096         /* ... up to Sort.h should_use_small_sort's 4096; beyond, SortStable.cu's CUB sort */
#define RT_SORT_LARGE_MAX 2147483647 /* Sort.cpp line 62: at most INT_MAX ids along the sorted dimension */
#define RT_CUB_FILL_THREADS 128  /* KernelUtils.cuh CUDA_NUM_THREADS: fill_reverse_indices_kernel's block */

/* The launches of ATen's CUB sort of n int64 keys with int64 values on sm_90 (CUB's Policy900):
 * histogram and exclusive-sum kernels, then per digit pass one onesweep kernel of onesweep_blocks. */
typedef struct {
    int single_tile_items; /* at most this many keys: one single-tile kernel instead (not replicated) */
    int radix_bits, passes;
    int onesweep_threads, onesweep_tile;
    int64_t onesweep_blocks;
    int histogram_threads, exclusive_sum_threads;
} rt_cub_sort_plan;

/* ATen's slice size for n keys: 128 for 33..128 (WarpMergeSort<128>), else nextHighestPowerOf2 (256 and 512
 * sharing 1024's case, MediumRadixSort); 0 outside RT_SORT_MIN..RT_SORT_MAX. */
int rt_sort_size(int64_t n);
/* ATen's kernelHistogram1D launch for n values into bins bins on a GPU of sms multiprocessors, SHARED
 * mode: the grid (min of getApplyGrid's ceil(n / 512) and the atomics-balancing optimalGrid) and the
 * dynamic shared bytes (bins * 4 + 8 guard bytes). */
int64_t rt_hist_grid(int64_t n, int64_t bins, int sms);
int64_t rt_hist_shared_bytes(int64_t bins);
/* The whole-scope oracle's dynamic shared memory per CTA: counts, starts, the per-expert table. */
size_t rt_oracle_shared_bytes(int64_t experts);

int rt_arange_i64(int64_t *out, int64_t n, void *stream);
int rt_copy_d2d(void *dst, const void *src, size_t bytes, void *stream);
int rt_aten_sort_kv(int64_t *keys, int64_t *values, int64_t n, void *stream);
/* sort_warp.cu: Sort.cu's WarpMergeSort<128> on 33..128 keys in place (what rt_aten_sort_kv runs for them). */
int rt_aten_warp_sort_kv(int64_t *keys, int64_t *values, int64_t n, void *stream);
/* 0 with p filled when n is past the single tile and at most RT_SORT_LARGE_MAX; else -1 (p still filled). */
int rt_cub_sort_shape(int64_t n, rt_cub_sort_plan *p);
int rt_aten_sort_large_temp_bytes(int64_t n, size_t *bytes);
/* self: the ids (read only); values, indices: the sorted ids and the permutation; scratch: n int64 (the
 * filled indices); temp: temp_bytes of CUB scratch. RT_SORT_MAX < n <= RT_SORT_LARGE_MAX, else
 * cudaErrorInvalidValue. */
int rt_aten_sort_large(const int64_t *self, int64_t *values, int64_t *scratch, int64_t *indices, int64_t n,
                       void *temp, size_t temp_bytes, void *stream);
int rt_fill_zero_i32(int32_t *out, int64_t n, void *stream);
/* sms: the device's multiprocessor count (the grid, rt_hist_grid); SHARED mode only (bins * 4 + 8 below
 * RT_HIST_SHARED_PER_BLOCK), else cudaErrorInvalidValue. No device query: safe inside a graph capture. */
int rt_aten_histc_i32(int32_t *out, const int32_t *in, int64_t n, int64_t bins, int64_t min, int64_t max, int sms,
                      void *stream);

/* The whole-scope oracle's variants, in the order the run times them. */
enum { RT_ROUTE_CLUSTER, RT_ROUTE_PER_EXPERT, RT_ROUTE_VARIANTS };
/* 1 when variant v runs n ids over experts experts, else 0 (per_expert also needs its ids 16-byte aligned, as
 * cudaMalloc gives them; rt_oracle_route refuses others). */
int rt_route_applies(int v, int64_t n, int64_t experts);
/* Rounds of one id per thread the cluster variant takes for n ids (1 up to 4096). */
int rt_oracle_rounds(int64_t n);
int rt_oracle_route(const int64_t *ids, int64_t n, int64_t experts, int variant, int64_t *sorted, int64_t *perm,
                    int32_t *offsets, void *stream);
int rt_oracle_offsets(const int64_t *sorted, int64_t n, int64_t experts, int32_t *offsets, void *stream);

#ifdef __cplusplus
}
#endif

#endif
