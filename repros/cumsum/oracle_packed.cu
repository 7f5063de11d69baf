/* oracle_packed.cu: find_packed_sequence_indices of GPT-2 / GPT-J / GPT-Neo in one kernel: the
 * position ids the graph builds from iota, their first differences (the cat of the first element),
 * the != step flags and their row scan; CTA 0 also writes the position ids (CPU reference:
 * reference.c, packed_reference). One kernel per launch variant (cs_packed_variant). */
#include <cub/block/block_store.cuh>

#include "row_scan.cuh"

/* A thread's blocked run of ITEMS i64 lies 8 * ITEMS bytes from its neighbour's: stored directly (TRANSPOSE
 * false), a warp's store instruction touches 32 runs at once; the warp transpose through shared memory makes
 * each store instruction cover consecutive columns, at the price of a shared-memory round trip. */
template <int THREADS, int ITEMS, bool TRANSPOSE>
__global__ void __launch_bounds__(THREADS)
    cs_packed_kernel(int64_t *__restrict__ pos, int64_t *__restrict__ cum, int cols, int64_t start, int64_t first,
                     int64_t step)
{
    const int base = threadIdx.x * ITEMS;
    int f[ITEMS], c[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const int64_t j = base + i, p = start + j, prev = j == 0 ? first : p - 1;
        f[i] = j < cols && p - prev != step;
    }
    cs_row_inclusive_sum<THREADS, ITEMS>(f, c);
    int64_t *row = cum + (int64_t)blockIdx.x * cols;
    if constexpr (TRANSPOSE) {
        typedef cub::BlockStore<int64_t, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> store;
        __shared__ typename store::TempStorage tmp;
        int64_t out[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            out[i] = c[i];
        store(tmp).Store(row, out, cols);
        if (blockIdx.x == 0) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++)
                out[i] = start + base + i;
            __syncthreads(); /* tmp is reused */
            store(tmp).Store(pos, out, cols);
        }
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            if (base + i >= cols)
                break;
            row[base + i] = c[i];
            if (blockIdx.x == 0)
                pos[base + i] = start + base + i;
        }
    }
}

extern "C" int cs_packed_variant(int v, int64_t cols, cs_packed_shape *sh)
{
    static const char *const names[CS_PACKED_VARIANTS] = {"t128", "t128-transpose", "t256",  "t256-transpose",
                                                          "t512", "t512-transpose", "t1024", "t1024-transpose"};
    if (v < 0 || v >= CS_PACKED_VARIANTS || cols < 1)
        return 0;
    const int threads = 128 << (v / 2);
    int items = 1;
    while (items < CS_SCAN_MAX_ITEMS && (int64_t)items * threads < cols)
        items *= 2;
    /* too long a row (CS_PACKED_MAX_COLS), or half the CTA would do with one item each: a smaller variant's shape */
    if ((int64_t)items * threads < cols || (threads > 128 && (int64_t)threads / 2 >= cols))
        return 0;
    if (v % 2 && items * threads > CS_PACKED_TRANSPOSE_MAX_COLS)
        return 0;
    sh->name = names[v];
    sh->threads = threads;
    sh->items = items;
    sh->transpose = v % 2;
    return 1;
}

extern "C" int cs_oracle_packed(const cs_packed_shape *sh, int64_t rows, int64_t cols, int64_t start, int64_t first,
                                int64_t step, int64_t *pos, int64_t *cum, void *stream)
{
    if ((int64_t)sh->threads * sh->items < cols)
        return (int)cudaErrorInvalidValue;
    return (int)cs_with_shape(sh, [&](auto threads, auto items, auto transpose) {
        cs_packed_kernel<decltype(threads)::value, decltype(items)::value, decltype(transpose)::value>
            <<<(unsigned)rows, decltype(threads)::value, 0, (cudaStream_t)stream>>>(pos, cum, (int)cols, start, first,
                                                                                   step);
        return cudaGetLastError();
    });
}
