/* oracle.cu: the routing scope's oracles (kernels.h), in namespace rt_oracle (CUPTI names them).
 * rt_oracle_route: the whole scope, ids -> sorted ids, permutation, offsets, in one CTA and one pass over
 *   the ids. Round r gives thread t the id at position r * 1024 + t, so (round, warp, lane) is position
 *   order. Each warp groups its lanes by id with one ballot per id bit (a constant cost, unlike a
 *   per-value match): a lane's rank among equal ids of its warp is the popcount of its peers below it,
 *   and the group's lowest lane stores the group size in a shared table cnt[id][round * 32 + warp]. One
 *   warp per id turns its row into an exclusive scan (equal ids in earlier slots), one warp scans the
 *   totals into each id's start; the offsets (cumsum of the histogram, inclusive) fall out of that scan.
 *   Each position's destination start[id] + cnt[id][slot] + rank makes a stable counting sort: the
 *   permutation is ascending id, then ascending position, torch's order too (its radix sort is stable).
 *   The permutation is scattered in shared memory and both outputs leave in coalesced rows; a sorted
 *   id needs no scatter at all: position i holds the last id whose start is <= i.
 * rt_oracle_offsets: the narrow form, sorted ids -> offsets: boundary i (between positions i and i + 1,
 *   i = -1 .. n - 1) writes i + 1 to offsets[e] for e in [sorted[i], sorted[i + 1]) (0 and experts at the
 *   ends); every expert lies in exactly one such range, so each offset is written once, no atomics. */
#include "kernels.h"

#include <cuda_runtime.h>

namespace rt_oracle { /* named, not anonymous: kernel names stay stable for the CUPTI evidence */

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = RT_ORACLE_THREADS / 32;
constexpr int kSlots = RT_ORACLE_ROUNDS * kWarps; /* slots per id: (round, warp) in position order */
constexpr int kMaxIds = RT_ORACLE_ROUNDS * RT_ORACLE_THREADS;

__device__ __forceinline__ int warp_inclusive_scan(int v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(kFull, v, d);
        if (lane >= d)
            v += up;
    }
    return v;
}

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

__global__ void __launch_bounds__(RT_ORACLE_THREADS)
route_kernel(const int64_t *__restrict__ ids, int n, int experts, int64_t *__restrict__ sorted,
             int64_t *__restrict__ perm, int32_t *__restrict__ offsets)
{
    extern __shared__ int smem[];
    int *start = smem;                                                    /* [experts + 1] */
    int *staged = start + experts + 1;                                    /* [kMaxIds]: the permutation */
    unsigned short *cnt = reinterpret_cast<unsigned short *>(staged + kMaxIds); /* [experts][kSlots] */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, bits = 32 - __clz(experts - 1);
    for (int i = tid; i < experts * kSlots; i += RT_ORACLE_THREADS)
        cnt[i] = 0;
    int id[RT_ORACLE_ROUNDS];
#pragma unroll
    for (int r = 0; r < RT_ORACLE_ROUNDS; r++) { /* all loads in flight before the first use */
        int i = r * RT_ORACLE_THREADS + tid;
        id[r] = i < n ? static_cast<int>(ids[i]) : -1;
        if (static_cast<unsigned>(id[r]) >= static_cast<unsigned>(experts))
            id[r] = -1; /* outside the point's range: left unwritten, so the check sees it */
    }
    __syncthreads();
    unsigned peers[RT_ORACLE_ROUNDS];
    const unsigned below = (1u << lane) - 1;
#pragma unroll
    for (int r = 0; r < RT_ORACLE_ROUNDS; r++) {
        peers[r] = peers_of(id[r], bits);
        if (id[r] >= 0 && (peers[r] & below) == 0) /* the group's lowest lane */
            cnt[id[r] * kSlots + r * kWarps + warp] = static_cast<unsigned short>(__popc(peers[r]));
    }
    __syncthreads();
    constexpr int per_lane = kSlots / 32; /* lane l owns slots [l * per_lane, (l + 1) * per_lane) */
    for (int e = warp; e < experts; e += kWarps) {
        unsigned short *row = cnt + e * kSlots + lane * per_lane;
        int sum = 0;
#pragma unroll
        for (int j = 0; j < per_lane; j++)
            sum += row[j];
        int incl = warp_inclusive_scan(sum, lane), run = incl - sum;
#pragma unroll
        for (int j = 0; j < per_lane; j++) {
            int v = row[j];
            row[j] = static_cast<unsigned short>(run);
            run += v;
        }
        if (lane == 31)
            start[e] = incl; /* the id's count, until the next step turns it into its start */
    }
    __syncthreads();
    if (warp == 0) {
        int carry = 0;
        for (int base = 0; base < experts; base += 32) {
            int e = base + lane, c = e < experts ? start[e] : 0, incl = warp_inclusive_scan(c, lane);
            if (e < experts) {
                start[e] = carry + incl - c;
                offsets[e] = carry + incl;
            }
            carry += __shfl_sync(kFull, incl, 31);
        }
        if (lane == 0)
            start[experts] = carry; /* the ids in range: where the last id's run ends */
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < RT_ORACLE_ROUNDS; r++)
        if (id[r] >= 0)
            staged[start[id[r]] + cnt[id[r] * kSlots + r * kWarps + warp] + __popc(peers[r] & below)] =
                r * RT_ORACLE_THREADS + tid;
    __syncthreads();
    for (int i = tid; i < start[experts]; i += RT_ORACLE_THREADS) {
        int lo = 0, hi = experts - 1; /* the last id whose run starts at or before i: never an empty one */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (start[mid] <= i)
                lo = mid;
            else
                hi = mid - 1;
        }
        sorted[i] = lo;
        perm[i] = staged[i];
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
    return (size_t)(experts + 1 + kMaxIds) * sizeof(int) + (size_t)experts * kSlots * sizeof(unsigned short);
}

extern "C" int rt_oracle_route(const int64_t *ids, int64_t n, int64_t experts, int64_t *sorted, int64_t *perm,
                               int32_t *offsets, void *stream)
{
    size_t shared = rt_oracle_shared_bytes(experts);
    if (n > kMaxIds || experts < 2 || shared > RT_ORACLE_SHARED_MAX)
        return (int)cudaErrorInvalidValue;
    route_kernel<<<1, RT_ORACLE_THREADS, shared, (cudaStream_t)stream>>>(ids, (int)n, (int)experts, sorted, perm,
                                                                        offsets);
    return (int)cudaGetLastError();
}

extern "C" int rt_oracle_offsets(const int64_t *sorted, int64_t n, int64_t experts, int32_t *offsets, void *stream)
{
    int grid = (int)((n + 1 + RT_NARROW_THREADS - 1) / RT_NARROW_THREADS);
    offsets_kernel<<<grid, RT_NARROW_THREADS, 0, (cudaStream_t)stream>>>(sorted, (int)n, (int)experts, offsets);
    return (int)cudaGetLastError();
}
