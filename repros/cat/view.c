/* view.c: the block-level view of DenseNet's cats (contract in cat.h). A dense block is every golden cat
 * of one model, mode and spatial size: its first input is the block's input (C0 channels), the others
 * are conv outputs of the growth rate's channels. Inside a block every layer reads the cat of all
 * earlier outputs, so the first conv output is read by every later cat (k = 2 .. k_max: k_max - 1 cats);
 * over Inductor's 8-input cap (the golden cats) a cat is a ConcatKernel: every input is copied into a
 * fresh buffer that the BN kernel reads back, while at most 8 inputs the cat is a pointwise read fused
 * into that kernel. Sizes below are derived from the points' shapes alone. */
#include "cat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"

typedef struct {
    char name[128], model[64], mode[16];
    int64_t n, h, w, c0, growth;
    int train, pooled_cats, cats, kmin, kmax, mixed;
    double copied, today, fused;
} block;

static const char *sget(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* sizes[d], or -1 when it is not a number of at most 2^48 (the cast below stays defined) */
static int64_t dim_of(const cJSON *t, int d)
{
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "sizes"), d);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 0x1p48 ? (int64_t)v->valuedouble : -1;
}

static int has_mean(const cJSON *group)
{
    const cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(group, "scope"), "nodes"))
        if (sget(node, "op") && !strcmp(sget(node, "op"), "aten.mean.dim"))
            return 1;
    return 0;
}

cJSON *cat_view(const cJSON *doc, const char *file, ea_error *err)
{
    block b[32];
    int nb = 0, idx = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "points")) {
        const cJSON *sig = cJSON_GetObjectItemCaseSensitive(p, "signature");
        const cJSON *out = cJSON_GetObjectItemCaseSensitive(sig, "output");
        const cJSON *ins = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sig, "args"), 0);
        const cJSON *grp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), 0);
        const cJSON *occ = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(grp, "occurrences"), 0);
        const char *mode = sget(occ, "mode"), *model = sget(occ, "model");
        int k = cJSON_GetArraySize(ins);
        int64_t n = dim_of(out, 0), c = dim_of(out, 1), h = dim_of(out, 2), w = dim_of(out, 3);
        if (!mode || !model || k < 2 || n < 1 || c < 1 || h < 1 || w < 1 ||
            (double)n * (double)c * (double)h * (double)w > 0x1p48)
            return ea_fail(err, "%s $.points[%d]: expected a 4-d cat output of at most 2^48 elements, its inputs and "
                           "an occurrence with mode and model (the block view reads them)", file, idx), NULL;
        int j = 0;
        while (j < nb && !(!strcmp(b[j].model, model) && !strcmp(b[j].mode, mode) && b[j].h == h && b[j].w == w))
            j++;
        if (j == nb) {
            if (nb == (int)(sizeof b / sizeof b[0]))
                return ea_fail(err, "%s $.points[%d]: expected at most %d dense blocks, got more", file, idx, nb), NULL;
            memset(&b[nb], 0, sizeof b[nb]);
            snprintf(b[nb].model, sizeof b[nb].model, "%s", model);
            snprintf(b[nb].mode, sizeof b[nb].mode, "%s", mode);
            snprintf(b[nb].name, sizeof b[nb].name, "%s-%s-%" PRId64 "x%" PRId64, model, mode, h, w);
            b[nb].n = n, b[nb].h = h, b[nb].w = w, b[nb].train = !strcmp(mode, "train");
            b[nb].c0 = dim_of(cJSON_GetArrayItem(ins, 0), 1), b[nb].growth = dim_of(cJSON_GetArrayItem(ins, 1), 1);
            b[nb].kmin = k, b[nb].kmax = k;
            nb++;
        }
        block *q = &b[j];
        q->mixed |= q->n != n || q->c0 != dim_of(cJSON_GetArrayItem(ins, 0), 1);
        for (int i = 1; i < k; i++)
            q->mixed |= dim_of(cJSON_GetArrayItem(ins, i), 1) != q->growth;
        int pooled = has_mean(grp);
        const char *dt = sget(out, "dtype"); /* the element size of the block's tensors (bf16 when unnamed) */
        const int es = dt ? ea_dtype_size(ea_dtype_from_name(dt, strlen(dt))) : 2;
        double s = (double)(n * c * h * w * (es > 0 ? es : 2)),
               fl = (double)cat_floor_bytes(q->train, pooled, n, c, h * w, es > 0 ? es : 2, NULL);
        q->cats++, q->pooled_cats += pooled;
        q->kmin = k < q->kmin ? k : q->kmin, q->kmax = k > q->kmax ? k : q->kmax;
        q->copied += s;
        /* today: the copies write the cat buffer (infer: not a scope output, so extra) and the BN kernel
         * reads it back (extra in both modes); fused: the floor */
        q->today += fl + (q->train ? s : 2 * s);
        q->fused += fl;
        idx++;
    }
    cJSON *v = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(v, "blocks");
    for (int j = 0; j < nb; j++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "block", b[j].name);
        cJSON_AddStringToObject(o, "model", b[j].model);
        cJSON_AddStringToObject(o, "mode", b[j].mode);
        cJSON_AddNumberToObject(o, "batch", (double)b[j].n);
        cJSON_AddNumberToObject(o, "h", (double)b[j].h);
        cJSON_AddNumberToObject(o, "w", (double)b[j].w);
        cJSON_AddNumberToObject(o, "in_channels", (double)b[j].c0);
        cJSON_AddNumberToObject(o, "growth", (double)b[j].growth);
        cJSON_AddBoolToObject(o, "uniform", !b[j].mixed);
        cJSON_AddNumberToObject(o, "cats_over_cap", b[j].cats);
        cJSON_AddNumberToObject(o, "pooled_cats", b[j].pooled_cats);
        cJSON_AddNumberToObject(o, "k_min", b[j].kmin);
        cJSON_AddNumberToObject(o, "k_max", b[j].kmax);
        cJSON_AddNumberToObject(o, "cats_reading_first_conv_output", b[j].kmax - 1);
        cJSON_AddNumberToObject(o, "copies_of_first_conv_output", b[j].cats);
        cJSON_AddNumberToObject(o, "bytes_copied_into_cats", b[j].copied);
        cJSON_AddNumberToObject(o, "copy_traffic_bytes", 2 * b[j].copied);
        cJSON_AddNumberToObject(o, "today_bytes", b[j].today);
        cJSON_AddNumberToObject(o, "fused_bytes", b[j].fused);
        cJSON_AddItemToArray(arr, o);
    }
    return v;
}

const cJSON *cat_view_block(const cJSON *view, const cat_scope *s)
{
    char name[128];
    snprintf(name, sizeof name, "%s-%s-%" PRId64 "x%" PRId64, s->model, s->train ? "train" : "infer", s->h, s->w);
    const cJSON *b;
    if (!view)
        return NULL;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(view, "blocks"))
        if (sget(b, "block") && !strcmp(sget(b, "block"), name))
            return b;
    return NULL;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void cat_view_line(const cJSON *b, char *buf, size_t n)
{
    if (!b) {
        snprintf(buf, n, "%s", "");
        return;
    }
    snprintf(buf, n,
             "block %s: %.0f cats over the cap (k %.0f-%.0f, block input %.0f channels, growth %.0f); the first conv "
             "output is read by %.0f cats and copied into %.0f of them; copies write %.1f MB (%.1f MB of traffic); "
             "the block's cat scopes move %.1f MB today vs %.1f MB fused (%.2fx)",
             sget(b, "block"), num(b, "cats_over_cap"), num(b, "k_min"), num(b, "k_max"), num(b, "in_channels"),
             num(b, "growth"), num(b, "cats_reading_first_conv_output"), num(b, "copies_of_first_conv_output"),
             num(b, "bytes_copied_into_cats") / 1e6, num(b, "copy_traffic_bytes") / 1e6, num(b, "today_bytes") / 1e6,
             num(b, "fused_bytes") / 1e6, num(b, "fused_bytes") > 0 ? num(b, "today_bytes") / num(b, "fused_bytes") : 0);
}
