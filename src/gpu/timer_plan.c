/* The host half of timer.cu: configuration, the choice of K, samples to statistics, the policy
 * sentence. Kept out of the .cu so it is tested and counted on machines without a GPU. */
#include "gpu/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_REPLAYS = 30, DEFAULT_WARMUP = 3, DEFAULT_MAX_K = 4096, LIMIT_K = 1 << 20 };
#define DEFAULT_TARGET_MS 1.0
/* GPU Boost takes tens of milliseconds to lift an idle H200 from ~400 MHz; 100 ms covers it. */
#define DEFAULT_WARMUP_MS 100.0

int ea_timer_config_resolve(const ea_timer_config *in, ea_timer_config *out, ea_error *err)
{
    ea_timer_config c;

    memset(&c, 0, sizeof c);
    if (in)
        c = *in;
    if (c.calls_per_replay < 0 || c.calls_per_replay > LIMIT_K)
        return ea_fail(err, "timer: calls_per_replay: expected 0 (automatic) to %d, got %d", LIMIT_K,
                       c.calls_per_replay);
    if (c.replays < 0 || c.warmup < 0 || c.max_calls_per_replay < 0 || c.max_calls_per_replay > LIMIT_K)
        return ea_fail(err, "timer: expected replays, warmup >= 0 and max_calls_per_replay in 0..%d, got %d, %d, %d",
                       LIMIT_K, c.replays, c.warmup, c.max_calls_per_replay);
    /* !(x >= 0) also rejects NaN. */
    if (!(c.target_replay_ms >= 0.0) || c.target_replay_ms > 10000.0)
        return ea_fail(err, "timer: target_replay_ms: expected 0 (default) to 10000, got %g", c.target_replay_ms);
    if (!(c.warmup_ms >= 0.0) || c.warmup_ms > 10000.0)
        return ea_fail(err, "timer: warmup_ms: expected 0 (default) to 10000, got %g", c.warmup_ms);
    if (c.cache != EA_CACHE_WARM && c.cache != EA_CACHE_COLD)
        return ea_fail(err, "timer: cache: expected EA_CACHE_WARM or EA_CACHE_COLD, got %d", (int)c.cache);
    if (c.replays == 0)
        c.replays = DEFAULT_REPLAYS;
    if (c.warmup == 0)
        c.warmup = DEFAULT_WARMUP;
    if (c.warmup_ms == 0.0)
        c.warmup_ms = DEFAULT_WARMUP_MS;
    if (c.target_replay_ms == 0.0)
        c.target_replay_ms = DEFAULT_TARGET_MS;
    if (c.max_calls_per_replay == 0)
        c.max_calls_per_replay = DEFAULT_MAX_K;
    *out = c;
    return 0;
}

int ea_timer_next_k(double replay_ms, int k, double target_ms, int max_k)
{
    double want;

    if (k < 1)
        k = 1;
    if (max_k < 1)
        max_k = 1;
    if (k >= max_k)
        return max_k;
    if (replay_ms >= target_ms)
        return k;
    /* A replay too short for the event clock to see: grow tenfold and look again. */
    if (!(replay_ms > 0.0))
        want = (double)k * 10.0;
    else
        want = ceil((double)k * target_ms * 1.1 / replay_ms);
    if (want < (double)k + 1.0)
        want = (double)k + 1.0;
    return want >= (double)max_k ? max_k : (int)want;
}

int ea_timer_reduce(const double *replay_ms, int r, int k, ea_timing *out, ea_error *err)
{
    if (r < 1 || k < 1)
        return ea_fail(err, "timer: expected at least one replay of at least one call, got %d replays of %d", r, k);
    free(out->samples_us);
    out->samples_us = malloc((size_t)r * sizeof *out->samples_us);
    if (!out->samples_us)
        return ea_fail(err, "timer: out of memory for %d samples", r);
    /* Per call, not per replay: the graph's own launch cost is spread over K calls. */
    for (int i = 0; i < r; i++)
        out->samples_us[i] = replay_ms[i] * 1000.0 / (double)k;
    out->calls_per_replay = k;
    out->replays = r;
    return ea_stats_compute(out->samples_us, (size_t)r, &out->per_call_us, err);
}

int ea_timer_flush_plan(size_t l2_bytes, int sm_count, size_t *bytes, int *grid, ea_error *err)
{
    if (l2_bytes == 0 || sm_count < 1)
        return ea_fail(err, "timer: cold cache policy: expected the device's L2 size and multiprocessor count, got "
                            "%zu bytes and %d",
                       l2_bytes, sm_count);
    *bytes = 2 * l2_bytes;
    *grid = sm_count * 8;
    return 0;
}

void ea_timer_describe(ea_timing *out)
{
    double mib = 1024.0 * 1024.0;

    if (out->cache == EA_CACHE_COLD)
        snprintf(out->policy, sizeof out->policy,
                 "cold: one CUDA graph of %d (flush, call) pairs, replayed for %.0f ms of warm-up and once more "
                 "under CUPTI; before every call the graph writes %.0f MiB (2x the %.0f MiB L2, a new value each "
                 "time) so the call finds none of its data in L2; a sample is one call of that replay, from its "
                 "flush's end (or its first start, if CUPTI stamped that earlier) to the end of the last of its %d "
                 "operations by CUPTI's device timestamps: no flush time, event resolution or host launch latency "
                 "in it; median and IQR over the %d calls",
                 out->calls_per_replay, out->warmup_ms, (double)out->flush_bytes / mib, (double)out->l2_bytes / mib,
                 out->ops_per_call, out->calls_per_replay);
    else {
        char calls[16];
        snprintf(calls, sizeof calls, "%d", out->calls_per_replay);
        ea_timer_describe_warm(out->policy, sizeof out->policy, calls, out->replays, out->warmup_ms, out->l2_bytes);
    }
}

void ea_timer_describe_warm(char *out, size_t n, const char *calls, int replays, double warmup_ms, size_t l2_bytes)
{
    snprintf(out, n,
             "warm: %s calls back to back per CUDA graph replay, %d replays timed after %.0f ms of warm-up; the %.0f "
             "MiB L2 keeps whatever of the call's data fits between calls",
             calls, replays, warmup_ms, (double)l2_bytes / (1024.0 * 1024.0));
}

void ea_timing_free(ea_timing *t)
{
    free(t->samples_us);
    t->samples_us = NULL;
}
