/* device.h: CUDA device detection that works on hosts without a GPU or driver.
 * Contract:
 * - ea_device_probe(info) returns 1 when device 0 is usable, else 0; it never fails hard and ALWAYS
 *   fills info->reason: why not ("no CUDA driver: ...", "no CUDA device: ...", ...) or, when usable,
 *   a one-line summary (name, sm_XY, SMs, L2, memory, driver and runtime versions).
 * - ea_driver_entry(symbol, fn, err) resolves a driver API function through the runtime's entry-point
 *   query, so nothing links against libcuda; on failure *fn is NULL and err->msg names the symbol.
 *   *fn has the ABI cuda.h declares for symbol in the CUDA version built against (CUDART_VERSION):
 *   cast it to <cudaTypedefs.h>'s PFN_<symbol>_v<N> or __typeof__(&symbol); never call cu* directly.
 * - ea_gpu_model: a device name as the GPU model that names targets and baselines ("NVIDIA H200" ->
 *   "H200", "NVIDIA GeForce RTX 4090" -> "GeForce-RTX-4090"); host-only, no device needed. The one
 *   mapping: `extern-audit gpu-model` prints it for ci/ and tools/capture, which keep no copy. */
#ifndef EA_DEVICE_H
#define EA_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "base/error.h"

typedef struct {
    char reason[512];
    char name[256];
    int device_count;
    int cc_major, cc_minor;
    int sm_count;
    size_t l2_bytes;
    size_t global_mem_bytes;
    int driver_version;      /* 1000*major + 10*minor; 0 when no driver is installed */
    int runtime_version;     /* same encoding; the statically linked cudart */
    int mem_clock_khz;       /* 0 when the device does not report it */
    int mem_bus_width_bits;  /* 0 when the device does not report it */
    char uuid[40];           /* "GPU-" and 32 hex digits of cudaDeviceProp.uuid: what names its lock */
} ea_device_info;

int ea_device_probe(ea_device_info *info);
int ea_driver_entry(const char *symbol, void **fn, ea_error *err);
void ea_gpu_model(const char *name, char *buf, size_t n);

/* A failed CUDA runtime call as a family reports it: "<family>[ <alias>]: <what>: <error string> (<error name>)";
 * rc is the cudaError_t. Returns -1. */
int ea_cuda_fail(ea_error *err, const char *family, const char *alias, const char *what, int rc);

#ifdef __cplusplus
}
#endif

#endif
