/* emulate.c: the stream oracle run on the CPU, CTA by CTA and thread by thread, through the same block
 * code as the kernel (stream_block.h): what the tests check the GPU's indexing with. */
#include <stdlib.h>

#include "cat_impl.h"
#include "stream_block.h"

/* The input buffer holding the v elements (es bytes each) from p, or -1: every source the kernel would
 * read must be one. */
static int inside(const cat_scope *s, const cat_inputs *in, const char *p, int v, int es)
{
    for (int i = 0; i < s->k; i++) {
        const char *b = in->data[s->in_x[i]];
        if (p >= b && p + (size_t)v * es <= b + s->n * s->ch[i] * s->hw * es)
            return i;
    }
    return -1;
}

int cat_stream_emulate(const cat_scope *s, const cat_inputs *in, int unroll, void *y, ea_error *err)
{
    cat_plan p;
    if (cat_plan_make(s, unroll, &p, err))
        return -1;
    if (p.kind != CAT_ORACLE_STREAM)
        return ea_fail(err, "cat %s: the stream oracle runs infer scopes without pooling", s->alias);
    cat_args a = {0};
    for (int i = 0; i < s->k; i++)
        a.in[i] = in->data[s->in_x[i]];
    for (int i = 0; i <= s->k; i++)
        a.seg[i] = (int)s->c_off[i];
    a.k = s->k, a.n = (int)s->n, a.c = (int)s->c, a.hw = (int)s->hw, a.eps = (float)s->eps, a.dt = s->dt;
    const int es = ea_dtype_size(s->dt);
    a.mean = in->data[s->in_param[CAT_P_MEAN]], a.var = in->data[s->in_param[CAT_P_VAR]];
    a.weight = in->data[s->in_param[CAT_P_WEIGHT]], a.bias = in->data[s->in_param[CAT_P_BIAS]];
    cat_args_plan(&a, &p);
    cat_chan *tab = malloc(sizeof *tab * (size_t)p.tab_cap);
    const char **src = malloc(sizeof *src * (size_t)p.tab_cap);
    const int span = unroll * p.threads * p.vec, row = a.c * a.hw;
    int rc = tab && src ? 0 : ea_fail(err, "cat %s: out of memory", s->alias);
    for (int n = 0; rc == 0 && n < a.n; n++)
        for (int bx = 0; rc == 0 && bx < p.grid_x; bx++) {
            const int first = cat_span_first(&a, bx, span), nch = cat_span_channels(&a, bx, span);
            if (nch > a.tab_cap) {
                rc = ea_fail(err, "cat %s: CTA %d touches %d channels, its table holds %d", s->alias, bx, nch, a.tab_cap);
                break;
            }
            for (int j = 0; j < nch; j++)
                cat_span_entry(&a, n, first + j, &tab[j], &src[j], a.dt, es);
            for (int u = 0; rc == 0 && u < unroll; u++)
                for (int t = 0; t < p.threads; t++) {
                    const int e = bx * span + (u * p.threads + t) * p.vec;
                    int j, r;
                    if (e >= row)
                        continue;
                    const char *x = cat_span_locate(&a, src, first, e, &j, &r, es);
                    if (j < 0 || j >= nch || (r + p.vec > a.hw && j + 1 >= nch) || inside(s, in, x, p.vec, es) < 0) {
                        rc = ea_fail(err, "cat %s: CTA (%d, %d) thread %d vector %d reads outside its table or "
                                     "inputs (entry %d of %d, offset %d)", s->alias, bx, n, t, u, j, nch, r);
                        break;
                    }
                    cat_span_apply(&a, tab, j, r, x, (char *)y + ((size_t)n * row + e) * es, p.vec, a.dt);
                }
        }
    free(tab);
    free(src);
    return rc;
}
