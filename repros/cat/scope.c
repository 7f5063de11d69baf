/* scope.c: reading a cat point and its capture into a cat_scope (contract in cat.h). */
#include "cat.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "corpus/occurrences.h"
#include "target/target_layout.h"

void cat_alias_tag(const cJSON *point, char *buf, size_t n)
{
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(point, "signature");
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sig, "output"), "sizes");
    const cJSON *list = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sig, "args"), 0);
    snprintf(buf, n, "%.0fx%.0f-k%d", cJSON_GetNumberValue(cJSON_GetArrayItem(sizes, 2)),
             cJSON_GetNumberValue(cJSON_GetArrayItem(sizes, 3)), cJSON_GetArraySize(list));
}

/* A signature tensor: 4-d, contiguous NCHW (what the kernels index), of dtype *dt: bf16, f16 or f32 when
 * *dt is EA_DTYPE_INVALID (the output, read first), else the same (every cat input). */
static int nchw(ej_val t, int64_t sz[4], ea_dtype *dt, ea_error *err)
{
    ej_val sizes, strides;
    const char *name;
    int n, m;
    if (ej_get_string(t, "dtype", &name, err) || ej_field(t, "sizes", 1, &sizes, err) || ej_array(sizes, &n, err) ||
        ej_field(t, "strides", 1, &strides, err) || ej_array(strides, &m, err))
        return -1;
    ea_dtype got = ea_dtype_from_name(name, strlen(name));
    if (*dt == EA_DTYPE_INVALID && got != EA_BF16 && got != EA_F16 && got != EA_F32)
        return ej_bad_field(t, "dtype", "\"bf16\", \"f16\" or \"f32\" (the kernels' instances)", name, err);
    if (*dt != EA_DTYPE_INVALID && got != *dt)
        return ej_bad_field(t, "dtype", *dt == EA_F16 ? "\"f16\" (the output's)" : *dt == EA_F32 ? "\"f32\" (the output's)"
                                                                                     : "\"bf16\" (the output's)",
                            name, err);
    *dt = got;
    if (n != 4 || m != 4)
        return ea_fail(err, "%s %s.sizes: expected a 4-d NCHW tensor, got %d sizes and %d strides", t.file, t.path, n, m);
    int64_t st[4], expect = 1;
    for (int d = 0; d < 4; d++)
        if (ej_as_int(ej_index(sizes, d), &sz[d], err) || ej_as_int(ej_index(strides, d), &st[d], err))
            return -1;
    for (int d = 3; d >= 0; d--) {
        if (sz[d] < 1)
            return ea_fail(err, "%s %s.sizes[%d]: expected a positive size, got %" PRId64, t.file, t.path, d, sz[d]);
        if (sz[d] > (INT64_C(1) << 48) / expect) /* numels, N*H*W and byte counts stay far from int64 overflow */
            return ea_fail(err, "%s %s.sizes: expected at most 2^48 elements, got more", t.file, t.path);
        if (st[d] != expect && sz[d] > 1)
            return ea_fail(err, "%s %s.strides: expected contiguous NCHW strides (the cat kernels read rows of "
                           "C*H*W; channels-last is not supported), got stride %" PRId64 " at dim %d where %" PRId64
                           " is contiguous", t.file, t.path, st[d], d, expect);
        expect *= sz[d];
    }
    return 0;
}

/* A literal argument of a scope node (a JSON number), or NAN. */
static double literal(const cJSON *node, int i)
{
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(node, "args"), i);
    return cJSON_IsNumber(a) ? a->valuedouble : NAN;
}

static const char *op_of(const cJSON *node)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(node, "op");
    return cJSON_IsString(o) ? o->valuestring : "";
}

/* eps, the running-variance literals and pooling from the scope's nodes: eps is the add of a literal
 * (var + eps); in train the three muls by a literal on the per-channel variance are, in graph order,
 * the Bessel factor, the momentum and 1 - momentum; an aten.mean.dim after the relu is the pooling. */
static int constants(ej_val group, cat_scope *s, ea_error *err)
{
    ej_val scope, nodes;
    int nn;
    if (ej_field(group, "scope", 1, &scope, err) || ej_field(scope, "nodes", 1, &nodes, err) ||
        ej_array(nodes, &nn, err))
        return -1;
    double muls[3];
    int nmul = 0, neps = 0;
    for (int i = 0; i < nn; i++) {
        const cJSON *node = ej_index(nodes, i).v;
        const char *op = op_of(node);
        double lit = literal(node, 1);
        if (!strcmp(op, "aten.add.Tensor") && !isnan(lit) && neps++ == 0)
            s->eps = lit;
        else if (!strcmp(op, "aten.mul.Tensor") && !isnan(lit) && lit != 1 && nmul < 3)
            muls[nmul++] = lit;
        else if (!strcmp(op, "aten.mean.dim"))
            s->pooled = 1;
    }
    if (neps != 1 || !(s->eps > 0))
        return ea_fail(err, "%s %s: expected one aten.add.Tensor of a positive literal (the BN eps), "
                       "found %d (the first: %g)", nodes.file, nodes.path, neps, s->eps);
    if (s->train && nmul != 3)
        return ea_fail(err, "%s %s: expected three aten.mul.Tensor by a literal in a train scope (Bessel "
                       "factor, momentum, 1 - momentum), found %d", nodes.file, nodes.path, nmul);
    if (s->train) {
        s->bessel = muls[0], s->momentum = muls[1], s->decay = muls[2];
        if (fabs(s->bessel * (double)(s->n * s->hw - 1) - (double)(s->n * s->hw)) > 1e-6 * (double)(s->n * s->hw))
            return ea_fail(err, "%s %s: expected the Bessel factor N*H*W/(N*H*W-1) = %" PRId64 "/%" PRId64
                           ", got %.17g", nodes.file, nodes.path, s->n * s->hw, s->n * s->hw - 1, s->bessel);
    }
    return 0;
}

static int sizes_are(const ea_tensor *t, int nd, const int64_t *want)
{
    if (t->ndim != nd)
        return 0;
    for (int d = 0; d < nd; d++)
        if (t->sizes[d] != want[d])
            return 0;
    return ea_tensor_is_contiguous(t) && t->offset == 0;
}

/* Which capture input and output plays which role; the capture is the scope compiled alone, so its
 * inputs are the cat's inputs in order and the per-channel parameters in graph order. */
static int roles(const ea_capture *cap, cat_scope *s, ea_error *err)
{
    int nx = 0, np = 0;
    ea_dtype pdt = s->train ? EA_F32 : s->dt;
    int want_p = s->train ? 3 : 4;
    static const int train_params[3] = {CAT_P_VAR, CAT_P_WEIGHT, CAT_P_BIAS};
    for (int i = 0; i < CAT_NPARAMS; i++)
        s->in_param[i] = -1;
    for (int i = 0; i < CAT_NOUTS; i++)
        s->out[i] = -1;
    for (int i = 0; i < cap->ninputs; i++) {
        const ea_tensor *t = &cap->inputs[i].t;
        if (t->ndim == 4) {
            int64_t want[4] = {s->n, nx < s->k ? s->ch[nx] : -1, s->h, s->w};
            if (nx >= s->k || t->dtype != s->dt || !sizes_are(t, 4, want))
                return ea_fail(err, "%s $.inputs[%d]: expected cat input %d of the point (%s [%" PRId64 ", %" PRId64
                               ", %" PRId64 ", %" PRId64 "], contiguous)", cap->file, i, nx, ea_dtype_name(s->dt),
                               want[0], want[1], want[2], want[3]);
            s->in_x[nx++] = i;
        } else {
            if (np >= want_p || t->dtype != pdt || !sizes_are(t, 1, &s->c))
                return ea_fail(err, "%s $.inputs[%d]: expected %d per-channel %s parameters of %" PRId64
                               " elements (%s)", cap->file, i, want_p, ea_dtype_name(pdt), s->c,
                               s->train ? "running var, weight, bias" : "running mean, running var, weight, bias");
            s->in_param[s->train ? train_params[np] : np] = i;
            np++;
        }
    }
    if (nx != s->k || np != want_p)
        return ea_fail(err, "%s $.inputs: expected %d cat inputs and %d parameters, got %d and %d", cap->file, s->k,
                       want_p, nx, np);
    int64_t full[4] = {s->n, s->c, s->h, s->w}, pooled[2] = {s->n, s->c};
    int want_o = s->train ? CAT_NOUTS : 1;
    if (cap->noutputs != want_o)
        return ea_fail(err, "%s $.outputs: expected %d outputs (%s), got %d", cap->file, want_o,
                       s->train ? "cat, mean, rstd, running var, y" : "y", cap->noutputs);
    for (int i = 0; i < want_o; i++) {
        int role = s->train ? i : CAT_O_Y;
        const ea_tensor *t = &cap->outputs[i].t;
        int ok;
        if (role == CAT_O_CAT)
            ok = t->dtype == s->dt && sizes_are(t, 4, full);
        else if (role == CAT_O_Y)
            ok = t->dtype == s->dt && (s->pooled ? sizes_are(t, 2, pooled) : sizes_are(t, 4, full));
        else
            ok = t->dtype == EA_F32 && ea_tensor_numel(t) == s->c && ea_tensor_is_contiguous(t) && t->offset == 0;
        if (!ok) {
            static const char *const what[CAT_NOUTS] = {NULL, "the mean (f32, C elements)", "rstd (f32, C elements)",
                                                        "the running variance (f32, C elements)", NULL};
            char want[128];
            if (role == CAT_O_CAT || role == CAT_O_Y) /* the scope's dtype; the statistics are f32 */
                snprintf(want, sizeof want, role == CAT_O_CAT ? "the cat (%s, the point's output shape)"
                                                              : "y (%s, [N, C, H, W], or [N, C] when pooled)",
                         ea_dtype_name(s->dt));
            else
                snprintf(want, sizeof want, "%s", what[role]);
            return ea_fail(err, "%s $.outputs[%d]: expected %s", cap->file, i, want);
        }
        s->out[role] = i;
    }
    const ea_capture_run *r = ea_capture_run_named(cap, "default");
    if (!r || !r->replayable)
        return ea_fail(err, "%s $.runs: expected a replayable \"default\" run (the current path replays it)", cap->file);
    return 0;
}

/* The roles a capture of the scope compiled alone has (roles() checks them against one): the cat inputs,
 * then the parameters in graph order; the outputs cat, mean, rstd, running var, y (train) or y. */
static void canonical_roles(cat_scope *s)
{
    static const int train_params[3] = {CAT_P_VAR, CAT_P_WEIGHT, CAT_P_BIAS};
    for (int i = 0; i < s->k; i++)
        s->in_x[i] = i;
    for (int i = 0; i < CAT_NPARAMS; i++)
        s->in_param[i] = s->train ? -1 : s->k + i;
    for (int i = 0; s->train && i < 3; i++)
        s->in_param[train_params[i]] = s->k + i;
    for (int i = 0; i < CAT_NOUTS; i++)
        s->out[i] = s->train ? i : -1;
    s->out[CAT_O_Y] = s->train ? CAT_O_Y : 0;
}

static int group(ej_val groups, int g, cat_scope *s, ea_error *err)
{
    ej_val grp = ej_index(groups, g), occs, occ;
    const char *id, *mode, *model;
    int no;
    if (ej_get_string(grp, "scope_id", &id, err) || ej_field(grp, "occurrences", 1, &occs, err) ||
        ej_array(occs, &no, err))
        return -1;
    if (no < 1)
        return ea_fail(err, "%s %s: expected at least one occurrence, got none", occs.file, occs.path);
    occ = ej_index(occs, 0);
    if (ej_get_string(occ, "mode", &mode, err) || ej_get_string(occ, "model", &model, err))
        return -1;
    if (strcmp(mode, "train") && strcmp(mode, "infer"))
        return ej_bad_field(occ, "mode", "\"train\" or \"infer\"", mode, err);
    snprintf(s->scope_ids[g], sizeof s->scope_ids[g], "%.63s", id);
    snprintf(s->model, sizeof s->model, "%.63s", model);
    s->train = !strcmp(mode, "train");
    return constants(grp, s, err);
}

int cat_scope_parse(const cJSON *point, const char *file, int index, const ea_captures *caps, cat_scope *s,
                    const ea_capture **cap, ea_error *err)
{
    memset(s, 0, sizeof *s);
    *cap = NULL;
    snprintf(s->file, sizeof s->file, "%s", file);
    ej_val p = ej_point(s->file, point, index);
    snprintf(s->path, sizeof s->path, "%.63s", p.path);
    ej_val sig, args, list, out, groups;
    const char *id;
    int nargs, ng;
    int64_t dim, osz[4];
    s->dt = EA_DTYPE_INVALID; /* the output's, then every input's */
    if (ej_get_string(p, "point", &id, err) || ej_get_int(p, "count", &s->occurrences, err) ||
        ej_field(p, "signature", 1, &sig, err) || ej_field(sig, "output", 1, &out, err) || nchw(out, osz, &s->dt, err) ||
        ej_field(sig, "args", 1, &args, err) || ej_array(args, &nargs, err))
        return -1;
    snprintf(s->point, sizeof s->point, "%.63s", id);
    if (nargs != 2)
        return ea_fail(err, "%s %s: expected cat(tensors, dim), got %d arguments", args.file, args.path, nargs);
    list = ej_index(args, 0);
    if (ej_as_int(ej_index(args, 1), &dim, err) || ej_array(list, &s->k, err))
        return -1;
    if (dim != 1 && dim != -3)
        return ea_fail(err, "%s %s[1]: expected the channel dim 1, got %" PRId64, args.file, args.path, dim);
    if (s->k < 2 || s->k > CAT_MAX_INPUTS)
        return ea_fail(err, "%s %s[0]: expected 2 to %d cat inputs (CAT_MAX_INPUTS), got %d", args.file, args.path,
                       CAT_MAX_INPUTS, s->k);
    s->n = osz[0], s->c = osz[1], s->h = osz[2], s->w = osz[3], s->hw = s->h * s->w;
    for (int i = 0; i < s->k; i++) {
        int64_t sz[4];
        ej_val t = ej_index(list, i);
        if (nchw(t, sz, &s->dt, err))
            return -1;
        if (sz[0] != s->n || sz[2] != s->h || sz[3] != s->w)
            return ea_fail(err, "%s %s.sizes: expected [%" PRId64 ", C, %" PRId64 ", %" PRId64 "] (the output's N, H, W)",
                           t.file, t.path, s->n, s->h, s->w);
        s->ch[i] = sz[1];
        s->c_off[i + 1] = s->c_off[i] + sz[1];
    }
    if (s->c_off[s->k] != s->c)
        return ea_fail(err, "%s %s[0]: expected input channels summing to the output's %" PRId64 ", got %" PRId64,
                       args.file, args.path, s->c, s->c_off[s->k]);
    if (ej_field(p, "scopes", 1, &groups, err) || ej_array(groups, &ng, err))
        return -1;
    if (ng < 1 || ng > CAT_MAX_GROUPS)
        return ea_fail(err, "%s %s: expected 1 to %d scope groups, got %d", groups.file, groups.path, CAT_MAX_GROUPS, ng);
    s->ngroups = ng;
    for (int g = 0; g < ng; g++) {
        cat_scope other = *s;
        if (group(groups, g, g ? &other : s, err))
            return -1;
        if (g && (other.train != s->train || other.pooled != s->pooled || other.eps != s->eps ||
                  other.bessel != s->bessel || other.momentum != s->momentum || other.decay != s->decay))
            return ea_fail(err, "%s %s[%d]: expected every scope group of a point to compute the same scope as "
                           "group 0 (mode, eps, momentum, pooling)", groups.file, groups.path, g);
        if (g)
            memcpy(s->scope_ids[g], other.scope_ids[g], sizeof s->scope_ids[g]);
    }
    snprintf(s->alias, sizeof s->alias, "%s", s->point); /* the family names it (ea_repro_alias) */
    const ea_capture *found = ea_capture_of_point(caps, point, 0, err);
    if (!found) {
        ea_error inner = *err;
        ea_fail(err, "%s %s.scopes[0].scope_id: expected a capture of the scope (the current path replays "
                "it; tools/capture writes it): %s", s->file, s->path, inner.msg);
        canonical_roles(s);
        return 1;
    }
    ea_tf_capture(NULL, found->scope, s->capture, sizeof s->capture);
    if (roles(found, s, err))
        return -1;
    *cap = found;
    return 0;
}
