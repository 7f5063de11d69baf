#include "target/replay.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/cubin.h"
#include "gpu/device_lock.h"
#include "target/gen.h"

/* A named device allocation: an input, an output or a buffer of the run. */
typedef struct {
    const char *name;
    int64_t bytes;
    void *dev;
    const ea_capture_tensor *tensor; /* inputs and outputs */
    int is_output;
} slot;

/* Modules stay loaded for the life of the process: CUPTI names kernels by function handle, and a
 * module loaded after another was unloaded can reuse its handles and be reported under the old
 * kernel's name (seen on the H200 replaying 76 captures in one process). */
static struct {
    char *path;
    ea_cubin *cubin;
} *modules;
static int nmodules;

static const ea_cubin *module_for(const char *path, ea_error *err)
{
    for (int i = 0; i < nmodules; i++)
        if (!strcmp(modules[i].path, path))
            return modules[i].cubin;
    void *grown = realloc(modules, sizeof *modules * (size_t)(nmodules + 1));
    ea_cubin *c = calloc(1, sizeof *c);
    char *copy = strdup(path);
    if (grown)
        modules = grown;
    if (!grown || !c || !copy) {
        free(c);
        free(copy);
        ea_fail(err, "%s: out of memory", path);
        return NULL;
    }
    if (ea_cubin_load_file(c, path, err) != 0) {
        free(c);
        free(copy);
        return NULL;
    }
    modules[nmodules].path = copy;
    modules[nmodules++].cubin = c;
    return c;
}

typedef struct {
    const ea_capture *c;
    const ea_capture_run *r;
    slot *slots;
    int nslots;
    ea_replay_launch *launches;
    int nlaunches;
    void *stream;
    const void *const *inputs; /* the caller's host inputs, or NULL: generated here */
    const ea_replay_judge *judge;
} plan;

static int slots_of(const ea_capture *c, const ea_capture_run *r, slot **out, ea_error *err)
{
    int n = c->ninputs + c->noutputs + r->nbuffers, k = 0;
    slot *s = calloc((size_t)(n ? n : 1), sizeof *s);
    if (!s)
        return ea_fail(err, "%s: out of memory", c->file);
    for (int i = 0; i < c->ninputs; i++, k++)
        s[k] = (slot){c->inputs[i].name, ea_storage_bytes(&c->inputs[i].t), NULL, &c->inputs[i], 0};
    for (int i = 0; i < c->noutputs; i++, k++)
        s[k] = (slot){c->outputs[i].name, ea_storage_bytes(&c->outputs[i].t), NULL, &c->outputs[i], 1};
    for (int i = 0; i < r->nbuffers; i++, k++)
        s[k] = (slot){r->buffers[i].name, r->buffers[i].bytes, NULL, NULL, 0};
    *out = s;
    return n;
}

static const slot *find_slot(const slot *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name))
            return &s[i];
    return NULL;
}

/* Where r sits in $.runs: runs is an array, so messages name it by index. -1 if r is not c's. */
static int run_index(const ea_capture *c, const ea_capture_run *r)
{
    for (int i = 0; i < c->nruns; i++)
        if (&c->runs[i] == r)
            return i;
    return -1;
}

int ea_replay_check(const ea_capture *c, const ea_capture_run *r, ea_error *err)
{
    if (!r->replayable)
        return ea_fail(err, "%s: run \"%s\" is not replayable from C: it calls ATen", c->file, r->config);
    return ea_replay_check_args(c, r, err);
}

int ea_replay_check_args(const ea_capture *c, const ea_capture_run *r, ea_error *err)
{
    slot *s;
    int n = slots_of(c, r, &s, err), rc = 0, ri = run_index(c, r);
    if (n < 0)
        return -1;
    for (int i = 0; rc == 0 && i < r->nsteps; i++) {
        const ea_capture_step *st = &r->steps[i];
        const int64_t *g = st->grid, *blk = st->block;
        char step[400], where[512];
        if (ri >= 0)
            snprintf(step, sizeof step, "%s $.runs[%d].steps[%d]", c->file, ri, i);
        else /* a run built outside the capture: its config is all there is to name it by */
            snprintf(step, sizeof step, "%s run \"%s\" steps[%d]", c->file, r->config, i);
        /* ea_replay_bind_step narrows these to unsigned: anything CUDA would refuse is refused here, by name */
        if (g[0] > INT32_MAX || g[1] > 65535 || g[2] > 65535 || blk[0] > 1024 || blk[1] > 1024 || blk[2] > 64 ||
            blk[0] * blk[1] * blk[2] > 1024)
            rc = ea_fail(err, "%s: expected a launch CUDA accepts (grid up to [2^31-1, 65535, 65535], block up to "
                         "[1024, 1024, 64] and 1024 threads), got grid [%" PRId64 ", %" PRId64 ", %" PRId64 "], block "
                         "[%" PRId64 ", %" PRId64 ", %" PRId64 "]", step, g[0], g[1], g[2], blk[0], blk[1], blk[2]);
        for (int a = 0; rc == 0 && a < st->nargs; a++) {
            const ea_capture_arg *arg = &st->args[a];
            snprintf(where, sizeof where, "%s.args[%d]", step, a);
            if (!arg->buffer) {
                if (!ea_scalar_type_named(arg->type))
                    rc = ea_fail(err, "%s.type: expected a scalar type (" EA_SCALAR_TYPE_NAMES "), got \"%s\"", where,
                                 arg->type);
                continue;
            }
            const slot *b = find_slot(s, n, arg->buffer);
            if (!b)
                rc = ea_fail(err, "%s.buffer: expected a buffer of the capture, got \"%s\"", where, arg->buffer);
            else if (arg->offset < 0 || (arg->offset >= b->bytes && !(arg->offset == 0 && b->bytes == 0)))
                rc = ea_fail(err, "%s.offset: %" PRId64 " lies outside %s (%" PRId64 " bytes): the trace disagrees "
                             "with the buffer sizes", where, arg->offset, b->name, b->bytes);
        }
    }
    free(s);
    return rc;
}

static int cuda_ok(cudaError_t e, const char *what, const char *file, ea_error *err)
{
    return e == cudaSuccess ? 0 : ea_fail(err, "%s: %s: %s", file, what, cudaGetErrorString(e));
}

int ea_replay_bind_step(const ea_capture *c, const ea_capture_step *st, void *(*lookup)(void *ctx, const char *name),
                        void *ctx, ea_replay_launch *l, ea_error *err)
{
    int np = st->nargs + 2;
    memset(l, 0, sizeof *l);
    if (st->global_scratch || st->profile_scratch)
        return ea_fail(err, "%s: kernel %s asks for Triton scratch memory (%" PRId64 "/%" PRId64 " bytes), which the "
                       "replay does not provide", c->file, st->kernel, st->global_scratch, st->profile_scratch);
    l->params = calloc((size_t)np, sizeof *l->params);
    l->cells = calloc((size_t)np, 8);
    if (!l->params || !l->cells)
        return ea_replay_launch_free(l), ea_fail(err, "%s: out of memory", c->file);
    for (int a = 0; a < np; a++) /* the two after the arguments: NULL scratch pointers, zeroed cells */
        l->params[a] = l->cells + 8 * a;
    for (int a = 0; a < st->nargs; a++) {
        const ea_capture_arg *arg = &st->args[a];
        if (!arg->buffer) {
            ea_scalar_type_named(arg->type)->encode(arg->scalar, l->cells + 8 * a); /* checked by check_args */
            continue;
        }
        char *dev = lookup(ctx, arg->buffer);
        if (!dev)
            return ea_replay_launch_free(l), ea_fail(err, "%s: kernel %s argument %d: no device memory for buffer "
                                                     "\"%s\"", c->file, st->kernel, a, arg->buffer);
        uint64_t ptr = (uint64_t)(uintptr_t)(dev + arg->offset);
        memcpy(l->cells + 8 * a, &ptr, 8);
    }
    l->grid = (ea_dim3){(unsigned)st->grid[0], (unsigned)st->grid[1], (unsigned)st->grid[2]};
    l->block = (ea_dim3){(unsigned)st->block[0], (unsigned)st->block[1], (unsigned)st->block[2]};
    l->shared = (size_t)st->shared;
    /* the module last: every host-side refusal above comes without a driver */
    const ea_cubin *m = module_for(st->cubin, err);
    if (!m || ea_cubin_function(m, st->function, &l->kernel, err))
        return ea_replay_launch_free(l), -1;
    return 0;
}

int ea_replay_launch_enqueue(ea_replay_launch *l, void *stream, ea_error *err)
{
    return ea_kernel_launch(&l->kernel, l->grid, l->block, l->shared, stream, l->params, err);
}

void ea_replay_launch_free(ea_replay_launch *l)
{
    free(l->params);
    free(l->cells);
    memset(l, 0, sizeof *l);
}

static void *slot_device(void *ctx, const char *name)
{
    const plan *p = ctx;
    const slot *s = find_slot(p->slots, p->nslots, name);
    return s ? s->dev : NULL;
}

static int prepare(plan *p, ea_error *err)
{
    const ea_capture *c = p->c;
    int n = slots_of(c, p->r, &p->slots, err);
    if (n < 0)
        return -1;
    p->nslots = n;
    for (int i = 0; i < n; i++) {
        slot *s = &p->slots[i];
        size_t bytes = (size_t)(s->bytes > 0 ? s->bytes : 1);
        if (cuda_ok(cudaMalloc(&s->dev, bytes), "cudaMalloc", c->file, err))
            return -1;
        if (!s->tensor || s->is_output)
            continue;
        if (p->inputs) { /* slots_of puts the inputs first, in the capture's order */
            if (cuda_ok(cudaMemcpy(s->dev, p->inputs[i], (size_t)s->bytes, cudaMemcpyHostToDevice), "copying an input",
                        c->file, err))
                return -1;
            continue;
        }
        void *host = malloc(bytes);
        char where[256];
        snprintf(where, sizeof where, "%s input %s", c->file, s->name);
        int rc = !host ? ea_fail(err, "%s: out of memory", where)
                       : ea_gen_fill(s->tensor->values.json, &s->tensor->t, host, where, err);
        if (rc == 0)
            rc = cuda_ok(cudaMemcpy(s->dev, host, bytes, cudaMemcpyHostToDevice), "copying an input", c->file, err);
        free(host);
        if (rc)
            return -1;
    }
    p->launches = calloc((size_t)(p->r->nsteps ? p->r->nsteps : 1), sizeof *p->launches);
    if (!p->launches)
        return ea_fail(err, "%s: out of memory", c->file);
    for (int i = 0; i < p->r->nsteps; i++, p->nlaunches++)
        if (ea_replay_bind_step(c, &p->r->steps[i], slot_device, p, &p->launches[i], err))
            return -1;
    return cuda_ok(cudaStreamCreate((cudaStream_t *)&p->stream), "cudaStreamCreate", c->file, err);
}

static int enqueue(void *ctx, void *stream, ea_error *err)
{
    plan *p = ctx;
    for (int i = 0; i < p->nlaunches; i++)
        if (ea_replay_launch_enqueue(&p->launches[i], stream, err))
            return -1;
    return 0;
}

/* The output's relative L2 error against its capture's reference samples, NaN without them. */
static double against_reference(const ea_capture_tensor *t, const void *host)
{
    int n = cJSON_GetArraySize(t->reference);
    double *ref = n ? malloc(sizeof *ref * (size_t)n) : NULL, rel = NAN;
    const cJSON *v;
    int i = 0;
    if (!ref)
        return NAN;
    cJSON_ArrayForEach(v, t->reference)
        ref[i++] = v->valuedouble;
    rel = ea_sampled_rel_l2(&t->t, host, t->ref_stride, ref, n);
    free(ref);
    return rel;
}

static void mismatch(ea_replay_result *res, const char *name, uint64_t got, uint64_t want, double rel)
{
    if (res->first_mismatch[0])
        return;
    int n = snprintf(res->first_mismatch, sizeof res->first_mismatch, "%s: checksum %016" PRIx64 ", capture %016" PRIx64,
                     name, got, want);
    if (isfinite(rel) && n > 0 && (size_t)n < sizeof res->first_mismatch)
        snprintf(res->first_mismatch + n, sizeof res->first_mismatch - (size_t)n,
                 "; relative L2 %.3g against its reference samples", rel);
}

/* Counts outputs whose checksum matches, and of the others those within tolerance of their reference
 * samples, then of those without samples the ones the judge accepts (all of them or none); the first output
 * that is none of these is described in res. after_timing: which check this is, for the judge. */
static int check_outputs(plan *p, int after_timing, ea_replay_result *res, ea_error *err)
{
    void **hosts = calloc((size_t)p->c->noutputs + 1, sizeof *hosts);
    int undecided = 0, k = 0, rc = hosts ? 0 : ea_fail(err, "%s: out of memory", p->c->file);
    res->outputs_matching = res->outputs_tolerant = res->outputs_judged = 0;
    res->first_mismatch[0] = '\0';
    for (int i = 0; rc == 0 && i < p->nslots; i++) {
        slot *s = &p->slots[i];
        if (!s->is_output)
            continue;
        void *host = hosts[k++] = malloc((size_t)(s->bytes > 0 ? s->bytes : 1));
        if (!host) {
            rc = ea_fail(err, "%s: out of memory", p->c->file);
            break;
        }
        rc = cuda_ok(cudaMemcpy(host, s->dev, (size_t)s->bytes, cudaMemcpyDeviceToHost), "copying an output",
                     p->c->file, err);
        uint64_t got = rc ? 0 : ea_checksum(&s->tensor->t, host);
        double rel = rc || got == s->tensor->checksum ? NAN : against_reference(s->tensor, host);
        if (rc)
            break;
        if (got == s->tensor->checksum)
            res->outputs_matching++;
        else if (rel <= EA_REPLAY_SAMPLE_TOLERANCE)
            res->outputs_tolerant++;
        else if (p->judge && !cJSON_GetArraySize(s->tensor->reference))
            undecided++;
        else
            mismatch(res, s->name, got, s->tensor->checksum, rel);
    }
    if (rc == 0 && undecided) {
        char why[200] = "";
        if (p->judge->fn(p->judge->ctx, after_timing, hosts, why, sizeof why) == 0)
            res->outputs_judged = undecided;
        else if (!res->first_mismatch[0])
            snprintf(res->first_mismatch, sizeof res->first_mismatch, "%d output(s) not the capture's bits, and %s",
                     undecided, why);
    }
    for (int i = 0; i < k; i++)
        free(hosts[i]);
    free(hosts);
    return rc;
}

static int outputs_pass(const ea_replay_result *res)
{
    return res->outputs_matching + res->outputs_tolerant + res->outputs_judged == res->outputs;
}

/* The kernel list is evidence too: the device ran the captured functions, in the captured order. */
static int kernels_match(const ea_capture_run *r, const ea_kernel_list *k)
{
    if (k->count != (size_t)r->nsteps || k->dropped)
        return 0;
    for (int i = 0; i < r->nsteps; i++)
        if (strcmp(k->kernels[i].name, r->steps[i].function))
            return 0;
    return 1;
}

static void release(plan *p)
{
    for (int i = 0; i < p->nlaunches; i++)
        ea_replay_launch_free(&p->launches[i]);
    free(p->launches);
    for (int i = 0; i < p->nslots; i++)
        if (p->slots[i].dev)
            cudaFree(p->slots[i].dev);
    free(p->slots);
    if (p->stream)
        cudaStreamDestroy((cudaStream_t)p->stream);
}

int ea_replay_run(const ea_capture *c, const ea_capture_run *r, const ea_timer_config *tc, ea_replay_timing how,
                  ea_replay_result *res, ea_error *err)
{
    return ea_replay_run_judged(c, r, NULL, tc, how, NULL, res, err);
}

static int replay_on(const ea_capture *c, const ea_capture_run *r, const void *const *inputs,
                     const ea_timer_config *tc, ea_replay_timing how, const ea_replay_judge *judge,
                     ea_replay_result *res, ea_error *err)
{
    res->scope = c->scope;
    res->config = r->config;
    res->torch_compiled_us = r->compiled.median_us;
    if (ea_replay_check(c, r, err))
        return -1;
    plan p = {c, r, NULL, 0, NULL, 0, NULL, inputs, judge};
    int rc = prepare(&p, err);
    for (int i = 0; rc == 0 && i < p.nslots; i++) {
        res->outputs += p.slots[i].is_output;
        if (p.slots[i].is_output) /* poison: an element the kernels never write cannot pass */
            rc = cuda_ok(cudaMemset(p.slots[i].dev, 0xFF, (size_t)p.slots[i].bytes), "poisoning an output", c->file, err);
    }
    /* CUPTI only watches a call that can run: after a failed preparation it was never started */
    ea_error cupti_err = {{0}};
    int began = rc == 0, cupti = began ? ea_cupti_begin(&cupti_err) : -1;
    if (rc == 0)
        rc = enqueue(&p, p.stream, err) || cuda_ok(cudaStreamSynchronize((cudaStream_t)p.stream), "first call", c->file, err);
    if (cupti == 0 && ea_cupti_end(&res->kernels, &cupti_err) != 0)
        cupti = -1;
    if (cupti == 0)
        res->kernels_match = kernels_match(r, &res->kernels);
    else if (began)
        snprintf(res->cupti_error, sizeof res->cupti_error, "%s", cupti_err.msg);
    if (rc == 0)
        rc = check_outputs(&p, 0, res, err);
    int passed = outputs_pass(res);
    if (rc == 0 && passed && how == EA_REPLAY_WARM_COLD)
        rc = ea_time_warm_cold(enqueue, &p, tc, &res->timing, &res->timing_cold, err);
    else if (rc == 0 && passed && how == EA_REPLAY_WARM)
        rc = ea_time_graph(enqueue, &p, tc, &res->timing, err);
    if (rc == 0 && res->timing.samples_us) /* the timed replays must have left the outputs as they were */
        rc = check_outputs(&p, 1, res, err);
    release(&p);
    return rc;
}

/* The whole replay holds the device: its CUPTI-recorded first call is a timing too (device_lock.h). */
int ea_replay_run_judged(const ea_capture *c, const ea_capture_run *r, const void *const *inputs,
                         const ea_timer_config *tc, ea_replay_timing how, const ea_replay_judge *judge,
                         ea_replay_result *res, ea_error *err)
{
    memset(res, 0, sizeof *res);
    if (ea_device_lock(err))
        return -1;
    int rc = replay_on(c, r, inputs, tc, how, judge, res, err);
    ea_device_unlock();
    return rc;
}

void ea_replay_result_free(ea_replay_result *res)
{
    ea_timing_free(&res->timing);
    ea_timing_free(&res->timing_cold);
    ea_kernel_list_free(&res->kernels);
}
