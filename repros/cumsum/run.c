/* run.c: a position-id scope measured on the current GPU (contract in run.h). */
#include "gpu/device.h"
#include "run.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "measure/path.h"
#include "current.h"
#include "target/gen.h"
#include "kernels.h"
#include "reference.h"
#include "target/replay.h"
#include "run_impl.h"
#include "gpu/timer.h"

enum { P_CURRENT, P_TUNED, P_ORACLE, P_PATHS };
static const char *const path_names[P_PATHS] = {"current", EA_PATH_CURRENT_TUNED, "oracle"};

typedef struct {
    const cs_scope *s;
    int path;
    cs_current cur, tuned;          /* the capture's default run; its coordinate_descent run (has_tuned) */
    int has_tuned;
    int64_t *ids;                   /* device: the token ids (CS_MASK) */
    void *out[CS_MAX_OUTPUTS];      /* device: the scope's outputs, shared by every path */
    void *host[CS_MAX_OUTPUTS];     /* what a path wrote, copied back */
    void *ref[CS_MAX_OUTPUTS];      /* the CPU reference on the inputs in ids */
    cs_mask_shape shape;            /* CS_MASK: the oracle's launch variant */
    cs_const_shape cshape;          /* CS_CONST: the oracle's launch variant */
    cs_packed_shape pshape;         /* CS_PACKED: the oracle's launch variant */
    const ea_capture *cap;          /* run_path: its checksums, compared after the first call ... */
    int sums;                       /* ... all matched */
} dev;

static int oracle(const cs_scope *s, dev *d, void *stream)
{
    if (s->kind == CS_MASK)
        return cs_oracle_mask(&d->shape, s->rows, s->cols, s->pad, s->past, s->offset, d->ids,
                              s->mask_out ? d->out[0] : NULL, d->out[s->mask_out], stream);
    if (s->kind == CS_PACKED)
        return cs_oracle_packed(&d->pshape, s->rows, s->cols, s->start,
                                s->first_full ? s->first_value : s->start - s->first_value, s->step, d->out[0],
                                d->out[1], stream);
    return cs_oracle_const(&d->cshape, s->rows, s->cols, (float)s->fill, (float)s->sub, s->add, d->out[0], stream);
}

static int enqueue(void *ctx, void *stream, ea_error *err)
{
    dev *d = ctx;
    if (d->path != P_ORACLE)
        return cs_current_enqueue(d->path == P_CURRENT ? &d->cur : &d->tuned, stream, err);
    int rc = oracle(d->s, d, stream);
    return rc ? ea_cuda_fail(err, "cumsum", d->s->alias, "oracle launch", rc) : 0;
}

static int poison(void *ctx, ea_error *err)
{
    const dev *d = ctx;
    for (int i = 0; i < d->s->noutputs; i++) {
        int rc = (int)cudaMemset(d->out[i], 0xFF, (size_t)cs_output_bytes(d->s, i));
        if (rc)
            return ea_cuda_fail(err, "cumsum", d->s->alias, "poison an output", rc);
    }
    return 0;
}

/* Copies every output back and compares it with d->ref: counts add up, errors take the worst output. */
static int judge_outputs(dev *d, ea_check *c, ea_error *err)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < d->s->noutputs; i++) {
        ea_check one;
        int rc = (int)cudaMemcpy(d->host[i], d->out[i], (size_t)cs_output_bytes(d->s, i), cudaMemcpyDeviceToHost);
        if (rc)
            return ea_cuda_fail(err, "cumsum", d->s->alias, "copy an output back", rc);
        cs_compare(d->s, i, d->host[i], d->ref[i], &one);
        c->unwritten += one.unwritten;
        c->mismatched += one.mismatched;
        c->n += one.n;
        c->max_abs = fmax(c->max_abs, one.max_abs);
        c->rel_l2 = fmax(c->rel_l2, one.rel_l2);
    }
    return 0;
}

/* 1 when every output copied back hashes to the capture's checksum. */
static int checksums_match(const dev *d, const ea_capture *c)
{
    for (int i = 0; i < d->s->noutputs; i++)
        if (ea_checksum(&d->s->outputs[i], d->host[i]) != c->outputs[i].checksum)
            return 0;
    return 1;
}

/* One checked call of the current path: poison, run, copy back, compare. */
static int checked_call(dev *d, int path, ea_check *c, ea_error *err)
{
    d->path = path;
    if (poison(d, err) || enqueue(d, NULL, err))
        return -1;
    int rc = (int)cudaDeviceSynchronize();
    return rc ? ea_cuda_fail(err, "cumsum", d->s->alias, "run", rc) : judge_outputs(d, c, err);
}

static int check_outputs(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    dev *d = ctx;
    if (judge_outputs(d, c, err))
        return -1;
    if (!after_timing)
        d->sums = checksums_match(d, d->cap);
    return 0;
}

/* The oracle's launch variant v of the scope's kind set up in d: 0 where it does not apply. */
static int variant_set(dev *d, int v)
{
    const cs_scope *s = d->s;
    if (s->kind == CS_PACKED)
        return cs_packed_variant(v, s->cols, &d->pshape);
    return s->kind == CS_MASK ? cs_mask_variant(v, s->cols, &d->shape) : cs_const_variant(v, s->rows, s->cols, &d->cshape);
}

/* " (row: 2 pairs, 8 warps, 1 segment)", " (flat: 1 element a thread, 128 threads a CTA)", " (t256: 4 items a thread,
 * 256 threads a CTA)". */
static void variant_text(const dev *d, char *text, size_t n)
{
    *text = '\0';
    if (d->s->kind == CS_MASK)
        cs_mask_shape_text(&d->shape, text, n);
    else if (d->s->kind == CS_CONST)
        cs_const_shape_text(&d->cshape, text, n);
    else if (d->s->kind == CS_PACKED)
        cs_packed_shape_text(&d->pshape, text, n);
}

/* The path measured (ea_kit_path) and judged; *sums: the checksums matched the capture's. */
static int run_path(dev *d, int path, const ea_capture *c, const ea_kit_state *st, int *sums, ea_path_outcome *out,
                    ea_error *err)
{
    const ea_run_opts *o = st->opts;
    d->path = path, d->cap = c;
    if (ea_kit_path(st, &(ea_path_steps){.ctx = d, .poison = poison, .enqueue = enqueue, .check = check_outputs},
                    path_names[path], "faithful", out, err))
        return -1;
    *sums = d->sums;
    ea_path_judge_outcome(out, -1, 1, 0);
    if (o->log) {
        char shape[96] = "";
        if (path == P_ORACLE)
            variant_text(d, shape, sizeof shape);
        fprintf(o->log, "cumsum %s %s: %s%s %.3f us per call, %" PRId64 " mismatched\n", d->s->alias, d->s->scope_id,
                path_names[path], shape, out->median_us, out->check.mismatched + out->check.unwritten);
    }
    return 0;
}

static void dev_free(dev *d)
{
    cs_current_free(&d->cur);
    cs_current_free(&d->tuned);
    cudaFree(d->ids);
    for (int i = 0; i < CS_MAX_OUTPUTS; i++) {
        cudaFree(d->out[i]);
        free(d->host[i]);
        free(d->ref[i]);
    }
}

static int prepare(dev *d, const cs_scope *s, const ea_capture *c, const ea_capture_run *run, const int64_t *ids,
                   ea_error *err)
{
    void *bufs[1 + CS_MAX_OUTPUTS];
    int rc = 0, k = 0;
    memset(d, 0, sizeof *d);
    d->s = s;
    if (ids) {
        size_t bytes = (size_t)(s->rows * s->cols * 8);
        rc = (int)cudaMalloc((void **)&d->ids, bytes);
        if (!rc)
            rc = (int)cudaMemcpy(d->ids, ids, bytes, cudaMemcpyHostToDevice);
        bufs[k++] = d->ids;
    }
    for (int i = 0; i < s->noutputs && !rc; i++) {
        size_t bytes = (size_t)cs_output_bytes(s, i);
        rc = (int)cudaMalloc(&d->out[i], bytes);
        d->host[i] = malloc(bytes);
        d->ref[i] = malloc(bytes);
        if (!rc && (!d->host[i] || !d->ref[i]))
            return dev_free(d), ea_fail(err, "cumsum %s: out of memory", s->alias);
        bufs[k++] = d->out[i];
    }
    if (rc)
        return dev_free(d), ea_cuda_fail(err, "cumsum", s->alias, "allocate and upload the scope's buffers", rc);
    /* the tuned run where it is Triton launches only: Inductor as a user who turns coordinate-descent tuning on gets it */
    const ea_capture_run *tuned = ea_capture_run_tuned_replayable(c);
    d->has_tuned = tuned != NULL;
    if (cs_current_bind(&d->cur, c, run, bufs, err) || (d->has_tuned && cs_current_bind(&d->tuned, c, tuned, bufs, err)))
        return dev_free(d), -1;
    cs_reference(s, ids, d->ref);
    return 0;
}

static void check_flag(cJSON *o, const char *key, int ok, int *all)
{
    cJSON_AddBoolToObject(o, key, ok);
    *all &= ok;
}

static int same_shape(const cs_mask_shape *a, const cs_mask_shape *b)
{
    return a->pairs == b->pairs && a->warps == b->warps && a->split == b->split;
}

/* The oracle's variants other than the kept one, one checked call each: 1 when all are exact, -1 broke. */
static int other_variants_exact(dev *d, int *checked, ea_error *err)
{
    const cs_mask_shape kept = d->shape;
    int exact = 1;
    for (int v = 0; v < CS_MASK_VARIANTS; v++) {
        ea_check c;
        if (!cs_mask_variant(v, d->s->cols, &d->shape) || same_shape(&d->shape, &kept))
            continue;
        if (checked_call(d, P_ORACLE, &c, err))
            return d->shape = kept, -1;
        exact &= c.unwritten == 0 && c.mismatched == 0;
        ++*checked;
    }
    d->shape = kept;
    return exact;
}

/* Every path once more on a right-padded batch (CS_MASK), against its own reference: the oracle's
 * record is its kept variant's, its flag covers every variant. */
static int padded(dev *d, const int64_t *ids, cJSON *view, int *ok, ea_error *err)
{
    const cs_scope *s = d->s;
    size_t bytes = (size_t)(s->rows * s->cols * 8);
    int64_t *pad = malloc(bytes), *len = malloc((size_t)s->rows * sizeof *len), full = 0, padded_rows = 0;
    if (!pad || !len)
        return free(pad), free(len), ea_fail(err, "cumsum %s: out of memory", s->alias);
    memcpy(pad, ids, bytes);
    cs_pad_tails(s, CS_PAD_SEED, pad, len);
    for (int64_t r = 0; r < s->rows; r++)
        len[r] == s->cols ? full++ : padded_rows++;
    cJSON *p = cJSON_AddObjectToObject(view, "padded");
    /* the capture's ids, right-padded with config.literals.pad: row 0 full, row r a prefix of 1 + hash(pad_seed, r)
     * % cols tokens (reference.h, cs_pad_tails) */
    cJSON_AddNumberToObject(p, "pad_seed", CS_PAD_SEED);
    cJSON_AddNumberToObject(p, "rows_full", (double)full);
    cJSON_AddNumberToObject(p, "rows_padded", (double)padded_rows);
    int rc = (int)cudaMemcpy(d->ids, pad, bytes, cudaMemcpyHostToDevice);
    if (rc) {
        free(pad), free(len);
        return ea_cuda_fail(err, "cumsum", s->alias, "upload the padded batch", rc);
    }
    cs_reference(s, pad, d->ref);
    free(pad);
    free(len);
    for (int path = P_CURRENT; path < P_PATHS; path++) {
        ea_check c;
        int checked = 1, others = 1;
        if (path == P_TUNED && !d->has_tuned)
            continue;
        if (checked_call(d, path, &c, err) || (path == P_ORACLE && (others = other_variants_exact(d, &checked, err)) < 0))
            return -1;
        ea_path_check_json(p, path_names[path], &c);
        char key[32];
        snprintf(key, sizeof key, "%s_exact", path_names[path]);
        check_flag(p, key, c.unwritten == 0 && c.mismatched == 0 && others, ok);
        if (path == P_ORACLE)
            cJSON_AddNumberToObject(p, "oracle_variants_checked", checked);
    }
    return 0;
}

/* The capture replayed by src/target/replay.c on its own inputs: checksums and time, a second witness. */
static int replay_witness(const ea_capture *c, const ea_capture_run *run, const ea_run_opts *o, cJSON *view, int *ok,
                          ea_error *err)
{
    ea_replay_result res;
    if (ea_replay_run(c, run, NULL, o->check_only ? EA_REPLAY_CHECK_ONLY : EA_REPLAY_WARM, &res, err))
        return ea_replay_result_free(&res), -1;
    cJSON *r = cJSON_AddObjectToObject(view, "replay");
    cJSON_AddNumberToObject(r, "outputs", res.outputs);
    cJSON_AddNumberToObject(r, "outputs_matching", res.outputs_matching);
    if (res.first_mismatch[0])
        cJSON_AddStringToObject(r, "first_mismatch", res.first_mismatch);
    cJSON_AddBoolToObject(r, "kernels_match", res.kernels_match);
    if (res.timing.samples_us)
        cJSON_AddNumberToObject(r, "median_us", res.timing.per_call_us.median);
    cJSON_AddNumberToObject(r, "torch_compiled_us", res.torch_compiled_us);
    *ok &= res.outputs_matching == res.outputs;
    ea_replay_result_free(&res);
    return 0;
}

const char *cs_verdict(double current_us, double oracle_us)
{
    if (!(current_us > 0) || !(oracle_us > 0))
        return NULL;
    return current_us / oracle_us <= CS_HEADROOM_RATIO ? "no_material_headroom" : "headroom";
}

const char *cs_result_verdict(const cJSON *result)
{
    return cs_verdict(ea_path_median(ea_path_named(result, "current", "faithful")),
                      ea_path_median(ea_path_named(result, "oracle", "faithful")));
}

/* The oracle's launch variants as ea_path_tune measures them: a variant passes when its checks do
 * and its outputs hash to the capture's checksums; *sums takes every variant's hashes. */
typedef struct {
    dev *d;
    const ea_capture *c;
    const ea_kit_state *st;
    int *sums;
} oracle_tuning;

static int variant_measure(void *ctx, int v, ea_path_outcome *out, ea_error *err)
{
    oracle_tuning *t = ctx;
    int sum = 0;
    if (!variant_set(t->d, v))
        return 1;
    if (run_path(t->d, P_ORACLE, t->c, t->st, &sum, out, err))
        return -1;
    *t->sums &= sum;
    out->passed &= sum;
    if (!out->passed)
        snprintf(out->failure, sizeof out->failure, "%s", sum ? "its check or check_after_timing failed"
                                                              : "its outputs do not hash to the capture's checksums");
    return 0;
}

static void variant_describe(void *ctx, int v, cJSON *o, int entry)
{
    const oracle_tuning *t = ctx;
    cs_oracle_variant_json(t->d->s, v, o, entry);
}

/* The oracle at each launch variant that applies (cs_mask_variant, cs_const_variant, cs_packed_variant), each run and
 * checked in full by run_path; ea_path_tune keeps the fastest of those that passed in d's shape and *out (a
 * failed one only when none passed, so the failure shows), every variant listed in its "candidates". *sums:
 * every variant's outputs hashed to the capture's checksums; *ok takes every variant's checks. -1 when a run
 * broke. */
static int tuned_oracle(dev *d, const ea_capture *c, const ea_kit_state *st, int *sums, int *ok, ea_path_outcome *out,
                        ea_error *err)
{
    const ea_run_opts *o = st->opts;
    char label[256];
    oracle_tuning ot = {.d = d, .c = c, .st = st, .sums = sums};
    const char *kind = cs_kind_name(d->s->kind);
    snprintf(label, sizeof label, "cumsum %s %s oracle", d->s->alias, kind);
    const ea_path_tuning t = {.label = label, .ctx = &ot, .n = cs_oracle_variants(d->s->kind),
                              .measure = variant_measure, .describe = variant_describe};
    ea_path_tuned r;
    *sums = 1;
    if (ea_path_tune(&t, &r, err))
        return -1;
    variant_set(d, r.kept_v);
    *ok &= r.passed == r.tried;
    *out = r.kept;
    if (o->log) {
        char text[96];
        variant_text(d, text, sizeof text);
        fprintf(o->log, "cumsum %s: the %s oracle keeps%s: %.3f us per call%s\n", d->s->alias, kind, text,
                out->median_us, out->passed ? "" : ", though no variant passed");
    }
    return 0;
}

cJSON *cs_measure(const cs_scope *s, const ea_capture *c, const ea_capture_run *run, const ea_kit_state *st,
                  ea_error *err)
{
    const ea_run_opts *o = st->opts;
    int64_t *ids = NULL;
    dev d;
    int ok = 1, sums[P_PATHS] = {0, 0, 0};
    if (cs_inputs_make(s, c, &ids, err) || prepare(&d, s, c, run, ids, err))
        return free(ids), NULL;
    cJSON *res = cJSON_CreateObject(), *paths, *view, *sum;
    ea_path_outcome pj[P_PATHS];
    paths = cJSON_AddArrayToObject(res, "paths");
    view = cJSON_CreateObject();
    sum = cJSON_AddObjectToObject(view, "capture_checksums");
    /* the reference hashed like torch's outputs: the chain reference == torch holds on these inputs */
    int ref_ok = 1;
    for (int i = 0; i < s->noutputs; i++)
        ref_ok &= ea_checksum(&s->outputs[i], d.ref[i]) == c->outputs[i].checksum;
    check_flag(sum, "reference", ref_ok, &ok);
    int broke = 0;
    for (int path = P_CURRENT; path < P_PATHS && !broke; path++) {
        if (path == P_TUNED && !d.has_tuned)
            continue;
        broke = path == P_ORACLE ? tuned_oracle(&d, c, st, &sums[path], &ok, &pj[path], err)
                                 : run_path(&d, path, c, st, &sums[path], &pj[path], err);
        if (!broke) {
            cJSON_AddItemToArray(paths, pj[path].json);
            check_flag(sum, path_names[path], sums[path], &ok);
            ok &= pj[path].passed;
        }
    }
    if (!broke && s->kind == CS_MASK)
        broke = padded(&d, ids, view, &ok, err);
    if (!broke)
        broke = replay_witness(c, run, o, view, &ok, err);
    dev_free(&d);
    free(ids);
    if (broke) {
        cJSON_Delete(view);
        cJSON_Delete(res);
        return NULL;
    }
    cJSON_AddBoolToObject(res, "passed", ok);
    if (!ok)
        cJSON_AddStringToObject(res, "failure", "a path, the padded batch, the reference's checksums or the capture "
                                                "replay failed its check (see paths and view)");
    const char *v = ok ? cs_verdict(pj[P_CURRENT].median_us, pj[P_ORACLE].median_us) : NULL;
    if (v)
        cJSON_AddStringToObject(res, "verdict", v);
    cJSON_AddItemToObject(res, "view", view);
    return res;
}
