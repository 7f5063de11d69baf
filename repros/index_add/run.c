/* run.c: one index_add scope configuration measured on the current GPU (contract in run.h). */
#include "gpu/device.h"
#include "run.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/cupti.h"
#include "target/gen.h"
#include "kernels.h"
#include "reference.h"
#include "gpu/timer.h"
#include "target/replay.h"

enum { P_CURRENT, P_FABRICATED, P_ORACLE, P_GENERAL, P_TUNED };

typedef struct {
    const ia_scope *s;
    const ia_plan *p;
    int path;
    const int64_t *index;       /* what the path scatters with: faithful or fabricated */
    uint16_t *out, *self, *src, *x;
    int64_t *idx, *fab;
    int64_t n_out;
    size_t out_bytes;
    const double *ref;     /* the path's check: fp64 reference, exact bits (or NULL), host copy */
    const uint16_t *exact;
    uint16_t *host;
    ea_replay_launch consumer, consumer_tuned; /* the consumer fold's captured kernel, default and coordinate-descent
                                                * runs', bound to out (consumed; tuned: where captured) */
} dev;

/* One call of the path, capturable: the fill of self, ATen's copy into result, the kernel; or an oracle. */
static int enqueue(void *ctx, void *stream, ea_error *err)
{
    dev *d = ctx;
    const ia_scope *s = d->s;
    const ia_plan *p = d->p;
    const float fill = (float)p->oracle_fill, scale = (float)p->oracle_scale;
    int rc = 0;
    if (d->path == P_CURRENT || d->path == P_FABRICATED || d->path == P_TUNED) {
        if (s->self_const)
            rc = ia_fill_bf16(d->self, d->n_out, (float)s->fill, stream);
        if (!rc)
            rc = ia_copy_d2d(d->out, d->self, d->out_bytes, stream);
        if (!rc)
            rc = ia_aten_index_add(&p->aten, d->out, d->src, d->index, (float)s->alpha, stream);
        if (!rc && s->consumed)
            return ea_replay_launch_enqueue(d->path == P_TUNED ? &d->consumer_tuned : &d->consumer, stream, err);
    } else if (d->path == P_ORACLE) {
        rc = p->oracle == IA_ORACLE_SLICE ? ia_oracle_slice(&p->slice, d->out, d->x, scale, fill, stream)
                                          : ia_oracle_windows(&p->win, d->out, d->x, scale, fill, stream);
    } else {
        rc = s->self_const ? ia_oracle_fill_bf16(d->out, d->n_out, fill, stream)
                           : ia_copy_d2d(d->out, d->self, d->out_bytes, stream);
        if (!rc)
            rc = ia_oracle_scatter(&p->general, d->out, d->x, d->index, scale, stream);
    }
    return rc ? ea_cuda_fail(err, "index_add", NULL, "launch", rc) : 0;
}

static void *dev_upload(const void *host, size_t bytes, int *rc)
{
    void *p = NULL;
    if (*rc == 0)
        *rc = (int)cudaMalloc(&p, bytes ? bytes : 16);
    if (*rc == 0 && host)
        *rc = (int)cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
    return p;
}

static void dev_free(dev *d)
{
    ea_replay_launch_free(&d->consumer);
    ea_replay_launch_free(&d->consumer_tuned);
    if (d->x != d->src)
        cudaFree(d->x);
    cudaFree(d->src);
    cudaFree(d->out);
    cudaFree(d->self);
    cudaFree(d->idx);
    cudaFree(d->fab);
}

static int copy_back(dev *d, uint16_t *host, ea_error *err)
{
    int rc = (int)cudaMemcpy(host, d->out, d->out_bytes, cudaMemcpyDeviceToHost);
    return rc ? ea_cuda_fail(err, "index_add", NULL, "copy the output back", rc) : 0;
}

static int poison(void *ctx, ea_error *err)
{
    dev *d = ctx;
    int rc;
    /* self is poisoned too when the fill rewrites it, so a skipped fill shows */
    if ((rc = (int)cudaMemset(d->out, 0xFF, d->out_bytes)) ||
        (d->s->self_const && (rc = (int)cudaMemset(d->self, 0xFF, d->out_bytes))))
        return ea_cuda_fail(err, "index_add", NULL, "poison the output", rc);
    return 0;
}

static int check(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    dev *d = ctx;
    if (copy_back(d, d->host, err))
        return -1;
    ia_compare(d->host, d->ref, d->exact, d->n_out, c);
    return 0;
}

/* The path measured (ea_path_run) and judged: on the fabricated index the error is reported, not bounded
 * (100 slots take every add). */
static int run_path(dev *d, int path, const int64_t *index, const double *ref, const uint16_t *exact,
                    uint16_t *host, const ea_kit_state *st, double current_rel, ea_path_outcome *out, ea_error *err)
{
    const ea_run_opts *o = st->opts;
    d->path = path, d->index = index, d->ref = ref, d->exact = exact, d->host = host;
    const char *name = path == P_ORACLE   ? "oracle"
                       : path == P_GENERAL ? "oracle_general"
                       : path == P_TUNED   ? "current_tuned"
                                           : "current";
    const char *mode = path == P_FABRICATED || index == d->fab ? "fabricated" : "faithful";
    if (ea_kit_path(st, &(ea_path_steps){.ctx = d, .poison = poison, .enqueue = enqueue, .check = check}, name, mode,
                    out, err))
        return -1;
    if (o->log)
        fprintf(o->log, "index_add %s: %s %s: %.1f us per call, rel L2 %.2e\n", d->s->alias, name, mode,
                out->median_us, out->check.rel_l2);
    ea_path_judge_outcome(out, current_rel, exact != NULL, index == d->idx);
    return 0;
}

/* The consumer kernel's one buffer is out, which it rewrites in place. */
static void *out_buffer(void *ctx, const char *name)
{
    return ((dev *)ctx)->out;
}

static int prepare(dev *d, const ia_scope *s, const ia_plan *p, const ia_consumer_step *cs,
                   const ia_consumer_step *tuned, const ia_inputs *in, ea_error *err)
{
    int rc = 0;
    memset(d, 0, sizeof *d);
    d->s = s;
    d->p = p;
    d->n_out = ea_tensor_numel(&s->out);
    d->out_bytes = (size_t)ea_storage_bytes(&s->out);
    size_t src_bytes = (size_t)ea_storage_bytes(&s->source), idx_bytes = (size_t)ea_storage_bytes(&s->index);
    d->out = dev_upload(NULL, d->out_bytes, &rc);
    d->self = dev_upload(in->self, d->out_bytes, &rc);
    d->src = dev_upload(in->source, src_bytes, &rc);
    d->x = p->fold_scale ? dev_upload(in->x, (size_t)ea_storage_bytes(&s->x), &rc) : d->src;
    if (in->index)
        d->idx = dev_upload(in->index, idx_bytes, &rc);
    if (in->fabricated)
        d->fab = dev_upload(in->fabricated, idx_bytes, &rc);
    if (rc)
        return dev_free(d), ea_cuda_fail(err, "index_add", NULL, "allocate and upload the scope's buffers", rc);
    if (s->consumed && (ea_replay_bind_step(cs->cap, cs->step, out_buffer, d, &d->consumer, err) ||
                        (tuned && tuned->step &&
                         ea_replay_bind_step(tuned->cap, tuned->step, out_buffer, d, &d->consumer_tuned, err))))
        return dev_free(d), -1;
    return 0;
}

/* The slice oracle's variants as ea_path_tune measures them: run_path at each launch variant. */
typedef struct {
    dev *d;
    const int64_t *index;
    const double *ref;
    const uint16_t *exact;
    uint16_t *host;
    const ea_kit_state *st;
    double current_rel;
} slice_tuning;

static int slice_measure(void *ctx, int v, ea_path_outcome *out, ea_error *err)
{
    slice_tuning *t = ctx;
    const ia_plan *plan = t->d->p;
    ia_plan tuned = *plan;
    tuned.slice.unroll = ia_slice_variants[v].unroll;
    tuned.slice.staged = ia_slice_variants[v].staged;
    tuned.slice.streaming = ia_slice_variants[v].streaming;
    tuned.slice.shfl = ia_slice_variants[v].shfl;
    t->d->p = &tuned;
    int rc = run_path(t->d, P_ORACLE, t->index, t->ref, t->exact, t->host, t->st, t->current_rel, out, err);
    t->d->p = plan;
    return rc;
}

static void slice_describe(void *ctx, int v, cJSON *o, int entry)
{
    ia_slice_variant_json(o, v);
}

/* Runs path and judges it into paths; -1 when it broke; *first_rel: its first check's rel L2. The vec 8
 * slice oracle is tuned over its launch variants (ia_slice_variants, ea_path_tune): each checked in
 * full, the fastest that passed kept (ea_path_tune's rule), every variant's median and verdict listed beside it. */
static int add_path(cJSON *paths, dev *d, int path, const int64_t *index, const double *ref, const uint16_t *exact,
                    uint16_t *host, const ea_kit_state *st, double current_rel, int *ok, double *first_rel,
                    ea_error *err)
{
    const ea_run_opts *o = st->opts;
    ea_path_outcome one;
    if (!(path == P_ORACLE && d->p->oracle == IA_ORACLE_SLICE && d->p->slice.vec == 8)) {
        if (run_path(d, path, index, ref, exact, host, st, current_rel, &one, err))
            return -1;
        *ok &= one.passed;
        *first_rel = one.check.rel_l2;
        cJSON_AddItemToArray(paths, one.json);
        return 0;
    }
    char label[256];
    slice_tuning tuning = {.d = d, .index = index, .ref = ref, .exact = exact, .host = host, .st = st,
                           .current_rel = current_rel};
    snprintf(label, sizeof label, "index_add %s oracle", d->s->alias);
    const ea_path_tuning t = {.label = label, .ctx = &tuning, .n = IA_SLICE_VARIANTS, .measure = slice_measure,
                              .describe = slice_describe};
    ea_path_tuned r;
    if (ea_path_tune(&t, &r, err))
        return -1;
    *ok &= r.passed == r.tried;
    *first_rel = r.kept.check.rel_l2;
    if (o->log) {
        const ia_slice_variant *k = &ia_slice_variants[r.kept_v];
        fprintf(o->log, "index_add %s: the slice oracle keeps %s", d->s->alias, k->name);
        if (!k->staged)
            fprintf(o->log, " unroll %d", k->unroll);
        fprintf(o->log, ": %.1f us per call%s\n", r.kept.median_us, r.kept.passed ? "" : ", though no variant passed");
    }
    cJSON_AddItemToArray(paths, r.kept.json);
    return 0;
}

cJSON *ia_measure(const ia_scope *s, const ia_plan *p, const ia_consumer_step *cs, const ia_consumer_step *tuned,
                  const ea_kit_state *st, ea_error *err)
{
    const ea_run_opts *o = st->opts;
    size_t free_b = 0, total_b = 0;
    int rc = (int)cudaMemGetInfo(&free_b, &total_b), ok = 1, broke = 0;
    if (rc)
        return ea_cuda_fail(err, "index_add", NULL, "cudaMemGetInfo", rc), NULL;
    if (ia_scope_check_memory(s, (int64_t)(free_b / 10 * 9), "device memory", err))
        return NULL;
    ia_inputs in;
    int fab = o->fabricated || s->idx.kind == IA_INDEX_UNKNOWN;
    if (ia_inputs_make(s, fab, &in, err) || (in.index && ia_index_check(s, in.index, err)))
        return NULL;
    dev d;
    double *ref = NULL;
    int64_t n = ea_tensor_numel(&s->out);
    uint16_t *host = malloc((size_t)n * 2 + 16), *exact = malloc((size_t)n * 2 + 16);
    cJSON *res = cJSON_CreateObject(), *paths;
    char why[256];
    if (!host || !exact || prepare(&d, s, p, cs, tuned, &in, err)) {
        if (!host || !exact)
            ea_fail(err, "index_add %s: cannot allocate host buffers for %" PRId64 " outputs", s->alias, n);
        free(host), free(exact), ia_inputs_free(&in), cJSON_Delete(res);
        return NULL;
    }
    paths = cJSON_AddArrayToObject(res, "paths");
    if (o->faithful && in.index) {
        double cur = -1, rel;
        broke = ia_reference(s, p, &in, in.index, &ref, err) ||
                add_path(paths, &d, P_CURRENT, d.idx, ref, NULL, host, st, -1, &ok, &cur, err);
        if (!broke && s->consumed && tuned && tuned->step) /* Inductor's tuned consumer kernel after the same replica */
            broke = add_path(paths, &d, P_TUNED, d.idx, ref, NULL, host, st, -1, &ok, &rel, err);
        if (!broke && p->general_ok && p->oracle != IA_ORACLE_GENERAL && ia_emulate_oracle(s, p, &in, exact) == 0)
            broke = add_path(paths, &d, P_ORACLE, d.idx, ref, exact, host, st, cur, &ok, &rel, err);
        if (!broke && p->general_ok)
            broke = add_path(paths, &d, P_GENERAL, d.idx, ref, NULL, host, st, -1, &ok, &rel, err);
    }
    if (!broke && fab) {
        double rel;
        free(ref);
        ref = NULL;
        broke = ia_reference(s, p, &in, in.fabricated, &ref, err) ||
                add_path(paths, &d, P_FABRICATED, d.fab, ref, NULL, host, st, -1, &ok, &rel, err);
        if (!broke && !in.index && p->general_ok)
            broke = add_path(paths, &d, P_GENERAL, d.fab, ref, NULL, host, st, -1, &ok, &rel, err);
    }
    if (!broke && ia_contract_check(s, why, sizeof why)) {
        ok = 0;
        cJSON_AddStringToObject(res, "failure", why);
    }
    cJSON_AddBoolToObject(res, "passed", ok);
    dev_free(&d);
    free(ref), free(host), free(exact);
    ia_inputs_free(&in);
    if (broke) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}
