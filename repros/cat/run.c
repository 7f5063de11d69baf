/* run.c: one cat scope measured on the current GPU (contract in run.h). */
#include "gpu/device.h"
#include "run.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "target/gen.h"
#include "kernels.h"
#include "measure/path.h"
#include "target/replay.h"
#include "gpu/timer.h"

static const char *const out_names[CAT_NOUTS] = {"cat", "mean", "rstd", "running_var", "y"};

typedef struct {
    const cat_scope *s;
    const cat_plan *p;
    cat_args a;
    void *in[CAT_MAX_INPUTS + CAT_NPARAMS];
    void *out[CAT_NOUTS];  /* device, by role */
    void *host[CAT_NOUTS]; /* copies back */
    size_t bytes[CAT_NOUTS];
    const ea_capture *cap;           /* oracle_path's check: the capture's checksums, */
    cat_check_result res[2];         /* ... the checks after the first call and after timing, */
    cJSON *sums;                     /* ... which outputs equal torch's, and y's alone */
    int y_same;
    cat_checker ck;                  /* the point's check, shared by its layouts */
    cJSON *seen_sums;                /* checksums_json of the outputs ck remembers, once computed */
    int seen_y_same;
} dev;

static int enqueue(void *ctx, void *stream, ea_error *err)
{
    dev *d = ctx;
    int rc = cat_oracle(d->p, d->s->train, d->s->pooled, &d->a, stream);
    return rc ? ea_cuda_fail(err, "cat", d->s->alias, "oracle launch", rc) : 0;
}

static void dev_free(dev *d)
{
    cat_checker_free(&d->ck);
    cJSON_Delete(d->seen_sums);
    for (int i = 0; i < CAT_MAX_INPUTS + CAT_NPARAMS; i++)
        cudaFree(d->in[i]);
    for (int r = 0; r < CAT_NOUTS; r++) {
        cudaFree(d->out[r]);
        free(d->host[r]);
    }
}

static int prepare(dev *d, const cat_scope *s, const ea_capture *cap, const cat_inputs *in, ea_error *err)
{
    int rc = 0;
    memset(d, 0, sizeof *d);
    d->s = s;
    for (int i = 0; i < cap->ninputs && !rc; i++) {
        size_t b = (size_t)ea_storage_bytes(&cap->inputs[i].t);
        rc = (int)cudaMalloc(&d->in[i], b ? b : 16);
        if (!rc)
            rc = (int)cudaMemcpy(d->in[i], in->data[i], b, cudaMemcpyHostToDevice);
    }
    for (int r = 0; r < CAT_NOUTS && !rc; r++) {
        if (s->out[r] < 0)
            continue;
        d->bytes[r] = (size_t)cat_output_bytes(cap, s->out[r]);
        d->host[r] = malloc(d->bytes[r]);
        rc = d->host[r] ? (int)cudaMalloc(&d->out[r], d->bytes[r]) : (int)cudaErrorMemoryAllocation;
    }
    if (rc)
        return dev_free(d), ea_cuda_fail(err, "cat", s->alias, "allocate and upload the scope's buffers", rc);
    cat_checker_init(&d->ck, s, in, d->bytes);
    cat_args *a = &d->a;
    for (int i = 0; i < s->k; i++)
        a->in[i] = d->in[s->in_x[i]];
    for (int i = 0; i <= s->k; i++)
        a->seg[i] = (int)s->c_off[i];
    a->k = s->k, a->n = (int)s->n, a->c = (int)s->c, a->hw = (int)s->hw;
    a->mean = s->in_param[CAT_P_MEAN] >= 0 ? d->in[s->in_param[CAT_P_MEAN]] : NULL;
    a->var = d->in[s->in_param[CAT_P_VAR]];
    a->weight = d->in[s->in_param[CAT_P_WEIGHT]];
    a->bias = d->in[s->in_param[CAT_P_BIAS]];
    a->cat = d->out[CAT_O_CAT], a->y = d->out[CAT_O_Y];
    a->out_mean = d->out[CAT_O_MEAN], a->out_rstd = d->out[CAT_O_RSTD], a->out_rv = d->out[CAT_O_RV];
    a->eps = (float)s->eps, a->eps_d = s->eps, a->dt = s->dt;
    a->bessel_momentum = s->bessel * s->momentum, a->decay = s->decay;
    return 0;
}

static ea_check as_check(const cat_check_result *c)
{
    return (ea_check){c->rel_l2, c->max_abs, c->unwritten, c->nonfinite, c->mismatched, 0};
}

static void check_json(cJSON *o, const char *key, const cat_check_result *c)
{
    const ea_check k = as_check(c);
    ea_path_check_json(o, key, &k);
}

static int copy_back(dev *d, ea_error *err)
{
    for (int r = 0; r < CAT_NOUTS; r++) {
        int rc = d->out[r] ? (int)cudaMemcpy(d->host[r], d->out[r], d->bytes[r], cudaMemcpyDeviceToHost) : 0;
        if (rc)
            return ea_cuda_fail(err, "cat", d->s->alias, "copy an output back", rc);
    }
    return 0;
}

/* Which outputs the oracle wrote bit for bit as torch did (the capture's checksums). */
static cJSON *checksums_json(const dev *d, const ea_capture *cap, int *y_same)
{
    cJSON *o = cJSON_CreateObject();
    for (int r = 0; r < CAT_NOUTS; r++) {
        if (!d->host[r])
            continue;
        const ea_capture_tensor *t = &cap->outputs[d->s->out[r]];
        int same = ea_checksum(&t->t, d->host[r]) == t->checksum;
        cJSON_AddBoolToObject(o, out_names[r], same);
        if (r == CAT_O_Y)
            *y_same = same;
    }
    return o;
}

static int bad(const cat_check_result *c)
{
    return !(c->unwritten == 0 && c->nonfinite == 0 && c->mismatched == 0);
}

/* What a check that is bad found first, NULL when it is not bad. */
static const char *check_failure(const cat_check_result *r)
{
    if (!bad(r))
        return NULL;
    return r->cat_mismatched ? "the cat differs from its inputs"
           : r->unwritten    ? "outputs left unwritten"
           : r->nonfinite    ? "NaN or infinite outputs"
                             : "BN outputs outside the tolerance";
}

static int poison(void *ctx, ea_error *err)
{
    dev *d = ctx;
    int rc = 0;
    for (int r = 0; r < CAT_NOUTS && !rc; r++)
        rc = d->out[r] ? (int)cudaMemset(d->out[r], 0xFF, d->bytes[r]) : 0;
    return rc ? ea_cuda_fail(err, "cat", d->s->alias, "poison the outputs", rc) : 0;
}

/* The first check also records which outputs equal torch's (the capture's checksums). */
static int check_outputs(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    dev *d = ctx;
    if (copy_back(d, err))
        return -1;
    cat_check_result *r = &d->res[after_timing];
    if (!cat_checker_check(&d->ck, d->host, r)) { /* other bytes than last time: their checksums too */
        cJSON_Delete(d->seen_sums);
        d->seen_sums = NULL;
    }
    *c = as_check(r);
    if (!after_timing && !d->seen_sums)
        d->seen_sums = checksums_json(d, d->cap, &d->seen_y_same);
    if (!after_timing)
        d->sums = cJSON_Duplicate(d->seen_sums, 1), d->y_same = d->seen_y_same;
    return 0;
}

/* The oracle at layout d->p measured (ea_path_run) and judged; *sums: checksums_json's object. */
static int oracle_path(dev *d, const ea_capture *cap, const ea_timer_config *tc, const ea_kit_state *st,
                       const cat_check_result *cur, double slack, cJSON **sums, ea_path_outcome *out, ea_error *err)
{
    const int check_only = st->opts->check_only;
    char label[256];
    snprintf(label, sizeof label, "cat %s oracle %s unroll %d", d->s->alias, cat_variant_name(d->p), d->p->unroll);
    d->cap = cap, d->sums = NULL, d->y_same = 0;
    const ea_path_steps steps = {.label = label, .ctx = d, .poison = poison, .enqueue = enqueue,
                                 .check = check_outputs, .timer = tc};
    int rc = ea_kit_path(st, &steps, "oracle", "faithful", out, err);
    *sums = d->sums;
    if (rc)
        return -1;
    const cat_check_result *r0 = &d->res[0];
    const char *fail = check_failure(r0);
    if (!fail && !check_only && bad(&d->res[1])) /* check-only: no timing, so no second check */
        fail = "outputs differ after timing";
    else if (!fail && !d->y_same && !(r0->y_rel_l2 <= cur->y_rel_l2 * slack))
        fail = "less accurate than the current path";
    ea_path_verdict(out, fail);
    return 0;
}

/* The oracle's layouts (cat_plan_variants) as ea_path_tune measures them; sums[v]: layout v's
 * checksums_json, the kept one's reported in the view. */
typedef struct {
    dev *d;
    const cat_plan *plans;
    const ea_capture *cap;
    const ea_timer_config *tc;
    const ea_kit_state *st;
    const cat_check_result *emu;
    double slack;
    cJSON *sums[CAT_MAX_VARIANTS];
} layouts;

static int layout_measure(void *ctx, int v, ea_path_outcome *out, ea_error *err)
{
    layouts *l = ctx;
    l->d->p = &l->plans[v];
    if (oracle_path(l->d, l->cap, l->tc, l->st, l->emu, l->slack, &l->sums[v], out, err))
        return -1;
    if (l->st->opts->log)
        fprintf(l->st->opts->log, "cat %s: oracle %s unroll %d: %.2f us per call, rel L2 %.2e%s\n", l->d->s->alias,
                cat_variant_name(l->d->p), l->d->p->unroll, out->median_us, out->check.rel_l2,
                out->passed ? "" : ", failed");
    return 0;
}

static void layout_describe(void *ctx, int v, cJSON *o, int entry)
{
    const layouts *l = ctx;
    cJSON_AddStringToObject(o, "variant", cat_variant_name(&l->plans[v]));
    cJSON_AddNumberToObject(o, "unroll", l->plans[v].unroll);
}

/* A tuned run's outputs that are not the default run's bits (the capture's checksums): judged by cat_check as
 * an oracle's are; res[0] after the first call, res[1] after timing, each the path's check where judged[i]. */
typedef struct {
    const cat_scope *s;
    const cat_inputs *in;
    cat_check_result res[2];
    int judged[2];
} tuned_judge;

static int judge_tuned(void *ctx, int after_timing, void *const *outputs, char *why, size_t n)
{
    tuned_judge *j = ctx;
    void *outs[CAT_NOUTS] = {0};
    for (int r = 0; r < CAT_NOUTS; r++)
        outs[r] = j->s->out[r] >= 0 ? outputs[j->s->out[r]] : NULL;
    cat_check(j->s, j->in, outs, &j->res[after_timing]);
    j->judged[after_timing] = 1;
    const char *fail = check_failure(&j->res[after_timing]);
    if (fail)
        snprintf(why, n, "%s", fail);
    return fail ? -1 : 0;
}

/* One check of a replayed run: where its outputs were judged, the judge's; else the emulation's error (outputs
 * with torch's bits have the current path's) with the outputs that did not match as mismatched. */
static cat_check_result replay_check(const tuned_judge *j, int after_timing, const cat_check_result *emu, int unmatched)
{
    if (j->judged[after_timing])
        return j->res[after_timing];
    cat_check_result c = *emu;
    c.mismatched = unmatched;
    return c;
}

/* A captured run's Inductor kernels replayed (ea_replay_run_judged) as path name, judged by torch's checksums and
 * the kernels CUPTI saw; judged: outputs that are not those bits (the checksums are the default run's) go to
 * judge_tuned instead of failing. */
static int current_path(const cat_scope *s, const ea_capture *cap, const ea_capture_run *run, const char *name,
                        int judged, const cat_inputs *in, const ea_timer_config *tc, const ea_kit_state *st,
                        const cat_check_result *emu, ea_path_outcome *out, ea_error *err)
{
    const int check_only = st->opts->check_only;
    const ea_replay_timing how = check_only                                    ? EA_REPLAY_CHECK_ONLY
                                 : ea_kit_times_cold(st, name, "faithful") ? EA_REPLAY_WARM_COLD
                                                                               : EA_REPLAY_WARM;
    tuned_judge tj = {.s = s, .in = in};
    const ea_replay_judge judge = {judge_tuned, &tj};
    ea_replay_result rr, *res = &rr;
    memset(out, 0, sizeof *out);
    if (ea_replay_run_judged(cap, run, (const void *const *)in->data, tc, how, judged ? &judge : NULL, res, err))
        return ea_replay_result_free(res), -1; /* the oracle's inputs */
    int timed = res->timing.samples_us != NULL;
    cJSON *j = out->json = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", name);
    cJSON_AddStringToObject(j, "mode", "faithful");
    ea_path_kernels_json(j, res->kernels.count ? &res->kernels : NULL, res->cupti_error);
    /* replay.c checks the outputs after the first call and (when that passed) again after timing: a timed run's
     * first check passed, and res counts the last one */
    const int unmatched = res->outputs - res->outputs_matching - res->outputs_tolerant - res->outputs_judged;
    cat_check_result c = replay_check(&tj, 0, emu, timed ? 0 : unmatched);
    if (check_only) { /* one call, checked once: what a sanitizer wraps */
        cJSON_AddBoolToObject(j, "check_only", 1);
        check_json(j, "check", &c);
    } else {
        if (res->kernels.count)
            ea_path_launches_json(j, &res->kernels, 1);
        cJSON_AddItemToObject(j, "time", ea_path_time_json(&res->timing));
        if (timed && how == EA_REPLAY_WARM_COLD)
            ea_path_cold_json(j, &res->timing_cold);
        check_json(j, "check", &c);
        const cat_check_result after = replay_check(&tj, timed, emu, unmatched);
        check_json(j, "check_after_timing", &after);
    }
    const char *fail = unmatched ? res->first_mismatch
                       : res->kernels.count && !res->kernels_match
                           ? "CUPTI saw other kernels than the captured functions"
                           : NULL;
    ea_path_verdict(out, fail);
    out->median_us = check_only ? NAN : res->timing.per_call_us.median;
    out->check = as_check(&c);
    if (st->opts->log)
        fprintf(st->opts->log, "cat %s: %s %.2f us per call (%d launches; torch compiled %.2f us), outputs %d/%d match "
                "torch, %d judged by cat_check%s\n", s->alias, name, out->median_us, run->nsteps,
                res->torch_compiled_us, res->outputs_matching, res->outputs, res->outputs_judged,
                out->passed ? "" : ", failed");
    ea_replay_result_free(res);
    return 0;
}

/* The capture's coordinate_descent run beside the default one, where it is Triton launches only: Inductor as a
 * user who turns coordinate-descent tuning on gets it. 1 (nothing measured) where the capture has none. */
static int tuned_path(const cat_scope *s, const ea_capture *cap, const cat_inputs *in, const ea_timer_config *tc,
                      const ea_kit_state *st, const cat_check_result *emu, ea_path_outcome *out, ea_error *err)
{
    const ea_capture_run *run = ea_capture_run_tuned_replayable(cap);
    if (!run)
        return 1;
    return current_path(s, cap, run, EA_PATH_CURRENT_TUNED, 1, in, tc, st, emu, out, err);
}

cJSON *cat_measure(const cat_scope *s, const ea_capture *cap, const ea_kit_state *st, ea_error *err)
{
    const ea_run_opts *o = st->opts;
    const ea_capture_run *run = ea_capture_run_named(cap, "default");
    /* the capture's own calls per replay: the compiled time it recorded carries the same overhead share */
    ea_timer_config tc = {.calls_per_replay = (int)run->calls_per_replay, .replays = (int)run->replays};
    cJSON *res = cJSON_CreateObject(), *paths, *v;
    paths = cJSON_AddArrayToObject(res, "paths");
    cat_inputs in;
    if (cat_inputs_make(s, cap, &in, err))
        return cJSON_Delete(res), NULL;
    cat_check_result emu;
    const ea_capture_tensor *yt = &cap->outputs[s->out[CAT_O_Y]];
    void *ey = malloc((size_t)cat_output_bytes(cap, s->out[CAT_O_Y]));
    if (!ey)
        return cat_inputs_free(&in), cJSON_Delete(res), ea_fail(err, "cat %s: out of memory", s->alias), NULL;
    cat_emulate_current(s, &in, &emu, ey);
    /* when the emulation is torch's y bit for bit, its error is the current path's exactly */
    int emu_exact = ea_checksum(&yt->t, ey) == yt->checksum;
    free(ey);
    ea_path_outcome cur;
    if (current_path(s, cap, run, "current", 0, &in, &tc, st, &emu, &cur, err))
        return cat_inputs_free(&in), cJSON_Delete(res), NULL;
    cJSON_AddItemToArray(paths, cur.json);
    ea_path_outcome alt = {.passed = 1};
    int has_alt = tuned_path(s, cap, &in, &tc, st, &emu, &alt, err);
    if (has_alt < 0)
        return cat_inputs_free(&in), cJSON_Delete(res), NULL;
    if (has_alt == 0)
        cJSON_AddItemToArray(paths, alt.json);
    dev d;
    if (prepare(&d, s, cap, &in, err))
        return cat_inputs_free(&in), cJSON_Delete(res), NULL;
    cat_plan plans[CAT_MAX_VARIANTS];
    const int nvar = cat_plan_variants(s, plans, err);
    if (nvar < 0)
        return dev_free(&d), cat_inputs_free(&in), cJSON_Delete(res), NULL;
    layouts lay = {.d = &d, .plans = plans, .cap = cap, .tc = &tc, .st = st, .emu = &emu,
                   .slack = emu_exact ? CAT_EXACT_SLACK : CAT_EMULATION_SLACK};
    char label[256];
    snprintf(label, sizeof label, "cat %s oracle", s->alias);
    const ea_path_tuning t = {.label = label, .ctx = &lay, .n = nvar, .measure = layout_measure,
                              .describe = layout_describe};
    ea_path_tuned tuned;
    int broke = ea_path_tune(&t, &tuned, err);
    cJSON *best = tuned.kept.json, *best_sums = broke ? NULL : lay.sums[tuned.kept_v];
    for (int u = 0; u < nvar; u++)
        if (broke || u != tuned.kept_v)
            cJSON_Delete(lay.sums[u]);
    dev_free(&d);
    cat_inputs_free(&in);
    if (broke)
        return cJSON_Delete(res), NULL;
    cJSON_AddItemToArray(paths, best);
    /* the schema: a candidate that failed fails the scope, kept or not */
    int ok = cur.passed && alt.passed && tuned.kept.passed && tuned.passed == tuned.tried;
    cJSON_AddBoolToObject(res, "passed", ok);
    if (!ok) {
        char why[512] = "";
        if (tuned.first_failed >= 0)
            snprintf(why, sizeof why, "oracle %s unroll %d: %s",
                     cat_variant_name(&plans[tuned.first_failed]), plans[tuned.first_failed].unroll,
                     tuned.first_failure);
        if (cur.passed && !alt.passed)
            snprintf(why, sizeof why, "%s: %s", EA_PATH_CURRENT_TUNED, alt.failure);
        cJSON_AddStringToObject(res, "failure", !cur.passed ? cur.failure : why);
    }
    /* an id (prose.c): the sentence quotes the result's speedup, config.current_launches and view's y checksum when printed */
    if (!o->check_only) /* nothing timed, no speedup to state */
        cJSON_AddStringToObject(res, "verdict", "fused_kernel");
    /* what the view would copy is not stored (schema 3): the block figures are cat_view's, from the golden cats;
     * the launches config's current_launches and oracle.launches; the emulation's rel_l2 and max_abs the current
     * path's check */
    v = cJSON_AddObjectToObject(res, "view");
    cJSON_AddItemToObject(v, "oracle_checksums_equal_torch", best_sums);
    cJSON *e = cJSON_AddObjectToObject(v, "current_emulated");
    cJSON_AddNumberToObject(e, "y_outside_tolerance", (double)emu.y_outside);
    cJSON_AddBoolToObject(e, "y_bit_exact_with_torch", emu_exact);
    return res;
}
