/* scope.c: the routing scope read from a golden point and its capture (contract in scope.h). */
#include "scope.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "target/target.h"
#include "corpus/occurrences.h"
#include "target/replay.h"

static const char *const ops[] = {"aten.sort.default", "aten.histc.default", "aten.cumsum.default"};
enum { N_SORT, N_HISTC, N_CUMSUM };

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int rt_claims(const cJSON *point)
{
    const cJSON *g, *node;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes")) {
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(g, "scope");
        cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(sc, "nodes"))
            if (!strcmp(str_of(node, "op"), ops[N_SORT]) || !strcmp(str_of(node, "op"), ops[N_HISTC]))
                return 1;
    }
    return 0;
}

/* The sorted_topk_ids description: the histc point's derived object, or the cumsum point's "of". */
static int topk_props(ej_val sig, rt_scope *s, ea_error *err)
{
    ej_val vps, d, range;
    int n;
    if (ej_field(sig, "value_properties", 1, &vps, err) || ej_array(vps, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        const char *kind;
        if (ej_field(ej_index(vps, i), "derived", 0, &d, err))
            return -1;
        if (!d.v || ej_get_string(d, "kind", &kind, err))
            continue;
        if (!strcmp(kind, "histogram") && ej_field(d, "of", 1, &d, err))
            return -1;
        if (strcmp(str_of(d.v, "kind"), "sorted_topk_ids"))
            continue;
        int descending, nr;
        int64_t lo, hi;
        if (ej_get_int(d, "tokens", &s->tokens, err) || ej_get_int(d, "k", &s->k, err) ||
            ej_get_int(d, "experts", &s->experts, err) || ej_get_bool(d, "descending", &descending, err) ||
            ej_field(d, "range", 1, &range, err) || ej_array(range, &nr, err))
            return -1;
        if (descending)
            return ej_bad_field(d, "descending", "false (an ascending sort feeds histc)", "true", err);
        if (nr != 2 || ej_as_int(ej_index(range, 0), &lo, err) || ej_as_int(ej_index(range, 1), &hi, err))
            return nr != 2 ? ej_bad_field(d, "range", "[min, max]", "another length", err) : -1;
        /* tokens bounded so that tokens * k cannot overflow; the sort-size check names the real limit */
        if (s->experts < 2 || s->experts > 1024 || s->k < 1 || s->k > s->experts || s->tokens < 1 ||
            s->tokens > INT32_MAX)
            return ea_fail(err, "%s %s: expected 2 <= experts <= 1024, 1 <= k <= experts and 1 <= tokens < 2^31, "
                           "got %" PRId64 " experts, k %" PRId64 ", %" PRId64 " tokens", d.file, d.path, s->experts,
                           s->k, s->tokens);
        if (lo < 0 || hi >= s->experts)
            return ea_fail(err, "%s %s.range: expected ids within [0, %" PRId64 "], got [%" PRId64 ", %" PRId64 "]",
                           d.file, d.path, s->experts - 1, lo, hi);
        s->n = s->tokens * s->k;
        return 0;
    }
    return ea_fail(err, "%s %s.value_properties: expected a derived \"sorted_topk_ids\" (or a \"histogram\" of one), "
                   "got none", sig.file, sig.path);
}

/* The index of the first node of op in nodes (*out that node), -1 when absent. */
static int find_node(ej_val nodes, int n, const char *op, ej_val *out)
{
    for (int i = 0; i < n; i++) {
        *out = ej_index(nodes, i);
        if (!strcmp(str_of(out->v, "op"), op))
            return i;
    }
    return -1;
}

static int group_nodes(ej_val g, rt_scope *s, int gi, ea_error *err)
{
    ej_val sc, nodes, node[3], args, kw, dt;
    int n, nargs;
    const char *id, *dtype;
    if (ej_get_string(g, "scope_id", &id, err) || ej_field(g, "scope", 1, &sc, err) ||
        ej_field(sc, "nodes", 1, &nodes, err) || ej_array(nodes, &n, err))
        return -1;
    snprintf(s->scope_ids[gi], sizeof s->scope_ids[gi], "%.95s", id);
    for (int k = 0; k < 3; k++)
        if (find_node(nodes, n, ops[k], &node[k]) < 0)
            return ea_fail(err, "%s %s: expected an %s node (the routing scope: sort -> to int32 -> histc -> cumsum), "
                           "got none", nodes.file, nodes.path, ops[k]);
    int64_t bins, lo, hi;
    if (ej_field(node[N_HISTC], "args", 1, &args, err) || ej_array(args, &nargs, err))
        return -1;
    if (nargs != 4)
        return ea_fail(err, "%s %s: expected histc(input, bins, min, max), got %d args", args.file, args.path, nargs);
    if (ej_as_int(ej_index(args, 1), &bins, err) || ej_as_int(ej_index(args, 2), &lo, err) ||
        ej_as_int(ej_index(args, 3), &hi, err))
        return -1;
    if (gi > 0 && (bins != s->bins || lo != s->hmin || hi != s->hmax))
        return ea_fail(err, "%s %s: expected the arguments of the first scope group (bins %" PRId64 ", [%" PRId64
                       ", %" PRId64 "]), got bins %" PRId64 ", [%" PRId64 ", %" PRId64 "]", args.file, args.path,
                       s->bins, s->hmin, s->hmax, bins, lo, hi);
    s->bins = bins, s->hmin = lo, s->hmax = hi;
    if (ej_field(node[N_CUMSUM], "kwargs", 1, &kw, err) || ej_field(kw, "dtype", 1, &dt, err) ||
        ej_get_string(dt, "dtype", &dtype, err))
        return -1;
    if (strcmp(dtype, "i32"))
        return ea_fail(err, "%s %s.dtype: expected \"i32\" (cumsum(dtype=torch.int32)), got \"%s\"", dt.file, dt.path,
                       dtype);
    if (gi == 0) { /* the capture is found by the scope ids or these occurrences (ea_capture_of_point) */
        ej_val occ;
        const char *oid;
        int no;
        if (ej_field(g, "occurrences", 1, &occ, err) || ej_array(occ, &no, err))
            return -1;
        if (no < 1)
            return ea_fail(err, "%s %s: expected at least one occurrence, got none", occ.file, occ.path);
        if (ej_get_string(ej_index(occ, 0), "id", &oid, err))
            return -1;
    }
    return 0;
}

int rt_scope_parse(const cJSON *point, const char *file, int index, rt_scope *s, ea_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    ej_val p = ej_point(s->file, point, index), sig, groups;
    snprintf(s->path, sizeof s->path, "%.63s", p.path);
    const char *id, *op;
    int ng;
    if (ej_get_string(p, "point", &id, err) || ej_get_int(p, "count", &s->occurrences, err) ||
        ej_field(p, "signature", 1, &sig, err) || ej_get_string(sig, "op", &op, err) ||
        ej_field(p, "scopes", 1, &groups, err) || ej_array(groups, &ng, err))
        return -1;
    snprintf(s->point, sizeof s->point, "%.63s", id);
    snprintf(s->op, sizeof s->op, "%.31s", op);
    if (ng < 1 || ng > RT_MAX_GROUPS)
        return ea_fail(err, "%s %s: expected 1 to %d scope groups, got %d", groups.file, groups.path, RT_MAX_GROUPS,
                       ng);
    s->ngroups = ng;
    for (int g = 0; g < ng; g++)
        if (group_nodes(ej_index(groups, g), s, g, err))
            return -1;
    if (topk_props(sig, s, err))
        return -1;
    if (s->bins != s->experts || s->hmin != 0 || s->hmax != s->experts - 1)
        return ea_fail(err, "%s %s.scopes[0]: expected histc(bins=%" PRId64 ", min=0, max=%" PRId64 ") (one bin per "
                       "expert: the offsets are the experts' cumulative counts), got bins %" PRId64 ", [%" PRId64
                       ", %" PRId64 "]", p.file, p.path, s->experts, s->experts - 1, s->bins, s->hmin, s->hmax);
    if (s->n < RT_SORT_MIN || s->n > RT_SORT_LARGE_MAX)
        return ea_fail(err, "%s %s: expected %d..%d ids to sort (ATen's WarpMergeSort up to %d, MediumRadixSort up to "
                       "%d, its CUB radix sort above: what the replicas run), got %" PRId64 " (%" PRId64 " tokens x %"
                       PRId64 ")", p.file, p.path, RT_SORT_MIN, RT_SORT_LARGE_MAX, RT_WARP_SORT_MAX, RT_SORT_MAX, s->n,
                       s->tokens, s->k);
    return 0;
}

/* ---- the capture ---- */

static int step_is(const rt_capture *c, int i, int triton, const char *what, ea_error *err)
{
    const ea_capture_step *st = &c->run->steps[i];
    if (st->triton == triton && (triton || !strcmp(st->call, what)))
        return 0;
    return ea_fail(err, "%s $.runs[%d].steps[%d]: expected %s, got %s", c->cap->file, c->run_index, i, what,
                   st->triton ? st->kernel : st->call);
}

/* t is a contiguous dtype[a] (b < 0) or dtype[a, b] at offset 0. */
static int tensor_is(const rt_capture *c, const ea_capture_tensor *t, const char *where, ea_dtype dt, int64_t a,
                     int64_t b, ea_error *err)
{
    int nd = b < 0 ? 1 : 2;
    if (t->t.dtype == dt && t->t.ndim == nd && t->t.sizes[0] == a && (nd == 1 || t->t.sizes[1] == b) &&
        ea_tensor_is_contiguous(&t->t) && t->t.offset == 0)
        return 0;
    char got[128], want[64];
    ea_tensor_format(&t->t, got, sizeof got);
    if (b < 0)
        snprintf(want, sizeof want, "%s[%" PRId64 "]", ea_dtype_name(dt), a);
    else
        snprintf(want, sizeof want, "%s[%" PRId64 ", %" PRId64 "]", ea_dtype_name(dt), a, b);
    return ea_fail(err, "%s %s: expected a contiguous %s at offset 0 (the scope's), got %s", c->cap->file, where, want,
                   got);
}

static int arg_buffer(const rt_capture *c, int step, int a, const char *want, ea_error *err)
{
    const ea_capture_step *st = &c->run->steps[step];
    const char *got = a < st->nargs ? st->args[a].buffer : NULL;
    if (got && (!want || !strcmp(got, want)) && st->args[a].offset == 0)
        return 0;
    return ea_fail(err, "%s $.runs[%d].steps[%d].args[%d]: expected %s%s%s at offset 0, got %s", c->cap->file,
                   c->run_index, step, a, want ? "buffer \"" : "a run buffer", want ? want : "", want ? "\"" : "",
                   got ? got : "a scalar or nothing");
}

/* c->cap's run config checked as the replay needs it and its two Triton steps filled; -1 (err) otherwise. */
static int capture_run(const rt_scope *s, rt_capture *c, const char *config, ea_error *err)
{
    c->run = ea_capture_run_named(c->cap, config);
    c->run_index = c->run ? (int)(c->run - c->cap->runs) : -1;
    c->convert_index = 1, c->scan_index = 3;
    int rc = !c->run ? ea_fail(err, "%s $.runs: expected a \"%s\" run, got none", c->cap->file, config) : 0;
    if (!rc && c->run->nsteps != 4)
        rc = ea_fail(err, "%s $.runs[%d].steps: expected 4 steps (sort, convert, histc, cumsum), got %d", c->cap->file,
                     c->run_index, c->run->nsteps);
    if (!rc && (c->cap->ninputs != 1 || c->cap->noutputs != 3))
        rc = ea_fail(err, "%s $: expected 1 input (ids) and 3 outputs (sorted ids, permutation, offsets), got %d "
                     "and %d", c->cap->file, c->cap->ninputs, c->cap->noutputs);
    if (rc || step_is(c, 0, 0, "torch.ops.aten.sort.stable", err) || step_is(c, 1, 1, "a Triton convert", err) ||
        step_is(c, 2, 0, "torch.ops.aten.histc.default", err) || step_is(c, 3, 1, "a Triton scan", err) ||
        tensor_is(c, &c->cap->inputs[0], "$.inputs[0]", EA_I64, s->tokens, s->k, err) ||
        tensor_is(c, &c->cap->outputs[0], "$.outputs[0]", EA_I64, s->n, -1, err) ||
        tensor_is(c, &c->cap->outputs[1], "$.outputs[1]", EA_I64, s->n, -1, err) ||
        tensor_is(c, &c->cap->outputs[2], "$.outputs[2]", EA_I32, s->experts, -1, err) ||
        arg_buffer(c, 1, 0, c->cap->outputs[0].name, err) || arg_buffer(c, 1, 1, NULL, err) ||
        arg_buffer(c, 3, 0, c->cap->outputs[2].name, err) || ea_replay_check_args(c->cap, c->run, err))
        return -1;
    c->convert = &c->run->steps[1];
    c->scan = &c->run->steps[3];
    return 0;
}

int rt_scope_capture(const rt_scope *s, const cJSON *point, const ea_captures *caps, rt_capture *c, ea_error *err)
{
    memset(c, 0, sizeof *c);
    if (!(c->cap = ea_capture_of_point(caps, point, -1, err)))
        return 1;
    if (capture_run(s, c, "default", err)) {
        c->cap = NULL;
        return -1;
    }
    return 0;
}

int rt_capture_tuned(const rt_scope *s, const rt_capture *c, rt_capture *tuned, ea_error *err)
{
    *tuned = (rt_capture){.cap = c->cap};
    if (capture_run(s, tuned, "coordinate_descent", err))
        return -1;
    const ea_capture_run *a = c->run, *b = tuned->run;
    if (a->nbuffers != b->nbuffers)
        return ea_fail(err, "%s $.runs[%d].buffers: expected the \"default\" run's %d buffers (the replay shares them), "
                       "got %d", c->cap->file, tuned->run_index, a->nbuffers, b->nbuffers);
    for (int i = 0; i < a->nbuffers; i++)
        if (strcmp(a->buffers[i].name, b->buffers[i].name) || a->buffers[i].bytes != b->buffers[i].bytes)
            return ea_fail(err, "%s $.runs[%d].buffers[%d]: expected the \"default\" run's buffers (the replay shares "
                           "them): %s of %" PRId64 " bytes, got %s of %" PRId64, c->cap->file, tuned->run_index, i,
                           a->buffers[i].name, a->buffers[i].bytes, b->buffers[i].name, b->buffers[i].bytes);
    return 0;
}
