#include "corpus/values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "corpus/opclass.h"
#include "corpus/values_impl.h"

/* Deep enough for the position-id chains (slice/sub/ne of a cat of an expand of an arange), small
 * enough that a pointwise-heavy graph does not inline half of itself into every occurrence. */
#define EXPR_MAX_DEPTH 8
#define EXPR_MAX_NODES 48

int ea_as_strided_iota_stats(int64_t storage_len, int64_t start, int64_t step, int ndim,
                             const int64_t *size, const int64_t *stride, int64_t offset,
                             const char *where, ea_index_stats *st, ea_error *err)
{
    memset(st, 0, sizeof *st);
    st->range_len = storage_len;
    if (ndim < 1 || ndim > 8)
        return ea_fail(err, "%s: as_strided: expected 1 to 8 dims, got %d", where, ndim);
    int64_t numel = 1, lo = offset, hi = offset;
    for (int d = 0; d < ndim; d++) {
        if (size[d] < 0)
            return ea_fail(err, "%s: as_strided: expected sizes >= 0, got %" PRId64 " in dim %d", where, size[d], d);
        numel *= size[d];
        if (size[d] > 0) {
            if (stride[d] >= 0)
                hi += (size[d] - 1) * stride[d];
            else
                lo += (size[d] - 1) * stride[d];
        }
    }
    st->numel = numel;
    st->sorted = 1;
    if (numel == 0) {
        st->hist[0] = storage_len;
        return 0;
    }
    if (lo < 0 || hi >= storage_len)
        return ea_fail(err, "%s: stride overruns storage: as_strided view reaches element %" PRId64
                       " (lowest %" PRId64 "), storage has %" PRId64,
                       where, hi, lo, storage_len);
    uint32_t *count = calloc((size_t)storage_len, sizeof *count);
    if (!count)
        return ea_fail(err, "%s: out of memory for %" PRId64 " index counts", where, storage_len);

    int64_t idx[8] = {0}, pos = offset, prev = offset;
    int last = ndim - 1, rising = 1, falling = 1; /* positions in row-major order */
    for (int64_t e = 0; e < numel;) {
        /* innermost dimension as a plain loop: this runs 18.9 M times for Longformer */
        for (int64_t i = 0; i < size[last]; i++, e++) {
            int64_t p = pos + i * stride[last];
            count[p]++;
            rising &= p >= prev;
            falling &= p <= prev;
            prev = p;
        }
        int d = last - 1;
        for (; d >= 0; d--) {
            pos += stride[d];
            if (++idx[d] < size[d])
                break;
            pos -= size[d] * stride[d];
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
    int64_t min_pos = -1, max_pos = -1;
    for (int64_t p = 0; p < storage_len; p++) {
        uint32_t c = count[p];
        st->hist[c < EA_MULT_BUCKETS ? c : EA_MULT_BUCKETS - 1]++;
        if (c) {
            if (min_pos < 0)
                min_pos = p;
            max_pos = p;
            st->distinct++;
            if ((int)c > st->max_multiplicity)
                st->max_multiplicity = (int)c;
        }
    }
    free(count);
    /* values are start + step * position */
    int64_t a = start + step * min_pos, b = start + step * max_pos;
    st->min = a < b ? a : b;
    st->max = a < b ? b : a;
    if (step == 0)
        st->distinct = 1;
    /* values rise with positions for a positive step and fall with them for a negative one */
    st->sorted = step == 0 || (step > 0 ? rising : falling);
    return 0;
}

cJSON *ea_arg_json(const fx_arg *a, ea_node_json_fn node_fn, void *ctx)
{
    cJSON *o;
    switch (a->kind) {
    case ARG_NONE:
        return cJSON_CreateNull();
    case ARG_NODE:
        return node_fn ? node_fn(ctx, a->node) : cJSON_CreateNull();
    case ARG_INT:
        return cJSON_CreateNumber((double)a->i);
    case ARG_FLOAT:
        /* JSON has no inf/nan: keep them as the graph spells them */
        if (a->f != a->f)
            return cJSON_CreateString("nan");
        if (a->f > 1.7976931348623157e308)
            return cJSON_CreateString("inf");
        if (a->f < -1.7976931348623157e308)
            return cJSON_CreateString("-inf");
        return cJSON_CreateNumber(a->f);
    case ARG_BOOL:
        return cJSON_CreateBool(a->i != 0);
    case ARG_STR:
        return cJSON_CreateString(a->s);
    case ARG_DTYPE:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "dtype", ea_dtype_name(a->dtype));
        return o;
    case ARG_DEVICE:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "device", a->s);
        return o;
    case ARG_ENUM:
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "enum", a->s);
        return o;
    case ARG_LIST:
        o = cJSON_CreateArray();
        for (int i = 0; i < a->nitems; i++) {
            cJSON *item = ea_arg_json(&a->items[i], node_fn, ctx);
            if (!item) {
                cJSON_Delete(o);
                return NULL;
            }
            cJSON_AddItemToArray(o, item);
        }
        return o;
    }
    return NULL;
}

void ea_node_args_json(const fx_node *n, cJSON *obj, int always_kwargs, ea_node_json_fn node_fn, void *ctx)
{
    cJSON *args = cJSON_AddArrayToObject(obj, "args");
    cJSON *kwargs = always_kwargs ? cJSON_AddObjectToObject(obj, "kwargs") : NULL;
    for (int i = 0; i < n->nargs; i++) {
        cJSON *v = ea_arg_json(&n->args[i], node_fn, ctx);
        if (!n->args[i].key) {
            cJSON_AddItemToArray(args, v);
            continue;
        }
        if (!kwargs)
            kwargs = cJSON_AddObjectToObject(obj, "kwargs");
        cJSON_AddItemToObject(kwargs, n->args[i].key, v);
    }
}

typedef struct {
    const fx_graph *g;
    const ea_value_env *env;
    int depth;
    int budget;
} expr_ctx;

static int saved_by(const ea_value_env *env, const fx_graph *g, const fx_node *n, const fx_graph **src,
                    int *node, const char **label)
{
    return env && env->saved_by && n->kind == FX_PLACEHOLDER && env->saved_by(env->ctx, g, n->name, src, node, label);
}

static cJSON *input_info(const ea_value_env *env, const fx_graph *g, const fx_node *n)
{
    return env && env->input_info ? env->input_info(env->ctx, g, n->name) : NULL;
}

static const char *node_op(const fx_node *n)
{
    if (n->kind == FX_PLACEHOLDER)
        return "input";
    if (n->kind == FX_GET_ATTR)
        return "get_attr";
    return n->target;
}

static cJSON *expr_node(void *vctx, int node)
{
    expr_ctx *c = vctx;
    const fx_node *n = &c->g->nodes[node];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", node_op(n));
    if (n->ann_text)
        cJSON_AddStringToObject(o, "ann", n->ann_text);
    if (n->kind == FX_PLACEHOLDER) {
        const fx_graph *src;
        int at;
        const char *label;
        cJSON *info = input_info(c->env, c->g, n);
        if (info)
            cJSON_AddItemToObject(o, "corpus_input", info);
        if (saved_by(c->env, c->g, n, &src, &at, &label)) {
            const fx_graph *here = c->g;
            cJSON_AddStringToObject(o, "saved_by", label);
            c->g = src;
            cJSON_AddItemToObject(o, "of", expr_node(c, at));
            c->g = here;
        }
        return o;
    }
    if (n->kind == FX_GET_ATTR)
        return o;
    if (ea_node_opclass(n) == OP_BOUNDARY) {
        cJSON_AddBoolToObject(o, "boundary", 1);
        return o;
    }
    if (c->depth >= EXPR_MAX_DEPTH || c->budget <= 0) {
        cJSON_AddBoolToObject(o, "truncated", 1);
        return o;
    }
    c->budget--;
    c->depth++;
    ea_node_args_json(n, o, 0, expr_node, c);
    c->depth--;
    return o;
}

/* Ops that keep every value and its row-major logical order; walking through them from an
 * index argument reaches the tensor its values were made from. */
static int order_preserving(const fx_node *n)
{
    static const char *const ops[] = {
        "aten.reshape.default", "aten.view.default", "aten._unsafe_view.default", "aten.clone.default",
        "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default",
        "aten.alias.default", "prims.convert_element_type.default", NULL};
    if (n->kind != FX_CALL || n->nargs < 1 || n->args[0].kind != ARG_NODE)
        return 0;
    for (const char *const *o = ops; *o; o++)
        if (strcmp(*o, n->target) == 0)
            return 1;
    return 0;
}

static int strip(const fx_graph *g, int node)
{
    while (order_preserving(&g->nodes[node]))
        node = g->nodes[node].args[0].node;
    return node;
}

static int arg_int(const fx_node *n, int pos, const char *key, int64_t dflt, int64_t *out)
{
    const fx_arg *a = key ? fx_node_kwarg(n, key) : NULL;
    if (!a && pos >= 0)
        a = fx_node_arg(n, pos);
    if (!a) {
        *out = dflt;
        return 0;
    }
    if (a->kind != ARG_INT)
        return -1;
    *out = a->i;
    return 0;
}

static int int_list(const fx_arg *a, int64_t *out, int max)
{
    if (!a || a->kind != ARG_LIST || a->nitems > max)
        return -1;
    for (int i = 0; i < a->nitems; i++) {
        if (a->items[i].kind != ARG_INT)
            return -1;
        out[i] = a->items[i].i;
    }
    return a->nitems;
}

/* iota(length, start=, step=): the only generator whose values matter for indices. */
static int iota_params(const fx_node *n, int64_t *len, int64_t *start, int64_t *step)
{
    if (!fx_node_is(n, "prims.iota.default"))
        return 0;
    return arg_int(n, 0, NULL, -1, len) == 0 && arg_int(n, -1, "start", 0, start) == 0 &&
           arg_int(n, -1, "step", 1, step) == 0 && *len >= 0;
}

static cJSON *iota_json(int64_t len, int64_t start, int64_t step)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "length", (double)len);
    cJSON_AddNumberToObject(o, "start", (double)start);
    cJSON_AddNumberToObject(o, "step", (double)step);
    return o;
}

static cJSON *derive_as_strided(const fx_graph *g, const fx_node *n, ea_error *err)
{
    const fx_node *base = &g->nodes[strip(g, n->args[0].node)];
    int64_t len, start, step, size[8], stride[8], offset = 0;
    if (!iota_params(base, &len, &start, &step))
        return NULL;
    int nd = int_list(fx_node_arg(n, 1), size, 8);
    if (nd < 0 || int_list(fx_node_arg(n, 2), stride, 8) != nd ||
        arg_int(n, 3, "storage_offset", 0, &offset) != 0)
        return NULL;
    char where[512];
    snprintf(where, sizeof where, "%s:%d", g->path, n->line);
    ea_index_stats st;
    if (ea_as_strided_iota_stats(len, start, step, nd, size, stride, offset, where, &st, err) != 0)
        return (cJSON *)-1;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "as_strided_iota");
    cJSON_AddItemToObject(o, "iota", iota_json(len, start, step));
    cJSON_AddItemToObject(o, "size", ej_int_array(size, nd));
    cJSON_AddItemToObject(o, "stride", ej_int_array(stride, nd));
    cJSON_AddNumberToObject(o, "offset", (double)offset);
    cJSON_AddNumberToObject(o, "numel", (double)st.numel);
    cJSON_AddNumberToObject(o, "min", (double)st.min);
    cJSON_AddNumberToObject(o, "max", (double)st.max);
    cJSON_AddNumberToObject(o, "distinct", (double)st.distinct);
    cJSON *cov = cJSON_AddObjectToObject(o, "coverage");
    cJSON_AddNumberToObject(cov, "covered", (double)(st.range_len - st.hist[0]));
    cJSON_AddNumberToObject(cov, "of", (double)st.range_len);
    cJSON *h = cJSON_AddObjectToObject(o, "multiplicity_histogram");
    for (int m = 0; m < EA_MULT_BUCKETS; m++) {
        if (!st.hist[m])
            continue;
        char key[16];
        snprintf(key, sizeof key, m == EA_MULT_BUCKETS - 1 ? "%d+" : "%d", m);
        cJSON_AddNumberToObject(h, key, (double)st.hist[m]);
    }
    cJSON_AddNumberToObject(o, "max_multiplicity", st.max_multiplicity);
    cJSON_AddBoolToObject(o, "sorted", st.sorted);
    return o;
}

/* getitem(sort(reshape(getitem(topk(logits, k), 1))), 0): MoE routing ids. */
static cJSON *derive_sorted_topk(const fx_graph *g, const fx_node *n)
{
    const fx_arg *which = fx_node_arg(n, 1);
    if (!fx_node_is(n, "_operator.getitem") || !which || which->kind != ARG_INT || which->i != 0)
        return NULL;
    const fx_node *sort = &g->nodes[n->args[0].node];
    if (!fx_node_is(sort, "aten.sort.default") && !fx_node_is(sort, "aten.sort.stable"))
        return NULL;
    const fx_arg *sarg = fx_node_arg(sort, 0);
    if (!sarg || sarg->kind != ARG_NODE)
        return NULL;
    const fx_node *ids = &g->nodes[strip(g, sarg->node)];
    const fx_arg *w = fx_node_arg(ids, 1);
    if (!fx_node_is(ids, "_operator.getitem") || !w || w->kind != ARG_INT || w->i != 1)
        return NULL;
    const fx_node *topk = &g->nodes[ids->args[0].node];
    int64_t k;
    if (!fx_node_is(topk, "aten.topk.default") || arg_int(topk, 1, NULL, -1, &k) != 0)
        return NULL;
    const fx_arg *logits = fx_node_arg(topk, 0);
    if (!logits || logits->kind != ARG_NODE || !g->nodes[logits->node].ann_is_tensor)
        return NULL;
    const ea_tensor *lt = &g->nodes[logits->node].ann;
    int64_t dim = -1, desc = 0;
    const fx_arg *d = fx_node_kwarg(sort, "descending");
    if (arg_int(topk, 2, "dim", -1, &dim) != 0 || lt->ndim < 1 || lt->symbolic)
        return NULL;
    if (dim < 0)
        dim += lt->ndim;
    if (d && d->kind == ARG_BOOL)
        desc = d->i;
    const fx_arg *stable = fx_node_kwarg(sort, "stable");
    int64_t numel = n->ann_is_tensor ? ea_tensor_numel(&n->ann) : -1;

    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "sorted_topk_ids");
    cJSON_AddStringToObject(o, "sort", sort->target);
    cJSON_AddBoolToObject(o, "stable", fx_node_is(sort, "aten.sort.stable") || (stable && stable->kind == ARG_BOOL && stable->i));
    cJSON_AddBoolToObject(o, "descending", desc);
    cJSON_AddNumberToObject(o, "k", (double)k);
    cJSON_AddNumberToObject(o, "experts", (double)lt->sizes[dim]);
    cJSON_AddNumberToObject(o, "tokens", numel > 0 && k > 0 ? (double)(numel / k) : -1);
    int64_t range[2] = {0, lt->sizes[dim] - 1};
    cJSON_AddItemToObject(o, "range", ej_int_array(range, 2));
    cJSON_AddBoolToObject(o, "distinct_per_token", 1);
    cJSON_AddBoolToObject(o, "sorted", !desc);
    return o;
}

static cJSON *derive(const fx_graph *g, int node, const ea_value_env *env, ea_error *err);

/* o gains "of": what its input is made of, when that is recognised. Returns o, or -1 on error. */
static cJSON *attach_of(cJSON *o, const fx_graph *g, int input, const ea_value_env *env, ea_error *err)
{
    cJSON *of = derive(g, input, env, err);
    if (of == (cJSON *)-1) {
        cJSON_Delete(o);
        return of;
    }
    if (of)
        cJSON_AddItemToObject(o, "of", of);
    return o;
}

static cJSON *derive_mask(const fx_graph *g, const fx_node *n, const ea_value_env *env, ea_error *err)
{
    static const char *const preds[] = {"ne", "eq", "lt", "le", "gt", "ge", NULL};
    if (n->kind != FX_CALL || strncmp(n->target, "aten.", 5) != 0 || !strstr(n->target, ".Scalar"))
        return NULL;
    const char *p = NULL;
    for (const char *const *q = preds; *q; q++)
        if (strncmp(n->target + 5, *q, 2) == 0 && n->target[7] == '.')
            p = *q;
    const fx_arg *x = fx_node_arg(n, 0), *s = fx_node_arg(n, 1);
    if (!p || !x || x->kind != ARG_NODE || !s)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "mask");
    cJSON_AddStringToObject(o, "predicate", p);
    cJSON_AddItemToObject(o, "scalar", ea_arg_json(s, NULL, NULL));
    return attach_of(o, g, x->node, env, err);
}

/* histc(x, bins, min, max): expert counts; derived(x) says what is counted. */
static cJSON *derive_histogram(const fx_graph *g, const fx_node *n, const ea_value_env *env, ea_error *err)
{
    const fx_arg *x = fx_node_arg(n, 0);
    if (!fx_node_is(n, "aten.histc.default") || !x || x->kind != ARG_NODE)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "histogram");
    static const char *const names[] = {"bins", "min", "max"};
    static const double dflt[] = {100, 0, 0};
    for (int i = 0; i < 3; i++) {
        const fx_arg *a = fx_node_kwarg(n, names[i]);
        a = a ? a : fx_node_arg(n, i + 1);
        cJSON_AddItemToObject(o, names[i], a ? ea_arg_json(a, NULL, NULL) : cJSON_CreateNumber(dflt[i]));
    }
    const fx_node *in = &g->nodes[x->node];
    if (in->ann_is_tensor && !in->ann.symbolic)
        cJSON_AddNumberToObject(o, "samples", (double)ea_tensor_numel(&in->ann));
    return attach_of(o, g, x->node, env, err);
}

/* NULL: nothing recognised; (cJSON *)-1: error in err. */
static cJSON *derive(const fx_graph *g, int node, const ea_value_env *env, ea_error *err)
{
    const fx_node *n = &g->nodes[strip(g, node)];
    const fx_graph *src;
    int64_t len, start, step;
    int at;
    const char *label;
    cJSON *o;
    if (saved_by(env, g, n, &src, &at, &label)) {
        o = derive(src, at, env, err);
        if (o && o != (cJSON *)-1)
            cJSON_AddStringToObject(o, "saved_by", label);
        return o;
    }
    if (n->kind == FX_PLACEHOLDER) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", "graph_input");
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON *ci = input_info(env, g, n);
        if (ci)
            cJSON_AddItemToObject(o, "corpus_input", ci);
        return o;
    }
    if (iota_params(n, &len, &start, &step)) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", "iota");
        cJSON_AddItemToObject(o, "iota", iota_json(len, start, step));
        cJSON_AddNumberToObject(o, "distinct", (double)(step ? len : (len > 0)));
        cJSON_AddBoolToObject(o, "sorted", step >= 0);
        return o;
    }
    if (fx_node_is(n, "aten.full.default") && fx_node_arg(n, 1)) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", "constant");
        cJSON_AddItemToObject(o, "value", ea_arg_json(fx_node_arg(n, 1), NULL, NULL));
        return o;
    }
    if (fx_node_is(n, "aten.as_strided.default") && n->nargs >= 3 && n->args[0].kind == ARG_NODE)
        return derive_as_strided(g, n, err);
    if ((o = derive_sorted_topk(g, n)))
        return o;
    if ((o = derive_histogram(g, n, env, err)))
        return o;
    return derive_mask(g, n, env, err);
}

cJSON *ea_value_props(const fx_graph *g, int node, const ea_value_env *env, ea_error *err)
{
    cJSON *derived = derive(g, node, env, err);
    if (derived == (cJSON *)-1)
        return NULL;
    const fx_node *n = &g->nodes[node];
    cJSON *o = cJSON_CreateObject();
    /* Floating data only matters to timing when it is a constant (a fill a scope can elide);
     * indices, ids and masks carry their whole derivation. */
    if (n->ann_is_tensor && ea_dtype_is_float(n->ann.dtype)) {
        const cJSON *kind = cJSON_GetObjectItem(derived, "kind");
        if (!kind || strcmp(kind->valuestring, "constant") != 0) {
            cJSON_Delete(derived);
            cJSON_AddStringToObject(o, "kind", "float_data");
            return o;
        }
    } else {
        expr_ctx c = {g, env, 0, EXPR_MAX_NODES};
        cJSON_AddItemToObject(o, "expr", expr_node(&c, node));
    }
    if (derived)
        cJSON_AddItemToObject(o, "derived", derived);
    return o;
}
