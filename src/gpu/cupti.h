/* cupti.h: which kernels ran, from the CUPTI Activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
 * as evidence next to a timing. libcupti is opened at run time, so binaries start without it.
 * Contract:
 * - ea_cupti_begin(err) starts recording kernels (ea_cupti_begin_copies: memcpy and memset operations
 *   too, as records of kind EA_RECORD_COPY / EA_RECORD_SET named "Memcpy DtoD", "Memset", with their
 *   bytes and no grid); ea_cupti_end(list, err) synchronises the device,
 *   flushes CUPTI's buffers, stops recording and returns the kernels that ran in between, ordered
 *   by start time (kernels inside graph replays included). One region at a time per process.
 * - The library is looked up in this order: $EXTERN_AUDIT_CUPTI alone when set; else libcupti.so.13,
 *   libcupti.so (the loader's path), then $CUDA_HOME, /usr/local/cuda/extras/CUPTI/lib64 and
 *   /usr/local/cuda/lib64. Not found, no driver, or a CUPTI call failing: -1 and err->msg saying which
 *   (with cuptiGetResultString's text), never a crash.
 * - list->dropped > 0 means CUPTI lost records and the list is incomplete. Free with ea_kernel_list_free.
 * - Names are as CUPTI reports them (C++ kernels mangled; extern "C" and Triton kernels plain).
 * This header shadows CUDA's own cupti.h on -Isrc/gpu: include cupti_activity.h for CUPTI's types. */
#ifndef EA_CUPTI_H
#define EA_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EA_RECORD_KERNEL = 0, EA_RECORD_COPY = 1, EA_RECORD_SET = 2 } ea_record_kind;

typedef struct {
    char *name;
    ea_record_kind kind;
    uint64_t bytes; /* copies and sets */
    uint64_t start_ns, end_ns, duration_ns; /* CUPTI timestamps (ns); duration = end - start */
    int grid[3], block[3];
    int static_shared, dynamic_shared;
    uint32_t stream_id, correlation_id, graph_id; /* graph_id 0: not launched from a graph */
} ea_kernel_record;

typedef struct {
    ea_kernel_record *kernels;
    size_t count;
    size_t dropped;
} ea_kernel_list;

/* Opens libcupti (once per process); on success writes "<path> (CUPTI API <version>)" to where. */
int ea_cupti_load(char *where, size_t len, ea_error *err);
int ea_cupti_begin(ea_error *err);
int ea_cupti_begin_copies(ea_error *err);
int ea_cupti_end(ea_kernel_list *list, ea_error *err);
void ea_kernel_list_free(ea_kernel_list *list);

#ifdef __cplusplus
}
#endif

#endif
