#include <criterion/criterion.h>

#include <string.h>

#include "gpu/device.h"
#include "gpu/device_impl.h"

/* Host tests run everywhere; GPU tests skip (never pass) when the probe finds no usable device. */

static ea_device_info probe_or_skip(void)
{
    ea_device_info info;
    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    return info;
}

Test(device_host, probe_always_explains)
{
    ea_device_info info;
    int usable;

    /* Poison the struct so a reason left unwritten cannot pass as an empty-but-terminated string. */
    memset(&info, 0x5a, sizeof info);
    usable = ea_device_probe(&info);
    cr_assert(usable == 0 || usable == 1, "probe returned %d", usable);
    cr_assert_not_null(memchr(info.reason, '\0', sizeof info.reason), "reason is not NUL-terminated");
    cr_assert_gt(strlen(info.reason), 0, "probe left reason empty");
    cr_log_info("probe: %d: %s", usable, info.reason);
    cr_assert_gt(info.runtime_version, 0, "runtime version %d", info.runtime_version);
    if (usable)
        cr_assert_not_null(strstr(info.reason, info.name), "summary \"%s\" lacks name \"%s\"", info.reason, info.name);
    else
        cr_assert(strstr(info.reason, "driver") || strstr(info.reason, "device"),
                  "reason \"%s\" mentions neither driver nor device", info.reason);
}

Test(device_host, probe_without_driver_says_so)
{
    ea_device_info info;
    if (ea_device_probe(&info))
        cr_skip_test("CUDA device present: %s", info.reason);
    if (info.driver_version != 0)
        cr_skip_test("CUDA driver %d present: %s", info.driver_version, info.reason);
    cr_assert_eq(info.device_count, 0);
    cr_assert_not_null(strstr(info.reason, "no CUDA driver"), "reason: %s", info.reason);
    cr_assert_not_null(strstr(info.reason, "cudaGetDeviceCount"), "reason: %s", info.reason);
    cr_assert_not_null(strstr(info.reason, "no NVIDIA driver on this machine"), "reason: %s", info.reason);
    cr_assert_null(strstr(info.reason, "insufficient"), "reason: %s", info.reason);
}

Test(device_host, driver_entry_without_driver_names_symbol)
{
    ea_device_info info;
    ea_error err = {{0}};
    void *fn = &info;

    ea_device_probe(&info);
    if (info.driver_version != 0)
        cr_skip_test("CUDA driver %d present: %s", info.driver_version, info.reason);
    cr_assert_eq(ea_driver_entry("cuModuleLoadData", &fn, &err), -1);
    cr_assert_null(fn);
    cr_assert_not_null(strstr(err.msg, "cuModuleLoadData"), "error: %s", err.msg);
    cr_log_info("driver entry: %s", err.msg);
}

/* Fails on every host: without a driver for lack of one, with a driver for lack of the symbol. */
Test(device_host, driver_entry_unknown_symbol_fails)
{
    ea_error err = {{0}};
    void *fn = &err;

    cr_assert_eq(ea_driver_entry("cuNoSuchFunctionEver", &fn, &err), -1);
    cr_assert_null(fn);
    cr_assert_not_null(strstr(err.msg, "cuNoSuchFunctionEver"), "error: %s", err.msg);
}

Test(device_gpu, properties_sane)
{
    ea_device_info info = probe_or_skip();

    cr_log_info("device: %s", info.reason);
    cr_assert_gt(strlen(info.name), 0);
    cr_assert_geq(info.device_count, 1);
    cr_assert_gt(info.sm_count, 0);
    cr_assert_geq(info.cc_major * 10 + info.cc_minor, 70, "compute capability %d.%d", info.cc_major, info.cc_minor);
    cr_assert_gt(info.l2_bytes, 0);
    cr_assert_gt(info.global_mem_bytes, (size_t)1 << 30, "global memory %zu bytes", info.global_mem_bytes);
    cr_assert_gt(info.driver_version, 0);
}

Test(device_gpu, driver_entry_resolves)
{
    static const char *const symbols[] = {"cuDriverGetVersion", "cuModuleLoadData", "cuModuleGetFunction",
                                          "cuLaunchKernel", "cuGetErrorString"};
    ea_error err = {{0}};

    probe_or_skip();
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *fn = NULL;
        cr_assert_eq(ea_driver_entry(symbols[i], &fn, &err), 0, "%s", err.msg);
        cr_assert_not_null(fn, "%s resolved to NULL", symbols[i]);
    }
}

Test(device_gpu, selftest_passes)
{
    ea_error err = {{0}};

    probe_or_skip();
    cr_assert_eq(ea_device_selftest(&err), 0, "%s", err.msg);
}
