/* floor_path.c: a configuration's measured floor (contract in floor_path.h). */
#include "measure/floor_path.h"
#include "measure/floor_path_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/json.h"
#include "gpu/device.h"
#include "gpu/floor_copy.h"
#include "gpu/pattern.h"

enum { WORD = 16 };

int ea_floor_path_words(const cJSON *config, const char *label, size_t *read, size_t *written, ea_error *err)
{
    ej_val v = {.file = label, .v = config, .path = "config"};
    int64_t all, wr;
    if (ej_get_int_min(v, "floor_bytes", 0, &all, err) || ej_get_int_min(v, "floor_written_bytes", 0, &wr, err))
        return -1;
    if (wr < 1 || wr > all)
        return ea_fail(err, "%s config.floor_written_bytes: expected 1 to floor_bytes (%" PRId64 "), got %" PRId64,
                       label, all, wr);
    *read = (size_t)((all - wr + WORD - 1) / WORD);
    *written = (size_t)((wr + WORD - 1) / WORD);
    return 0;
}

void ea_floor_path_expect(const uint32_t *dst, const uint32_t *src, size_t read, size_t written, ea_check *c)
{
    memset(c, 0, sizeof *c);
    c->n = (int64_t)written;
    for (size_t t = 0; t < written; t++) {
        const uint32_t *d = dst + 4 * t, zero[4] = {0, 0, 0, 0}, *want = t < read ? src + 4 * t : zero;
        if ((d[0] & d[1] & d[2] & d[3]) == 0xFFFFFFFFu)
            c->unwritten++;
        else
            c->mismatched += memcmp(d, want, WORD) != 0;
    }
}

void ea_floor_path_close(ea_floor_path *f)
{
    cudaFree(f->src);
    cudaFree(f->dst);
    free(f->src_host);
    free(f->dst_host);
    memset(f, 0, sizeof *f);
}

int ea_floor_path_open(const cJSON *config, const char *label, ea_floor_path *f, ea_error *err)
{
    int rc;
    memset(f, 0, sizeof *f);
    f->label = label;
    if (ea_floor_path_words(config, label, &f->read, &f->written, err))
        return -1;
    f->src_host = malloc(f->read ? f->read * WORD : 1);
    f->dst_host = malloc(f->written * WORD);
    if (!f->src_host || !f->dst_host)
        return ea_fail(err, "%s: out of memory for %zu + %zu bytes", label, f->read * WORD, f->written * WORD);
    for (size_t i = 0; i < f->read; i++)
        ea_pattern_word(i, f->src_host + 4 * i);
    if ((rc = (int)cudaMalloc(&f->src, f->read ? f->read * WORD : WORD)) ||
        (rc = (int)cudaMalloc(&f->dst, f->written * WORD)) ||
        (rc = (int)cudaMemcpy(f->src, f->src_host, f->read * WORD, cudaMemcpyHostToDevice)))
        return ea_cuda_fail(err, label, NULL, "allocate and fill the floor's buffers", rc);
    return 0;
}

static int poison(void *ctx, ea_error *err)
{
    ea_floor_path *f = ctx;
    int rc = (int)cudaMemset(f->dst, 0xFF, f->written * WORD);
    return rc ? ea_cuda_fail(err, f->label, NULL, "poison the destination", rc) : 0;
}

static int enqueue(void *ctx, void *stream, ea_error *err)
{
    ea_floor_path *f = ctx;
    int rc = ea_floor_copy_launch(f->dst, f->src, f->read, f->written, stream);
    return rc ? ea_cuda_fail(err, f->label, NULL, "launch", rc) : 0;
}

static int check(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    ea_floor_path *f = ctx;
    (void)after_timing;
    int rc = (int)cudaMemcpy(f->dst_host, f->dst, f->written * WORD, cudaMemcpyDeviceToHost);
    if (rc)
        return ea_cuda_fail(err, f->label, NULL, "copy the destination back", rc);
    ea_floor_path_expect(f->dst_host, f->src_host, f->read, f->written, c);
    return 0;
}

ea_path_steps ea_floor_path_steps(ea_floor_path *f)
{
    return (ea_path_steps){.ctx = f, .label = f->label, .poison = poison, .enqueue = enqueue, .check = check};
}
