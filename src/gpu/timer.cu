/* timer.cu: the device half of the graph-replay timer (contract in timer.h). The host arithmetic
 * lives in timer_plan.c; this file only captures, replays and reads events. */
#include "gpu/timer.h"

#include "gpu/device_lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

static __global__ void empty_kernel() {}

/* Writes, not reads: a write allocates every line in L2 and evicts what was there, and leaves no
 * data the next call could hit. extern "C": CUPTI reports it as EA_COLD_FLUSH_KERNEL. */
extern "C" __global__ void ea_l2_flush(uint4 *buf, size_t n, unsigned v)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        buf[i] = make_uint4(v, v, v, v);
}

static int cuda_fail(ea_error *err, const char *step, cudaError_t rc)
{
    return ea_fail(err, "timer: %s: %s (%s)", step, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

#define CHECK(step, call)                                                                                  \
    do {                                                                                                   \
        cudaError_t rc_ = (call);                                                                          \
        if (rc_ != cudaSuccess)                                                                            \
            return cuda_fail(err, step, rc_);                                                              \
    } while (0)

extern "C" int ea_enqueue_empty_kernel(void *ctx, void *stream, ea_error *err)
{
    empty_kernel<<<1, 1, 0, (cudaStream_t)stream>>>();
    CHECK("empty_kernel launch", cudaGetLastError());
    return 0;
}

extern "C" int ea_enqueue_empty_kernels(void *ctx, void *stream, ea_error *err)
{
    for (int i = 0; i < *(const int *)ctx; i++)
        if (ea_enqueue_empty_kernel(NULL, stream, err))
            return -1;
    return 0;
}

typedef struct {
    ea_enqueue_fn enqueue;
    void *ctx;
    cudaStream_t stream;
    int cold;
    uint4 *flush_buf;
    size_t flush_n; /* uint4 elements */
    int flush_grid;
    unsigned flush_round;
} session;

static int enqueue_flush(session *s, ea_error *err)
{
    /* A new value each time, so no flush is a no-op rewrite of what the last one wrote. */
    ea_l2_flush<<<s->flush_grid, 256, 0, s->stream>>>(s->flush_buf, s->flush_n, ++s->flush_round);
    CHECK("L2 flush kernel launch", cudaGetLastError());
    return 0;
}

/* One call as the graph will hold it: the flush first when cold, then the work. */
static int enqueue_one(session *s, ea_error *err)
{
    if (s->cold && enqueue_flush(s, err) != 0)
        return -1;
    return s->enqueue(s->ctx, s->stream, err);
}

static int build_graph(session *s, int k, cudaGraphExec_t *exec, ea_error *err)
{
    cudaGraph_t graph = NULL;
    cudaError_t rc;
    int failed = 0;

    *exec = NULL;
    /* ThreadLocal: another thread's unrelated CUDA calls do not break this capture. */
    CHECK("cudaStreamBeginCapture", cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < k && !failed; i++)
        failed = enqueue_one(s, err) != 0;
    /* Always end the capture, or the stream stays unusable. */
    rc = cudaStreamEndCapture(s->stream, &graph);
    if (failed) {
        if (graph)
            cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        return -1;
    }
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        return ea_fail(err,
                       "timer: cudaStreamEndCapture: %s (%s); the enqueue function made a call that stream capture "
                       "does not allow (synchronous copy, allocation, synchronisation) or used another stream",
                       cudaGetErrorString(rc), cudaGetErrorName(rc));
    }
    rc = cudaGraphInstantiate(exec, graph, 0);
    cudaGraphDestroy(graph);
    if (rc != cudaSuccess) {
        *exec = NULL;
        return cuda_fail(err, "cudaGraphInstantiate", rc);
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Replays exec at least `warmup` times and for at least warmup_ms, then r times with an event pair
 * around each; ms[i] per replay. */
static int replay(session *s, cudaGraphExec_t exec, int warmup, double warmup_ms, int r, double *ms, ea_error *err)
{
    cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)2 * r, sizeof *ev);
    int made = 0, rc = -1;
    cudaError_t e = cudaSuccess;

    if (!ev)
        return ea_fail(err, "timer: out of memory for %d events", 2 * r);
    for (; made < 2 * r; made++) {
        e = cudaEventCreate(&ev[made]);
        if (e != cudaSuccess) {
            cuda_fail(err, "cudaEventCreate", e);
            goto out;
        }
    }
    {
        double t0 = now_ms();
        /* Past the counted replays, wait for each: the host clock then measures device time. */
        for (int i = 0; e == cudaSuccess && (i < warmup || now_ms() - t0 < warmup_ms); i++) {
            e = cudaGraphLaunch(exec, s->stream);
            if (e == cudaSuccess && i + 1 >= warmup)
                e = cudaStreamSynchronize(s->stream);
        }
    }
    /* Queue every replay before waiting: the host stays ahead and no gap enters a sample. */
    for (int i = 0; i < r && e == cudaSuccess; i++) {
        e = cudaEventRecord(ev[2 * i], s->stream);
        if (e == cudaSuccess)
            e = cudaGraphLaunch(exec, s->stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[2 * i + 1], s->stream);
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess) {
        cuda_fail(err, "graph replay", e);
        goto out;
    }
    for (int i = 0; i < r; i++) {
        float f = 0;
        e = cudaEventElapsedTime(&f, ev[2 * i], ev[2 * i + 1]);
        if (e != cudaSuccess) {
            cuda_fail(err, "cudaEventElapsedTime", e);
            goto out;
        }
        ms[i] = f;
    }
    rc = 0;
out:
    for (int i = 0; i < made; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    return rc;
}

static int median_ms(session *s, cudaGraphExec_t exec, double warmup_ms, int r, double *med, ea_error *err)
{
    double ms[5];
    ea_stats st;

    if (replay(s, exec, 1, warmup_ms, r, ms, err) != 0 || ea_stats_compute(ms, (size_t)r, &st, err) != 0)
        return -1;
    *med = st.median;
    return 0;
}

/* Builds the timed graph in *exec with K calls, choosing K when the config leaves it at 0. */
static int plan_graph(session *s, const ea_timer_config *c, int *k, cudaGraphExec_t *exec, ea_error *err)
{
    double ms = 0;
    int next;

    *k = c->calls_per_replay > 0 ? c->calls_per_replay : 1;
    if (build_graph(s, *k, exec, err) != 0)
        return -1;
    if (c->calls_per_replay > 0)
        return 0;
    /* A few rounds: the first from one call, which overstates its cost by the graph launch. */
    for (int round = 0; round < 6; round++) {
        /* Only the first trial warms up by time: the clocks then stay up through the rest. */
        if (median_ms(s, *exec, round == 0 ? c->warmup_ms : 0.0, 3, &ms, err) != 0)
            return -1;
        next = ea_timer_next_k(ms, *k, c->target_replay_ms, c->max_calls_per_replay);
        if (next == *k)
            return 0;
        cudaGraphExecDestroy(*exec);
        *k = next;
        if (build_graph(s, *k, exec, err) != 0)
            return -1;
    }
    return 0;
}

static int setup_cold(session *s, ea_timing *out, ea_error *err)
{
    cudaDeviceProp prop;
    int dev = 0;

    CHECK("cudaGetDevice", cudaGetDevice(&dev));
    CHECK("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, dev));
    out->l2_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
    if (!s->cold)
        return 0;
    if (ea_timer_flush_plan(out->l2_bytes, prop.multiProcessorCount, &out->flush_bytes, &s->flush_grid, err))
        return -1;
    s->flush_n = out->flush_bytes / sizeof(uint4);
    CHECK("cudaMalloc(L2 flush buffer)", cudaMalloc((void **)&s->flush_buf, s->flush_n * sizeof(uint4)));
    return 0;
}

/* One eager call: modules load and kernel errors surface here, outside any capture. */
static int eager_call(session *s, ea_error *err)
{
    if (enqueue_one(s, err) != 0)
        return -1;
    CHECK("first call, run eagerly (cudaStreamSynchronize)", cudaStreamSynchronize(s->stream));
    return 0;
}

/* Cold (timer.h): every replay of the (flush, call) graph under CUPTI, the eager call before it not:
 * a graph may run an operation otherwise (a memset node as a kernel), so calls compare with graph
 * calls only. CUPTI is on before the graph is instantiated, so its nodes are traced whatever the
 * CUPTI version's rule. */
static int time_cold(session *s, const ea_timer_config *c, ea_timing *out, ea_error *err)
{
    int r = c->replays > EA_COLD_MIN_CALLS ? c->replays : EA_COLD_MIN_CALLS;
    cudaGraphExec_t exec = NULL;
    ea_kernel_list list = {0};
    ea_error ignored;
    double ms;

    if (eager_call(s, err) != 0)
        return -1;
    if (ea_cupti_begin_copies(err) != 0) {
        snprintf(out->note, sizeof out->note, "no cold time: %.480s", err->msg);
        return -1;
    }
    int rc = build_graph(s, r, &exec, err);
    if (rc == 0) /* the replay's own event pair is unused: the samples are CUPTI's */
        rc = replay(s, exec, c->warmup, c->warmup_ms, 1, &ms, err);
    if (ea_cupti_end(&list, rc ? &ignored : err) != 0)
        rc = -1;
    if (exec)
        cudaGraphExecDestroy(exec);
    if (rc == 0)
        rc = ea_timer_reduce_cold(&list, EA_COLD_FLUSH_KERNEL, r, out, err);
    ea_kernel_list_free(&list);
    return rc;
}

static int time_warm(session *s, const ea_timer_config *c, ea_timing *out, ea_error *err)
{
    cudaGraphExec_t exec = NULL;
    double *ms = (double *)malloc((size_t)c->replays * sizeof *ms);
    int k = 0, rc = ms ? 0 : ea_fail(err, "timer: out of memory for %d samples", c->replays);

    if (rc == 0)
        rc = eager_call(s, err);
    if (rc == 0)
        rc = plan_graph(s, c, &k, &exec, err);
    if (rc == 0)
        rc = replay(s, exec, c->warmup, c->warmup_ms, c->replays, ms, err);
    if (rc == 0)
        rc = ea_timer_reduce(ms, c->replays, k, out, err);
    if (exec)
        cudaGraphExecDestroy(exec);
    free(ms);
    return rc;
}

static int time_graph(ea_enqueue_fn enqueue, void *ctx, const ea_timer_config *cfg, ea_timing *out, ea_error *err)
{
    ea_timer_config c;
    session s;
    int rc = -1;

    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    if (ea_timer_config_resolve(cfg, &c, err) != 0)
        return -1;
    s.enqueue = enqueue;
    s.ctx = ctx;
    s.cold = c.cache == EA_CACHE_COLD;
    out->cache = c.cache;
    out->warmup_ms = c.warmup_ms;
    /* An error left by an earlier caller would otherwise be blamed on this timing. */
    (void)cudaGetLastError();
    CHECK("no usable CUDA device (cudaFree(NULL))", cudaFree(NULL));
    /* The caller's earlier work, on any stream, must neither overlap the timing nor race its first call. */
    CHECK("cudaDeviceSynchronize before timing", cudaDeviceSynchronize());
    CHECK("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    if (setup_cold(&s, out, err) == 0)
        rc = s.cold ? time_cold(&s, &c, out, err) : time_warm(&s, &c, out, err);
    if (rc == 0)
        ea_timer_describe(out);
    if (s.flush_buf)
        cudaFree(s.flush_buf);
    cudaStreamDestroy(s.stream);
    if (rc != 0)
        ea_timing_free(out);
    return rc;
}

/* Under the device lock: no other process times on this GPU meanwhile (device_lock.h). */
extern "C" int ea_time_graph(ea_enqueue_fn enqueue, void *ctx, const ea_timer_config *cfg, ea_timing *out,
                             ea_error *err)
{
    if (ea_device_lock(err) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    int rc = time_graph(enqueue, ctx, cfg, out, err);
    ea_device_unlock();
    return rc;
}
