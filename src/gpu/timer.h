/* timer.h: per-call device time by CUDA-graph replay.
 * Contract:
 * - The caller gives enqueue(ctx, stream, err): it puts ONE call of the work on stream (a
 *   cudaStream_t) without synchronising, and returns 0 or -1 with err->msg. It must be capturable:
 *   no cudaMalloc, cudaMemcpy (sync) or cudaDeviceSynchronize inside.
 * - ea_time_graph synchronises the device, runs the call once eagerly (loads modules, surfaces
 *   errors), captures K calls into one graph, replays it at least `warmup` times and for at least
 *   warmup_ms (an idle GPU runs at a fraction of its clock for the first milliseconds), then times R
 *   replays with events. Each sample is replay/K in microseconds; per_call_us holds their median,
 *   quartiles (stats.h's type 7) and IQR.
 * - K: cfg->calls_per_replay when > 0, else the smallest count (up to max_calls_per_replay) for
 *   which one replay lasts >= target_replay_ms, found by timing trial graphs.
 * - Cache policy, stated in timing->policy: EA_CACHE_WARM replays the calls back to back, so L2
 *   keeps what fits of the call's data. EA_CACHE_COLD subtracts nothing: one graph holds R =
 *   max(replays, EA_COLD_MIN_CALLS) (flush, call) pairs, the flush (EA_COLD_FLUSH_KERNEL) writing 2x
 *   the L2 size; after one eager call, CUPTI records every kernel, copy and memset of the warm-up
 *   replays and of one last replay, and a sample is one call of that last replay: from the end of
 *   its flush (or its first operation's start, when CUPTI stamped that earlier: the flush's end stamp
 *   lags by up to 1.25 us on the H200) to the end of its last operation (device timestamps; like a
 *   warm call's share of a replay, it holds the gap before the call's first operation). Why: nvbench flushes L2 and times
 *   single launches with events, whose ~0.5 us resolution and host launch latency a device-side
 *   span avoids; subtracting a separately timed flush (the former policy) left the flush's own
 *   spread in every small scope.
 *   Cold timing opens its own CUPTI region: the caller must not have one open. When CUPTI cannot
 *   record (not found, not loadable, held by another profiler) it fails with timing->note set to
 *   "no cold time: <why>".
 * - ea_time_warm_cold: the same work timed warm, then cold, with cfg's other settings (a path's
 *   "time" and "time_cold", docs/reference/schema.md). Without a CUPTI that records there is no cold time:
 *   0 with cold->samples_us NULL and cold->note saying why; never a number measured otherwise.
 * - Everything runs on the current device; the result owns samples_us: ea_timing_free. */
#ifndef EA_TIMER_H
#define EA_TIMER_H

#include <stddef.h>

#include "gpu/cupti.h"
#include "base/error.h"
#include "base/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*ea_enqueue_fn)(void *ctx, void *stream, ea_error *err);

typedef enum { EA_CACHE_WARM = 0, EA_CACHE_COLD = 1 } ea_cache_policy;

/* Cold samples per timing at least: a cold call of a 2 us scope spreads up to 15% of its median on the
 * H200, and the drift rule knows a median to 1.57 IQR / sqrt(n) (drift.h): 100 calls put it within
 * about 2.4%, 30 only within 4.3%. The flushes cost about 35 us each, so this stays cheap. */
#define EA_COLD_MIN_CALLS 100
/* The flush kernel's name as CUPTI reports it (extern "C": not mangled). */
#define EA_COLD_FLUSH_KERNEL "ea_l2_flush"

/* A zero field takes its default; NULL takes every default. */
typedef struct {
    int calls_per_replay;     /* K; 0: automatic */
    int replays;              /* R timed replays; default 30 */
    int warmup;               /* untimed replays before them; default 3 */
    double warmup_ms;         /* ... lasting at least this long in all; default 100 */
    double target_replay_ms;  /* automatic K aims one replay at this; default 1.0 */
    int max_calls_per_replay; /* cap on automatic K; default 4096 */
    ea_cache_policy cache;    /* default warm */
} ea_timer_config;

typedef struct {
    ea_stats per_call_us;
    double *samples_us; /* R per-call samples in replay order */
    int calls_per_replay, replays;
    double warmup_ms;
    ea_cache_policy cache;
    size_t l2_bytes;
    size_t flush_bytes; /* cold: bytes written before each call; 0 when warm */
    int ops_per_call;   /* cold: kernels, copies and memsets CUPTI saw in one call */
    double resolution_us; /* cold: the device clock's step in the stamps (drift.h); 0 when warm or unseen */
    char policy[640];   /* one sentence: K, R and the cache policy */
    char note[512];     /* cold: why there are no samples (CUPTI cannot record); else "" */
} ea_timing;

int ea_time_graph(ea_enqueue_fn enqueue, void *ctx, const ea_timer_config *cfg, ea_timing *out, ea_error *err);
void ea_timing_free(ea_timing *t);
/* warm and cold: both filled, or -1 with neither holding samples. */
int ea_time_warm_cold(ea_enqueue_fn enqueue, void *ctx, const ea_timer_config *cfg, ea_timing *warm, ea_timing *cold,
                      ea_error *err);

/* An enqueue function launching one empty kernel <<<1, 1>>>: launch overhead alone. ctx unused. */
int ea_enqueue_empty_kernel(void *ctx, void *stream, ea_error *err);
/* *(const int *)ctx empty kernels one after another on stream: in a captured graph, a chain of that many
 * dependent kernel nodes, the least a call of that many kernels costs (measure/launch_floor.h). */
int ea_enqueue_empty_kernels(void *ctx, void *stream, ea_error *err);

/* Host-side steps of ea_time_graph (timer_plan.c), exported for it and for tests. */
int ea_timer_config_resolve(const ea_timer_config *in, ea_timer_config *out, ea_error *err);
/* The K to try next after a replay of k calls took replay_ms: enough to reach target_ms with 10%
 * margin, at least k + 1 while below target, never over max_k; k itself once replay_ms >= target_ms. */
int ea_timer_next_k(double replay_ms, int k, double target_ms, int max_k);
/* Fills samples_us[i] = replay_ms[i] * 1000 / k and per_call_us; sets calls_per_replay and replays.
 * Other fields are left as the caller set them. */
int ea_timer_reduce(const double *replay_ms, int r, int k, ea_timing *out, ea_error *err);
/* The cold samples from the CUPTI records of a cold timing (by start time): a kernel named
 * flush_name opens a call, whose operations are the records up to the next flush. The first call
 * fixes the operation count; every call must have as many, else -1 naming the call and the
 * operation it lacks or has extra. The last r calls are the samples: end of the call's last
 * operation minus the earlier of its flush's end and its first operation's start, in us. Also -1 on
 * dropped records, a record before the first flush, an operation starting before its flush started,
 * or fewer than r calls. Fills samples_us,
 * per_call_us, ops_per_call, calls_per_replay = r and replays = 1; other fields are left. */
int ea_timer_reduce_cold(const ea_kernel_list *list, const char *flush_name, int r, ea_timing *out, ea_error *err);
/* The cold flush for an L2 of l2_bytes on sm_count multiprocessors: *bytes to write (2x L2: the
 * L2's replacement is not strict LRU, one L2's worth can leave lines of the call resident) and the
 * flush kernel's *grid (8 blocks of 256 per multiprocessor). -1 when the device reports no L2. */
int ea_timer_flush_plan(size_t l2_bytes, int sm_count, size_t *bytes, int *grid, ea_error *err);
/* Writes out->policy from its fields. */
void ea_timer_describe(ea_timing *out);
/* The warm policy's sentence with calls, the calls per replay, as text ("20", "1 to 1122 (each path's own)"). */
void ea_timer_describe_warm(char *out, size_t n, const char *calls, int replays, double warmup_ms, size_t l2_bytes);

#ifdef __cplusplus
}
#endif

#endif
