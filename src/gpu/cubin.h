/* cubin.h: load a CUDA cubin (a file or bytes), get its kernels and launch them, through driver
 * functions reached with ea_driver_entry (nothing links libcuda).
 * Contract:
 * - Every failure returns -1 with err->msg naming the cubin (its path, or the caller's label for
 *   bytes), the kernel where there is one, and the driver's cuGetErrorString text.
 * - The ELF header is checked on the host before the driver sees the bytes (magic, 64-bit, EM_CUDA,
 *   header and section table inside the data), so garbage and truncated files fail on any machine.
 * - A cubin for another architecture fails with "<name>: no kernel image for this GPU (sm_90): the
 *   cubin was built for sm_100". A cubin runs on a GPU of the same major version and an equal or
 *   higher minor one (sm_80 on sm_86), never across majors.
 * - Loading uses the current device's primary context (initialised here through the runtime), so
 *   modules, cudaMalloc'd pointers and cudaStream_t streams mix freely.
 * - ea_kernel_launch raises the kernel's dynamic shared memory limit first when shared > 48 KiB. */
#ifndef EA_CUBIN_H
#define EA_CUBIN_H

#include <stddef.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[512]; /* path or label, for messages */
    int sm;         /* from the ELF header: 90 for sm_90 */
    void *module;   /* CUmodule; NULL when not loaded */
} ea_cubin;

typedef struct {
    const ea_cubin *cubin;
    char name[256];
    void *fn;             /* CUfunction */
    size_t shared_limit;  /* dynamic shared memory the function currently allows */
} ea_kernel;

typedef struct {
    unsigned x, y, z;
} ea_dim3;

int ea_cubin_load_file(ea_cubin *c, const char *path, ea_error *err);

int ea_cubin_function(const ea_cubin *c, const char *kernel, ea_kernel *k, ea_error *err);
/* stream is a cudaStream_t (NULL: the legacy default stream); params as for cuLaunchKernel: one
 * pointer per kernel parameter, in order. Asynchronous: errors inside the kernel show at the next
 * synchronisation. */
int ea_kernel_launch(ea_kernel *k, ea_dim3 grid, ea_dim3 block, size_t shared, void *stream, void **params,
                     ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
