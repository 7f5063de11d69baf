#include "gpu/cubin.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "gpu/cubin_impl.h"
#include "gpu/device.h"
#include "base/readfile.h"

/* ELF constants, spelled here so the check needs no <elf.h> of a particular vintage. */
enum {
    ELF_HEADER64 = 64,
    ELF_CLASS64 = 2,
    ELF_DATA_LE = 1,
    EM_CUDA_MACHINE = 190,
    CUDA_ABI_V2 = 8, /* nvcc 13: SM in bits 8-15; older cubins (ABI 7) keep it in the low byte */
};

/* Default dynamic shared memory a function may use without opting in. */
#define SHARED_DEFAULT ((size_t)48 * 1024)

/* The driver functions this file uses, resolved once per process: a launch inside a timing loop
 * must not pay for a symbol lookup. */
static struct {
    __typeof__(&cuModuleLoadData) load;
    __typeof__(&cuModuleUnload) unload;
    __typeof__(&cuModuleGetFunction) get_function;
    __typeof__(&cuFuncSetAttribute) set_attribute;
    __typeof__(&cuLaunchKernel) launch;
    __typeof__(&cuGetErrorString) error_string;
    __typeof__(&cuGetErrorName) error_name;
    int ok;
    ea_error err;
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void resolve_all(void)
{
    static const char *const names[] = {"cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
                                        "cuFuncSetAttribute", "cuLaunchKernel", "cuGetErrorString",
                                        "cuGetErrorName"};
    void *fns[sizeof names / sizeof names[0]];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (ea_driver_entry(names[i], &fns[i], &drv.err) != 0)
            return;
    }
    /* Object pointers to function pointers through memcpy: the cast ISO C leaves undefined. */
    memcpy(&drv.load, &fns[0], sizeof fns[0]);
    memcpy(&drv.unload, &fns[1], sizeof fns[1]);
    memcpy(&drv.get_function, &fns[2], sizeof fns[2]);
    memcpy(&drv.set_attribute, &fns[3], sizeof fns[3]);
    memcpy(&drv.launch, &fns[4], sizeof fns[4]);
    memcpy(&drv.error_string, &fns[5], sizeof fns[5]);
    memcpy(&drv.error_name, &fns[6], sizeof fns[6]);
    drv.ok = 1;
}

static int driver_ready(const char *name, ea_error *err)
{
    int version = 0;

    /* Without a driver every entry lookup fails with a runtime message about versions; say plainly
     * what is missing instead. */
    if (cudaDriverGetVersion(&version) != cudaSuccess || version == 0)
        return ea_fail(err, "%s: no CUDA driver: cannot load a cubin on this machine", name);
    pthread_once(&drv_once, resolve_all);
    if (!drv.ok)
        return ea_fail(err, "%s: %.900s", name, drv.err.msg);
    return 0;
}

/* "<text> (<NAME>)" from the driver; a lookup that fails leaves a placeholder, never NULL. */
static const char *driver_text(CUresult rc, char *buf, size_t len)
{
    const char *text = NULL, *name = NULL;

    drv.error_string(rc, &text);
    drv.error_name(rc, &name);
    snprintf(buf, len, "%s (%s)", text ? text : "unknown error", name ? name : "unknown CUresult");
    return buf;
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

int ea_cubin_arch(const void *bytes, size_t len, const char *name, int *sm, ea_error *err)
{
    const unsigned char *b = bytes;
    uint64_t phoff, shoff, flags, end;
    unsigned machine, phentsize, phnum, shentsize, shnum, abi;

    *sm = 0;
    if (!b || len < ELF_HEADER64)
        return ea_fail(err, "%s: not a cubin: expected a 64-byte ELF header, the data has %zu bytes", name, len);
    if (memcmp(b, "\177ELF", 4) != 0)
        return ea_fail(err, "%s: not a cubin: expected the ELF magic 7f 45 4c 46, found %02x %02x %02x %02x", name,
                       b[0], b[1], b[2], b[3]);
    if (b[4] != ELF_CLASS64 || b[5] != ELF_DATA_LE)
        return ea_fail(err, "%s: not a cubin: expected a 64-bit little-endian ELF, found class %u data %u", name,
                       b[4], b[5]);
    machine = (unsigned)le(b + 18, 2);
    if (machine != EM_CUDA_MACHINE)
        return ea_fail(err, "%s: not a cubin: expected ELF machine EM_CUDA (190), found %u", name, machine);
    phoff = le(b + 32, 8);
    shoff = le(b + 40, 8);
    flags = le(b + 48, 4);
    phentsize = (unsigned)le(b + 54, 2);
    phnum = (unsigned)le(b + 56, 2);
    shentsize = (unsigned)le(b + 58, 2);
    shnum = (unsigned)le(b + 60, 2);
    /* The tables must lie inside the data: a cut-off download is caught here, not by the driver. */
    end = shoff + (uint64_t)shentsize * shnum;
    if (shoff > len || end > len)
        return ea_fail(err, "%s: truncated cubin: the section table ends at byte %llu, the data has %zu bytes", name,
                       (unsigned long long)end, len);
    end = phoff + (uint64_t)phentsize * phnum;
    if (phoff > len || end > len)
        return ea_fail(err, "%s: truncated cubin: the program header table ends at byte %llu, the data has %zu bytes",
                       name, (unsigned long long)end, len);
    abi = b[8];
    *sm = (int)(abi >= CUDA_ABI_V2 ? (flags >> 8) & 0xff : flags & 0xff);
    if (*sm < 10)
        return ea_fail(err, "%s: not a cubin: ELF flags 0x%llx (ABI %u) name no SM version", name,
                       (unsigned long long)flags, abi);
    return 0;
}

int ea_cubin_runs_on(int cubin_sm, int device_sm)
{
    return cubin_sm / 10 == device_sm / 10 && cubin_sm % 10 <= device_sm % 10;
}

/* The current device's SM version; also makes its primary context current, which the driver's
 * module functions need and which the runtime shares with every cudaMalloc and stream. */
static int device_sm(const char *name, int *sm, ea_error *err)
{
    int dev = 0, major = 0, minor = 0;
    cudaError_t rc = cudaFree(NULL);

    if (rc == cudaSuccess)
        rc = cudaGetDevice(&dev);
    if (rc == cudaSuccess)
        rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (rc == cudaSuccess)
        rc = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        return ea_fail(err, "%s: no usable CUDA device: %s (%s)", name, cudaGetErrorString(rc), cudaGetErrorName(rc));
    }
    *sm = major * 10 + minor;
    return 0;
}

static int wrong_arch(const char *name, int dev_sm, int cubin_sm, const char *detail, ea_error *err)
{
    return ea_fail(err, "%s: no kernel image for this GPU (sm_%d): the cubin was built for sm_%d%s", name, dev_sm,
                   cubin_sm, detail);
}

int ea_cubin_load_data(ea_cubin *c, const void *bytes, size_t len, const char *name, ea_error *err)
{
    int dev_sm = 0;
    CUmodule mod = NULL;
    CUresult rc;
    char text[256], detail[300];

    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name ? name : "(cubin bytes)");
    if (ea_cubin_arch(bytes, len, c->name, &c->sm, err) != 0)
        return -1;
    if (driver_ready(c->name, err) != 0 || device_sm(c->name, &dev_sm, err) != 0)
        return -1;
    /* Decided here rather than left to the driver: its "no kernel image" names neither arch. */
    if (!ea_cubin_runs_on(c->sm, dev_sm))
        return wrong_arch(c->name, dev_sm, c->sm, "", err);
    rc = drv.load(&mod, bytes);
    if (rc != CUDA_SUCCESS) {
        driver_text(rc, text, sizeof text);
        if (rc == CUDA_ERROR_NO_BINARY_FOR_GPU) {
            /* Same number but an arch-specific variant (sm_90a vs sm_90), which e_flags may not show. */
            snprintf(detail, sizeof detail, " (cuModuleLoadData: %s)", text);
            return wrong_arch(c->name, dev_sm, c->sm, detail, err);
        }
        return ea_fail(err, "%s: cuModuleLoadData (sm_%d cubin, %zu bytes): %s", c->name, c->sm, len, text);
    }
    c->module = mod;
    return 0;
}

int ea_cubin_load_file(ea_cubin *c, const char *path, ea_error *err)
{
    char *data;
    size_t len;
    memset(c, 0, sizeof *c);
    if (ea_read_file(path, &data, &len, err))
        return -1;
    int rc = ea_cubin_load_data(c, data, len, path, err);
    /* cuModuleLoadData copies the image, so the bytes can go now. */
    free(data);
    return rc;
}

void ea_cubin_unload(ea_cubin *c)
{
    if (c->module && drv.ok)
        drv.unload((CUmodule)c->module);
    c->module = NULL;
}

int ea_cubin_function(const ea_cubin *c, const char *kernel, ea_kernel *k, ea_error *err)
{
    CUfunction fn = NULL;
    CUresult rc;
    char text[256];

    memset(k, 0, sizeof *k);
    if (!c->module)
        return ea_fail(err, "%s: kernel %s: the cubin is not loaded", c->name, kernel);
    rc = drv.get_function(&fn, (CUmodule)c->module, kernel);
    if (rc != CUDA_SUCCESS)
        return ea_fail(err, "%s: kernel %s: cuModuleGetFunction: %s", c->name, kernel,
                       driver_text(rc, text, sizeof text));
    k->cubin = c;
    snprintf(k->name, sizeof k->name, "%s", kernel);
    k->fn = fn;
    k->shared_limit = SHARED_DEFAULT;
    return 0;
}

static int ea_kernel_set_shared(ea_kernel *k, size_t bytes, ea_error *err)
{
    CUresult rc;
    char text[256];

    if (bytes <= k->shared_limit)
        return 0;
    if (bytes > (size_t)INT32_MAX)
        return ea_fail(err, "%s: kernel %s: %zu bytes of dynamic shared memory is out of range", k->cubin->name,
                       k->name, bytes);
    rc = drv.set_attribute((CUfunction)k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
    if (rc != CUDA_SUCCESS)
        return ea_fail(err, "%s: kernel %s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %zu): %s",
                       k->cubin->name, k->name, bytes, driver_text(rc, text, sizeof text));
    k->shared_limit = bytes;
    return 0;
}

int ea_kernel_launch(ea_kernel *k, ea_dim3 grid, ea_dim3 block, size_t shared, void *stream, void **params,
                     ea_error *err)
{
    CUresult rc;
    char text[256];

    if (!k->fn)
        return ea_fail(err, "kernel %s: not resolved (call ea_cubin_function first)", k->name);
    if (shared > SHARED_DEFAULT && ea_kernel_set_shared(k, shared, err) != 0)
        return -1;
    rc = drv.launch((CUfunction)k->fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shared,
                    (CUstream)stream, params, NULL);
    if (rc != CUDA_SUCCESS)
        return ea_fail(err, "%s: kernel %s: cuLaunchKernel(grid %ux%ux%u, block %ux%ux%u, shared %zu): %s",
                       k->cubin->name, k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
                       driver_text(rc, text, sizeof text));
    return 0;
}
