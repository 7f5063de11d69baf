#include "gpu/cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>

/* 1 MiB per buffer holds thousands of kernel records; CUPTI asks for more as they fill. */
#define BUFFER_BYTES ((size_t)1 << 20)

static struct {
    __typeof__(&cuptiActivityRegisterCallbacks) register_callbacks;
    __typeof__(&cuptiActivityEnable) enable;
    __typeof__(&cuptiActivityDisable) disable;
    __typeof__(&cuptiActivityFlushAll) flush_all;
    __typeof__(&cuptiActivityGetNextRecord) next_record;
    __typeof__(&cuptiActivityGetNumDroppedRecords) dropped_records;
    __typeof__(&cuptiGetResultString) result_string;
    __typeof__(&cuptiGetVersion) version;
    void *handle;
    char path[512];
    uint32_t api_version;
    int registered;
} api;

/* What the completion callback, which CUPTI may call from its own thread, appends to. */
static struct {
    pthread_mutex_t lock;
    int active, copies;
    ea_kernel_record *kernels;
    size_t count, cap, dropped;
} region = {PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0, 0, 0};

static int try_open(const char *path, char *tried, size_t len)
{
    size_t used = strlen(tried);

    api.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (api.handle) {
        snprintf(api.path, sizeof api.path, "%s", path);
        return 1;
    }
    snprintf(tried + used, len - used, "%s%s", used ? "; " : "", dlerror());
    return 0;
}

static int open_library(char *tried, size_t len)
{
    static const char *const fixed[] = {"libcupti.so.13",
                                        "libcupti.so",
                                        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                                        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                                        "/usr/local/cuda/lib64/libcupti.so.13",
                                        "/usr/local/cuda/lib64/libcupti.so"};
    const char *env = getenv("EXTERN_AUDIT_CUPTI"), *home = getenv("CUDA_HOME");
    char path[600];

    tried[0] = '\0';
    /* An explicit choice is the only one tried: a fallback would hide that it was wrong. */
    if (env && *env)
        return try_open(env, tried, len);
    for (size_t i = 0; i < 2; i++)
        if (try_open(fixed[i], tried, len))
            return 1;
    if (home && *home) {
        snprintf(path, sizeof path, "%s/extras/CUPTI/lib64/libcupti.so.13", home);
        if (try_open(path, tried, len))
            return 1;
        snprintf(path, sizeof path, "%s/lib64/libcupti.so.13", home);
        if (try_open(path, tried, len))
            return 1;
    }
    for (size_t i = 2; i < sizeof fixed / sizeof fixed[0]; i++)
        if (try_open(fixed[i], tried, len))
            return 1;
    return 0;
}

static int resolve(const char *symbol, void *fn, ea_error *err)
{
    void *p = dlsym(api.handle, symbol);
    if (!p)
        return ea_fail(err, "CUPTI: %s has no %s: expected CUPTI 12 or later", api.path, symbol);
    /* dlsym's object pointer into a function pointer: memcpy is the portable spelling. */
    memcpy(fn, &p, sizeof p);
    return 0;
}

int ea_cupti_load(char *where, size_t len, ea_error *err)
{
    char tried[900];

    if (!api.handle) {
        if (!open_library(tried, sizeof tried))
            return ea_fail(err, "CUPTI not found (set EXTERN_AUDIT_CUPTI to libcupti's path): %s", tried);
        if (resolve("cuptiActivityRegisterCallbacks", &api.register_callbacks, err) ||
            resolve("cuptiActivityEnable", &api.enable, err) || resolve("cuptiActivityDisable", &api.disable, err) ||
            resolve("cuptiActivityFlushAll", &api.flush_all, err) ||
            resolve("cuptiActivityGetNextRecord", &api.next_record, err) ||
            resolve("cuptiActivityGetNumDroppedRecords", &api.dropped_records, err) ||
            resolve("cuptiGetResultString", &api.result_string, err) || resolve("cuptiGetVersion", &api.version, err)) {
            /* Keep no half-resolved table: the next call retries from scratch. */
            dlclose(api.handle);
            api.handle = NULL;
            return -1;
        }
        if (api.version(&api.api_version) != CUPTI_SUCCESS)
            api.api_version = 0;
    }
    if (where)
        snprintf(where, len, "%s (CUPTI API %u)", api.path, api.api_version);
    return 0;
}

/* cause: "" or what is known to be behind the failure, e.g. "no CUDA driver; ". */
static int cupti_fail(ea_error *err, const char *cause, const char *call, CUptiResult rc)
{
    const char *text = NULL;

    if (api.result_string(rc, &text) != CUPTI_SUCCESS || !text)
        text = "unknown CUPTI result";
    return ea_fail(err, "CUPTI: %s%s: %s (CUptiResult %d; %s)", cause, call, text, (int)rc, api.path);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* CUPTI requires 8-byte alignment; a NULL buffer makes it drop records, which end() reports. */
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

/* The next record, zeroed and named, or NULL (counted as dropped) when memory runs out. */
static ea_kernel_record *next_record(const char *name)
{
    ea_kernel_record *r;

    if (region.count == region.cap) {
        size_t cap = region.cap ? region.cap * 2 : 256;
        ea_kernel_record *grown = realloc(region.kernels, cap * sizeof *grown);
        if (!grown) {
            region.dropped++;
            return NULL;
        }
        region.kernels = grown;
        region.cap = cap;
    }
    r = &region.kernels[region.count];
    memset(r, 0, sizeof *r);
    r->name = strdup(name);
    if (!r->name) {
        region.dropped++;
        return NULL;
    }
    region.count++;
    return r;
}

/* Memcpy and memset records: only their leading fields, which every record version shares. */
static void append_copy(const CUpti_Activity *rec)
{
    static const char *const copy_kinds[] = {"Memcpy", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH",
                                             "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD",
                                             "Memcpy HtoH", "Memcpy PtoP"};
    ea_kernel_record *r;
    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        r = next_record(m->copyKind < sizeof copy_kinds / sizeof *copy_kinds ? copy_kinds[m->copyKind] : "Memcpy");
        if (!r)
            return;
        r->kind = EA_RECORD_COPY;
        r->bytes = m->bytes, r->start_ns = m->start, r->end_ns = m->end;
        r->stream_id = m->streamId, r->correlation_id = m->correlationId;
    } else {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        r = next_record("Memset");
        if (!r)
            return;
        r->kind = EA_RECORD_SET;
        r->bytes = m->bytes, r->start_ns = m->start, r->end_ns = m->end;
        r->stream_id = m->streamId, r->correlation_id = m->correlationId;
    }
    r->duration_ns = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
}

static void append(const CUpti_ActivityKernel10 *k)
{
    ea_kernel_record *r = next_record(k->name ? k->name : "(unnamed)");
    if (!r)
        return;
    r->start_ns = k->start;
    r->end_ns = k->end;
    r->duration_ns = k->end > k->start ? k->end - k->start : 0;
    r->grid[0] = k->gridX;
    r->grid[1] = k->gridY;
    r->grid[2] = k->gridZ;
    r->block[0] = k->blockX;
    r->block[1] = k->blockY;
    r->block[2] = k->blockZ;
    r->static_shared = k->staticSharedMemory;
    r->dynamic_shared = k->dynamicSharedMemory;
    r->stream_id = k->streamId;
    r->correlation_id = k->correlationId;
    r->graph_id = k->graphId;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    size_t dropped = 0;

    pthread_mutex_lock(&region.lock);
    while (api.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        /* The kernel fields read here sit at the same offsets in every CUpti_ActivityKernel version. */
        if (region.active && rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            append((const CUpti_ActivityKernel10 *)rec);
        else if (region.active && region.copies &&
                 (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY || rec->kind == CUPTI_ACTIVITY_KIND_MEMSET))
            append_copy(rec);
    }
    if (api.dropped_records(ctx, stream_id, &dropped) == CUPTI_SUCCESS && region.active)
        region.dropped += dropped;
    pthread_mutex_unlock(&region.lock);
    free(buffer);
}

static void clear_region(void)
{
    for (size_t i = 0; i < region.count; i++)
        free(region.kernels[i].name);
    free(region.kernels);
    region.kernels = NULL;
    region.count = region.cap = region.dropped = 0;
}

/* The activity kinds a region records beyond kernels when it asks for copies. */
static const CUpti_ActivityKind copy_kinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

static int begin(int copies, ea_error *err)
{
    int driver = 0;
    CUptiResult rc;

    if (ea_cupti_load(NULL, 0, err) != 0)
        return -1;
    if (region.active)
        return ea_fail(err, "CUPTI: ea_cupti_begin: a region is already open (call ea_cupti_end first)");
    if (!api.registered) {
        rc = api.register_callbacks(buffer_requested, buffer_completed);
        if (rc != CUPTI_SUCCESS)
            return cupti_fail(err, "", "cuptiActivityRegisterCallbacks", rc);
        api.registered = 1;
    }
    pthread_mutex_lock(&region.lock);
    clear_region();
    region.active = 1;
    region.copies = copies;
    pthread_mutex_unlock(&region.lock);
    const char *what = "cuptiActivityEnable(CONCURRENT_KERNEL)";
    rc = api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    for (int i = 0; copies && rc == CUPTI_SUCCESS && i < 2; i++) {
        rc = api.enable(copy_kinds[i]);
        if (rc != CUPTI_SUCCESS) {
            what = i ? "cuptiActivityEnable(MEMSET)" : "cuptiActivityEnable(MEMCPY)";
            if (i) /* leave nothing enabled that end() would not disable */
                api.disable(copy_kinds[0]);
        }
    }
    if (rc == CUPTI_SUCCESS)
        return 0;
    api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    pthread_mutex_lock(&region.lock);
    region.active = 0;
    pthread_mutex_unlock(&region.lock);
    /* Without a driver CUPTI answers CUPTI_ERROR_UNKNOWN; name the actual cause first. */
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
        return cupti_fail(err, "no CUDA driver; ", what, rc);
    return cupti_fail(err, "", what, rc);
}

int ea_cupti_begin(ea_error *err)
{
    return begin(0, err);
}

int ea_cupti_begin_copies(ea_error *err)
{
    return begin(1, err);
}

static int by_start(const void *a, const void *b)
{
    const ea_kernel_record *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

int ea_cupti_end(ea_kernel_list *list, ea_error *err)
{
    cudaError_t sync;
    CUptiResult flush, disable;

    memset(list, 0, sizeof *list);
    if (!region.active)
        return ea_fail(err, "CUPTI: ea_cupti_end: no region is open (call ea_cupti_begin first)");
    /* Records exist only for finished kernels: wait for the device before flushing. */
    sync = cudaDeviceSynchronize();
    flush = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    disable = api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    for (int i = 0; region.copies && i < 2; i++)
        if (api.disable(copy_kinds[i]) != CUPTI_SUCCESS && disable == CUPTI_SUCCESS)
            disable = CUPTI_ERROR_UNKNOWN;
    pthread_mutex_lock(&region.lock);
    region.active = 0;
    list->kernels = region.kernels;
    list->count = region.count;
    list->dropped = region.dropped;
    region.kernels = NULL;
    region.count = region.cap = region.dropped = 0;
    pthread_mutex_unlock(&region.lock);
    if (list->count > 1)
        qsort(list->kernels, list->count, sizeof *list->kernels, by_start);
    if (sync != cudaSuccess) {
        ea_kernel_list_free(list);
        return ea_fail(err, "CUPTI: ea_cupti_end: cudaDeviceSynchronize: %s (%s)", cudaGetErrorString(sync),
                       cudaGetErrorName(sync));
    }
    if (flush != CUPTI_SUCCESS || disable != CUPTI_SUCCESS) {
        ea_kernel_list_free(list);
        return flush != CUPTI_SUCCESS ? cupti_fail(err, "", "cuptiActivityFlushAll", flush)
                                      : cupti_fail(err, "", "cuptiActivityDisable(CONCURRENT_KERNEL)", disable);
    }
    return 0;
}

void ea_kernel_list_free(ea_kernel_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->kernels[i].name);
    free(list->kernels);
    memset(list, 0, sizeof *list);
}
