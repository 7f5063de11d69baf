/* scope.c: reading a position-id cumsum scope from its golden point (contract in scope.h). */
#include "scope.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "scope_impl.h"

const char *cs_kind_name(cs_kind k)
{
    static const char *const names[] = {"none", "mask", "packed", "const"};
    return names[k];
}

static const char *op_at(const cJSON *nodes, int k)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, k), "op");
    return cJSON_IsString(op) ? op->valuestring : "";
}

static int has_op(const cJSON *nodes, const char *op)
{
    for (int k = 0; k < cJSON_GetArraySize(nodes); k++)
        if (!strcmp(op_at(nodes, k), op))
            return 1;
    return 0;
}

/* Recognition only looks at the chain's head and the ops that make a scope not ours. */
cs_kind cs_kind_of(const cJSON *group)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(group, "scope"), "nodes");
    if (!cJSON_IsArray(nodes) || !has_op(nodes, "aten.cumsum.default") || has_op(nodes, "aten.histc.default") ||
        has_op(nodes, "aten.sort.default"))
        return CS_NONE;
    const char *head = op_at(nodes, 0);
    if (!strcmp(head, "input") && !strcmp(op_at(nodes, 1), "aten.ne.Scalar"))
        return CS_MASK;
    if (!strcmp(head, "prims.iota.default") && has_op(nodes, "aten.cat.default"))
        return CS_PACKED;
    if (!strcmp(head, "aten.full.default") && !strcmp(op_at(nodes, 1), "aten.cumsum.default"))
        return CS_CONST;
    return CS_NONE;
}

int cs_claims(const cJSON *point)
{
    const cJSON *g, *groups = cJSON_GetObjectItemCaseSensitive(point, "scopes");
    int n = 0;
    cJSON_ArrayForEach(g, groups) {
        if (cs_kind_of(g) == CS_NONE)
            return 0;
        n++;
    }
    return n > 0;
}

/* ---- the node walk: every read names nodes[k] ---- */

typedef struct {
    ej_val nodes;
    int n;
    ea_error *err;
} walk;

static ej_val node(const walk *w, int k)
{
    return ej_index(w->nodes, k);
}

static int expect_op(const walk *w, int k, const char *op)
{
    const char *got;
    if (k >= w->n)
        return ea_fail(w->err, "%s %s: expected a node %s at [%d], got %d nodes", w->nodes.file, w->nodes.path, op, k,
                       w->n);
    if (ej_get_string(node(w, k), "op", &got, w->err))
        return -1;
    if (strcmp(got, op)) {
        char quoted[160];
        snprintf(quoted, sizeof quoted, "\"%.150s\"", got);
        char what[160];
        snprintf(what, sizeof what, "\"%.150s\"", op);
        return ej_bad_field(node(w, k), "op", what, quoted, w->err);
    }
    return 0;
}

static int args_of(const walk *w, int k, int nargs, ej_val *args)
{
    int n;
    if (ej_field(node(w, k), "args", 1, args, w->err) || ej_array(*args, &n, w->err))
        return -1;
    if (n != nargs)
        return ea_fail(w->err, "%s %s: expected %d args, got %d", args->file, args->path, nargs, n);
    return 0;
}

/* args[a] must be {"ref": want}. */
static int arg_ref(const walk *w, int k, int a, int want)
{
    ej_val args, v;
    int64_t ref;
    if (ej_field(node(w, k), "args", 1, &args, w->err))
        return -1;
    v = ej_index(args, a);
    if (!cJSON_IsObject(v.v))
        return ea_fail(w->err, "%s %s: expected {\"ref\": %d}, got another value", v.file, v.path, want);
    if (ej_get_int(v, "ref", &ref, w->err))
        return -1;
    if (ref != want)
        return ea_fail(w->err, "%s %s.ref: expected %d (nodes[%d]), got %" PRId64, v.file, v.path, want, want, ref);
    return 0;
}

static int arg_int(const walk *w, int k, int a, int64_t *out)
{
    ej_val args;
    return ej_field(node(w, k), "args", 1, &args, w->err) || ej_as_int(ej_index(args, a), out, w->err) ? -1 : 0;
}

static int arg_num(const walk *w, int k, int a, double *out)
{
    ej_val args;
    return ej_field(node(w, k), "args", 1, &args, w->err) || ej_as_number(ej_index(args, a), out, w->err) ? -1 : 0;
}

/* args[a] must be the integer want. */
static int arg_is(const walk *w, int k, int a, int64_t want)
{
    int64_t v;
    if (arg_int(w, k, a, &v))
        return -1;
    if (v != want) {
        ej_val args;
        ej_field(node(w, k), "args", 1, &args, w->err);
        ej_val x = ej_index(args, a);
        return ea_fail(w->err, "%s %s: expected %" PRId64 ", got %" PRId64, x.file, x.path, want, v);
    }
    return 0;
}

/* {"dtype": "<want>"} at args[a] (convert_element_type's target). */
static int arg_dtype(const walk *w, int k, int a, const char *want)
{
    ej_val args;
    const char *dt;
    if (ej_field(node(w, k), "args", 1, &args, w->err) || ej_get_string(ej_index(args, a), "dtype", &dt, w->err))
        return -1;
    if (strcmp(dt, want)) {
        char what[32], got[64];
        snprintf(what, sizeof what, "\"%s\"", want);
        snprintf(got, sizeof got, "\"%.60s\"", dt);
        return ej_bad_field(ej_index(args, a), "dtype", what, got, w->err);
    }
    return 0;
}

static int ann_of(const walk *w, int k, ea_tensor *t)
{
    const char *ann;
    ej_val n = node(w, k);
    char where[320];
    if (ej_get_string(n, "ann", &ann, w->err))
        return -1;
    snprintf(where, sizeof where, "%s %s.ann", n.file, n.path);
    if (ea_tensor_parse(ann, strlen(ann), where, t, w->err))
        return -1;
    if (t->symbolic)
        return ea_fail(w->err, "%s: expected static sizes, got \"%s\"", where, ann);
    return 0;
}

static int escapes(const walk *w, int k)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(node(w, k).v, "escapes");
    return cJSON_GetArraySize(e) > 0;
}

/* A 2-d cumsum along the last dim (1 or -1) of nodes[k], over args[0] = nodes[src]. */
static int cumsum_at(const walk *w, int k, int src, const char *dtype, cs_scope *s)
{
    int64_t dim;
    ea_tensor t;
    ej_val args;
    if (expect_op(w, k, "aten.cumsum.default") || args_of(w, k, 2, &args) || arg_ref(w, k, 0, src) ||
        arg_int(w, k, 1, &dim) || ann_of(w, k, &t))
        return -1;
    if (t.ndim != 2 || (dim != 1 && dim != -1))
        return ea_fail(w->err, "%s %s: expected a cumsum along the last dim of a 2-d tensor, got dim %" PRId64
                       " of %d dims", node(w, k).file, node(w, k).path, dim, t.ndim);
    if (strcmp(ea_dtype_name(t.dtype), dtype))
        return ea_fail(w->err, "%s %s.ann: expected a %s result, got %s", node(w, k).file, node(w, k).path, dtype,
                       ea_dtype_name(t.dtype));
    s->rows = t.sizes[0];
    s->cols = t.sizes[1];
    return 0;
}

static int add_output(cs_scope *s, const ea_tensor *t)
{
    s->outputs[s->noutputs++] = *t;
    return 0;
}

static ea_tensor dense(ea_dtype dt, int64_t rows, int64_t cols)
{
    ea_tensor t = {.dtype = dt, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
    return t;
}

/* input -> ne(pad) -> to i32 -> cumsum -> to i32 [-> add past] -> mul mask -> to i64 -> add offset [-> reshape] */
static int parse_mask(const walk *w, cs_scope *s)
{
    ea_tensor x, out;
    ej_val a;
    int k = 4;
    if (expect_op(w, 0, "input") || ann_of(w, 0, &x) || expect_op(w, 1, "aten.ne.Scalar") || args_of(w, 1, 2, &a) ||
        arg_ref(w, 1, 0, 0) || arg_int(w, 1, 1, &s->pad) || expect_op(w, 2, "prims.convert_element_type.default") ||
        arg_ref(w, 2, 0, 1) || arg_dtype(w, 2, 1, "i32") || cumsum_at(w, 3, 2, "i64", s) ||
        expect_op(w, 4, "prims.convert_element_type.default") || arg_ref(w, 4, 0, 3) || arg_dtype(w, 4, 1, "i32"))
        return -1;
    if (x.dtype != EA_I64 || x.ndim != 2 || x.sizes[0] != s->rows || x.sizes[1] != s->cols ||
        !ea_tensor_is_contiguous(&x))
        return ea_fail(w->err, "%s %s: expected a dense i64[%" PRId64 ", %" PRId64 "] input, got another layout",
                       node(w, 0).file, node(w, 0).path, s->rows, s->cols);
    s->mask_out = escapes(w, 1);
    if (k + 1 < w->n && !strcmp(op_at(w->nodes.v, k + 1), "aten.add.Tensor")) {
        k++;
        if (args_of(w, k, 2, &a) || arg_ref(w, k, 0, k - 1) || arg_int(w, k, 1, &s->past))
            return -1;
    }
    k++;
    if (expect_op(w, k, "aten.mul.Tensor") || args_of(w, k, 2, &a) || arg_ref(w, k, 0, k - 1) || arg_ref(w, k, 1, 2))
        return -1;
    k++;
    if (expect_op(w, k, "prims.convert_element_type.default") || arg_ref(w, k, 0, k - 1) || arg_dtype(w, k, 1, "i64"))
        return -1;
    k++;
    if (expect_op(w, k, "aten.add.Tensor") || args_of(w, k, 2, &a) || arg_ref(w, k, 0, k - 1) ||
        arg_int(w, k, 1, &s->offset) || ann_of(w, k, &out))
        return -1;
    if (k + 1 < w->n) {
        k++;
        if (expect_op(w, k, "aten.reshape.default") || arg_ref(w, k, 0, k - 1) || ann_of(w, k, &out))
            return -1;
    }
    if (k + 1 != w->n)
        return ea_fail(w->err, "%s %s: expected %d nodes (the chain ends at the add), got %d", w->nodes.file,
                       w->nodes.path, k + 1, w->n);
    if (s->mask_out) {
        ea_tensor m = dense(EA_B8, s->rows, s->cols);
        add_output(s, &m);
    }
    out.offset = 0;
    return add_output(s, &out);
}

/* iota -> add -> unsqueeze [-> expand] ; first: full(v) | slice(.., 0, 1) - v ; cat ; slices ; sub ; ne ; cumsum */
static int parse_packed(const walk *w, cs_scope *s)
{
    ej_val a, kw;
    int64_t len, a0, st, rows = 1;
    if (expect_op(w, 0, "prims.iota.default") || args_of(w, 0, 1, &a) || arg_int(w, 0, 0, &len) ||
        ej_field(node(w, 0), "kwargs", 1, &kw, w->err) || ej_get_int(kw, "start", &s->start, w->err) ||
        ej_get_int(kw, "step", &st, w->err))
        return -1;
    if (st != 1)
        return ea_fail(w->err, "%s %s.step: expected 1, got %" PRId64, kw.file, kw.path, st);
    if (expect_op(w, 1, "aten.add.Tensor") || arg_ref(w, 1, 0, 0) || arg_int(w, 1, 1, &a0) ||
        expect_op(w, 2, "aten.unsqueeze.default") || arg_ref(w, 2, 0, 1) || arg_is(w, 2, 1, 0))
        return -1;
    s->start += a0;
    int pos = 2, k = 3, first;
    if (!strcmp(op_at(w->nodes.v, 3), "aten.expand.default")) {
        if (arg_ref(w, 3, 0, 2) || ej_field(node(w, 3), "args", 1, &a, w->err) ||
            ej_as_int(ej_index(ej_index(a, 1), 0), &rows, w->err))
            return -1;
        pos = 3;
        k = 4;
    }
    if (!strcmp(op_at(w->nodes.v, k), "aten.full.default")) {
        s->first_full = 1;
        if (arg_int(w, k, 1, &s->first_value))
            return -1;
        first = k++;
    } else {
        if (expect_op(w, k, "aten.slice.Tensor") || arg_ref(w, k, 0, pos) || arg_is(w, k, 1, 1) ||
            arg_is(w, k, 2, 0) || arg_is(w, k, 3, 1) || expect_op(w, k + 1, "aten.sub.Tensor") ||
            arg_ref(w, k + 1, 0, k) || arg_int(w, k + 1, 1, &s->first_value))
            return -1;
        first = k + 1;
        k += 2;
    }
    int cat = k;
    ej_val list;
    if (expect_op(w, cat, "aten.cat.default") || ej_field(node(w, cat), "args", 1, &a, w->err))
        return -1;
    list = ej_index(a, 0);
    if (!cJSON_IsArray(list.v) || cJSON_GetArraySize(list.v) != 2 ||
        cJSON_GetObjectItem(cJSON_GetArrayItem(list.v, 0), "ref") == NULL ||
        cJSON_GetObjectItem(cJSON_GetArrayItem(list.v, 0), "ref")->valueint != first ||
        cJSON_GetObjectItem(cJSON_GetArrayItem(list.v, 1), "ref") == NULL ||
        cJSON_GetObjectItem(cJSON_GetArrayItem(list.v, 1), "ref")->valueint != pos)
        return ea_fail(w->err, "%s %s: expected [{\"ref\": %d}, {\"ref\": %d}] (the first difference, then the "
                       "positions), got another list", list.file, list.path, first, pos);
    /* the two shifted views of the cat: hi = cat[..., 1:len+1], lo = cat[..., 0:len] */
    int hi = -1, lo = -1;
    for (int j = cat + 1; j <= cat + 2; j++) {
        int64_t from;
        if (expect_op(w, j, "aten.slice.Tensor") || arg_ref(w, j, 0, cat) || arg_is(w, j, 1, -1) ||
            arg_int(w, j, 2, &from) || arg_is(w, j, 3, from + len))
            return -1;
        if (from == 1 && hi < 0)
            hi = j;
        else if (from == 0 && lo < 0)
            lo = j;
        else
            return ea_fail(w->err, "%s %s: expected one slice from 0 and one from 1, got another from %" PRId64,
                           node(w, j).file, node(w, j).path, from);
    }
    k = cat + 3;
    if (expect_op(w, k, "aten.sub.Tensor") || arg_ref(w, k, 0, hi) || arg_ref(w, k, 1, lo) ||
        expect_op(w, k + 1, "aten.ne.Scalar") || arg_ref(w, k + 1, 0, k) || arg_int(w, k + 1, 1, &s->step) ||
        cumsum_at(w, k + 2, k + 1, "i64", s))
        return -1;
    if (k + 3 != w->n)
        return ea_fail(w->err, "%s %s: expected %d nodes (the chain ends at the cumsum), got %d", w->nodes.file,
                       w->nodes.path, k + 3, w->n);
    if (s->rows != rows || s->cols != len)
        return ea_fail(w->err, "%s %s: expected the cumsum over [%" PRId64 ", %" PRId64 "] (expand x iota), got [%"
                       PRId64 ", %" PRId64 "]", node(w, k + 2).file, node(w, k + 2).path, rows, len, s->rows, s->cols);
    ea_tensor p = dense(EA_I64, 1, len), c = dense(EA_I64, s->rows, s->cols);
    add_output(s, &p);
    return add_output(s, &c);
}

/* full(fill) f32 -> cumsum -> sub -> to i64 -> add */
static int parse_const(const walk *w, cs_scope *s)
{
    ej_val a, kw, d;
    const char *dt;
    ea_tensor out;
    if (expect_op(w, 0, "aten.full.default") || args_of(w, 0, 2, &a) || arg_num(w, 0, 1, &s->fill) ||
        ej_field(node(w, 0), "kwargs", 1, &kw, w->err) || ej_field(kw, "dtype", 1, &d, w->err) ||
        ej_get_string(d, "dtype", &dt, w->err))
        return -1;
    if (strcmp(dt, "f32"))
        return ea_fail(w->err, "%s %s.dtype: expected \"f32\", got \"%s\"", d.file, d.path, dt);
    if (cumsum_at(w, 1, 0, "f32", s) || expect_op(w, 2, "aten.sub.Tensor") || arg_ref(w, 2, 0, 1) ||
        arg_num(w, 2, 1, &s->sub) || expect_op(w, 3, "prims.convert_element_type.default") || arg_ref(w, 3, 0, 2) ||
        arg_dtype(w, 3, 1, "i64") || expect_op(w, 4, "aten.add.Tensor") || arg_ref(w, 4, 0, 3) ||
        arg_int(w, 4, 1, &s->add) || ann_of(w, 4, &out))
        return -1;
    if (w->n != 5)
        return ea_fail(w->err, "%s %s: expected 5 nodes (the chain ends at the add), got %d", w->nodes.file,
                       w->nodes.path, w->n);
    /* every partial sum must be an integer below 2^24 for f32 to hold it exactly in any order */
    if (s->fill != (double)(int64_t)s->fill || s->fill < 0 || s->fill * (double)s->cols >= 16777216.0)
        return ea_fail(w->err, "%s %s[1]: expected a non-negative integer fill whose row sums stay below 2^24 (an exact "
                       "f32 scan), got %g over %" PRId64 " columns", a.file, a.path, s->fill, s->cols);
    return add_output(s, &out);
}

int cs_scope_parse(const cJSON *point, const char *file, int index, int group, cs_scope *s, ea_error *err)
{
    memset(s, 0, sizeof *s);
    s->file = file;
    ej_val p = ej_point(file, point, index), groups, g, sc, nodes;
    const char *root = p.path;
    const char *id, *sid;
    int n;
    if (ej_get_string(p, "point", &id, err) || ej_field(p, "scopes", 1, &groups, err) || ej_array(groups, &n, err))
        return -1;
    if (group < 0 || group >= n)
        return ea_fail(err, "%s %s.scopes: expected a scope group [%d], got %d groups", file, root, group, n);
    g = ej_index(groups, group);
    if (ej_get_string(g, "scope_id", &sid, err) || ej_get_int(g, "count", &s->occurrences, err) ||
        ej_field(g, "scope", 1, &sc, err) || ej_field(sc, "nodes", 1, &nodes, err) || ej_array(nodes, &n, err))
        return -1;
    snprintf(s->point, sizeof s->point, "%.63s", id);
    snprintf(s->scope_id, sizeof s->scope_id, "%.95s", sid);
    snprintf(s->alias, sizeof s->alias, "%.63s", id); /* the family names it (ea_repro_alias) */
    snprintf(s->where, sizeof s->where, "%.70s.scopes[%d]", root, group);
    s->group = g.v;
    s->kind = cs_kind_of(g.v);
    walk w = {nodes, n, err};
    switch (s->kind) {
    case CS_MASK:
        return parse_mask(&w, s);
    case CS_PACKED:
        return parse_packed(&w, s);
    case CS_CONST:
        return parse_const(&w, s);
    default:
        return ea_fail(err, "%s %s.scope.nodes: expected a position-id scope (input -> ne -> cumsum, iota -> cat -> "
                       "ne -> cumsum, or full -> cumsum), got a chain starting with \"%s\"", file, s->where,
                       op_at(nodes.v, 0));
    }
}

int cs_outputs_check(cs_scope *s, const ea_capture *c, ea_error *err)
{
    if (c->noutputs != s->noutputs)
        return ea_fail(err, "%s $.outputs: expected %d outputs for the %s scope %s, got %d", c->file, s->noutputs,
                       cs_kind_name(s->kind), s->scope_id, c->noutputs);
    for (int i = 0; i < c->noutputs; i++) {
        ea_tensor want = s->outputs[i], got = c->outputs[i].t;
        char a[128], b[128];
        if (!ea_tensor_equal(&want, &got)) {
            ea_tensor_format(&want, a, sizeof a);
            ea_tensor_format(&got, b, sizeof b);
            return ea_fail(err, "%s $.outputs[%d]: expected %s, got %s", c->file, i, a, b);
        }
    }
    if (c->ninputs != (s->kind == CS_MASK))
        return ea_fail(err, "%s $.inputs: expected %s, got %d inputs", c->file,
                       s->kind == CS_MASK ? "one i64 input (the token ids)" : "no inputs (built in the graph)",
                       c->ninputs);
    if (s->kind == CS_MASK &&
        (c->inputs[0].t.dtype != EA_I64 || ea_tensor_numel(&c->inputs[0].t) != s->rows * s->cols)) {
        char got[128];
        ea_tensor_format(&c->inputs[0].t, got, sizeof got);
        return ea_fail(err, "%s $.inputs[0]: expected the token ids, i64 with %" PRId64 " x %" PRId64 " elements, got "
                       "%s", c->file, s->rows, s->cols, got);
    }
    return 0;
}

int64_t cs_floor_written_bytes(const cs_scope *s)
{
    int64_t b = 0;
    for (int i = 0; i < s->noutputs; i++)
        b += ea_tensor_numel(&s->outputs[i]) * ea_dtype_size(s->outputs[i].dtype);
    return b;
}

int64_t cs_floor_bytes(const cs_scope *s)
{
    return (s->kind == CS_MASK ? s->rows * s->cols * 8 : 0) + cs_floor_written_bytes(s);
}
