/* cat_small.c: small hand-built cat scopes and their checks (contract in cat_small.h). */
#include "cat_small.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/cat/cat_impl.h"
#include "../repros/cat/stream_block.h"
#include "target/gen.h"
#include "target/gen_impl.h"

/* m->s's inputs from gen.h's uniform stream (input 1 negated), its parameters (train: f32), each in the
 * role order a capture has, and buffers for the outputs it keeps. */
static void fill(small *m)
{
    cat_scope *s = &m->s;
    const int es = ea_dtype_size(s->dt);
    for (int i = 0; i < s->k; i++) {
        int64_t n = s->n * s->ch[i] * s->hw;
        void *x = malloc((size_t)n * es);
        for (int64_t e = 0; e < n; e++)
            cat_put(x, (size_t)e, s->dt, ea_gen_uniform((uint64_t)i + 7, (uint64_t)e) * (i == 1 ? -1.0f : 1.0f));
        s->in_x[i] = m->in.n;
        m->in.data[m->in.n++] = x;
    }
    for (int i = 0; i < CAT_NPARAMS; i++)
        s->in_param[i] = -1;
    for (int q = s->train ? 1 : 0; q < CAT_NPARAMS; q++) {
        void *p = malloc((size_t)s->c * 4);
        for (int64_t c = 0; c < s->c; c++)
            cat_put(p, (size_t)c, s->train ? EA_F32 : s->dt, ea_gen_uniform(100 + (uint64_t)q, (uint64_t)c));
        s->in_param[q] = m->in.n;
        m->in.data[m->in.n++] = p;
    }
    for (int r = 0; r < CAT_NOUTS; r++)
        s->out[r] = -1;
    s->out[CAT_O_Y] = 0;
    int64_t total = s->n * s->c * s->hw;
    m->y = calloc((size_t)total, (size_t)es);
    if (s->train) {
        s->out[CAT_O_CAT] = 0, s->out[CAT_O_MEAN] = 1, s->out[CAT_O_RSTD] = 2, s->out[CAT_O_RV] = 3, s->out[CAT_O_Y] = 4;
        m->cat = calloc((size_t)total, (size_t)es);
        m->mean = calloc((size_t)s->c, 4), m->rstd = calloc((size_t)s->c, 4), m->rv = calloc((size_t)s->c, 4);
    }
}

void small_make_dt(small *m, int train, int pooled, int h, int k, const int64_t *ch, ea_dtype dt)
{
    memset(m, 0, sizeof *m);
    cat_scope *s = &m->s;
    s->train = train, s->pooled = pooled, s->n = 2, s->h = s->w = h, s->hw = h * h, s->k = k, s->eps = 1e-5;
    s->dt = dt;
    s->bessel = (double)(s->n * s->hw) / (double)(s->n * s->hw - 1), s->momentum = 0.1, s->decay = 0.9;
    snprintf(s->alias, sizeof s->alias, "small");
    for (int i = 0; i < k; i++)
        s->ch[i] = ch[i], s->c_off[i + 1] = s->c_off[i] + ch[i];
    s->c = s->c_off[k];
    fill(m);
}

void small_from_scope(small *m, const cat_scope *s)
{
    memset(m, 0, sizeof *m);
    m->s = *s;
    fill(m);
}

void small_make_k(small *m, int train, int pooled, int h, int k, const int64_t *ch)
{
    small_make_dt(m, train, pooled, h, k, ch, EA_BF16);
}

void small_make(small *m, int train, int pooled, int h)
{
    static const int64_t ch[3] = {8, 4, 4};
    small_make_k(m, train, pooled, h, 3, ch);
}

static float fparam(const small *m, int q, int64_t c)
{
    return cat_val(m->in.data[m->s.in_param[q]], (size_t)c, m->s.train ? EA_F32 : m->s.dt);
}

static double xat(const small *m, int64_t n, int64_t c, int64_t p)
{
    const cat_scope *s = &m->s;
    int i = 0;
    while (c >= s->c_off[i + 1])
        i++;
    return cat_val(m->in.data[i], (size_t)((n * s->ch[i] + c - s->c_off[i]) * s->hw + p), s->dt);
}

/* The expected outputs, written straight from the definitions in fp64 and rounded once. */
void small_expect(small *m)
{
    const cat_scope *s = &m->s;
    for (int64_t c = 0; c < s->c; c++) {
        double mean, var;
        if (s->train) {
            double sum = 0, dev = 0, cnt = (double)(s->n * s->hw);
            for (int64_t n = 0; n < s->n; n++)
                for (int64_t p = 0; p < s->hw; p++)
                    sum += xat(m, n, c, p);
            mean = sum / cnt;
            for (int64_t n = 0; n < s->n; n++)
                for (int64_t p = 0; p < s->hw; p++)
                    dev += (xat(m, n, c, p) - mean) * (xat(m, n, c, p) - mean);
            var = dev / cnt;
            m->mean[c] = (float)mean;
            m->rstd[c] = (float)(1 / sqrt(var + s->eps));
            m->rv[c] = (float)(var * cnt / (cnt - 1) * 0.1 + fparam(m, CAT_P_VAR, c) * 0.9);
        } else {
            mean = fparam(m, CAT_P_MEAN, c), var = fparam(m, CAT_P_VAR, c);
        }
        double w = fparam(m, CAT_P_WEIGHT, c), b = fparam(m, CAT_P_BIAS, c);
        for (int64_t n = 0; n < s->n; n++) {
            double acc = 0;
            for (int64_t p = 0; p < s->hw; p++) {
                double x = xat(m, n, c, p), y = fmax(0, (x - mean) / sqrt(var + s->eps) * w + b);
                const size_t at = (size_t)((n * s->c + c) * s->hw + p);
                acc += y;
                if (m->cat)
                    cat_put(m->cat, at, s->dt, (float)x);
                if (!s->pooled)
                    cat_put(m->y, at, s->dt, (float)y);
            }
            if (s->pooled)
                cat_put(m->y, (size_t)(n * s->c + c), s->dt, (float)(acc / (double)s->hw));
        }
    }
}

void small_free(small *m)
{
    cat_inputs_free(&m->in);
    free(m->cat), free(m->y), free(m->mean), free(m->rstd), free(m->rv);
}

void small_outs(small *m, void *outs[CAT_NOUTS])
{
    outs[CAT_O_CAT] = m->cat, outs[CAT_O_MEAN] = m->mean, outs[CAT_O_RSTD] = m->rstd, outs[CAT_O_RV] = m->rv;
    outs[CAT_O_Y] = m->y;
}

/* The checks on a small scope of dtype dt: exact outputs pass, Inductor's arithmetic is within
 * tolerance, and a y 5% + 0.05 off, a poisoned element, a wrong cat bit and a wrong statistic
 * are each caught. */
void small_case_dt(int train, int pooled, int h, ea_dtype dt)
{
    static const int64_t ch[3] = {8, 4, 4};
    small m;
    small_make_dt(&m, train, pooled, h, 3, ch, dt);
    small_expect(&m);
    void *outs[CAT_NOUTS];
    small_outs(&m, outs);
    cat_check_result r;
    cat_check(&m.s, &m.in, outs, &r);
    const char *name = ea_dtype_name(dt);
    cr_assert(r.mismatched == 0 && r.unwritten == 0 && r.nonfinite == 0,
              "%s train %d pooled %d: %lld mismatched (cat %lld, y %lld, stats %lld)", name, train, pooled,
              (long long)r.mismatched, (long long)r.cat_mismatched, (long long)r.y_outside, (long long)r.stats_outside);
    cr_assert_leq(r.rel_l2, cat_rounding(dt), "%s output rounding bounds the error: %g", name, r.rel_l2);
    cat_check_result e;
    cat_emulate_current(&m.s, &m.in, &e, NULL);
    cr_assert(e.mismatched == 0 && e.rel_l2 <= fmax(cat_rounding(dt), 0x1p-20),
              "%s: Inductor's fp32 arithmetic is within tolerance: %g", name, e.rel_l2);
    const int es = ea_dtype_size(dt);
    const size_t at = m.s.pooled ? 5 : 17;
    unsigned char keep[4];
    memcpy(keep, (char *)m.y + at * es, (size_t)es);
    const float yv = cat_val(m.y, at, dt);
    cat_put(m.y, at, dt, yv * 1.05f + 0.05f); /* past u |r| + CAT_TOL * m at every dtype */
    cat_check(&m.s, &m.in, outs, &r);
    cr_assert_eq(r.y_outside, 1, "%s", name);
    memset((char *)m.y + at * es, 0xFF, (size_t)es);
    cat_check(&m.s, &m.in, outs, &r);
    cr_assert(r.unwritten == 1 && r.mismatched == 0, "%s", name);
    memcpy((char *)m.y + at * es, keep, (size_t)es);
    if (train) {
        ((unsigned char *)m.cat)[40 * es] ^= 1;
        m.rstd[3] *= 1.001f;
        cat_check(&m.s, &m.in, outs, &r);
        cr_assert(r.cat_mismatched == 1 && r.stats_outside == 1 && r.mismatched == 2, "%s", name);
    }
    small_free(&m);
}

void small_case(int train, int pooled, int h)
{
    small_case_dt(train, pooled, h, EA_BF16);
}

