/* reference.c: the cat scope's inputs, its fp64 reference and the checks against it (contract in cat.h).
 * Nothing of size N*C*H*W is materialised in fp64: the reference is computed per element while comparing. */
#include "cat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int cat_inputs_make(const cat_scope *s, const ea_capture *cap, cat_inputs *in, ea_error *err)
{
    memset(in, 0, sizeof *in);
    if (cap->ninputs > CAT_MAX_INPUTS + CAT_NPARAMS)
        return ea_fail(err, "%s $.inputs: expected at most %d inputs, got %d", cap->file, CAT_MAX_INPUTS + CAT_NPARAMS,
                       cap->ninputs);
    for (int i = 0; i < cap->ninputs; i++, in->n++) {
        const ea_capture_tensor *t = &cap->inputs[i];
        char where[600];
        snprintf(where, sizeof where, "%s $.inputs[%d]", cap->file, i);
        int64_t bytes = ea_storage_bytes(&t->t);
        in->data[i] = malloc((size_t)(bytes > 0 ? bytes : 1));
        if (!in->data[i])
            return cat_inputs_free(in), ea_fail(err, "%s: cannot allocate %lld bytes", where, (long long)bytes);
        if (ea_gen_fill(t->values.json, &t->t, in->data[i], where, err))
            return in->n++, cat_inputs_free(in), -1;
    }
    return 0;
}

void cat_inputs_free(cat_inputs *in)
{
    for (int i = 0; i < in->n; i++)
        free(in->data[i]);
    memset(in, 0, sizeof *in);
}

int64_t cat_output_bytes(const ea_capture *cap, int out)
{
    return ea_storage_bytes(&cap->outputs[out].t);
}

static float bf(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* One channel's BN terms: fp64 (the reference) and Inductor's fp32 (the emulation). */
typedef struct {
    double mean, scale, w, b, var; /* var: train, biased */
    float fmean, fscale, fw, fb;
} chan;

static const uint16_t *row(const cat_scope *s, const cat_inputs *in, int i, int64_t n, int64_t lc)
{
    return (const uint16_t *)in->data[s->in_x[i]] + (n * s->ch[i] + lc) * s->hw;
}

static float param_f(const cat_scope *s, const cat_inputs *in, int which, int64_t c)
{
    const void *p = in->data[s->in_param[which]];
    return s->train ? ((const float *)p)[c] : bf(((const uint16_t *)p)[c]);
}

/* Per-channel terms. Train: two-pass statistics over N*H*W, fp64 and (emulation) sequential fp32. */
static chan *channels(const cat_scope *s, const cat_inputs *in)
{
    chan *ch = calloc((size_t)s->c, sizeof *ch);
    if (!ch)
        return NULL;
    const float feps = (float)s->eps;
    int i = 0;
    for (int64_t c = 0; c < s->c; c++) {
        while (c >= s->c_off[i + 1])
            i++;
        chan *q = &ch[c];
        q->fw = param_f(s, in, CAT_P_WEIGHT, c), q->fb = param_f(s, in, CAT_P_BIAS, c);
        q->w = q->fw, q->b = q->fb;
        if (!s->train) {
            q->fmean = param_f(s, in, CAT_P_MEAN, c);
            float v = param_f(s, in, CAT_P_VAR, c);
            q->mean = q->fmean;
            q->scale = 1.0 / sqrt((double)v + s->eps);
            q->fscale = 1.0f / sqrtf(v + feps);
            continue;
        }
        double sum = 0, dev = 0;
        float fsum = 0, fdev = 0;
        const double m = (double)(s->n * s->hw);
        for (int64_t n = 0; n < s->n; n++) {
            const uint16_t *x = row(s, in, i, n, c - s->c_off[i]);
            for (int64_t p = 0; p < s->hw; p++)
                sum += bf(x[p]), fsum += bf(x[p]);
        }
        q->mean = sum / m;
        q->fmean = fsum / (float)m;
        for (int64_t n = 0; n < s->n; n++) {
            const uint16_t *x = row(s, in, i, n, c - s->c_off[i]);
            for (int64_t p = 0; p < s->hw; p++) {
                double d = bf(x[p]) - q->mean;
                float fd = bf(x[p]) - q->fmean;
                dev += d * d, fdev += fd * fd;
            }
        }
        q->var = dev / m;
        q->scale = 1.0 / sqrt(q->var + s->eps);
        q->fscale = 1.0f / sqrtf(fdev / (float)m + feps);
    }
    return ch;
}

typedef struct {
    double num, den, max_abs;
    int64_t outside, unwritten, nonfinite;
} acc;

/* A bf16 result against its fp64 value r with magnitude m (CAT_TOL's bound). */
static void judge_bf16(uint16_t bits, double r, double m, acc *a)
{
    float g = bf(bits);
    if (bits == 0xFFFF) {
        a->unwritten++;
        return;
    }
    if (!isfinite(g)) {
        a->nonfinite++;
        return;
    }
    double e = fabs((double)g - r);
    a->num += e * e, a->den += r * r;
    if (e > a->max_abs)
        a->max_abs = e;
    if (!(e <= 0x1p-8 * fabs(r) + CAT_TOL * m))
        a->outside++;
}

/* Walks y in row-major order: got == NULL judges Inductor's fp32 arithmetic as emulated here, and
 * writes it to emit when given. */
static void walk_y(const cat_scope *s, const cat_inputs *in, const chan *ch, const uint16_t *got, uint16_t *emit,
                   acc *a)
{
    for (int64_t n = 0; n < s->n; n++) {
        int i = 0;
        for (int64_t c = 0; c < s->c; c++) {
            while (c >= s->c_off[i + 1])
                i++;
            const chan *q = &ch[c];
            const uint16_t *x = row(s, in, i, n, c - s->c_off[i]);
            const double sw = fabs(q->scale * q->w);
            double rsum = 0, msum = 0;
            float fsum = 0;
            for (int64_t p = 0; p < s->hw; p++) {
                double xv = bf(x[p]), r = fmax(0.0, (xv - q->mean) * q->scale * q->w + q->b);
                double m = (fabs(xv) + fabs(q->mean)) * sw + fabs(q->b);
                float yv = got ? 0 : fmaxf(0.0f, fmaf((bf(x[p]) - q->fmean) * q->fscale, q->fw, q->fb));
                if (s->pooled) {
                    rsum += r, msum += m, fsum += yv;
                    continue;
                }
                const int64_t at = (n * s->c + c) * s->hw + p;
                if (emit)
                    emit[at] = ea_f32_to_bf16(yv);
                judge_bf16(got ? got[at] : ea_f32_to_bf16(yv), r, m, a);
            }
            if (!s->pooled)
                continue;
            if (emit)
                emit[n * s->c + c] = ea_f32_to_bf16(fsum / (float)s->hw);
            judge_bf16(got ? got[n * s->c + c] : ea_f32_to_bf16(fsum / (float)s->hw), rsum / (double)s->hw,
                       msum / (double)s->hw, a);
        }
    }
}

static double rel(const acc *a)
{
    return a->den > 0 ? sqrt(a->num / a->den) : sqrt(a->num);
}

/* An fp32 statistic against fp64, relative. */
static void judge_f32(const float *got, const double *ref, int64_t n, acc *a)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        if (bits == 0xFFFFFFFFu) {
            a->unwritten++;
            continue;
        }
        if (!isfinite(got[i])) {
            a->nonfinite++;
            continue;
        }
        double e = fabs((double)got[i] - ref[i]);
        a->num += e * e, a->den += ref[i] * ref[i];
        if (e > a->max_abs)
            a->max_abs = e;
        if (!(e <= CAT_STAT_TOL * fabs(ref[i])))
            a->outside++;
    }
}

static int64_t cat_bits(const cat_scope *s, const cat_inputs *in, const uint16_t *got, int64_t *unwritten)
{
    int64_t bad = 0;
    for (int64_t n = 0; n < s->n; n++)
        for (int i = 0; i < s->k; i++) {
            const uint16_t *x = row(s, in, i, n, 0), *g = got + (n * s->c + s->c_off[i]) * s->hw;
            for (int64_t e = 0; e < s->ch[i] * s->hw; e++) {
                *unwritten += g[e] == 0xFFFF;
                bad += g[e] != x[e] && g[e] != 0xFFFF;
            }
        }
    return bad;
}

void cat_check(const cat_scope *s, const cat_inputs *in, void *const outs[CAT_NOUTS], cat_check_result *r)
{
    memset(r, 0, sizeof *r);
    chan *ch = channels(s, in);
    if (!ch) { /* no memory: nothing can be judged, so nothing passes */
        r->rel_l2 = r->max_abs = NAN;
        r->mismatched = 1;
        return;
    }
    acc y = {0};
    walk_y(s, in, ch, outs[CAT_O_Y], NULL, &y);
    r->rel_l2 = r->y_rel_l2 = rel(&y), r->max_abs = y.max_abs;
    r->y_outside = y.outside;
    r->unwritten = y.unwritten, r->nonfinite = y.nonfinite;
    if (outs[CAT_O_CAT])
        r->cat_mismatched = cat_bits(s, in, outs[CAT_O_CAT], &r->unwritten);
    double *ref = malloc((size_t)s->c * sizeof *ref);
    for (int o = CAT_O_MEAN; ref && o <= CAT_O_RV; o++) {
        if (!outs[o])
            continue;
        for (int64_t c = 0; c < s->c; c++) {
            const chan *q = &ch[c];
            ref[c] = o == CAT_O_MEAN ? q->mean
                     : o == CAT_O_RSTD ? q->scale
                                       : q->var * s->bessel * s->momentum + param_f(s, in, CAT_P_VAR, c) * s->decay;
        }
        acc a = {0};
        judge_f32(outs[o], ref, s->c, &a);
        r->stats_outside += a.outside, r->unwritten += a.unwritten, r->nonfinite += a.nonfinite;
        r->rel_l2 = fmax(r->rel_l2, rel(&a));
        r->max_abs = fmax(r->max_abs, a.max_abs);
    }
    if (!ref)
        r->stats_outside++;
    r->mismatched = r->cat_mismatched + r->y_outside + r->stats_outside;
    free(ref);
    free(ch);
}

void cat_emulate_current(const cat_scope *s, const cat_inputs *in, cat_check_result *r, uint16_t *y)
{
    memset(r, 0, sizeof *r);
    chan *ch = channels(s, in);
    if (!ch) {
        r->rel_l2 = r->max_abs = NAN;
        r->mismatched = 1;
        return;
    }
    acc a = {0};
    walk_y(s, in, ch, NULL, y, &a);
    free(ch);
    r->rel_l2 = r->y_rel_l2 = rel(&a), r->max_abs = a.max_abs;
    r->y_outside = r->mismatched = a.outside;
    r->nonfinite = a.nonfinite;
}
