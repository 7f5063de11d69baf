#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cubin.h"
#include "gpu/cubin_impl.h"
#include "gpu/cupti.h"
#include "gpu/device.h"
#include "helpers.h"
#include "gpu/timer.h"

/* Host-side tests of the GPU measurement layer: the cubin loader's checks and error paths, CUPTI's
 * lookup, and the timer's planning arithmetic. They run everywhere; the GPU half is test_gpu.c. */

#ifndef EA_FIXTURE_DIR
#define EA_FIXTURE_DIR "build/fixtures"
#endif
#define CUBIN_90 EA_FIXTURE_DIR "/add_one.sm_90.cubin"
#define CUBIN_100 EA_FIXTURE_DIR "/add_one.sm_100.cubin"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;

    cr_assert_not_null(f, "fixture %s missing: build it with make %s", path, path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    data = malloc((size_t)n);
    cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return data;
}

/* The path is good until the next call: each caller loads it at once. */
static const char *write_bytes(const char *name, const void *data, size_t len)
{
    static char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

/* Loading must fail on this host before any driver is needed; the message must name the file. */
static void expect_load_error(const char *path, const char *needle)
{
    ea_cubin c;
    ea_error err = {{0}};

    cr_assert_eq(ea_cubin_load_file(&c, path, &err), -1, "%s loaded", path);
    cr_assert_null(c.module);
    cr_assert_not_null(strstr(err.msg, path), "message lacks the path: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, needle), "message lacks \"%s\": %s", needle, err.msg);
    cr_log_info("%s", err.msg);
}

Test(cubin_host, arch_read_from_nvcc_output)
{
    size_t len;
    unsigned char *b;
    int sm = 0;
    ea_error err = {{0}};

    b = slurp(CUBIN_90, &len);
    cr_assert_eq(ea_cubin_arch(b, len, CUBIN_90, &sm, &err), 0, "%s", err.msg);
    cr_assert_eq(sm, 90);
    free(b);
    b = slurp(CUBIN_100, &len);
    cr_assert_eq(ea_cubin_arch(b, len, CUBIN_100, &sm, &err), 0, "%s", err.msg);
    cr_assert_eq(sm, 100);
    free(b);
}

/* CUDA 12's nvcc wrote ELF ABI 7, with the SM in e_flags' low byte (LLVM's EF_CUDA_SM). */
Test(cubin_host, arch_old_abi_low_byte)
{
    size_t len;
    unsigned char *b = slurp(CUBIN_90, &len);
    int sm = 0;
    ea_error err = {{0}};

    b[8] = 7;
    b[48] = 0x50; /* sm_80 */
    b[49] = 0x05;
    cr_assert_eq(ea_cubin_arch(b, len, "old.cubin", &sm, &err), 0, "%s", err.msg);
    cr_assert_eq(sm, 80);
    b[48] = 0x00;
    cr_assert_eq(ea_cubin_arch(b, len, "old.cubin", &sm, &err), -1);
    cr_assert_not_null(strstr(err.msg, "no SM version"), "%s", err.msg);
    free(b);
}

Test(cubin_host, runs_on_same_major_newer_minor)
{
    cr_assert(ea_cubin_runs_on(90, 90));
    cr_assert(ea_cubin_runs_on(80, 86));
    cr_assert(ea_cubin_runs_on(100, 103));
    cr_assert_not(ea_cubin_runs_on(86, 80));
    cr_assert_not(ea_cubin_runs_on(100, 90));
    cr_assert_not(ea_cubin_runs_on(90, 100));
    cr_assert_not(ea_cubin_runs_on(80, 90));
}

Test(cubin_host, missing_file)
{
    expect_load_error("/nonexistent/extern-audit/kernel.cubin", "cannot read: No such file");
}

Test(cubin_host, garbage_bytes)
{
    const char text[] = "this is not an ELF file, it is a sentence long enough to pass the size check...";
    expect_load_error(write_bytes("garbage.cubin", text, sizeof text), "ELF magic");
}

Test(cubin_host, too_short)
{
    expect_load_error(write_bytes("short.cubin", "\177ELF", 4), "64-byte ELF header");
    expect_load_error(write_bytes("empty.cubin", "", 0), "64-byte ELF header");
}

Test(cubin_host, truncated_cubin)
{
    size_t len;
    unsigned char *b = slurp(CUBIN_90, &len);

    cr_assert_gt(len, 400);
    expect_load_error(write_bytes("truncated.cubin", b, 400), "truncated cubin");
    free(b);
}

Test(cubin_host, not_cuda_elf)
{
    size_t len;
    unsigned char *b = slurp(CUBIN_90, &len);

    b[18] = 62; /* EM_X86_64 */
    b[19] = 0;
    expect_load_error(write_bytes("host.o", b, len), "EM_CUDA");
    b[18] = 190;
    b[4] = 1; /* ELFCLASS32 */
    expect_load_error(write_bytes("elf32.cubin", b, len), "64-bit");
    free(b);
}

Test(cubin_host, bytes_without_name_get_a_label)
{
    ea_cubin c;
    ea_error err = {{0}};

    cr_assert_eq(ea_cubin_load_data(&c, "nope", 4, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, "(cubin bytes)"), "%s", err.msg);
}

Test(cubin_host, valid_cubin_without_driver)
{
    ea_device_info info;

    ea_device_probe(&info);
    if (info.driver_version != 0)
        cr_skip_test("CUDA driver %d present: %s", info.driver_version, info.reason);
    expect_load_error(CUBIN_90, "no CUDA driver");
}

Test(cubin_host, unloaded_module_and_kernel)
{
    ea_cubin c;
    ea_kernel k;
    ea_error err = {{0}};
    ea_dim3 one = {1, 1, 1};

    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "x.cubin");
    cr_assert_eq(ea_cubin_function(&c, "add_one", &k, &err), -1);
    cr_assert_not_null(strstr(err.msg, "x.cubin: kernel add_one: the cubin is not loaded"), "%s", err.msg);
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "add_one");
    cr_assert_eq(ea_kernel_launch(&k, one, one, 0, NULL, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, "add_one"), "%s", err.msg);
    ea_cubin_unload(&c); /* a zeroed module unloads as a no-op */
    cr_assert_null(c.module);
}

Test(cupti_host, missing_library_is_an_error)
{
    char where[256];
    ea_error err = {{0}};

    setenv("EXTERN_AUDIT_CUPTI", "/nonexistent/extern-audit/libcupti.so.13", 1);
    cr_assert_eq(ea_cupti_load(where, sizeof where, &err), -1);
    cr_assert_not_null(strstr(err.msg, "CUPTI not found"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "/nonexistent/extern-audit/libcupti.so.13"), "%s", err.msg);
    cr_assert_eq(ea_cupti_begin(&err), -1);
    cr_assert_not_null(strstr(err.msg, "CUPTI not found"), "%s", err.msg);
}

Test(cupti_host, library_without_cupti_symbols)
{
    ea_error err = {{0}};

    setenv("EXTERN_AUDIT_CUPTI", "libm.so.6", 1);
    cr_assert_eq(ea_cupti_load(NULL, 0, &err), -1);
    cr_assert_not_null(strstr(err.msg, "libm.so.6 has no cuptiActivityRegisterCallbacks"), "%s", err.msg);
}

Test(cupti_host, end_without_begin)
{
    ea_kernel_list list;
    ea_error err = {{0}};

    cr_assert_eq(ea_cupti_end(&list, &err), -1);
    cr_assert_not_null(strstr(err.msg, "no region is open"), "%s", err.msg);
    cr_assert_eq(list.count, 0);
    ea_kernel_list_free(&list);
}

/* The toolkit this builds with ships libcupti; finding it here is what a GPU host will do. */
Test(cupti_host, found_in_toolkit)
{
    char where[700];
    ea_error err = {{0}};

    unsetenv("EXTERN_AUDIT_CUPTI");
    if (ea_cupti_load(where, sizeof where, &err) != 0)
        cr_skip_test("%s", err.msg);
    cr_assert_not_null(strstr(where, "CUPTI API"), "%s", where);
    cr_log_info("CUPTI: %s", where);
    cr_assert_eq(ea_cupti_load(NULL, 0, &err), 0, "a second load must reuse the first: %s", err.msg);
}

Test(cupti_host, begin_without_driver)
{
    ea_device_info info;
    ea_kernel_list list;
    ea_error err = {{0}};

    ea_device_probe(&info);
    if (info.driver_version != 0)
        cr_skip_test("CUDA driver %d present: %s", info.driver_version, info.reason);
    unsetenv("EXTERN_AUDIT_CUPTI");
    cr_assert_eq(ea_cupti_begin(&err), -1);
    cr_assert(strstr(err.msg, "no CUDA driver") || strstr(err.msg, "CUPTI not found"), "%s", err.msg);
    cr_log_info("%s", err.msg);
    /* A failed begin leaves no region open: the next begin fails the same way, end finds none. */
    cr_assert_eq(ea_cupti_begin(&err), -1);
    cr_assert_not_null(strstr(err.msg, "no CUDA driver"), "%s", err.msg);
    cr_assert_eq(ea_cupti_end(&list, &err), -1);
    cr_assert_not_null(strstr(err.msg, "no region is open"), "%s", err.msg);
    /* the profiled calls' region, copies and memsets too, fails the same way */
    cr_assert_eq(ea_cupti_begin_copies(&err), -1);
    cr_assert_not_null(strstr(err.msg, "no CUDA driver"), "%s", err.msg);
}

Test(timer_host, config_defaults)
{
    ea_timer_config c;
    ea_error err = {{0}};

    cr_assert_eq(ea_timer_config_resolve(NULL, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(c.calls_per_replay, 0);
    cr_assert_eq(c.replays, 30);
    cr_assert_eq(c.warmup, 3);
    cr_assert_float_eq(c.warmup_ms, 100.0, 1e-12);
    cr_assert_eq(c.max_calls_per_replay, 4096);
    cr_assert_float_eq(c.target_replay_ms, 1.0, 1e-12);
    cr_assert_eq(c.cache, EA_CACHE_WARM);
}

Test(timer_host, config_rejects_bad_values)
{
    ea_timer_config in, c;
    ea_error err = {{0}};

    memset(&in, 0, sizeof in);
    in.replays = -1;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), -1);
    cr_assert_not_null(strstr(err.msg, "replays"), "%s", err.msg);
    memset(&in, 0, sizeof in);
    in.calls_per_replay = -5;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), -1);
    cr_assert_not_null(strstr(err.msg, "calls_per_replay"), "%s", err.msg);
    memset(&in, 0, sizeof in);
    in.target_replay_ms = -1.0;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), -1);
    cr_assert_not_null(strstr(err.msg, "target_replay_ms"), "%s", err.msg);
    memset(&in, 0, sizeof in);
    in.warmup_ms = -3.0;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), -1);
    cr_assert_not_null(strstr(err.msg, "warmup_ms"), "%s", err.msg);
    memset(&in, 0, sizeof in);
    in.cache = (ea_cache_policy)7;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), -1);
    cr_assert_not_null(strstr(err.msg, "cache"), "%s", err.msg);
    memset(&in, 0, sizeof in);
    in.calls_per_replay = 16;
    in.replays = 5;
    in.cache = EA_CACHE_COLD;
    cr_assert_eq(ea_timer_config_resolve(&in, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(c.calls_per_replay, 16);
    cr_assert_eq(c.replays, 5);
    cr_assert_eq(c.cache, EA_CACHE_COLD);
}

Test(timer_host, next_k)
{
    /* 10 us for one call, aiming at 1 ms: 1 * 1.0 * 1.1 / 0.01 = 110. */
    cr_assert_eq(ea_timer_next_k(0.010, 1, 1.0, 4096), 110);
    cr_assert_eq(ea_timer_next_k(1.5, 3, 1.0, 4096), 3, "already long enough");
    cr_assert_eq(ea_timer_next_k(0.0, 4, 1.0, 4096), 40, "unmeasurably short grows tenfold");
    cr_assert_eq(ea_timer_next_k(1e-6, 1, 1.0, 4096), 4096, "capped");
    cr_assert_eq(ea_timer_next_k(0.999, 100, 1.0, 4096), 111, "below target grows");
    cr_assert_eq(ea_timer_next_k(0.9999999, 100, 1.0, 4096), 111);
    cr_assert_eq(ea_timer_next_k(0.5, 4096, 1.0, 4096), 4096, "at the cap stays");
    cr_assert_eq(ea_timer_next_k(0.5, 0, 1.0, 0), 1, "nonsense clamps to 1");
}

Test(timer_host, reduce_per_call)
{
    double replay_ms[] = {1.0, 2.0, 3.0, 4.0};
    ea_timing t;
    ea_error err = {{0}};

    memset(&t, 0, sizeof t);
    cr_assert_eq(ea_timer_reduce(replay_ms, 4, 10, &t, &err), 0, "%s", err.msg);
    /* ms * 1000 / 10 = 100, 200, 300, 400 us */
    cr_assert_float_eq(t.samples_us[0], 100.0, 1e-9);
    cr_assert_float_eq(t.samples_us[3], 400.0, 1e-9);
    cr_assert_float_eq(t.per_call_us.median, 250.0, 1e-9);
    cr_assert_float_eq(t.per_call_us.q1, 175.0, 1e-9);
    cr_assert_float_eq(t.per_call_us.q3, 325.0, 1e-9);
    cr_assert_eq(t.per_call_us.count, 4);
    cr_assert_eq(t.replays, 4);
    cr_assert_eq(t.calls_per_replay, 10);
    cr_assert_eq(ea_timer_reduce(replay_ms, 0, 10, &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "at least one replay"), "%s", err.msg);
    ea_timing_free(&t);
    cr_assert_null(t.samples_us);
}

Test(timer_host, policy_sentences)
{
    ea_timing t;

    memset(&t, 0, sizeof t);
    t.calls_per_replay = 64;
    t.replays = 30;
    t.l2_bytes = (size_t)60 << 20;
    t.warmup_ms = 100.0;
    ea_timer_describe(&t);
    cr_assert_not_null(strstr(t.policy, "warm: 64 calls back to back"), "%s", t.policy);
    cr_assert_not_null(strstr(t.policy, "30 replays timed after 100 ms of warm-up"), "%s", t.policy);
    cr_assert_not_null(strstr(t.policy, "60 MiB L2"), "%s", t.policy);
    t.cache = EA_CACHE_COLD;
    t.flush_bytes = (size_t)120 << 20;
    t.calls_per_replay = 30;
    t.ops_per_call = 3;
    ea_timer_describe(&t);
    cr_assert_not_null(strstr(t.policy, "cold: one CUDA graph of 30 (flush, call) pairs"), "%s", t.policy);
    cr_assert_not_null(strstr(t.policy, "120 MiB (2x the 60 MiB L2"), "%s", t.policy);
    cr_assert_not_null(strstr(t.policy, "the last of its 3 operations"), "%s", t.policy);
    cr_assert_not_null(strstr(t.policy, "median and IQR over the 30 calls"), "%s", t.policy);
    cr_assert_null(strstr(t.policy, "subtract"), "%s", t.policy);
}

Test(timer_host, no_device_is_an_error)
{
    ea_device_info info;
    ea_timing t;
    ea_error err = {{0}};

    if (ea_device_probe(&info))
        cr_skip_test("CUDA device present: %s", info.reason);
    cr_assert_eq(ea_time_graph(ea_enqueue_empty_kernel, NULL, NULL, &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "timer:"), "%s", err.msg);
    cr_assert_null(t.samples_us);
    cr_log_info("%s", err.msg);
}

/* The one message a family gives for a failed CUDA call: names the family, the point's alias when it has one,
 * the step, and the runtime's string and name (these need no device). */
Test(device_host, cuda_fail_names_family_alias_step_and_error)
{
    ea_error err;
    cr_assert_eq(ea_cuda_fail(&err, "cumsum", "roberta-infer", "upload the padded batch", 2), -1);
    cr_assert_str_eq(err.msg, "cumsum roberta-infer: upload the padded batch: out of memory (cudaErrorMemoryAllocation)");
    ea_cuda_fail(&err, "routing", NULL, "oracle launch", 2);
    cr_assert_str_eq(err.msg, "routing: oracle launch: out of memory (cudaErrorMemoryAllocation)");
}
