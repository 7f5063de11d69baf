/* reference.c: the cat scope's inputs, its fp64 reference and the checks against it (contract in cat.h).
 * Nothing of size N*C*H*W is materialised in fp64: the reference is computed per element while comparing. */
#include "cat.h"
#include "cat_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target/gen.h"
#include "stream_block.h"

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

double cat_rounding(ea_dtype dt)
{
    return dt == EA_F32 ? 0x1p-24 : dt == EA_F16 ? 0x1p-11 : 0x1p-8;
}

/* Every byte of element i still the 0xFF poison: unwritten. */
static int poisoned(const void *p, int64_t i, int es)
{
    const unsigned char *b = (const unsigned char *)p + i * es;
    for (int k = 0; k < es; k++)
        if (b[k] != 0xFF)
            return 0;
    return 1;
}

/* One channel's BN terms: fp64 (the reference) and Inductor's fp32 (the emulation). */
typedef struct {
    double mean, scale, w, b, var; /* var: train, biased */
    float fmean, fscale, fw, fb;
} chan;

/* Row (n, lc) of input i: its first element's address, elements of the scope's dtype. */
static const void *row(const cat_scope *s, const cat_inputs *in, int i, int64_t n, int64_t lc)
{
    return (const char *)in->data[s->in_x[i]] + (n * s->ch[i] + lc) * s->hw * cat_size(s->dt);
}

static float param_f(const cat_scope *s, const cat_inputs *in, int which, int64_t c)
{
    return cat_val(in->data[s->in_param[which]], (size_t)c, s->train ? EA_F32 : s->dt);
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
            const void *x = row(s, in, i, n, c - s->c_off[i]);
            for (int64_t p = 0; p < s->hw; p++)
                sum += cat_val(x, p, s->dt), fsum += cat_val(x, p, s->dt);
        }
        q->mean = sum / m;
        q->fmean = fsum / (float)m;
        for (int64_t n = 0; n < s->n; n++) {
            const void *x = row(s, in, i, n, c - s->c_off[i]);
            for (int64_t p = 0; p < s->hw; p++) {
                double d = cat_val(x, p, s->dt) - q->mean;
                float fd = cat_val(x, p, s->dt) - q->fmean;
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

/* Element i of y (the scope's dtype, es bytes) against its fp64 value r with magnitude m (CAT_TOL's bound,
 * u: cat_rounding). Inline, its size and rounding passed in: it runs once per element of every walk. */
static inline void judge_y(int dt, int es, double u, const void *y, int64_t i, double r, double m, acc *a)
{
    float g = cat_val(y, (size_t)i, dt);
    if (poisoned(y, i, es)) {
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
    if (!(e <= u * fabs(r) + CAT_TOL * m))
        a->outside++;
}

/* fmax(0, x), value and sign, without a libm call for all but zeros (whose sign fmax leaves to the platform):
 * the walks below call it and cat_reluf (stream_block.h) once per element each. */
static inline double relu(double x)
{
    return x > 0 ? x : x < 0 || isnan(x) ? 0.0 : fmax(0.0, x);
}

/* Walks y in row-major order: got == NULL judges Inductor's fp32 arithmetic as emulated here (rounded to
 * the scope's dtype into one element of scratch, whose bytes emit receives when given). Inlined once per
 * dtype (walk_y), so dt and es are constants there and the element loop has no conversion switch and no
 * call but fmaf's and the rounding's: the suite walks about 3 * 10^8 elements a run. The totals stay in locals
 * until the end, where a store through a to every element would keep them in memory. */
static inline __attribute__((always_inline)) void walk_dt(const cat_scope *s, const cat_inputs *in, const chan *ch,
                                                         const void *got, void *emit, acc *a, const int dt)
{
    const int es = cat_size(dt);
    const double u = cat_rounding(dt);
    acc t = *a;
    float scratch;
    for (int64_t n = 0; n < s->n; n++) {
        int i = 0;
        for (int64_t c = 0; c < s->c; c++) {
            while (c >= s->c_off[i + 1])
                i++;
            const chan *q = &ch[c];
            const void *x = row(s, in, i, n, c - s->c_off[i]);
            const double sw = fabs(q->scale * q->w);
            double rsum = 0, msum = 0;
            float fsum = 0;
            for (int64_t p = 0; p < s->hw; p++) {
                const float xf = cat_val(x, (size_t)p, dt);
                double xv = xf, r = relu((xv - q->mean) * q->scale * q->w + q->b);
                double m = (fabs(xv) + fabs(q->mean)) * sw + fabs(q->b);
                float yv = got ? 0 : cat_reluf(fmaf((xf - q->fmean) * q->fscale, q->fw, q->fb));
                if (s->pooled) {
                    rsum += r, msum += m, fsum += yv;
                    continue;
                }
                const int64_t at = (n * s->c + c) * s->hw + p;
                if (got) {
                    judge_y(dt, es, u, got, at, r, m, &t);
                    continue;
                }
                cat_put(&scratch, 0, dt, yv);
                if (emit)
                    memcpy((char *)emit + at * es, &scratch, (size_t)es);
                judge_y(dt, es, u, &scratch, 0, r, m, &t);
            }
            if (!s->pooled)
                continue;
            const double rm = rsum / (double)s->hw, mm = msum / (double)s->hw;
            const float fm = fsum / (float)s->hw;
            if (got) {
                judge_y(dt, es, u, got, n * s->c + c, rm, mm, &t);
                continue;
            }
            cat_put(&scratch, 0, dt, fm);
            if (emit)
                memcpy((char *)emit + (n * s->c + c) * es, &scratch, (size_t)es);
            judge_y(dt, es, u, &scratch, 0, rm, mm, &t);
        }
    }
    *a = t;
}

static void walk_y(const cat_scope *s, const cat_inputs *in, const chan *ch, const void *got, void *emit, acc *a)
{
    switch (s->dt) {
    case EA_BF16: walk_dt(s, in, ch, got, emit, a, EA_BF16); break;
    case EA_F16: walk_dt(s, in, ch, got, emit, a, EA_F16); break;
    default: walk_dt(s, in, ch, got, emit, a, EA_F32); break;
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

/* The cat against its inputs, element by element in bytes: bit-exact or poison (unwritten). */
static int64_t cat_bits(const cat_scope *s, const cat_inputs *in, const void *got, int64_t *unwritten)
{
    const int es = cat_size(s->dt);
    int64_t bad = 0;
    for (int64_t n = 0; n < s->n; n++)
        for (int i = 0; i < s->k; i++) {
            const char *x = row(s, in, i, n, 0), *g = (const char *)got + (n * s->c + s->c_off[i]) * s->hw * es;
            for (int64_t e = 0; e < s->ch[i] * s->hw; e++) {
                int unset = poisoned(g, e, es);
                *unwritten += unset;
                bad += !unset && memcmp(g + e * es, x + e * es, (size_t)es) != 0;
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

void cat_emulate_current(const cat_scope *s, const cat_inputs *in, cat_check_result *r, void *y)
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
