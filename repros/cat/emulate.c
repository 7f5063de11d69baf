/* emulate.c: the stream oracle run on the CPU, CTA by CTA and thread by thread, through the same block
 * code as the kernel (stream_block.h): what the tests check the GPU's indexing with. */
#include <stdlib.h>

#include "cat_impl.h"
#include "stream_block.h"

/* Where each input's buffer begins and ends: every source the kernel would read must lie in one. */
typedef struct {
    const char *begin, *end;
} span;

/* The input buffer holding the v elements (es bytes each) from p, or -1. */
static int inside(const span *bufs, int k, const char *p, int v, int es)
{
    for (int i = 0; i < k; i++)
        if (p >= bufs[i].begin && p + (size_t)v * es <= bufs[i].end)
            return i;
    return -1;
}

/* The CTAs of every sample, dt a constant where inlined (cat_stream_emulate), as the kernels' template parameter
 * makes it: the per-element conversions then compile to one dtype's, which is most of the suite's time here. */
static inline __attribute__((always_inline)) int ctas(const cat_scope *s, const cat_args *a, const cat_plan *p,
                                                      const span *bufs, int unroll, cat_chan *tab, const char **src,
                                                      void *y, ea_error *err, const int dt)
{
    const int es = cat_size(dt), span_elems = unroll * p->threads * p->vec, row = a->c * a->hw;
    for (int n = 0; n < a->n; n++)
        for (int bx = 0; bx < p->grid_x; bx++) {
            const int first = cat_span_first(a, bx, span_elems), nch = cat_span_channels(a, bx, span_elems);
            if (nch > a->tab_cap)
                return ea_fail(err, "cat %s: CTA %d touches %d channels, its table holds %d", s->alias, bx, nch,
                               a->tab_cap);
            for (int j = 0; j < nch; j++)
                cat_span_entry(a, n, first + j, &tab[j], &src[j], dt, es);
            for (int u = 0; u < unroll; u++)
                for (int t = 0; t < p->threads; t++) {
                    const int e = bx * span_elems + (u * p->threads + t) * p->vec;
                    int j, r;
                    if (e >= row)
                        continue;
                    const char *x = cat_span_locate(a, src, first, e, &j, &r, es);
                    if (j < 0 || j >= nch || (r + p->vec > a->hw && j + 1 >= nch) ||
                        inside(bufs, s->k, x, p->vec, es) < 0)
                        return ea_fail(err, "cat %s: CTA (%d, %d) thread %d vector %d reads outside its table or "
                                       "inputs (entry %d of %d, offset %d)", s->alias, bx, n, t, u, j, nch, r);
                    cat_span_apply(a, tab, j, r, x, (char *)y + ((size_t)n * row + e) * es, p->vec, dt);
                }
        }
    return 0;
}

int cat_stream_emulate(const cat_scope *s, const cat_inputs *in, int unroll, void *y, ea_error *err)
{
    cat_plan p;
    if (cat_plan_make(s, unroll, &p, err))
        return -1;
    if (p.kind != CAT_ORACLE_STREAM)
        return ea_fail(err, "cat %s: the stream oracle runs infer scopes without pooling", s->alias);
    cat_args a = {0};
    span bufs[CAT_MAX_INPUTS];
    const int es = cat_size(s->dt);
    for (int i = 0; i < s->k; i++) {
        a.in[i] = in->data[s->in_x[i]];
        bufs[i].begin = in->data[s->in_x[i]];
        bufs[i].end = bufs[i].begin + s->n * s->ch[i] * s->hw * es;
    }
    for (int i = 0; i <= s->k; i++)
        a.seg[i] = (int)s->c_off[i];
    a.k = s->k, a.n = (int)s->n, a.c = (int)s->c, a.hw = (int)s->hw, a.eps = (float)s->eps, a.dt = s->dt;
    a.mean = in->data[s->in_param[CAT_P_MEAN]], a.var = in->data[s->in_param[CAT_P_VAR]];
    a.weight = in->data[s->in_param[CAT_P_WEIGHT]], a.bias = in->data[s->in_param[CAT_P_BIAS]];
    cat_args_plan(&a, &p);
    cat_chan *tab = malloc(sizeof *tab * (size_t)p.tab_cap);
    const char **src = malloc(sizeof *src * (size_t)p.tab_cap);
    int rc = tab && src ? 0 : ea_fail(err, "cat %s: out of memory", s->alias);
    if (rc == 0)
        switch (s->dt) {
        case EA_BF16: rc = ctas(s, &a, &p, bufs, unroll, tab, src, y, err, EA_BF16); break;
        case EA_F16: rc = ctas(s, &a, &p, bufs, unroll, tab, src, y, err, EA_F16); break;
        default: rc = ctas(s, &a, &p, bufs, unroll, tab, src, y, err, EA_F32); break;
        }
    free(tab);
    free(src);
    return rc;
}
