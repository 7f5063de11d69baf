#include "gpu/device.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* CUDA encodes versions as 1000*major + 10*minor; 0 means "not installed". */
static void version_text(char *buf, size_t len, int v)
{
    if (v == 0)
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* cudaGetDeviceCount fails the same way for "no libcuda" and "libcuda too old"; the driver version
 * (0 when no driver is installed) tells the two apart so the reason points at the actual fix. */
static void explain_count_failure(ea_device_info *info, cudaError_t rc)
{
    char drv[16], rt[16];
    const char *what = "CUDA unavailable";

    version_text(drv, sizeof drv, info->driver_version);
    version_text(rt, sizeof rt, info->runtime_version);
    if (rc == cudaErrorNoDevice)
        what = "no CUDA device";
    else if (rc == cudaErrorInsufficientDriver && info->driver_version == 0) {
        /* the runtime's own text ("driver version is insufficient") would send a user hunting for an upgrade */
        snprintf(info->reason, sizeof info->reason,
                 "no CUDA driver: no NVIDIA driver on this machine (cudaGetDeviceCount: %s; runtime %s)",
                 cudaGetErrorName(rc), rt);
        return;
    } else if (rc == cudaErrorInsufficientDriver)
        what = "CUDA driver older than the runtime";
    snprintf(info->reason, sizeof info->reason, "%s: cudaGetDeviceCount: %s (%s); driver %s, runtime %s",
             what, cudaGetErrorString(rc), cudaGetErrorName(rc), drv, rt);
}

/* Optional attribute: a device that does not report it gives 0. The failed query's error is
 * consumed so it cannot surface in a later caller's cudaGetLastError check. */
static int optional_attribute(enum cudaDeviceAttr attr)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, attr, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

static void summarise(ea_device_info *info)
{
    char drv[16], rt[16];

    version_text(drv, sizeof drv, info->driver_version);
    version_text(rt, sizeof rt, info->runtime_version);
    snprintf(info->reason, sizeof info->reason,
             "%.200s: sm_%d%d, %d SMs, L2 %zu KiB, %.1f GiB, memory %d MHz x %d bit, driver %s, runtime %s"
             " (device 0 of %d)",
             info->name, info->cc_major, info->cc_minor, info->sm_count, info->l2_bytes >> 10,
             (double)info->global_mem_bytes / (1024.0 * 1024.0 * 1024.0), info->mem_clock_khz / 1000,
             info->mem_bus_width_bits, drv, rt, info->device_count);
}

int ea_device_probe(ea_device_info *info)
{
    struct cudaDeviceProp prop;
    cudaError_t rc;

    memset(info, 0, sizeof *info);
    /* Both succeed without a driver (the driver version is then 0); they fail only for a NULL pointer. */
    if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess)
        info->driver_version = 0;
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess)
        info->runtime_version = 0;

    rc = cudaGetDeviceCount(&info->device_count);
    if (rc == cudaSuccess && info->device_count == 0)
        rc = cudaErrorNoDevice;
    if (rc != cudaSuccess) {
        info->device_count = 0;
        explain_count_failure(info, rc);
        return 0;
    }
    rc = cudaGetDeviceProperties(&prop, 0);
    if (rc != cudaSuccess) {
        snprintf(info->reason, sizeof info->reason, "CUDA device 0 unusable: cudaGetDeviceProperties: %s (%s)",
                 cudaGetErrorString(rc), cudaGetErrorName(rc));
        return 0;
    }
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->l2_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
    info->global_mem_bytes = prop.totalGlobalMem;
    info->mem_bus_width_bits = prop.memoryBusWidth;
    int k = snprintf(info->uuid, sizeof info->uuid, "GPU-");
    for (int i = 0; i < 16; i++)
        k += snprintf(info->uuid + k, sizeof info->uuid - (size_t)k, "%02x", (unsigned char)prop.uuid.bytes[i]);
    /* CUDA 13 dropped the clock fields from cudaDeviceProp; the attribute query still has them. */
    info->mem_clock_khz = optional_attribute(cudaDevAttrMemoryClockRate);
    /* A prohibited device refuses every context: it exists but cannot run anything. An unknown mode
     * reads as Default (0) and any refusal then surfaces from the first allocation. */
    if (optional_attribute(cudaDevAttrComputeMode) == cudaComputeModeProhibited) {
        snprintf(info->reason, sizeof info->reason, "CUDA device 0 (%.200s) is in compute mode Prohibited",
                 info->name);
        return 0;
    }
    summarise(info);
    return 1;
}

int ea_driver_entry(const char *symbol, void **fn, ea_error *err)
{
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    cudaError_t rc;

    *fn = NULL;
    /* Ask for the ABI of the headers we compiled against, so *fn matches cuda.h's prototype. */
    rc = cudaGetDriverEntryPointByVersion(symbol, fn, CUDART_VERSION, cudaEnableDefault, &status);
    if (rc != cudaSuccess) {
        *fn = NULL;
        return ea_fail(err, "driver entry %s: expected a driver function, cudaGetDriverEntryPointByVersion: %s (%s)",
                       symbol, cudaGetErrorString(rc), cudaGetErrorName(rc));
    }
    if (status != cudaDriverEntryPointSuccess || *fn == NULL) {
        *fn = NULL;
        return ea_fail(err, "driver entry %s: expected a driver function for CUDA %d, the driver has %s", symbol,
                       CUDART_VERSION,
                       status == cudaDriverEntryPointVersionNotSufficent ? "only an older version" : "no such symbol");
    }
    return 0;
}

void ea_gpu_model(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    if (!strncmp(name, "NVIDIA ", 7))
        name += 7;
    for (; *name && k + 1 < n; name++)
        if (isalnum((unsigned char)*name) || *name == '.' || *name == '-' || *name == '_')
            buf[k++] = *name;
        else if (*name == ' ' && k > 0 && buf[k - 1] != '-')
            buf[k++] = '-';
    while (k > 0 && buf[k - 1] == '-')
        k--;
    if (n)
        buf[k] = '\0';
}

int ea_cuda_fail(ea_error *err, const char *family, const char *alias, const char *what, int rc)
{
    return ea_fail(err, "%s%s%s: %s: %s (%s)", family, alias ? " " : "", alias ? alias : "", what,
                   cudaGetErrorString((cudaError_t)rc), cudaGetErrorName((cudaError_t)rc));
}
