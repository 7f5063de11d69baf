/* oracle_mask.cu: Roberta / Longformer / M2M100 position ids from input_ids in one kernel: the pad
 * mask, its row scan and the masked offset positions, reading the ids once per CTA and writing each
 * output once (CPU reference: reference.c, mask_reference). The flags are bits, so a warp sums them by
 * ballot and popcount (no shuffle scan), and the only barrier is the one that adds the warps' totals.
 * Inductor's kernel scans the flags as i64 in a Triton associative_scan, one row per CTA. */
#include <cuda_runtime.h>

#include "kernels_impl.h"

#define FULL_WARP 0xffffffffu

/* Columns c and c + 1 of a row (c even); the pad token past the row's end, so its flags read 0.
 * VEC: cols is even and the buffers aligned, one 16-byte access per pair. No load sits under a
 * branch: the address is clamped into the row and the value selected after. (A first version with the
 * loads inside per-lane branches measured, on an H200, about one load latency more, 0.15 to 0.27 us,
 * for every further pair a lane held, and 0.2 us per further pair counted before a split row's
 * segment: as if each load waited for the one before.) */
template <bool VEC>
__device__ __forceinline__ void load_pair(const int64_t *__restrict__ row, int c, int cols, int64_t pad, int64_t &a,
                                          int64_t &b)
{
    if (VEC) {
        const longlong2 v = __ldg(reinterpret_cast<const longlong2 *>(row + min(c, cols - 2)));
        a = c < cols ? v.x : pad;
        b = c < cols ? v.y : pad;
    } else {
        const int64_t x = __ldg(row + min(c, cols - 1)), y = __ldg(row + min(c + 1, cols - 1));
        a = c < cols ? x : pad;
        b = c + 1 < cols ? y : pad;
    }
}

/* Positions p0, p1 into columns c, c + 1 of a row (c even) where inside it; VEC as load_pair. */
template <bool VEC>
__device__ __forceinline__ void store_pos(int64_t *__restrict__ pos, int c, int cols, int64_t p0, int64_t p1)
{
    if (VEC) {
        if (c < cols)
            *reinterpret_cast<longlong2 *>(pos + c) = make_longlong2(p0, p1);
        return;
    }
    if (c < cols)
        pos[c] = p0;
    if (c + 1 < cols)
        pos[c + 1] = p1;
}

/* The flags m0, m1 of columns c, c + 1 the same way (one 2-byte store when VEC; little-endian: c low). */
template <bool VEC>
__device__ __forceinline__ void store_mask(uint8_t *__restrict__ mask, int c, int cols, unsigned m0, unsigned m1)
{
    if (VEC) {
        if (c < cols)
            *reinterpret_cast<uint16_t *>(mask + c) = (uint16_t)(m0 | m1 << 8);
        return;
    }
    if (c < cols)
        mask[c] = (uint8_t)m0;
    if (c + 1 < cols)
        mask[c + 1] = (uint8_t)m1;
}

/* A row split over CTAs: each counts the flags before its segment itself, so none waits on another.
 * The thread's share: the pairs 2 * threadIdx.x + 2 * blockDim.x * j, j < n (all before the segment),
 * loaded CS_MASK_BATCH at a time before any is counted, so a batch costs one load latency. */
#define CS_MASK_BATCH 8
template <bool VEC>
__device__ __forceinline__ int count_before(const int64_t *__restrict__ row, int cols, int64_t pad, int n)
{
    int before = 0;
    for (int j0 = 0; j0 < n; j0 += CS_MASK_BATCH) {
        int64_t x[CS_MASK_BATCH], y[CS_MASK_BATCH];
#pragma unroll
        for (int i = 0; i < CS_MASK_BATCH; i++) /* past n: column cols, read as the pad token */
            load_pair<VEC>(row, j0 + i < n ? 2 * (int)threadIdx.x + 2 * (int)blockDim.x * (j0 + i) : cols, cols, pad,
                           x[i], y[i]);
#pragma unroll
        for (int i = 0; i < CS_MASK_BATCH; i++)
            before += (x[i] != pad) + (y[i] != pad);
    }
    return before;
}

/* The graph's i32 add and mul wrap; unsigned arithmetic does the same without overflow UB. */
__device__ __forceinline__ int64_t position(int count, int past, unsigned m, int64_t offset)
{
    return (int64_t)(int)(((unsigned)count + (unsigned)past) * m) + offset;
}

/* CTA (r, s) of blockDim.x threads scans segment s of row r: lane l of warp w holds the column pairs
 * seg0 + 64 * (PAIRS * w + k) + 2l (+1), k < PAIRS, so each k is one 512-byte access per warp. */
template <int PAIRS, bool VEC>
__global__ void __launch_bounds__(CS_MASK_MAX_WARPS * 32)
    cs_mask_kernel(const int64_t *__restrict__ ids, uint8_t *__restrict__ mask, int64_t *__restrict__ pos, int cols,
                   int64_t pad, int past, int64_t offset)
{
    __shared__ int counts[2][CS_MASK_MAX_WARPS]; /* per warp: its run's flags; its share of those before the segment */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int64_t row = (int64_t)blockIdx.x * cols;
    const int seg0 = blockIdx.y * blockDim.x * 2 * PAIRS, c0 = seg0 + warp * 64 * PAIRS + 2 * lane;
    int64_t a[PAIRS], b[PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; k++)
        load_pair<VEC>(ids + row, c0 + 64 * k, cols, pad, a[k], b[k]);
    int before = count_before<VEC>(ids + row, cols, pad, blockIdx.y * PAIRS);
    /* count[k]: the flags of the warp's run up to column c0 + 64k inclusive */
    const unsigned lanes_before = (1u << lane) - 1;
    unsigned f0 = 0, f1 = 0; /* bit k: the flags of pair k */
    int count[PAIRS], total = 0;
#pragma unroll
    for (int k = 0; k < PAIRS; k++) {
        const unsigned m0 = a[k] != pad, m1 = b[k] != pad;
        const unsigned w0 = __ballot_sync(FULL_WARP, m0), w1 = __ballot_sync(FULL_WARP, m1);
        count[k] = total + __popc(w0 & lanes_before) + __popc(w1 & lanes_before) + (int)m0;
        total += __popc(w0) + __popc(w1);
        f0 |= m0 << k;
        f1 |= m1 << k;
        if (mask) /* the mask needs no scan: written before the barrier */
            store_mask<VEC>(mask + row, c0 + 64 * k, cols, m0, m1);
    }
    /* the flags of the row before the lane's run; a reduction only where there are columns before the segment */
    if (blockIdx.y)
        before = __reduce_add_sync(FULL_WARP, before);
    int prefix = before;
    if (warps > 1) { /* one warp: its share of the columns before the segment is all of them, no barrier */
        if (lane == 0)
            counts[0][warp] = total, counts[1][warp] = before;
        __syncthreads();
        const int i = min(lane, warps - 1); /* read unconditionally: no shared load under a branch either */
        const int share = counts[1][i], run = counts[0][i];
        prefix = __reduce_add_sync(FULL_WARP, (lane < warps ? share : 0) + (lane < warp ? run : 0));
    }
#pragma unroll
    for (int k = 0; k < PAIRS; k++) {
        const unsigned m0 = f0 >> k & 1, m1 = f1 >> k & 1;
        const int n0 = prefix + count[k];
        store_pos<VEC>(pos + row, c0 + 64 * k, cols, position(n0, past, m0, offset),
                       position(n0 + (int)m1, past, m1, offset));
    }
}

/* The variants' shapes before the row's width resolves them: warps 0 is a whole row per CTA. */
static const struct {
    const char *name;
    int pairs, warps;
} variants[CS_MASK_VARIANTS] = {
    {"row", 1, 0}, {"row", 2, 0}, {"row", 4, 0}, {"split-4w", 1, 4}, {"split-2w", 1, 2}, {"split-1w", 1, 1},
};

extern "C" int cs_mask_variant(int v, int64_t cols, cs_mask_shape *sh)
{
    if (v < 0 || v >= CS_MASK_VARIANTS || cols < 1 || cols > 0x7fffffff)
        return 0;
    const int64_t pairs = variants[v].pairs, per_warp = 64 * pairs;
    const int64_t warps = variants[v].warps ? variants[v].warps : (cols + per_warp - 1) / per_warp;
    const int64_t split = (cols + warps * per_warp - 1) / (warps * per_warp);
    if (warps > CS_MASK_MAX_WARPS || split > 65535)
        return 0;
    /* a row variant of more pairs whose half would do, or a split variant that does not split: another's shape */
    if (variants[v].warps ? split < 2 : pairs > 1 && cols <= 32 * pairs)
        return 0;
    sh->name = variants[v].name;
    sh->pairs = (int)pairs;
    sh->warps = (int)warps;
    sh->split = (int)split;
    return 1;
}

/* The row variants at the widths compiled in (CS_MASK_FIXED_WIDTHS), as Inductor compiles its scan for one
 * shape: a row is exactly the CTA's columns, so no address is clamped, no column tested against the width and
 * no split path is there; the mask output is compiled in or out. Same scan as cs_mask_kernel: the counts of
 * a warp by ballots, the warps' totals through shared memory. Loads are plain global loads, as Triton's. */
template <int PAIRS, int COLS, bool MASK>
__global__ void __launch_bounds__(COLS / (2 * PAIRS))
    cs_mask_fixed_kernel(const int64_t *__restrict__ ids, uint8_t *__restrict__ mask, int64_t *__restrict__ pos,
                         int64_t pad, int past, int64_t offset)
{
    constexpr int WARPS = COLS / (64 * PAIRS);
    __shared__ int runs[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t row = (int64_t)blockIdx.x * COLS;
    const int c0 = warp * 64 * PAIRS + 2 * lane;
    longlong2 v[PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; k++)
        v[k] = *reinterpret_cast<const longlong2 *>(ids + row + c0 + 64 * k);
    const unsigned lanes_before = (1u << lane) - 1;
    unsigned f0 = 0, f1 = 0;
    int count[PAIRS], total = 0;
#pragma unroll
    for (int k = 0; k < PAIRS; k++) {
        const unsigned m0 = v[k].x != pad, m1 = v[k].y != pad;
        const unsigned w0 = __ballot_sync(FULL_WARP, m0), w1 = __ballot_sync(FULL_WARP, m1);
        count[k] = total + __popc(w0 & lanes_before) + __popc(w1 & lanes_before) + (int)m0;
        total += __popc(w0) + __popc(w1);
        f0 |= m0 << k;
        f1 |= m1 << k;
        if (MASK)
            *reinterpret_cast<uint16_t *>(mask + row + c0 + 64 * k) = (uint16_t)(m0 | m1 << 8);
    }
    int prefix = 0;
    if (WARPS > 1) {
        if (lane == 0)
            runs[warp] = total;
        __syncthreads();
        const int run = runs[lane < WARPS ? lane : WARPS - 1];
        prefix = __reduce_add_sync(FULL_WARP, lane < warp ? run : 0);
    }
#pragma unroll
    for (int k = 0; k < PAIRS; k++) {
        const unsigned m0 = f0 >> k & 1, m1 = f1 >> k & 1;
        const int n0 = prefix + count[k];
        *reinterpret_cast<longlong2 *>(pos + row + c0 + 64 * k) =
            make_longlong2(position(n0, past, m0, offset), position(n0 + (int)m1, past, m1, offset));
    }
}

/* The widths with a compiled kernel: those of the golden mask points (M2M100 128, Roberta 512, Longformer
 * 1024) and their neighbours. */
static const int fixed_widths[] = {128, 256, 512, 1024, 2048};

extern "C" int cs_mask_fixed(const cs_mask_shape *sh, int64_t cols)
{
    int known = 0;
    for (size_t i = 0; i < sizeof fixed_widths / sizeof *fixed_widths; i++)
        known |= cols == fixed_widths[i];
    return known && sh->split == 1 && (int64_t)sh->warps * 64 * sh->pairs == cols;
}

/* Its launch error; cudaErrorInvalidValue where PAIRS does not tile COLS (cs_mask_fixed never asks for that). */
template <int PAIRS, int COLS>
static cudaError_t launch_fixed(int64_t rows, int64_t pad, int64_t past, int64_t offset, const int64_t *ids,
                                uint8_t *mask, int64_t *pos, cudaStream_t st)
{
    if constexpr (COLS % (64 * PAIRS) == 0 && COLS / (64 * PAIRS) <= CS_MASK_MAX_WARPS) {
        const unsigned threads = COLS / (2 * PAIRS);
        if (mask)
            cs_mask_fixed_kernel<PAIRS, COLS, true><<<(unsigned)rows, threads, 0, st>>>(ids, mask, pos, pad, (int)past,
                                                                                        offset);
        else
            cs_mask_fixed_kernel<PAIRS, COLS, false><<<(unsigned)rows, threads, 0, st>>>(ids, mask, pos, pad,
                                                                                         (int)past, offset);
        return cudaGetLastError();
    }
    return cudaErrorInvalidValue;
}

/* The compiled kernel for cols (cs_mask_fixed holds); its launch error. */
template <int PAIRS>
static cudaError_t fixed(int64_t rows, int64_t cols, int64_t pad, int64_t past, int64_t offset, const int64_t *ids,
                         uint8_t *mask, int64_t *pos, cudaStream_t st)
{
    switch (cols) {
    case 128: return launch_fixed<PAIRS, 128>(rows, pad, past, offset, ids, mask, pos, st);
    case 256: return launch_fixed<PAIRS, 256>(rows, pad, past, offset, ids, mask, pos, st);
    case 512: return launch_fixed<PAIRS, 512>(rows, pad, past, offset, ids, mask, pos, st);
    case 1024: return launch_fixed<PAIRS, 1024>(rows, pad, past, offset, ids, mask, pos, st);
    case 2048: return launch_fixed<PAIRS, 2048>(rows, pad, past, offset, ids, mask, pos, st);
    default: return cudaErrorInvalidValue;
    }
}

template <int PAIRS>
static cudaError_t launch(const cs_mask_shape *sh, int64_t rows, int64_t cols, int64_t pad, int64_t past,
                          int64_t offset, const int64_t *ids, uint8_t *mask, int64_t *pos, cudaStream_t st)
{
    const bool vec = cols % 2 == 0 && (uintptr_t)ids % 16 == 0 && (uintptr_t)pos % 16 == 0 && (uintptr_t)mask % 2 == 0;
    const dim3 grid((unsigned)rows, (unsigned)sh->split), block((unsigned)sh->warps * 32);
    if (vec && cs_mask_fixed(sh, cols))
        return fixed<PAIRS>(rows, cols, pad, past, offset, ids, mask, pos, st);
    if (vec)
        cs_mask_kernel<PAIRS, true><<<grid, block, 0, st>>>(ids, mask, pos, (int)cols, pad, (int)past, offset);
    else
        cs_mask_kernel<PAIRS, false><<<grid, block, 0, st>>>(ids, mask, pos, (int)cols, pad, (int)past, offset);
    return cudaGetLastError();
}

extern "C" int cs_oracle_mask(const cs_mask_shape *sh, int64_t rows, int64_t cols, int64_t pad, int64_t past,
                              int64_t offset, const int64_t *ids, uint8_t *mask, int64_t *pos, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    switch (sh->pairs) {
    case 1: return (int)launch<1>(sh, rows, cols, pad, past, offset, ids, mask, pos, st);
    case 2: return (int)launch<2>(sh, rows, cols, pad, past, offset, ids, mask, pos, st);
    case 4: return (int)launch<4>(sh, rows, cols, pad, past, offset, ids, mask, pos, st);
    default: return (int)cudaErrorInvalidValue;
    }
}
