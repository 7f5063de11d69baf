/* run.c: one routing configuration measured on the current GPU (contract in run.h). The captured Triton
 * steps are bound and launched by replay.h's binder; the path pieces of a result (check and kernels
 * JSON, the pass rules) are index_add's (its run.h), shared, not copied. */
#include "gpu/device.h"
#include "run.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "measure/path.h"
#include "gpu/cupti.h"
#include "target/gen.h"
#include "kernels.h"
#include "plan.h"
#include "reference.h"
#include "target/replay.h"
#include "gpu/timer.h"

enum { P_CURRENT, P_TUNED, P_ORACLE };
static const char *const path_names[] = {"current", EA_PATH_CURRENT_TUNED, "oracle"};
#define MAX_SLOTS 8

typedef struct {
    const char *name;
    void *ptr;
} slot;

typedef struct {
    const rt_scope *s;
    const rt_capture *run[2]; /* the current paths' runs: default (its buffers, its calls) and coordinate_descent */
    rt_form form;
    rt_dist dist;
    int path;
    int variant; /* the whole-form oracle's (kernels.h RT_ROUTE_*) */
    int sms; /* the device's multiprocessors: ATen's histc grid */
    const ea_kit_state *st; /* the run's policy (check-only, which paths are timed cold) */
    int64_t *ids, *sorted, *perm, *range, *sorted_in;
    int32_t *offsets;
    void *sort_temp; /* above 4096 ids: CUB's scratch, sized and allocated before any capture */
    size_t sort_temp_bytes;
    slot slots[MAX_SLOTS]; /* the capture's buffer names -> device memory */
    int nslots;
    void *run_buffers[MAX_SLOTS];
    ea_replay_launch convert[2], scan[2]; /* each run's Triton steps bound to these buffers */
    /* the path's check: reference, host copy, the checksums' object (NULL: none) and verdict */
    const struct host_set *ref;
    struct host_set *host;
    cJSON *sums;
    int sums_ok;
    char why[160];
} dev;

typedef struct host_set {
    int64_t *ids, *sorted, *perm;
    int32_t *offsets;
} host_set;

static void *slot_ptr(void *ctx, const char *name)
{
    const dev *d = ctx;
    for (int i = 0; i < d->nslots; i++)
        if (!strcmp(d->slots[i].name, name))
            return d->slots[i].ptr;
    return NULL;
}

/* aten.sort.stable as torch 2.11 runs it on n ids: MediumRadixSort up to 4096, the CUB sort above (kernels.h). */
static int sort_replica(const dev *d, void *stream)
{
    int64_t n = d->s->n;
    size_t bytes = (size_t)n * 8;
    int rc;
    if (n > RT_SORT_MAX) /* range: the fill's scratch indices */
        return rt_aten_sort_large(d->ids, d->sorted, d->range, d->perm, n, d->sort_temp, d->sort_temp_bytes, stream);
    if ((rc = rt_arange_i64(d->range, n, stream)) || (rc = rt_copy_d2d(d->perm, d->range, bytes, stream)) ||
        (rc = rt_copy_d2d(d->sorted, d->ids, bytes, stream)))
        return rc;
    return rt_aten_sort_kv(d->sorted, d->perm, n, stream);
}

/* One call of the path, capturable. */
static int enqueue(void *ctx, void *stream, ea_error *err)
{
    dev *d = ctx;
    const rt_scope *s = d->s;
    int rc;
    if (d->path == P_ORACLE) {
        rc = d->form == RT_WHOLE
                 ? rt_oracle_route(d->ids, s->n, s->experts, d->variant, d->sorted, d->perm, d->offsets, stream)
                 : rt_oracle_offsets(d->sorted_in, s->n, s->experts, d->offsets, stream);
        return rc ? ea_cuda_fail(err, "routing", NULL, "oracle launch", rc) : 0;
    }
    if (d->form == RT_WHOLE && (rc = sort_replica(d, stream)))
        return ea_cuda_fail(err, "routing", NULL, "aten.sort replica", rc);
    const int k = d->path == P_TUNED;
    if (ea_replay_launch_enqueue(&d->convert[k], stream, err))
        return -1;
    if ((rc = rt_fill_zero_i32(d->offsets, s->bins, stream)) ||
        (rc = rt_aten_histc_i32(d->offsets, slot_ptr(d, d->run[k]->convert->args[1].buffer), s->n, s->bins, s->hmin,
                                s->hmax, d->sms, stream)))
        return ea_cuda_fail(err, "routing", NULL, "aten.histc replica", rc);
    return ea_replay_launch_enqueue(&d->scan[k], stream, err);
}

static void *dev_alloc(size_t bytes, const void *host, int *rc)
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
    void *all[] = {d->ids, d->sorted, d->perm, d->range, d->sorted_in, d->offsets, d->sort_temp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudaFree(all[i]);
    for (int i = 0; i < d->run[0]->run->nbuffers && i < MAX_SLOTS; i++)
        cudaFree(d->run_buffers[i]);
    for (int k = 0; k < 2; k++) {
        ea_replay_launch_free(&d->convert[k]);
        ea_replay_launch_free(&d->scan[k]);
    }
}

static int prepare(dev *d, const rt_scope *s, const rt_capture *c, const rt_capture *tuned, rt_form f,
                   const host_set *in, ea_error *err)
{
    memset(d, 0, sizeof *d);
    d->s = s, d->form = f;
    d->run[0] = c, d->run[1] = tuned;
    size_t bytes = (size_t)s->n * 8;
    int rc = 0;
    if (c->run->nbuffers > MAX_SLOTS - 4)
        return ea_fail(err, "%s: expected at most %d run buffers, got %d", c->cap->file, MAX_SLOTS - 4,
                       c->run->nbuffers);
    d->offsets = dev_alloc((size_t)s->experts * 4, NULL, &rc);
    if (f == RT_WHOLE) {
        d->ids = dev_alloc(bytes, in->ids, &rc);
        d->sorted = dev_alloc(bytes, NULL, &rc);
        d->perm = dev_alloc(bytes, NULL, &rc);
        d->range = dev_alloc(bytes, NULL, &rc);
        if (rc == 0 && s->n > RT_SORT_MAX && !(rc = rt_aten_sort_large_temp_bytes(s->n, &d->sort_temp_bytes)))
            d->sort_temp = dev_alloc(d->sort_temp_bytes, NULL, &rc);
        d->slots[d->nslots++] = (slot){c->cap->inputs[0].name, d->ids};
        d->slots[d->nslots++] = (slot){c->cap->outputs[0].name, d->sorted};
        d->slots[d->nslots++] = (slot){c->cap->outputs[1].name, d->perm};
    } else { /* the sorted ids are the input: the capture's out0, as the convert reads them */
        d->sorted_in = dev_alloc(bytes, in->sorted, &rc);
        d->slots[d->nslots++] = (slot){c->cap->outputs[0].name, d->sorted_in};
    }
    d->slots[d->nslots++] = (slot){c->cap->outputs[2].name, d->offsets};
    for (int i = 0; i < c->run->nbuffers; i++) {
        d->run_buffers[i] = dev_alloc((size_t)c->run->buffers[i].bytes, NULL, &rc);
        d->slots[d->nslots++] = (slot){c->run->buffers[i].name, d->run_buffers[i]};
    }
    if (rc) {
        dev_free(d);
        return ea_cuda_fail(err, "routing", NULL, "allocate and upload the scope's buffers", rc);
    }
    /* the capture's out1 (permutation) and in0 have no memory in the narrow form: neither step names them */
    for (int k = 0; k < 2; k++)
        if (ea_replay_bind_step(c->cap, d->run[k]->convert, slot_ptr, d, &d->convert[k], err) ||
            ea_replay_bind_step(c->cap, d->run[k]->scan, slot_ptr, d, &d->scan[k], err)) {
            dev_free(d);
            return -1;
        }
    return 0;
}

/* ---- checks ---- */

static int poison(void *ctx, ea_error *err)
{
    const dev *d = ctx;
    size_t bytes = (size_t)d->s->n * 8;
    int rc = (int)cudaMemset(d->offsets, 0xFF, (size_t)d->s->experts * 4);
    if (!rc && d->form == RT_WHOLE && !(rc = (int)cudaMemset(d->sorted, 0xFF, bytes)))
        rc = (int)cudaMemset(d->perm, 0xFF, bytes);
    return rc ? ea_cuda_fail(err, "routing", NULL, "poison the outputs", rc) : 0;
}

static int copy_back(dev *d, host_set *out, ea_error *err)
{
    size_t bytes = (size_t)d->s->n * 8;
    int rc = (int)cudaMemcpy(out->offsets, d->offsets, (size_t)d->s->experts * 4, cudaMemcpyDeviceToHost);
    if (!rc && d->form == RT_WHOLE && !(rc = (int)cudaMemcpy(out->sorted, d->sorted, bytes, cudaMemcpyDeviceToHost)))
        rc = (int)cudaMemcpy(out->perm, d->perm, bytes, cudaMemcpyDeviceToHost);
    return rc ? ea_cuda_fail(err, "routing", NULL, "copy the outputs back", rc) : 0;
}

/* One output against the reference: poison (all bits set, -1 in these integer types) is unwritten. */
static void compare(const void *got, const void *want, int64_t n, int wide, ea_check *c, double *num, double *den)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t g = wide ? ((const int64_t *)got)[i] : ((const int32_t *)got)[i];
        int64_t w = wide ? ((const int64_t *)want)[i] : ((const int32_t *)want)[i];
        c->n++;
        if (g == -1 && w != -1) {
            c->unwritten++;
            continue;
        }
        double diff = fabs((double)g - (double)w);
        c->mismatched += g != w;
        c->max_abs = diff > c->max_abs ? diff : c->max_abs;
        *num += diff * diff;
        *den += (double)w * (double)w;
    }
}

static void check(const dev *d, const host_set *got, const host_set *ref, ea_check *c)
{
    double num = 0, den = 0;
    memset(c, 0, sizeof *c);
    if (d->form == RT_WHOLE) {
        compare(got->sorted, ref->sorted, d->s->n, 1, c, &num, &den);
        compare(got->perm, ref->perm, d->s->n, 1, c, &num, &den);
    }
    compare(got->offsets, ref->offsets, d->s->experts, 0, c, &num, &den);
    c->rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The capture's checksums of the outputs this form writes; 0 when all match, else -1 with why. */
static int checksums(const dev *d, const host_set *got, cJSON *into, char *why, size_t len)
{
    const void *data[3] = {got->sorted, got->perm, got->offsets};
    int rc = 0;
    for (int i = d->form == RT_WHOLE ? 0 : 2; i < 3; i++) {
        const ea_capture_tensor *t = &d->run[0]->cap->outputs[i];
        uint64_t sum = ea_checksum(&t->t, data[i]);
        char hex[20];
        snprintf(hex, sizeof hex, "%016" PRIx64, sum);
        cJSON *o = cJSON_AddObjectToObject(into, t->name);
        cJSON_AddStringToObject(o, "got", hex);
        snprintf(hex, sizeof hex, "%016" PRIx64, t->checksum);
        cJSON_AddStringToObject(o, "capture", hex);
        cJSON_AddBoolToObject(o, "match", sum == t->checksum);
        if (sum != t->checksum && rc == 0) {
            snprintf(why, len, "%s differs from the capture's checksum", t->name);
            rc = -1;
        }
    }
    return rc;
}


/* The first check also compares the capture's checksums. */
static int check_outputs(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    dev *d = ctx;
    if (copy_back(d, d->host, err))
        return -1;
    check(d, d->host, d->ref, c);
    if (!after_timing)
        d->sums_ok = !d->sums || checksums(d, d->host, d->sums, d->why, sizeof d->why) == 0;
    return 0;
}

/* The path measured (ea_kit_path) and judged: every element right yet a checksum that differs fails too. */
static int run_path(dev *d, int path, const host_set *ref, host_set *host, cJSON *sums, ea_path_outcome *out,
                    ea_error *err)
{
    const ea_run_opts *o = d->st->opts;
    ea_timer_config tc = {.calls_per_replay = (int)d->run[0]->run->calls_per_replay}; /* as torch was timed */
    char label[256];
    const char *form = d->form == RT_WHOLE ? "whole" : "narrow", *dist = d->dist == RT_UNIFORM ? "uniform" : "skewed";
    const char *name = path_names[path];
    d->path = path, d->ref = ref, d->host = host, d->sums = sums, d->why[0] = '\0';
    snprintf(label, sizeof label, "routing %s %s %s %s", d->s->alias, form, dist, name);
    const ea_path_steps steps = {.label = label, .ctx = d, .poison = poison, .enqueue = enqueue,
                                 .check = check_outputs, .timer = &tc};
    if (ea_kit_path(d->st, &steps, name, "faithful", out, err))
        return -1;
    if (ea_path_judge_outcome(out, -1, 1, 0) && !d->sums_ok)
        ea_path_verdict(out, d->why);
    if (o->log)
        fprintf(o->log, "routing %s %s %s: %s %.2f us per call, %" PRId64 " mismatched, %" PRId64 " unwritten\n",
                d->s->alias, form, dist, name, out->median_us, out->check.mismatched, out->check.unwritten);
    return 0;
}

/* The whole-form oracle's variants as ea_path_tune measures them: run_path at each that applies, each with
 * its own checksums object (the kept one's is the path's). */
typedef struct {
    dev *d;
    const host_set *ref;
    host_set *host;
    cJSON *sums[RT_ROUTE_VARIANTS]; /* NULL: the configuration has no capture checksums */
} route_tuning;

static int route_measure(void *ctx, int v, ea_path_outcome *out, ea_error *err)
{
    route_tuning *t = ctx;
    if (!rt_route_applies(v, t->d->s->n, t->d->s->experts))
        return 1;
    t->d->variant = v;
    return run_path(t->d, P_ORACLE, t->ref, t->host, t->sums[v], out, err);
}

static void route_describe(void *ctx, int v, cJSON *o, int entry)
{
    const route_tuning *t = ctx;
    rt_route_variant_json(t->d->s, v, o, 0);
}

/* The oracle path into paths: the whole form's tuned over its variants (the fastest that passed kept, every
 * variant's median and verdict beside it), the narrow form's run once; -1 when a run broke. */
static int add_oracle(cJSON *paths, dev *d, const host_set *ref, host_set *host, cJSON *sums, int *ok, ea_error *err)
{
    ea_path_outcome one;
    if (d->form == RT_NARROW) {
        if (run_path(d, P_ORACLE, ref, host, sums, &one, err))
            return -1;
        *ok &= one.passed;
        cJSON_AddItemToArray(paths, one.json);
        return 0;
    }
    route_tuning t = {.d = d, .ref = ref, .host = host};
    for (int v = 0; v < RT_ROUTE_VARIANTS && sums; v++)
        t.sums[v] = cJSON_CreateObject();
    char label[256];
    snprintf(label, sizeof label, "routing %s oracle", d->s->alias);
    const ea_path_tuning tuning = {.label = label, .ctx = &t, .n = RT_ROUTE_VARIANTS, .measure = route_measure,
                                   .describe = route_describe};
    ea_path_tuned r;
    int rc = ea_path_tune(&tuning, &r, err);
    if (rc == 0) {
        *ok &= r.passed == r.tried;
        cJSON_AddItemToArray(paths, r.kept.json);
        if (sums) { /* the kept variant's checksums, moved */
            cJSON *kept = t.sums[r.kept_v], *k;
            while ((k = kept->child)) {
                cJSON_DetachItemViaPointer(kept, k);
                cJSON_AddItemToObject(sums, k->string, k);
            }
        }
        if (d->st->opts->log)
            fprintf(d->st->opts->log, "routing %s: the oracle keeps %s: %.2f us per call\n", d->s->alias,
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r.kept.json, "variant")), r.kept.median_us);
    }
    for (int v = 0; v < RT_ROUTE_VARIANTS; v++)
        cJSON_Delete(t.sums[v]);
    return rc;
}

/* What the distribution looks like: the largest expert's share and the empty experts. */
static cJSON *distribution_view(const rt_scope *s, const int32_t *offsets)
{
    int32_t top = 0, empty = 0;
    for (int64_t e = 0; e < s->experts; e++) {
        int32_t c = offsets[e] - (e ? offsets[e - 1] : 0);
        top = c > top ? c : top;
        empty += c == 0;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "largest_expert_ids", top);
    cJSON_AddNumberToObject(o, "largest_expert_share", (double)top / (double)s->n);
    cJSON_AddNumberToObject(o, "empty_experts", empty);
    return o;
}

static void host_free(host_set *h)
{
    free(h->ids), free(h->sorted), free(h->perm), free(h->offsets);
}

static int host_alloc(const rt_scope *s, host_set *h)
{
    size_t bytes = (size_t)s->n * 8;
    h->sorted = malloc(bytes), h->perm = malloc(bytes), h->offsets = malloc((size_t)s->experts * 4);
    return h->sorted && h->perm && h->offsets ? 0 : -1;
}

cJSON *rt_measure(const rt_scope *s, const rt_capture *c, const rt_capture *tuned, rt_form f, rt_dist d,
                  const ea_kit_state *st, ea_error *err)
{
    host_set ref = {0}, host = {0};
    dev dv;
    if (host_alloc(s, &ref) || host_alloc(s, &host)) {
        host_free(&ref), host_free(&host);
        return ea_fail(err, "routing %s: out of host memory", s->alias), NULL;
    }
    if (rt_ids_make(s->tokens, s->k, s->experts, RT_SEED, d == RT_SKEWED, &ref.ids, err) ||
        rt_reference(ref.ids, s->n, s->experts, ref.sorted, ref.perm, ref.offsets, err) ||
        prepare(&dv, s, c, tuned, f, &ref, err)) {
        host_free(&ref), host_free(&host);
        return NULL;
    }
    dv.dist = d, dv.sms = st->opts->sm_count, dv.st = st;
    cJSON *res = cJSON_CreateObject(), *paths, *view, *sums = NULL;
    paths = cJSON_AddArrayToObject(res, "paths");
    view = cJSON_CreateObject();
    cJSON_AddItemToObject(view, "distribution", distribution_view(s, ref.offsets));
    if (d == RT_UNIFORM)
        sums = cJSON_AddObjectToObject(view, "capture_checksums");
    int ok = 1, broke = 0;
    ea_path_outcome cur;
    for (int p = P_CURRENT; p <= P_TUNED && !broke; p++) {
        if (run_path(&dv, p, &ref, &host, sums ? cJSON_AddObjectToObject(sums, path_names[p]) : NULL, &cur, err)) {
            broke = 1;
        } else {
            ok &= cur.passed;
            cJSON_AddItemToArray(paths, cur.json);
        }
    }
    if (!broke) {
        broke = add_oracle(paths, &dv, &ref, &host, sums ? cJSON_AddObjectToObject(sums, "oracle") : NULL, &ok,
                           err) != 0;
    }
    if (!broke) {
        if (f == RT_WHOLE) { /* the capture times the whole partition: context for the whole form only */
            cJSON_AddNumberToObject(view, "torch_compiled_us", c->run->compiled.median_us);
            cJSON_AddNumberToObject(view, "torch_eager_us", c->run->eager.median_us);
        }
        cJSON_AddBoolToObject(res, "passed", ok);
        if (!ok)
            cJSON_AddStringToObject(res, "failure", "a path failed its checks (see paths[].failure and the oracle's "
                                                 "paths[].candidates[].failure)");
        cJSON_AddItemToObject(res, "view", view);
    } else {
        cJSON_Delete(view);
    }
    dev_free(&dv);
    host_free(&ref), host_free(&host);
    if (broke) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}
