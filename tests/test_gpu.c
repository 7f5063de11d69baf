#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>

#include <cuda_runtime_api.h>

#include "gpu/bandwidth.h"
#include "gpu/cubin.h"
#include "gpu/cubin_impl.h"
#include "gpu/cupti.h"
#include "gpu/device.h"
#include "measure/drift.h"
#include "gpu/timer.h"

/* GPU tests of the measurement layer. Each skips (never passes) without a usable device; the host
 * halves of the same files are tested in test_gpu_host.c. Numbers are logged with cr_log_info. */

#ifndef EA_FIXTURE_DIR
#define EA_FIXTURE_DIR "build/fixtures"
#endif

enum { N = 100000, BLOCK = 256 };

static ea_device_info info;
static int sm;

static void need_gpu(void)
{
    int fd;

    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    sm = info.cc_major * 10 + info.cc_minor;
    /* Criterion runs tests in parallel processes, and a timing taken while another test loads the GPU
     * measures the contention: one GPU test at a time. The lock is released when the process ends. */
    fd = open("/tmp/extern-audit-gpu-tests.lock", O_CREAT | O_RDWR, 0666);
    cr_assert_geq(fd, 0, "cannot open the GPU test lock");
    cr_assert_eq(flock(fd, LOCK_EX), 0, "cannot take the GPU test lock");
}

/* The fixture cubin this device can run: sm_90 on Hopper, sm_100 on Blackwell (B200). */
static const char *fixture_for_device(char *buf, size_t len)
{
    int target = ea_cubin_runs_on(90, sm) ? 90 : ea_cubin_runs_on(100, sm) ? 100 : 0;
    if (!target)
        cr_skip_test("no add_one fixture cubin for sm_%d (built: sm_90, sm_100)", sm);
    snprintf(buf, len, EA_FIXTURE_DIR "/add_one.sm_%d.cubin", target);
    return buf;
}

typedef struct {
    ea_cubin cubin;
    ea_kernel kernel;
    int *in, *out;
    int n;
    size_t shared;
} add_one_run;

static void add_one_setup(add_one_run *r)
{
    char path[256];
    ea_error err = {{0}};
    int *host = malloc(N * sizeof *host);

    need_gpu();
    memset(r, 0, sizeof *r);
    cr_assert_eq(ea_cubin_load_file(&r->cubin, fixture_for_device(path, sizeof path), &err), 0, "%s", err.msg);
    cr_assert_eq(ea_cubin_function(&r->cubin, "add_one", &r->kernel, &err), 0, "%s", err.msg);
    cr_assert_eq(cudaMalloc((void **)&r->in, N * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&r->out, N * sizeof(int)), cudaSuccess);
    for (int i = 0; i < N; i++)
        host[i] = i * 7 - 3;
    cr_assert_eq(cudaMemcpy(r->in, host, N * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    /* Poison: 0xffffffff is -1, which no in[i] + 1 equals (i * 7 - 2 is never -1 for i >= 0). */
    cr_assert_eq(cudaMemset(r->out, 0xff, N * sizeof(int)), cudaSuccess);
    /* cudaMemset may still run when the caller's first launch goes to another stream. */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    r->n = N;
    free(host);
}

static void add_one_teardown(add_one_run *r)
{
    cudaFree(r->in);
    cudaFree(r->out);
    ea_cubin_unload(&r->cubin);
}

static int enqueue_add_one(void *ctx, void *stream, ea_error *err)
{
    add_one_run *r = ctx;
    void *params[] = {&r->out, &r->in, &r->n};
    ea_dim3 grid = {(unsigned)((r->n + BLOCK - 1) / BLOCK), 1, 1}, block = {BLOCK, 1, 1};
    return ea_kernel_launch(&r->kernel, grid, block, r->shared, stream, params, err);
}

static void check_add_one(const add_one_run *r)
{
    int *host = malloc(N * sizeof *host);
    int bad = 0, first = -1;

    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(cudaMemcpy(host, r->out, N * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < N; i++)
        if (host[i] != i * 7 - 2 && bad++ == 0)
            first = i;
    cr_assert_eq(bad, 0, "out[%d] = %d, expected %d (%d of %d wrong)", first, first >= 0 ? host[first] : 0,
                 first * 7 - 2, bad, N);
    free(host);
}

Test(gpu, cubin_add_one_runs)
{
    add_one_run r;
    ea_error err = {{0}};

    add_one_setup(&r);
    cr_log_info("device: %s; cubin %s is sm_%d", info.reason, r.cubin.name, r.cubin.sm);
    cr_assert_eq(enqueue_add_one(&r, NULL, &err), 0, "%s", err.msg);
    check_add_one(&r);
    add_one_teardown(&r);
}

/* More than 48 KiB of dynamic shared memory needs the function's limit raised first. */
Test(gpu, cubin_launch_raises_shared_limit)
{
    add_one_run r;
    ea_error err = {{0}};

    add_one_setup(&r);
    r.shared = 64 * 1024;
    cr_assert_eq(enqueue_add_one(&r, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(r.kernel.shared_limit, 64 * 1024);
    check_add_one(&r);
    add_one_teardown(&r);
}

Test(gpu, cubin_other_arch_is_refused)
{
    ea_cubin c;
    ea_error err = {{0}};
    char want[128];
    const char *path = EA_FIXTURE_DIR "/add_one.sm_100.cubin";

    need_gpu();
    if (ea_cubin_runs_on(100, sm))
        cr_skip_test("device is sm_%d, which runs the sm_100 fixture", sm);
    cr_assert_eq(ea_cubin_load_file(&c, path, &err), -1, "an sm_100 cubin loaded on sm_%d", sm);
    snprintf(want, sizeof want, "%s: no kernel image for this GPU (sm_%d): the cubin was built for sm_100", path, sm);
    cr_assert_not_null(strstr(err.msg, want), "expected \"%s\", got: %s", want, err.msg);
    cr_log_info("%s", err.msg);
}

Test(gpu, cubin_missing_kernel_named)
{
    add_one_run r;
    ea_kernel k;
    ea_error err = {{0}};

    add_one_setup(&r);
    cr_assert_eq(ea_cubin_function(&r.cubin, "no_such_kernel", &k, &err), -1);
    cr_assert_not_null(strstr(err.msg, r.cubin.name), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "kernel no_such_kernel: cuModuleGetFunction"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "CUDA_ERROR_NOT_FOUND"), "%s", err.msg);
    cr_log_info("%s", err.msg);
    add_one_teardown(&r);
}

static const ea_kernel_record *find(const ea_kernel_list *l, const char *name, size_t *count)
{
    const ea_kernel_record *first = NULL;
    *count = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (strstr(l->kernels[i].name, name)) {
            if (!first)
                first = &l->kernels[i];
            ++*count;
        }
    }
    return first;
}

Test(gpu, cupti_names_the_fixture_kernel)
{
    add_one_run r;
    ea_kernel_list list;
    ea_error err = {{0}};
    const ea_kernel_record *k;
    size_t count;

    add_one_setup(&r);
    cr_assert_eq(ea_cupti_begin(&err), 0, "%s", err.msg);
    cr_assert_eq(enqueue_add_one(&r, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_cupti_end(&list, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < list.count; i++)
        cr_log_info("CUPTI kernel %zu: %s %llu ns grid %dx%dx%d block %dx%dx%d", i, list.kernels[i].name,
                    (unsigned long long)list.kernels[i].duration_ns, list.kernels[i].grid[0], list.kernels[i].grid[1],
                    list.kernels[i].grid[2], list.kernels[i].block[0], list.kernels[i].block[1],
                    list.kernels[i].block[2]);
    k = find(&list, "add_one", &count);
    cr_assert_not_null(k, "CUPTI recorded %zu kernels, none named add_one", list.count);
    cr_assert_eq(count, 1);
    cr_assert_str_eq(k->name, "add_one");
    cr_assert_gt(k->duration_ns, 0);
    cr_assert_eq(k->grid[0], (N + BLOCK - 1) / BLOCK);
    cr_assert_eq(k->block[0], BLOCK);
    cr_assert_eq(list.dropped, 0);
    ea_kernel_list_free(&list);
    check_add_one(&r);
    add_one_teardown(&r);
}

/* The kernel list of a timing is evidence: every call of every replay must show up, from a graph. */
Test(gpu, cupti_sees_graph_replays)
{
    /* A 1 us warm-up: the first replay alone almost always outlasts it. */
    ea_timer_config cfg = {.calls_per_replay = 8, .replays = 2, .warmup = 1, .warmup_ms = 0.001};
    ea_timing t;
    ea_kernel_list list;
    ea_error err = {{0}};
    size_t count, from_graph = 0;

    need_gpu();
    cr_assert_eq(ea_cupti_begin(&err), 0, "%s", err.msg);
    cr_assert_eq(ea_time_graph(ea_enqueue_empty_kernel, NULL, &cfg, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_cupti_end(&list, &err), 0, "%s", err.msg);
    find(&list, "empty_kernel", &count);
    for (size_t i = 0; i < list.count; i++)
        from_graph += list.kernels[i].graph_id != 0;
    cr_log_info("CUPTI: %zu kernels (%zu empty_kernel, %zu from graphs; first named %s)", list.count, count,
                from_graph, list.count ? list.kernels[0].name : "-");
    /* 1 eager call + 8 calls x (at least 1 warm-up + 2 timed) replays, every one recorded. */
    cr_assert_geq(count, 1 + 8 * 3);
    cr_assert_eq((count - 1) % 8, 0, "%zu kernels is not 1 + a whole number of 8-call replays", count);
    cr_assert_eq(from_graph, count - 1);
    for (size_t i = 1; i < list.count; i++)
        cr_assert_geq(list.kernels[i].start_ns, list.kernels[i - 1].start_ns, "records out of order");
    ea_kernel_list_free(&list);
    ea_timing_free(&t);
}

Test(gpu, empty_kernel_under_2us_per_call)
{
    ea_timing t;
    ea_error err = {{0}};

    need_gpu();
    cr_assert_eq(ea_time_graph(ea_enqueue_empty_kernel, NULL, NULL, &t, &err), 0, "%s", err.msg);
    cr_log_info("empty kernel: median %.3f us per call (q1 %.3f, q3 %.3f, IQR %.3f, min %.3f, max %.3f); %s",
                t.per_call_us.median, t.per_call_us.q1, t.per_call_us.q3, t.per_call_us.iqr, t.per_call_us.min,
                t.per_call_us.max, t.policy);
    cr_assert_gt(t.per_call_us.median, 0.0);
    cr_assert_lt(t.per_call_us.median, 2.0, "empty kernel costs %.3f us per call", t.per_call_us.median);
    ea_timing_free(&t);
}

Test(gpu, timer_stats_sane)
{
    add_one_run r;
    ea_timer_config cfg = {.replays = 20};
    ea_timing t;
    ea_error err = {{0}};

    add_one_setup(&r);
    cr_assert_eq(ea_time_graph(enqueue_add_one, &r, &cfg, &t, &err), 0, "%s", err.msg);
    cr_log_info("add_one warm: median %.3f us (q1 %.3f q3 %.3f); %s", t.per_call_us.median, t.per_call_us.q1,
                t.per_call_us.q3, t.policy);
    cr_assert_eq(t.replays, 20);
    cr_assert_eq(t.per_call_us.count, 20);
    cr_assert_geq(t.calls_per_replay, 1);
    cr_assert(t.per_call_us.min <= t.per_call_us.q1 && t.per_call_us.q1 <= t.per_call_us.median &&
                  t.per_call_us.median <= t.per_call_us.q3 && t.per_call_us.q3 <= t.per_call_us.max,
              "order broken");
    cr_assert_float_eq(t.per_call_us.iqr, t.per_call_us.q3 - t.per_call_us.q1, 1e-9);
    for (int i = 0; i < t.replays; i++)
        cr_assert_gt(t.samples_us[i], 0.0, "sample %d = %g", i, t.samples_us[i]);
    /* Automatic K: one replay reaches the 1 ms target unless K hit its cap. */
    if (t.calls_per_replay < 4096)
        cr_assert_geq(t.per_call_us.median * t.calls_per_replay, 800.0, "replay of %d calls lasts %.1f us",
                      t.calls_per_replay, t.per_call_us.median * t.calls_per_replay);
    cr_assert_not_null(strstr(t.policy, "warm:"), "%s", t.policy);
    ea_timing_free(&t);
    check_add_one(&r);
    add_one_teardown(&r);
}

/* Cold timing's work for the tests below: `copies` device-to-device copies of `bytes`, one after
 * another, each between its own two buffers (so none finds another's data in L2). */
typedef struct {
    char *src, *dst;
    size_t bytes;
    int copies;
} copy_call;

static int enqueue_copy(void *ctx, void *stream, ea_error *err)
{
    copy_call *c = ctx;
    for (int i = 0; i < c->copies; i++)
        if (cudaMemcpyAsync(c->dst + i * c->bytes, c->src + i * c->bytes, c->bytes, cudaMemcpyDeviceToDevice,
                            (cudaStream_t)stream) != cudaSuccess)
            return ea_fail(err, "cudaMemcpyAsync of %zu bytes failed", c->bytes);
    return 0;
}

/* Warm and cold of one copy_call (copies 0 meaning 1); asserts the cold half has CUPTI's samples. */
static void time_copy(copy_call *c, size_t bytes, ea_timing *warm, ea_timing *cold)
{
    ea_error err = {{0}};
    need_gpu();
    c->bytes = bytes;
    c->copies = c->copies > 0 ? c->copies : 1;
    cr_assert_eq(cudaMalloc((void **)&c->src, bytes * c->copies), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&c->dst, bytes * c->copies), cudaSuccess);
    cr_assert_eq(cudaMemset(c->src, 1, bytes * c->copies), cudaSuccess);
    cr_assert_eq(ea_time_warm_cold(enqueue_copy, c, NULL, warm, cold, &err), 0, "%s", err.msg);
    cr_assert_not_null(cold->samples_us, "no cold time on a GPU machine: %s", cold->note);
    cr_log_info("%d x copy %zu KiB: warm %.3f us (IQR %.3f), cold %.3f us (IQR %.3f, %d ops, clock step %.3f us); %s",
                c->copies, bytes >> 10, warm->per_call_us.median, warm->per_call_us.iqr, cold->per_call_us.median,
                cold->per_call_us.iqr, cold->ops_per_call, cold->resolution_us, cold->policy);
    cudaFree(c->src);
    cudaFree(c->dst);
}

/* 16 MiB in and 16 MiB out fit the H200's 60 MiB L2: warm calls hit it, cold ones read DRAM, so the
 * two interquartile ranges must not even touch. */
Test(gpu, timer_cold_copy_inside_l2_is_slower_than_warm)
{
    copy_call c = {0};
    ea_timing warm, cold;
    time_copy(&c, (size_t)16 << 20, &warm, &cold);
    if ((size_t)2 * c.bytes > info.l2_bytes)
        cr_skip_test("L2 of %zu MiB: 32 MiB of copy do not sit well inside it", info.l2_bytes >> 20);
    cr_assert_eq(cold.cache, EA_CACHE_COLD);
    cr_assert_eq(cold.flush_bytes, 2 * info.l2_bytes);
    cr_assert_eq(cold.ops_per_call, 1, "one copy per call");
    cr_assert_eq(cold.per_call_us.count, EA_COLD_MIN_CALLS);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "%d (flush, call) pairs", EA_COLD_MIN_CALLS);
    cr_assert_not_null(strstr(cold.policy, pairs), "%s", cold.policy);
    cr_assert_gt(cold.per_call_us.q1, warm.per_call_us.q3, "cold %.3f us (q1) not above warm %.3f us (q3)",
                 cold.per_call_us.q1, warm.per_call_us.q3);
    ea_timing_free(&warm);
    ea_timing_free(&cold);
}

/* A ~3 us scope: 4 MiB copied cold. Its median must be known well enough for the drift rule to judge
 * it (drift.h: NOISY when two sides' notches and the clock step pass the limit): each side's notch plus
 * the step within half the limit. The subtracting policy failed this on 36 small paths. */
Test(gpu, timer_cold_small_scope_is_quiet)
{
    copy_call c = {0};
    ea_timing warm, cold;
    time_copy(&c, (size_t)4 << 20, &warm, &cold);
    double med = cold.per_call_us.median, rel = cold.per_call_us.iqr / med;
    double notch = EA_DRIFT_NOTCH_K * rel / sqrt((double)cold.per_call_us.count), step = cold.resolution_us / med;
    cr_assert_lt(med, 10.0, "a small scope: %.3f us", med);
    /* a step, not the 1 ns of rounding between stamps of one step (the H200's is about 32 ns) */
    cr_assert_geq(cold.resolution_us, 0.016, "CUPTI's stamps show a clock step: %.3f us", cold.resolution_us);
    cr_assert_leq(notch + step, EA_DRIFT_LIMIT / 2, "cold median notch %.4f + clock step %.4f (IQR/median %.3f, %zu calls) "
                  "above %.3f: the gate would call it NOISY", notch, step, rel, cold.per_call_us.count, EA_DRIFT_LIMIT / 2);
    ea_timing_free(&warm);
    ea_timing_free(&cold);
}

/* Three cold copies one after another: CUPTI sees all three in every call, and the call's cold span,
 * which covers them (timer_cold's host tests check the arithmetic on synthetic records), is no faster
 * than the same call warm. One timing per test process: a second warm and cold timing of copies after a
 * first, in one Criterion test, never returned on the H200 (sessions 5 and 6, with and without the wait
 * kernel of delay.h), while `run` times hundreds of paths cold in one process; not yet diagnosed. */
Test(gpu, timer_cold_span_covers_every_operation)
{
    copy_call three = {.copies = 3};
    ea_timing warm3, cold3;
    time_copy(&three, (size_t)1 << 20, &warm3, &cold3);
    cr_assert_eq(cold3.ops_per_call, 3, "three copies");
    cr_assert_geq(cold3.per_call_us.median, warm3.per_call_us.median, "cold %.3f us, warm %.3f us",
                  cold3.per_call_us.median, warm3.per_call_us.median);
    ea_timing_free(&warm3);
    ea_timing_free(&cold3);
}

/* Without a CUPTI that records, a warm time and no cold number: the note says why. Criterion runs each
 * test in its own process, so CUPTI is not loaded yet and the planted path is the one tried. */
Test(gpu, timer_cold_without_cupti_is_absent_with_a_note)
{
    add_one_run r;
    ea_timing warm, cold;
    ea_error err = {{0}};
    add_one_setup(&r);
    cr_assert_eq(setenv("EXTERN_AUDIT_CUPTI", "/nonexistent/libcupti.so", 1), 0);
    cr_assert_eq(ea_time_warm_cold(enqueue_add_one, &r, NULL, &warm, &cold, &err), 0, "%s", err.msg);
    cr_assert_not_null(warm.samples_us);
    cr_assert_null(cold.samples_us);
    cr_assert_not_null(strstr(cold.note, "no cold time: CUPTI not found"), "%s", cold.note);
    cr_assert_not_null(strstr(cold.note, "/nonexistent/libcupti.so"), "%s", cold.note);
    ea_timing_free(&warm);
    check_add_one(&r);
    add_one_teardown(&r);
}

/* Fails from its second call on, which is the first one inside the capture. */
typedef struct {
    add_one_run *run;
    int calls;
} failing_ctx;

static int enqueue_fail_in_capture(void *ctx, void *stream, ea_error *err)
{
    failing_ctx *f = ctx;
    if (++f->calls > 1)
        return ea_fail(err, "planted failure in call %d", f->calls);
    return enqueue_add_one(f->run, stream, err);
}

Test(gpu, enqueue_errors_end_the_capture)
{
    ea_timer_config cfg = {.calls_per_replay = 2, .replays = 2};
    ea_timing t;
    ea_error err = {{0}};
    add_one_run r;
    failing_ctx f = {&r, 0};

    add_one_setup(&r);
    cr_assert_eq(ea_time_graph(enqueue_fail_in_capture, &f, &cfg, &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "planted failure in call 2"), "%s", err.msg);
    cr_assert_null(t.samples_us);
    /* A failing launch before any capture names the kernel. */
    r.shared = (size_t)1 << 30;
    cr_assert_eq(ea_time_graph(enqueue_add_one, &r, &cfg, &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "kernel add_one: cuFuncSetAttribute"), "%s", err.msg);
    cr_log_info("%s", err.msg);
    /* The device and a new stream stay usable afterwards. */
    r.shared = 0;
    cr_assert_eq(ea_time_graph(enqueue_add_one, &r, &cfg, &t, &err), 0, "%s", err.msg);
    ea_timing_free(&t);
    check_add_one(&r);
    add_one_teardown(&r);
}

Test(gpu, copy_bandwidth_1gib, .timeout = 120)
{
    ea_bandwidth bw;
    ea_error err = {{0}};
    double ratio;

    need_gpu();
    cr_assert_eq(ea_copy_bandwidth(0, NULL, &bw, &err), 0, "%s", err.msg);
    ratio = bw.kernel_bytes_per_s / bw.memcpy_bytes_per_s;
    cr_log_info("copy %zu bytes on %s: kernel %s %.3f TB/s (median %.1f us, IQR %.1f, K %d, grid %d x %d; "
                "grid-stride %.3f TB/s), "
                "cudaMemcpyAsync %.3f TB/s (median %.1f us, IQR %.1f, K %d), kernel/memcpy %.3f; %s",
                bw.bytes, info.name, bw.kernel_name, bw.kernel_bytes_per_s / 1e12, bw.kernel.per_call_us.median,
                bw.kernel.per_call_us.iqr, bw.kernel.calls_per_replay, bw.grid, bw.block,
                bw.strided_bytes_per_s / 1e12, bw.memcpy_bytes_per_s / 1e12,
                bw.memcpy.per_call_us.median, bw.memcpy.per_call_us.iqr, bw.memcpy.calls_per_replay, ratio,
                bw.kernel.policy);
    cr_assert_eq(bw.bytes, (size_t)1 << 30);
    cr_assert_gt(bw.kernel_bytes_per_s, 0.0);
    cr_assert_gt(bw.memcpy_bytes_per_s, 0.0);
    cr_assert_geq(bw.kernel_bytes_per_s, bw.strided_bytes_per_s, "the floor divides by the faster kernel");
    /* Asserted only where the numbers are known: Hopper (H100/H200) and B200. */
    if (sm == 90 || sm == 100) {
        cr_assert_geq(ratio, 0.8, "copy kernel reaches %.1f%% of cudaMemcpyAsync", 100.0 * ratio);
        cr_assert_gt(bw.kernel_bytes_per_s, 2e12, "copy kernel %.3f TB/s", bw.kernel_bytes_per_s / 1e12);
    }
    ea_bandwidth_free(&bw);
}
