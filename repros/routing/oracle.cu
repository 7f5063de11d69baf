/* oracle.cu: the routing scope's oracles (kernels.h), in namespace rt_oracle (CUPTI names them).
 * route_kernel (RT_ROUTE_CLUSTER): the whole scope, ids -> sorted ids, permutation, offsets, in one launch of
 *   a cluster of RT_ORACLE_CLUSTER CTAs, one pass over the ids. CTA r of the cluster holds positions
 *   [r * T, (r + 1) * T) (T = RT_ORACLE_THREADS), one per thread, so (CTA, warp, lane) is position order. A single CTA was
 *   latency-bound (ncu: one SM, 19 cycles per issued instruction, four rounds of every phase); the
 *   cluster does each phase once per thread on eight SMs and meets over distributed shared memory.
 *   Each warp groups its lanes by id with one ballot per id bit (a constant cost, unlike a per-value
 *   match): a lane's rank among equal ids of its warp is the popcount of its peers below it, and the
 *   group's lowest lane stores the group size in cnt[id][warp]. A logical warp per id scans its row
 *   (cub::WarpScan): equal ids in earlier warps of the CTA, and the CTA's count of the id. After a
 *   cluster barrier every CTA reads all CTAs' counts: the id's total and its count in lower-ranked CTAs
 *   (lower positions); a CTA-wide scan of the totals (cub::BlockScan) gives each id's start, and the
 *   offsets (the inclusive scan) are written by CTA 0. Each position's destination start[id] +
 *   lower CTAs + cnt[id][warp] + rank makes a stable counting sort: the permutation is ascending id,
 *   then ascending position, torch's order too (its radix sort is stable). Sorted ids need no scatter:
 *   position i holds the last id whose run starts at or before i. No CTA leaves before every CTA has
 *   read the counts it holds (the cluster barrier's second half, waited for at the end).
 *   Above RT_ORACLE_CLUSTER * RT_ORACLE_THREADS ids route_rounds_kernel does the same in rounds of one id
 *   per thread (up to RT_ORACLE_ROUNDS): a CTA's rounds are consecutive position ranges, each ranked
 *   after the CTA's equal ids of earlier rounds, so the tables stay those of one round and the order
 *   stays stable. The two kernels share the cluster exchange (cluster_starts) and the sorted-id search.
 * expert_kernel (RT_ROUTE_PER_EXPERT): the whole scope with no exchange between CTAs. route_kernel took
 *   3.31-3.37 us a call on the H200 against a one-kernel launch floor of 0.50, its phases each behind a
 *   barrier, the cluster's among them; a CTA per expert reads all ids instead (32 KiB for 4096, from L2)
 *   and needs no other CTA: 2.41-2.50 us (docs/evidence/routing_sort.md). CTA e counts the ids below e (where e's run
 *   starts) and ballots the ids equal to e, RT_EXPERT_ITEMS consecutive ids a thread per round, so
 *   (round, warp, lane, item) is position order; a warp scan of the (round, warp) counts ranks each id
 *   equal to e, and e's CTA alone writes e's run of the permutation and of the sorted ids, and offsets[e]:
 *   stable, no atomics, each output written once.
 * rt_oracle_offsets: the narrow form, sorted ids -> offsets: boundary i (between positions i and i + 1,
 *   i = -1 .. n - 1) writes i + 1 to offsets[e] for e in [sorted[i], sorted[i + 1]) (0 and experts at the
 *   ends); every expert lies in exactly one such range, so each offset is written once, no atomics. */
#include "kernels.h"

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

namespace rt_oracle { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = RT_ORACLE_THREADS / 32; /* slots per id: the CTA's warps, in position order */
constexpr int kMaxIds = RT_ORACLE_CLUSTER * RT_ORACLE_THREADS;
static_assert(kWarps <= 32 && (kWarps & (kWarps - 1)) == 0, "a row of slots is one logical warp");

/* Lanes of the warp holding the same id as this lane (ids in [0, 2^bits) or -1 for none). */
__device__ __forceinline__ unsigned peers_of(int id, int bits)
{
    unsigned valid = __ballot_sync(kFull, id >= 0), peers = id >= 0 ? valid : ~valid;
    for (int b = 0; b < bits; b++) {
        unsigned set = __ballot_sync(kFull, (id >> b) & 1);
        peers &= (id >> b) & 1 ? set : ~set;
    }
    return peers;
}

typedef cub::WarpScan<int, kWarps> row_scan;
typedef cub::BlockScan<int, RT_ORACLE_THREADS> id_scan;

/* Once every CTA's count[id] holds its count of each id: each id's total over the cluster and its count in
 * lower-ranked CTAs, a CTA-wide scan of the totals, start[id] (where this CTA's run of the id starts),
 * first[id] (where the id's run starts; first[experts]: the ids in range) and, from CTA 0, the offsets.
 * Arrives on the cluster barrier once the others' counts are read: the caller waits on it last. */
__device__ __forceinline__ void cluster_starts(cg::cluster_group &cluster, int *count, int *start, int *first,
                                               int experts, int32_t *offsets, typename id_scan::TempStorage &tmp)
{
    const int rank = (int)cluster.block_rank(), tid = threadIdx.x;
    cluster.sync(); /* every CTA's counts written and visible to the cluster */
    int total = 0, lower = 0;
    if (tid < experts)
        for (int r = 0; r < RT_ORACLE_CLUSTER; r++) {
            int c = cluster.map_shared_rank(count, r)[tid];
            total += c;
            lower += r < rank ? c : 0;
        }
    cluster.barrier_arrive(); /* done reading the others' counts; they may leave once all have said so */
    int excl, in_range;
    id_scan(tmp).ExclusiveSum(total, excl, in_range);
    if (tid < experts) {
        start[tid] = excl + lower;
        first[tid] = excl;
        if (rank == 0)
            offsets[tid] = excl + total;
    }
    if (tid == 0)
        first[experts] = in_range;
    __syncthreads();
}

/* The id at position pos of n, or -1 past n or outside [0, experts): left unwritten, so the check sees it. The
 * range is checked in 64 bits: an id past 2^32 must not wrap into one. */
__device__ __forceinline__ int id_at(const int64_t *ids, int pos, int n, int experts)
{
    const int64_t v = pos < n ? ids[pos] : -1;
    return v >= 0 && v < experts ? static_cast<int>(v) : -1;
}

/* The id at sorted position pos < first[experts]: the last whose run starts at or before pos (never an empty
 * one). */
__device__ __forceinline__ int run_at(const int *first, int experts, int pos)
{
    int lo = 0, hi = experts - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (first[mid] <= pos)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

__global__ void __cluster_dims__(RT_ORACLE_CLUSTER, 1, 1) __launch_bounds__(RT_ORACLE_THREADS)
route_kernel(const int64_t *__restrict__ ids, int n, int experts, int64_t *__restrict__ sorted,
             int64_t *__restrict__ perm, int32_t *__restrict__ offsets)
{
    extern __shared__ int smem[];
    int *count = smem;                  /* [experts]: this CTA's count of each id, read by the cluster */
    int *start = count + experts;       /* [experts]: where this CTA's run of each id starts */
    int *first = start + experts;       /* [experts + 1]: where each id's run starts; then the ids in range */
    unsigned short *cnt = reinterpret_cast<unsigned short *>(first + experts + 1); /* [experts][kWarps] */
    __shared__ union {
        typename row_scan::TempStorage row[RT_ORACLE_THREADS / kWarps];
        typename id_scan::TempStorage ids;
    } scan;
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank(), tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bits = 32 - __clz(experts - 1), pos = rank * RT_ORACLE_THREADS + tid;
    const int id = id_at(ids, pos, n, experts); /* the load first: its latency covers the zeroing */
    for (int i = tid; i < experts * kWarps; i += RT_ORACLE_THREADS)
        cnt[i] = 0;
    __syncthreads();
    const unsigned peers = peers_of(id, bits), below = (1u << lane) - 1;
    if (id >= 0 && (peers & below) == 0) /* the group's lowest lane */
        cnt[id * kWarps + warp] = static_cast<unsigned short>(__popc(peers));
    __syncthreads();
    for (int i = tid; i < experts * kWarps; i += RT_ORACLE_THREADS) { /* a logical warp per id's row */
        int v = cnt[i], excl, total;
        row_scan(scan.row[tid / kWarps]).ExclusiveSum(v, excl, total);
        cnt[i] = static_cast<unsigned short>(excl);
        if (i % kWarps == 0)
            count[i / kWarps] = total;
    }
    cluster_starts(cluster, count, start, first, experts, offsets, scan.ids);
    if (id >= 0)
        perm[start[id] + cnt[id * kWarps + warp] + __popc(peers & below)] = pos;
    if (pos < first[experts])
        sorted[pos] = run_at(first, experts, pos);
    cluster.barrier_wait();
}

/* More ids than the cluster has threads: CTA r holds positions [r * R * T, (r + 1) * R * T) for R rounds,
 * round j the T positions from r * R * T + j * T, one per thread, so (CTA, round, warp, lane) is position
 * order. Each round groups its warps' ids as route_kernel does, scans the rows, and ranks each id after the
 * CTA's equal ids of earlier rounds (count[], the running count, stays in shared memory; the ranks in
 * registers). Then the cluster exchange, the scatter and the sorted ids as route_kernel's. */
__global__ void __cluster_dims__(RT_ORACLE_CLUSTER, 1, 1) __launch_bounds__(RT_ORACLE_THREADS)
route_rounds_kernel(const int64_t *__restrict__ ids, int n, int experts, int rounds, int64_t *__restrict__ sorted,
                    int64_t *__restrict__ perm, int32_t *__restrict__ offsets)
{
    extern __shared__ int smem[];
    int *count = smem;                  /* [experts]: this CTA's running count of each id, then its total */
    int *start = count + experts;       /* [experts]: the running count before this round; then as route_kernel */
    int *first = start + experts;       /* [experts + 1] */
    unsigned short *cnt = reinterpret_cast<unsigned short *>(first + experts + 1); /* [experts][kWarps] */
    __shared__ union {
        typename row_scan::TempStorage row[RT_ORACLE_THREADS / kWarps];
        typename id_scan::TempStorage ids;
    } scan;
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank(), tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bits = 32 - __clz(experts - 1), base = rank * rounds * RT_ORACLE_THREADS + tid;
    const unsigned below = (1u << lane) - 1;
    int id[RT_ORACLE_ROUNDS], at[RT_ORACLE_ROUNDS]; /* this thread's ids and their ranks in the CTA */
#pragma unroll
    for (int j = 0; j < RT_ORACLE_ROUNDS; j++) { /* every load first */
        int pos = base + j * RT_ORACLE_THREADS;
        id[j] = j < rounds ? id_at(ids, pos, n, experts) : -1;
    }
    for (int i = tid; i < experts; i += RT_ORACLE_THREADS)
        count[i] = 0;
#pragma unroll
    for (int j = 0; j < RT_ORACLE_ROUNDS; j++) {
        if (j >= rounds)
            break;
        for (int i = tid; i < experts * kWarps; i += RT_ORACLE_THREADS)
            cnt[i] = 0;
        __syncthreads();
        const unsigned peers = peers_of(id[j], bits);
        if (id[j] >= 0 && (peers & below) == 0)
            cnt[id[j] * kWarps + warp] = static_cast<unsigned short>(__popc(peers));
        __syncthreads();
        for (int i = tid; i < experts * kWarps; i += RT_ORACLE_THREADS) {
            int v = cnt[i], excl, total;
            row_scan(scan.row[tid / kWarps]).ExclusiveSum(v, excl, total);
            cnt[i] = static_cast<unsigned short>(excl);
            if (i % kWarps == 0) {
                start[i / kWarps] = count[i / kWarps];
                count[i / kWarps] += total;
            }
        }
        __syncthreads();
        at[j] = id[j] >= 0 ? start[id[j]] + cnt[id[j] * kWarps + warp] + __popc(peers & below) : 0;
        __syncthreads(); /* the ranks read before the next round rewrites cnt and start */
    }
    cluster_starts(cluster, count, start, first, experts, offsets, scan.ids);
#pragma unroll
    for (int j = 0; j < RT_ORACLE_ROUNDS; j++) {
        int pos = base + j * RT_ORACLE_THREADS;
        if (j < rounds && id[j] >= 0)
            perm[start[id[j]] + at[j]] = pos;
        if (j < rounds && pos < first[experts])
            sorted[pos] = run_at(first, experts, pos);
    }
    cluster.barrier_wait();
}

__global__ void __launch_bounds__(RT_EXPERT_THREADS)
expert_kernel(const int64_t *__restrict__ ids, int n, int64_t *__restrict__ sorted, int64_t *__restrict__ perm,
              int32_t *__restrict__ offsets)
{
    constexpr int T = RT_EXPERT_THREADS, P = RT_EXPERT_ITEMS, R = RT_EXPERT_ROUNDS, W = T / 32;
    static_assert(R * W == 32 && P % 2 == 0, "a (round, warp) count per lane; ids loaded in pairs");
    __shared__ int count[R * W], lower[W]; /* ids equal to e per (round, warp); ids below e per warp */
    const int e = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned below = (1u << lane) - 1;
    unsigned hit[R][P]; /* the warp's lanes whose item i of round j is e */
    int64_t v[R][P];
    int less = 0;
#pragma unroll
    for (int j = 0; j < R; j++) { /* every round's loads first: one memory latency, not one per round */
        const int p = (j * T + tid) * P;
#pragma unroll
        for (int i = 0; i < P; i += 2) {
            if (p + i + 1 < n) {
                longlong2 q = __ldg(reinterpret_cast<const longlong2 *>(ids + p + i));
                v[j][i] = q.x, v[j][i + 1] = q.y;
            } else {
                v[j][i] = p + i < n ? ids[p + i] : -1, v[j][i + 1] = -1;
            }
        }
    }
#pragma unroll
    for (int j = 0; j < R; j++) {
        int c = 0;
#pragma unroll
        for (int i = 0; i < P; i++) {
            less += v[j][i] >= 0 && v[j][i] < e;
            hit[j][i] = __ballot_sync(kFull, v[j][i] == e);
            c += __popc(hit[j][i]);
        }
        if (lane == 0)
            count[j * W + warp] = c;
    }
#pragma unroll
    for (int d = 16; d; d /= 2)
        less += __shfl_xor_sync(kFull, less, d);
    if (lane == 0)
        lower[warp] = less;
    __syncthreads();
    /* every warp scans the 32 counts itself: no second barrier */
    const int c = count[lane];
    int incl = c, start = lane < W ? lower[lane] : 0;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int o = __shfl_up_sync(kFull, incl, d);
        incl += lane >= d ? o : 0;
    }
#pragma unroll
    for (int d = 16; d; d /= 2)
        start += __shfl_xor_sync(kFull, start, d);
    const int excl = incl - c, total = __shfl_sync(kFull, incl, 31);
    if (tid == 0)
        offsets[e] = start + total;
    for (int i = tid; i < total; i += T)
        sorted[start + i] = e;
#pragma unroll
    for (int j = 0; j < R; j++) {
        int at = start + __shfl_sync(kFull, excl, j * W + warp);
#pragma unroll
        for (int i = 0; i < P; i++)
            at += __popc(hit[j][i] & below);
        const int p = (j * T + tid) * P;
#pragma unroll
        for (int i = 0; i < P; i++)
            if ((hit[j][i] >> lane) & 1)
                perm[at++] = p + i;
    }
}

__global__ void __launch_bounds__(RT_NARROW_THREADS)
offsets_kernel(const int64_t *__restrict__ sorted, int n, int experts, int32_t *__restrict__ offsets)
{
    int i = blockIdx.x * RT_NARROW_THREADS + threadIdx.x - 1; /* boundary after position i */
    if (i >= n)
        return;
    int64_t lo = i < 0 ? 0 : sorted[i], hi = i + 1 < n ? sorted[i + 1] : experts;
    lo = lo < 0 ? 0 : lo;
    hi = hi > experts ? experts : hi;
    for (int64_t e = lo; e < hi; e++)
        offsets[e] = i + 1;
}

} // namespace rt_oracle

using namespace rt_oracle;

extern "C" size_t rt_oracle_shared_bytes(int64_t experts)
{
    return (size_t)(3 * experts + 1) * sizeof(int) + (size_t)experts * kWarps * sizeof(unsigned short);
}

extern "C" int rt_oracle_rounds(int64_t n)
{
    return (int)((n + kMaxIds - 1) / kMaxIds);
}

extern "C" int rt_route_applies(int v, int64_t n, int64_t experts)
{
    if (experts < 2 || experts > RT_ORACLE_THREADS)
        return 0;
    return v == RT_ROUTE_CLUSTER ? n <= RT_ORACLE_MAX_IDS : v == RT_ROUTE_PER_EXPERT ? n <= RT_EXPERT_MAX_IDS : 0;
}

extern "C" int rt_oracle_route(const int64_t *ids, int64_t n, int64_t experts, int variant, int64_t *sorted,
                               int64_t *perm, int32_t *offsets, void *stream)
{
    if (!rt_route_applies(variant, n, experts))
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    if (variant == RT_ROUTE_PER_EXPERT) {
        if (reinterpret_cast<uintptr_t>(ids) % 16) /* the pair loads */
            return (int)cudaErrorInvalidValue;
        expert_kernel<<<(unsigned)experts, RT_EXPERT_THREADS, 0, s>>>(ids, (int)n, sorted, perm, offsets);
        return (int)cudaGetLastError();
    }
    size_t shared = rt_oracle_shared_bytes(experts);
    if (n <= kMaxIds)
        route_kernel<<<RT_ORACLE_CLUSTER, RT_ORACLE_THREADS, shared, s>>>(ids, (int)n, (int)experts, sorted, perm,
                                                                         offsets);
    else
        route_rounds_kernel<<<RT_ORACLE_CLUSTER, RT_ORACLE_THREADS, shared, s>>>(
            ids, (int)n, (int)experts, rt_oracle_rounds(n), sorted, perm, offsets);
    return (int)cudaGetLastError();
}

extern "C" int rt_oracle_offsets(const int64_t *sorted, int64_t n, int64_t experts, int32_t *offsets, void *stream)
{
    int grid = (int)((n + 1 + RT_NARROW_THREADS - 1) / RT_NARROW_THREADS);
    offsets_kernel<<<grid, RT_NARROW_THREADS, 0, (cudaStream_t)stream>>>(sorted, (int)n, (int)experts, offsets);
    return (int)cudaGetLastError();
}
