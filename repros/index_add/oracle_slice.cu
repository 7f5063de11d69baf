/* oracle_slice.cu: the slice oracle (an iota index, XLNet's rel_shift backward): one pass over the output in
 * 16-byte chunks, each element written once, no atomics. A chunk in the copied columns reads 8 source elements,
 * a chunk outside stores the fill, a chunk across a row end or a column edge goes element by element (vec8,
 * staged) or, where its copied elements are one run, the way a copied chunk does (vec8-shfl). The run
 * times the ten ia_slice_variants (scope.h) and keeps the fastest that passed its checks (ea_path_tune's rule):
 * - vec8: U = 1, 2, 4, 8 chunks per thread, every load issued before the first store (two aligned 16-byte loads
 *   and a shift per chunk), with streaming stores at U = 1, 2 (vec8-cs);
 * - vec8-shfl: U = 1, 2, 4, the second aligned vector from the next lane by warp shuffle, data and single-run
 *   edge chunks in one instruction stream;
 * - staged (slice_staged.h): each span's source range read once into shared memory with aligned loads, the
 *   chunks built from there. */
#include "kernels.h"

#include "oracle_common.cuh"
#include "slice_staged.h"

namespace ia_oracle {

/* One output element of the slice: fill, plus the source element its column holds, if any. */
template <typename I>
__device__ __forceinline__ uint32_t slice_elem(const ia_slice &q, const uint16_t *x, I row, I c, float scale,
                                                float fill)
{
    float acc = fill;
    if (c >= (I)q.col0 && c < (I)(q.col0 + q.row_src))
        acc = __fadd_rn(acc, term(x[row * (I)q.row_src + c - (I)q.col0], scale));
    return round_bf16(acc);
}

/* A chunk across a row end or a column edge: element by element, rows stepped, not divided. */
template <typename I>
__device__ __forceinline__ void slice_edge(const ia_slice &q, const uint16_t *x, I row, I c, float scale, float fill,
                                           uint32_t (&r)[8])
{
#pragma unroll
    for (int i = 0; i < 8; i++, c++) {
        while (c >= (I)q.row_out) {
            c -= (I)q.row_out;
            row++;
        }
        r[i] = slice_elem<I>(q, x, row, c, scale, fill);
    }
}

template <bool FAST>
__global__ void ia_oracle_slice_scalar(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                       float fill)
{
    using I = typename Int<FAST>::T;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < items; t += (int64_t)gridDim.x * blockDim.x) {
        I row = divq<FAST>((I)t, q.div_row, q.row_out);
        out[t] = (uint16_t)slice_elem<I>(q, x, row, (I)t - row * (I)q.row_out, scale, fill);
    }
}

/* U 16-byte chunks per thread (a block covers U * blockDim consecutive chunks, each pass coalesced):
 * every chunk's loads are issued before the first store, U * 32 bytes in flight per thread. */
template <int U, bool FAST, bool STREAM>
__global__ void ia_oracle_slice_vec8(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                     float fill)
{
    using I = typename Int<FAST>::T;
    enum { FILL, DATA, EDGE, NONE };
    const uint32_t f = round_bf16(fill);
    const I row_out = (I)q.row_out, col0 = (I)q.col0, col1 = (I)(q.col0 + q.row_src);
    const int64_t first = (int64_t)blockIdx.x * U * blockDim.x + threadIdx.x;
    uint32_t u[U][4];
    I row[U], c[U];
    int kind[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        int64_t t = first + (int64_t)k * blockDim.x;
        kind[k] = NONE;
        if (t >= items)
            continue;
        I e0 = (I)t * 8;
        row[k] = divq<FAST>(e0, q.div_row, q.row_out);
        c[k] = e0 - row[k] * row_out;
        bool inside = c[k] + 8 <= row_out;
        kind[k] = inside && (c[k] + 8 <= col0 || c[k] >= col1) ? FILL
                  : inside && c[k] >= col0 && c[k] + 8 <= col1 ? DATA
                                                              : EDGE;
        if (kind[k] == DATA)
            load8(x, (int64_t)(row[k] * (I)q.row_src + c[k] - col0), u[k]);
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint32_t r[8];
        if (kind[k] == NONE)
            continue;
        if (kind[k] == FILL) {
#pragma unroll
            for (int i = 0; i < 8; i++)
                r[i] = f;
        } else if (kind[k] == DATA) {
#pragma unroll
            for (int i = 0; i < 8; i++)
                r[i] = round_bf16(__fadd_rn(fill, term(lane(u[k], i), scale)));
        } else {
            slice_edge<I>(q, x, row[k], c[k], scale, fill, r);
        }
        store8<STREAM>(out + (int64_t)(first + (int64_t)k * blockDim.x) * 8, r);
    }
}

/* A chunk's copied elements are consecutive source elements from cnt(row, c) (slice_staged.h says why): the part
 * in its own row at [lo1, hi1), the part in the next row at [lo2, hi2). Returns how many (n); when they form one
 * run, *p is its first element in the chunk; *two when they are two runs apart (a chunk across a row end whose
 * row's copied columns stop before the row ends or start after it begins) or when the chunk reaches a third row
 * (rows under 7 elements; n is then 8, a stand-in: both go element by element). S: a signed type that holds
 * row_out; the next row's bounds cap col0, col1 at 8, which changes no n2 and keeps every sum within S. */
template <typename S>
__device__ __forceinline__ int chunk_run(S c, S row_out, S col0, S col1, int *p, bool *two)
{
    const S rem = row_out - c, lo1 = max(col0 - c, (S)0), hi1 = min(min(col1 - c, rem), (S)8);
    const S lo2 = rem + min(col0, (S)8), hi2 = rem < 8 ? min(rem + min(col1, (S)8), (S)8) : 0;
    const S n1 = max(hi1 - lo1, (S)0), n2 = max(hi2 - lo2, (S)0);
    const bool third = row_out < 8 - rem;
    *p = (int)(n1 ? lo1 : lo2);
    *two = third || (n1 && n2 && hi1 != lo2);
    return third ? 8 : (int)(n1 + n2);
}

/* U chunks per thread in blocks of kShflBlock (a block covers U * kShflBlock consecutive chunks, each pass
 * coalesced, every pass's loads issued before the first shuffle). A chunk's copied elements are one run of
 * consecutive source elements (chunk_run) in all but two-run edges, so data chunks (the run at 0, 8 long) and edge
 * chunks take one instruction stream: the aligned source vector at or below the run's start (lo) and the next one
 * (hi), shifted by the run's offset, the elements outside the run set to the fill. A row's data chunks share one
 * shift, so the hi a lane needs is mostly the lo the next lane loaded in the same pass, fetched by warp shuffle;
 * only the last lane of a run (the warp's or the row's) loads it itself. Fill chunks store the fill; two-run edges
 * and chunks that reach a third row go element by element. Why one stream: XLNet's rows (1023 elements) put an edge
 * chunk in 44% of warps, which ran the edge path after the data path; on an H200 the kernel was bound by issue
 * (docs/evidence/oracle-gaps.md). */
constexpr int kShflBlock = 128;

template <bool FAST, bool POW2, int U>
__global__ void ia_oracle_slice_shfl(uint16_t *out, const uint16_t *x, ia_slice q, int64_t items, float scale,
                                     float fill)
{
    using I = typename Int<FAST>::T;
    using S = typename std::conditional<FAST, int32_t, int64_t>::type;
    using A = typename std::conditional<FAST, int32_t, long long>::type;
    const unsigned all = 0xffffffffu;
    const I row_out = (I)q.row_out;
    const I first = (I)blockIdx.x * U * blockDim.x + threadIdx.x; /* FAST: items < 2^28 */
    I e0[U];
    int sh[U], p[U], n[U]; /* n: the run's length; 0 a fill chunk, -1 past the end */
    bool two[U];
    A a[U]; /* the aligned vector this lane loads, -1 for none */
    uint4 lo[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        const I i = first + (I)k * blockDim.x;
        const bool live = i < (I)items;
        e0[k] = live ? i * 8 : 0;
        const I row = divq<FAST>(e0[k], q.div_row, q.row_out), c = e0[k] - row * row_out;
        p[k] = 0, two[k] = false;
        n[k] = live ? chunk_run<S>((S)c, (S)row_out, (S)q.col0, (S)(q.col0 + q.row_src), &p[k], &two[k]) : -1;
        const I s = row * (I)q.row_src + (I)min(max((S)c - (S)q.col0, (S)0), (S)q.row_src);
        sh[k] = (int)(s & 7);
        const bool load = n[k] > 0 && !two[k];
        a[k] = load ? (A)(s - sh[k]) : -1; /* with hi, inside the source: vec 8 means n_src % 8 == 0 */
        lo[k] = load ? ld16(x + a[k]) : make_uint4(0, 0, 0, 0);
    }
    const uint32_t f = round_bf16(fill), ff = f | f << 16;
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint4 hi; /* every lane takes part in the shuffles, live or not */
        hi.x = __shfl_down_sync(all, lo[k].x, 1);
        hi.y = __shfl_down_sync(all, lo[k].y, 1);
        hi.z = __shfl_down_sync(all, lo[k].z, 1);
        hi.w = __shfl_down_sync(all, lo[k].w, 1);
        const A next = __shfl_down_sync(all, a[k], 1); /* lane 31 gets its own: never a + 8 */
        if (n[k] < 0)
            continue;
        uint4 v;
        if (n[k] == 0) {
            v = make_uint4(ff, ff, ff, ff);
        } else if (two[k]) {
            uint32_t r[8];
            const I row = divq<FAST>(e0[k], q.div_row, q.row_out);
            slice_edge<I>(q, x, row, e0[k] - row * row_out, scale, fill, r);
            v = make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16, r[6] | r[7] << 16);
        } else {
            if (sh[k] + n[k] > 8 && next != a[k] + 8)
                hi = ld16(x + a[k] + 8);
            /* element j of the chunk (j >= p) is element d + j of {0 x 8, lo, hi}: a barrel shift by d / 2 words,
             * then by d % 2 elements; d in [1, 15], the same in every data chunk of a row */
            const int d = sh[k] - p[k] + 8;
            uint32_t w[12] = {0, 0, 0, 0, lo[k].x, lo[k].y, lo[k].z, lo[k].w, hi.x, hi.y, hi.z, hi.w}, u[4];
            if (d & 8) {
#pragma unroll
                for (int j = 0; j < 8; j++)
                    w[j] = w[j + 4];
            }
            if (d & 4) {
#pragma unroll
                for (int j = 0; j < 6; j++)
                    w[j] = w[j + 2];
            }
            if (d & 2) {
#pragma unroll
                for (int j = 0; j < 5; j++)
                    w[j] = w[j + 1];
            }
            const uint32_t sel = d & 1 ? 0x5432 : 0x3210;
#pragma unroll
            for (int j = 0; j < 4; j++)
                u[j] = __byte_perm(w[j], w[j + 1], sel);
            uint32_t *vw = reinterpret_cast<uint32_t *>(&v);
            if constexpr (POW2) { /* fill 0, scale 2^k: x * scale is exact, so one bf16x2 fma rounds as the fp32 path */
                const __nv_bfloat162 s2 = __float2bfloat162_rn(scale), z = __float2bfloat162_rn(0.0f);
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    __nv_bfloat162 h = __hfma2(*reinterpret_cast<const __nv_bfloat162 *>(&u[j]), s2, z);
                    vw[j] = *reinterpret_cast<uint32_t *>(&h);
                }
            } else {
                float f8[8];
#pragma unroll
                for (int j = 0; j < 8; j++)
                    f8[j] = __fadd_rn(fill, term(lane(u, j), scale));
                v = make_uint4(pack2(f8[0], f8[1]), pack2(f8[2], f8[3]), pack2(f8[4], f8[5]), pack2(f8[6], f8[7]));
            }
            if (n[k] < 8) { /* outside the run: the fill (+0 under POW2) */
                const uint32_t m8 = ((1u << n[k]) - 1) << p[k];
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const uint32_t m = (0u - ((m8 >> (2 * j)) & 1)) >> 16 | (0u - ((m8 >> (2 * j + 1)) & 1)) << 16;
                    vw[j] = POW2 ? vw[j] & m : (vw[j] & m) | (ff & ~m);
                }
            }
        }
        *reinterpret_cast<uint4 *>(out + e0[k]) = v;
    }
}

/* The staged slice kernel; its block code is slice_staged.h, shared with the CPU emulation. Why staged:
 * out's rows (XLNet: 1023 elements) shift each row's source elements against the 16-byte grid, so the
 * unstaged kernel reads two source vectors per output chunk. Here a launch splits out's 16-byte chunks
 * into spans (ia_slice_stage_split); block b takes spans b, b + grid, ... For a span:
 * - its copied elements' source indices form one contiguous range [s_lo, s_hi): out's rows map to
 *   source rows in order and the copied columns are one interval, so the count of copied elements
 *   before out's element (r, c), r * row_src + clamp(c - col0, 0, row_src), grows with r * row_out + c;
 * - ia_st_load reads that range widened to 16-byte alignment with aligned 16-byte loads, at most
 *   IA_STAGED_VECTORS per thread (the planner bounds every span's range to the buffer), each source
 *   byte once, and ia_st_stage puts the registers into shared memory;
 * - ia_st_build makes each thread's chunks t, t + threads, ... from shared memory at any element
 *   shift (two aligned 16-byte shared loads and a funnel shift), fill chunks without a read, chunks
 *   across a row end or a column edge element by element; rows are walked, not divided per chunk.
 * Arithmetic as reference.c's ia_emulate_oracle: acc = fill, acc += x * scale in fp32, one rounding.
 *
 * Persistent over its spans (ia_slice_split): the next span's loads are issued before the current
 * span is built, so they are in flight during its stores. Two barriers per span: the stage waits for
 * every thread's reads of the previous span, the build for the whole stage. */
__global__ void __launch_bounds__(IA_STAGED_THREADS)
    ia_oracle_slice_staged(uint16_t *out, const uint16_t *x, ia_slice q, ia_slice_split l, float scale, float fill)
{
    __shared__ uint4 buf[IA_STAGED_SHARED_ELEMS / 8];
    uint16_t *smem = reinterpret_cast<uint16_t *>(buf);
    const int t = threadIdx.x;
    uint32_t v[IA_STAGED_VECTORS][4];
    ia_st_span cur, next;
    int64_t span = blockIdx.x;
    if (span < l.spans) {
        ia_st_span_at(&q, l.span_chunks, span, &next);
        ia_st_load(&next, x, t, v);
    }
    while (span < l.spans) {
        cur = next;
        __syncthreads();
        ia_st_stage(&cur, t, v, smem);
        __syncthreads();
        span += gridDim.x;
        if (span < l.spans) {
            ia_st_span_at(&q, l.span_chunks, span, &next);
            ia_st_load(&next, x, t, v);
        }
        ia_st_build(&q, &cur, t, smem, out, scale, fill);
    }
}

/* Staged blocks resident on the whole current device. Queried at a device's first launch, which the
 * run makes eagerly: a launch inside a graph capture then makes no query, only the launch. */
static int64_t staged_resident(cudaError_t *rc)
{
    static int seen = -1;
    static int64_t resident;
    int dev = 0, sms = 0, per_sm = 0;
    if ((*rc = cudaGetDevice(&dev)) != cudaSuccess || dev == seen)
        return resident;
    if ((*rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) == cudaSuccess &&
        (*rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ia_oracle_slice_staged, IA_STAGED_THREADS, 0)) ==
            cudaSuccess) {
        seen = dev;
        resident = (int64_t)sms * per_sm;
    }
    return resident;
}

} // namespace ia_oracle

using namespace ia_oracle;

extern "C" int ia_oracle_slice(const ia_slice *q, void *out, const void *x, float scale, float fill, void *stream)
{
    int64_t n = q->rows * q->row_out, items = q->vec == 8 ? n / 8 : n;
    bool fast = fits32(n) && fits32(q->rows * q->row_src) && q->div_row.d != 0;
    cudaStream_t st = (cudaStream_t)stream;
    uint16_t *o = (uint16_t *)out;
    const uint16_t *in = (const uint16_t *)x;
    int u = q->unroll == 2 || q->unroll == 4 || q->unroll == 8 ? q->unroll : 1;
    unsigned grid = grid_for((items + u - 1) / u);
    if (q->staged) { /* persistent: one block per resident slot, as the occupancy of this GPU allows */
        cudaError_t rc = q->vec == 8 && q->stage.span_max > 0 ? cudaSuccess : cudaErrorInvalidValue;
        int64_t resident = rc == cudaSuccess ? staged_resident(&rc) : 0;
        if (rc != cudaSuccess)
            return (int)rc;
        ia_slice_split l;
        ia_slice_stage_split(q, resident, &l);
        ia_oracle_slice_staged<<<(unsigned)l.grid, IA_STAGED_THREADS, 0, st>>>(o, in, *q, l, scale, fill);
        return (int)cudaGetLastError();
    }
    if (q->vec == 8 && q->shfl) {
        /* the instances below, so that the grid and the kernel agree */
        const int us = q->unroll == 2 || q->unroll == 4 ? q->unroll : 1;
        unsigned g = (unsigned)((items + (int64_t)us * kShflBlock - 1) / ((int64_t)us * kShflBlock));
        const bool pow2 = pow2_over_zero(scale, fill);
#define IA_SHFL_U(U)                                                                                       \
    (fast && pow2 ? ia_oracle_slice_shfl<true, true, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill) \
     : fast       ? ia_oracle_slice_shfl<true, false, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill) \
                  : ia_oracle_slice_shfl<false, false, U><<<g, kShflBlock, 0, st>>>(o, in, *q, items, scale, fill))
        switch (us) {
        case 2: IA_SHFL_U(2); break;
        case 4: IA_SHFL_U(4); break;
        default: IA_SHFL_U(1); break;
        }
#undef IA_SHFL_U
        return (int)cudaGetLastError();
    }
    if (q->vec != 8) {
        if (fast)
            ia_oracle_slice_scalar<true><<<grid_for(items), kBlock, 0, st>>>(o, in, *q, items, scale, fill);
        else
            ia_oracle_slice_scalar<false><<<grid_for(items), kBlock, 0, st>>>(o, in, *q, items, scale, fill);
        return (int)cudaGetLastError();
    }
#define IA_SLICE_S(U, S)                                                                                 \
    (fast ? ia_oracle_slice_vec8<U, true, S><<<grid, kBlock, 0, st>>>(o, in, *q, items, scale, fill)       \
          : ia_oracle_slice_vec8<U, false, S><<<grid, kBlock, 0, st>>>(o, in, *q, items, scale, fill))
#define IA_SLICE(U) (q->streaming ? IA_SLICE_S(U, true) : IA_SLICE_S(U, false))
    switch (u) {
    case 2: IA_SLICE(2); break;
    case 4: IA_SLICE(4); break;
    case 8: IA_SLICE(8); break;
    default: IA_SLICE(1); break;
    }
#undef IA_SLICE
#undef IA_SLICE_S
    return (int)cudaGetLastError();
}
