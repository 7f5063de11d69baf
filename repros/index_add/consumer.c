/* consumer.c: the op's output followed through views to a scalar div or mul of the scope group (scope.h's
 * consumer fold). Each view's layout is derived here from the op's contiguous output, as torch derives it
 * (as_strided, permute, squeeze, unsqueeze, and reshape/view where torch's stride rule keeps a view), and checked
 * against the node's annotation; the fold holds only when the op's output has that one use and the view the
 * scalar op reads is the output's own elements in storage order: then the quotient is a pointwise pass over the
 * same buffer, as Inductor runs it (in place). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "consumer.h"
#include "target/gen.h"
#include "target/replay.h"

typedef struct {
    int ndim;
    int64_t sizes[EA_MAX_DIMS], strides[EA_MAX_DIMS], offset;
} layout;

static int64_t numel(const layout *l)
{
    int64_t n = 1;
    for (int d = 0; d < l->ndim; d++)
        n *= l->sizes[d];
    return n;
}

/* The strides a view of l with these sizes has, if torch can make one without a copy: dims are matched
 * from the innermost out in chunks that are contiguous among themselves. -1 when only a copy reshapes. */
static int view_of(const layout *l, const int64_t *sizes, int nd, layout *out)
{
    *out = (layout){.ndim = nd, .offset = l->offset};
    memcpy(out->sizes, sizes, sizeof *sizes * (size_t)nd);
    if (l->ndim == 0 || nd == 0)
        return l->ndim == nd ? 0 : -1;
    int v = nd - 1;
    int64_t base = l->strides[l->ndim - 1], have = 1, made = 1;
    for (int d = l->ndim - 1; d >= 0; d--) {
        have *= l->sizes[d];
        if (d > 0 && (l->sizes[d - 1] == 1 || l->strides[d - 1] == have * base))
            continue; /* dim d - 1 continues the chunk */
        while (v >= 0 && (made < have || sizes[v] == 1)) {
            out->strides[v] = made * base;
            made *= sizes[v--];
        }
        if (made != have)
            return -1;
        if (d > 0)
            base = l->strides[d - 1], have = 1, made = 1;
    }
    return v == -1 ? 0 : -1;
}

/* The integers of arr: their count, -1 when arr is no list of at most max, -2 when one is not a plain integer (a
 * symbol of a dynamic shape). */
static int ints(const cJSON *arr, int64_t *out, int max)
{
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || n > max)
        return -1;
    for (int i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(arr, i);
        if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int64_t)v->valuedouble)
            return -2;
        out[i] = (int64_t)v->valuedouble;
    }
    return n;
}

static int dim_of(const cJSON *v, int ndim)
{
    int d = cJSON_IsNumber(v) ? v->valueint : ndim;
    d += d < 0 ? ndim : 0;
    return d >= 0 && d < ndim ? d : -1;
}

static const char *const views_followed[] = {"aten.as_strided.default", "aten.permute.default", "aten.squeeze.dim",
                                             "aten.unsqueeze.default", "aten.reshape.default", "aten.view.default",
                                             "aten._unsafe_view.default", NULL};

static int is_view(const char *op)
{
    for (int i = 0; views_followed[i]; i++)
        if (!strcmp(op, views_followed[i]))
            return 1;
    return 0;
}

/* l after view op (is_view); 1 when the view is not followed here (a reshape torch makes by a copy, sizes that are
 * symbols rather than numbers), -1 when its arguments are not what the op takes. */
static int apply_view(const char *op, const cJSON *args, layout *l)
{
    const cJSON *a1 = cJSON_GetArrayItem(args, 1);
    int64_t v[EA_MAX_DIMS], w[EA_MAX_DIMS];
    if (!strcmp(op, "aten.as_strided.default")) { /* sizes, strides and storage offset as given */
        int n = ints(a1, v, EA_MAX_DIMS), m = ints(cJSON_GetArrayItem(args, 2), w, EA_MAX_DIMS);
        const cJSON *off = cJSON_GetArrayItem(args, 3);
        if (n == -2 || m == -2 || (off && cJSON_IsObject(off)))
            return 1;
        if (n < 0 || m != n || (off && !cJSON_IsNumber(off) && !cJSON_IsNull(off)))
            return -1;
        l->ndim = n;
        memcpy(l->sizes, v, sizeof *v * (size_t)n);
        memcpy(l->strides, w, sizeof *w * (size_t)n);
        l->offset = cJSON_IsNumber(off) ? (int64_t)off->valuedouble : l->offset;
        return 0;
    }
    if (!strcmp(op, "aten.permute.default")) {
        layout p = *l;
        unsigned seen = 0;
        if (ints(a1, v, EA_MAX_DIMS) != l->ndim)
            return -1;
        for (int d = 0; d < l->ndim; d++) {
            int s = v[d] < 0 ? (int)v[d] + l->ndim : (int)v[d];
            if (s < 0 || s >= l->ndim || (seen & 1u << s))
                return -1;
            seen |= 1u << s;
            p.sizes[d] = l->sizes[s], p.strides[d] = l->strides[s];
        }
        *l = p;
        return 0;
    }
    if (!strcmp(op, "aten.squeeze.dim")) {
        int d = dim_of(a1, l->ndim);
        if (d < 0)
            return -1;
        if (l->sizes[d] == 1) {
            memmove(l->sizes + d, l->sizes + d + 1, sizeof *v * (size_t)(l->ndim - d - 1));
            memmove(l->strides + d, l->strides + d + 1, sizeof *v * (size_t)(l->ndim - d - 1));
            l->ndim--;
        }
        return 0;
    }
    if (!strcmp(op, "aten.unsqueeze.default")) {
        int d = dim_of(a1, l->ndim + 1);
        if (d < 0 || l->ndim == EA_MAX_DIMS)
            return -1;
        int64_t st = d < l->ndim ? l->sizes[d] * l->strides[d] : 1;
        memmove(l->sizes + d + 1, l->sizes + d, sizeof *v * (size_t)(l->ndim - d));
        memmove(l->strides + d + 1, l->strides + d, sizeof *v * (size_t)(l->ndim - d));
        l->sizes[d] = 1, l->strides[d] = st, l->ndim++;
        return 0;
    }
    /* reshape, view, _unsafe_view: one size may be -1 */
    int n = ints(a1, v, EA_MAX_DIMS), infer = -1;
    int64_t known = 1;
    if (n == -2)
        return 1;
    for (int d = 0; d < n; d++) {
        if (v[d] == -1 && infer < 0)
            infer = d;
        else if (v[d] < 0)
            return -1;
        else
            known *= v[d];
    }
    if (n < 0 || (infer >= 0 && (known == 0 || numel(l) % known)))
        return -1;
    if (infer >= 0)
        v[infer] = numel(l) / known;
    layout r;
    if (view_of(l, v, n, &r))
        return 1; /* a copy: not the output's own elements any more */
    *l = r;
    return 0;
}

static int contiguous_at_zero(const layout *l)
{
    int64_t want = 1;
    for (int d = l->ndim - 1; d >= 0; d--) {
        if (l->sizes[d] != 1 && l->strides[d] != want)
            return 0;
        want *= l->sizes[d];
    }
    return l->offset == 0;
}

/* Does v (an argument, a list of them, a keyword argument) name node ref anywhere inside? */
static int mentions(const cJSON *v, int ref)
{
    const cJSON *r = cJSON_IsObject(v) ? cJSON_GetObjectItem(v, "ref") : NULL, *c;
    if (cJSON_IsNumber(r) && r->valueint == ref)
        return 1;
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return 0;
    cJSON_ArrayForEach(c, v)
        if (mentions(c, ref))
            return 1;
    return 0;
}

/* The one node of nodes whose arguments name node `ref` (-1: none, -2: several). */
static int only_user(const cJSON *nodes, int ref)
{
    int user = -1, i = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes) {
        if (mentions(cJSON_GetObjectItem(node, "args"), ref) || mentions(cJSON_GetObjectItem(node, "kwargs"), ref))
            user = user == -1 ? i : -2;
        i++;
    }
    return user;
}

int ia_consumer_parse(ej_val nodes, int op, ia_scope *s, ea_error *err)
{
    if (!s->self_const)
        return 0; /* the general oracle copies self: it would have to scale it too */
    layout l = {.ndim = s->out.ndim};
    int64_t st = 1;
    for (int d = s->out.ndim - 1; d >= 0; st *= s->out.sizes[d], d--)
        l.sizes[d] = s->out.sizes[d], l.strides[d] = st;
    const int64_t n = numel(&l);
    char path[300];
    for (int cur = op, views = 0;; views++) {
        const cJSON *at = cJSON_GetArrayItem(nodes.v, cur);
        int u = only_user(nodes.v, cur);
        if (cJSON_GetArraySize(cJSON_GetObjectItem(at, "escapes")) > 0 || u < 0)
            return 0; /* used outside the scope, by several nodes or by none: the op's output is materialized */
        const cJSON *node = cJSON_GetArrayItem(nodes.v, u), *args = cJSON_GetObjectItem(node, "args");
        const cJSON *input = cJSON_GetObjectItem(cJSON_GetArrayItem(args, 0), "ref");
        const char *name = ej_str(node, "op");
        const int scalar_op = name && (!strcmp(name, "aten.div.Tensor") || !strcmp(name, "aten.mul.Tensor")) &&
                              cJSON_GetArraySize(args) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(args, 1));
        if (!name || !cJSON_IsNumber(input) || input->valueint != cur || (!scalar_op && !is_view(name)))
            return 0; /* another op, or the output as another argument than the one it reads: not this fold */
        const char *ann = ej_str(node, "ann");
        ea_tensor t;
        snprintf(path, sizeof path, "%s[%d]", nodes.path, u);
        if (!ann)
            return ea_fail(err, "%s %s.ann: expected the tensor annotation of a %s", nodes.file, path, name);
        if (ea_tensor_parse(ann, strlen(ann), path, &t, err))
            return -1;
        if (scalar_op) {
            const double k = cJSON_GetArrayItem(args, 1)->valuedouble;
            int div = name[5] == 'd', e;
            if (!contiguous_at_zero(&l) || numel(&l) != n || t.dtype != EA_BF16 || !ea_tensor_is_contiguous(&t) ||
                ea_tensor_numel(&t) != n)
                return 0; /* another order than the output's, or another dtype: not this fold */
            if (div && (k == 0 || frexp(fabs(k), &e) != 0.5)) {
                size_t m = strlen(s->note);
                snprintf(s->note + m, sizeof s->note - m, "%sthe consumer div by %g is left out of the scope: only a "
                         "power of two divides as Inductor's multiply by the reciprocal does", m ? "; " : "", k);
                return 0;
            }
            s->consumed = 1;
            s->consumer_div = div;
            s->consumer_by = k;
            s->consumer_scale = div ? 1 / k : k;
            s->consumer_views = views;
            s->final = t;
            snprintf(s->consumer_op, sizeof s->consumer_op, "%s", name);
            return 0;
        }
        int rc = apply_view(name, args, &l);
        if (rc < 0)
            return ea_fail(err, "%s %s.args: expected the arguments %s takes (sizes, strides, distinct dims in "
                           "range)", nodes.file, path, name);
        if (rc > 0)
            return 0;
        int same = t.ndim == l.ndim;
        for (int d = 0; same && d < l.ndim; d++)
            same = t.sizes[d] == l.sizes[d] && (l.sizes[d] == 1 || t.strides[d] == l.strides[d]);
        if (!same)
            return ea_fail(err, "%s %s.ann: expected the layout %s gives the op's output (%d dims as derived), got "
                           "\"%s\"", nodes.file, path, name, l.ndim, ann);
        cur = u;
    }
}

/* The bytes of a capture buffer: an output's or input's storage, or a run buffer's count; -1 when none is named. */
static int64_t buffer_bytes(const ea_capture *c, const ea_capture_run *r, const char *name)
{
    for (int i = 0; i < c->noutputs; i++)
        if (!strcmp(c->outputs[i].name, name))
            return ea_storage_bytes(&c->outputs[i].t);
    for (int i = 0; i < c->ninputs; i++)
        if (!strcmp(c->inputs[i].name, name))
            return ea_storage_bytes(&c->inputs[i].t);
    for (int i = 0; i < r->nbuffers; i++)
        if (!strcmp(r->buffers[i].name, name))
            return r->buffers[i].bytes;
    return -1;
}

int ia_consumer_step_find(const ia_scope *s, const cJSON *point, int group, const ea_captures *caps, const char *config,
                     ia_consumer_step *c, ea_error *err)
{
    memset(c, 0, sizeof *c);
    if (!(c->cap = ea_capture_of_point(caps, point, group, err)))
        return 1;
    if (!(c->run = ea_capture_run_named(c->cap, config)))
        return ea_fail(err, "%s $.runs: expected a \"%s\" run, got none", c->cap->file, config);
    c->run_index = (int)(c->run - c->cap->runs);
    int aten = -1;
    for (int i = 0; i < c->run->nsteps; i++)
        if (!c->run->steps[i].triton) {
            if (aten >= 0)
                return ea_fail(err, "%s $.runs[%d].steps[%d]: expected one ATen step (the index_add), got another",
                               c->cap->file, c->run_index, i);
            aten = i;
        }
    if (aten < 0)
        return ea_fail(err, "%s $.runs[%d].steps: no ATen step: a lowering replaced the index_add, so no replica "
                       "runs this partition", c->cap->file, c->run_index), 1;
    if (!c->run->steps[aten].call || strcmp(c->run->steps[aten].call, "torch.ops.aten.index_add.default"))
        return ea_fail(err, "%s $.runs[%d].steps[%d].call: expected torch.ops.aten.index_add.default, got %s",
                       c->cap->file, c->run_index, aten, c->run->steps[aten].call ? c->run->steps[aten].call : "none");
    c->step_index = aten + 1;
    const ea_capture_step *st = aten + 1 < c->run->nsteps ? &c->run->steps[aten + 1] : NULL;
    const int64_t n = ea_tensor_numel(&s->out);
    const ea_capture_arg *a = st && st->nargs == 2 ? st->args : NULL;
    char named[16]; /* Inductor names a kernel by the ops it fused: "..._div_..." */
    snprintf(named, sizeof named, "_%.3s_", s->consumer_op + 5);
    if (!st || !st->triton || !a || !st->function || !strstr(st->function, named) || !a[0].buffer || a[0].offset != 0 ||
        buffer_bytes(c->cap, c->run, a[0].buffer) != ea_storage_bytes(&s->out) || a[1].buffer || a[1].scalar != (double)n)
        return ea_fail(err, "%s $.runs[%d].steps[%d]: expected the %s after the index_add: a Triton kernel named "
                       "for it (\"%s\") of two arguments, a buffer of the output's %" PRId64 " bytes at offset 0 and "
                       "the scalar %" PRId64, c->cap->file, c->run_index, aten + 1, s->consumer_op, named,
                       ea_storage_bytes(&s->out), n);
    if (ea_replay_check_args(c->cap, c->run, err))
        return -1;
    c->step = st;
    return 0;
}
