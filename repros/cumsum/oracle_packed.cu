/* oracle_packed.cu: find_packed_sequence_indices of GPT-2 / GPT-J / GPT-Neo in one kernel: the
 * position ids the graph builds from iota, their first differences (the cat of the first element),
 * the != step flags and their row scan; CTA 0 also writes the position ids (CPU reference:
 * reference.c, packed_reference). */
#include "row_scan.cuh"

template <int ITEMS>
__global__ void __launch_bounds__(CS_SCAN_THREADS)
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
    cs_row_inclusive_sum<ITEMS>(f, c);
    const int64_t row = (int64_t)blockIdx.x * cols;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (base + i >= cols)
            break;
        cum[row + base + i] = c[i];
        if (blockIdx.x == 0)
            pos[base + i] = start + base + i;
    }
}

extern "C" int cs_scan_items(int64_t cols)
{
    int items = 1;
    while (items < CS_SCAN_MAX_ITEMS && (int64_t)items * CS_SCAN_THREADS < cols)
        items *= 2;
    return (int64_t)items * CS_SCAN_THREADS >= cols ? items : 0;
}

extern "C" int cs_oracle_packed(int64_t rows, int64_t cols, int64_t start, int64_t first, int64_t step, int64_t *pos,
                                int64_t *cum, void *stream)
{
    return (int)cs_with_items(cols, [&](auto items) {
        cs_packed_kernel<decltype(items)::value><<<(unsigned)rows, CS_SCAN_THREADS, 0, (cudaStream_t)stream>>>(
            pos, cum, (int)cols, start, first, step);
        return cudaGetLastError();
    });
}
