/* scope.c: reading an index_add point into an ia_scope (the strict JSON layer, paths in messages). */
#include "scope.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "target/gen.h"
#include "base/json.h"
#include "consumer.h"
#include "scope_impl.h"

static void add_note(ia_scope *s, const char *text)
{
    size_t n = strlen(s->note);
    snprintf(s->note + n, sizeof s->note - n, "%s%s", n ? "; " : "", text);
}

static int int_list(ej_val obj, const char *key, int64_t *out, int *n, ea_error *err)
{
    ej_val arr;
    if (ej_field(obj, key, 1, &arr, err) || ej_array(arr, n, err))
        return -1;
    if (*n > EA_MAX_DIMS)
        return ea_fail(err, "%s %s: expected at most %d dims, got %d", arr.file, arr.path, EA_MAX_DIMS, *n);
    for (int i = 0; i < *n; i++)
        if (ej_as_int(ej_index(arr, i), &out[i], err))
            return -1;
    return 0;
}

/* numel with overflow refused: a shape this large cannot be allocated anywhere. */
static int checked_numel(ej_val v, const ea_tensor *t, ea_error *err)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] < 0 || t->strides[d] < 0 || __builtin_mul_overflow(n, t->sizes[d], &n) || n > (INT64_C(1) << 48))
            return ea_fail(err, "%s %s: expected non-negative sizes and strides with fewer than 2^48 elements",
                           v.file, v.path);
    return 0;
}

static int tensor_json(ej_val v, ea_dtype want, ea_tensor *t, ea_error *err)
{
    static const char *const keys[] = {"dtype", "sizes", "strides", "offset", "device", "contiguous",
                                       "channels_last", "ann", "symbolic", NULL};
    const char *dt;
    int ns, nst;
    ej_val sym;
    memset(t, 0, sizeof *t);
    if (ej_object(v, keys, err) || ej_field(v, "symbolic", 0, &sym, err) || ej_get_string(v, "dtype", &dt, err))
        return -1;
    if (sym.v)
        return ea_fail(err, "%s %s: expected a static shape, got a symbolic one", v.file, v.path);
    t->dtype = ea_dtype_from_name(dt, strlen(dt));
    if (t->dtype != want)
        return ea_fail(err, "%s %s.dtype: expected \"%s\" (the bf16 index_add this repro replicates), got \"%s\"",
                       v.file, v.path, ea_dtype_name(want), dt);
    if (int_list(v, "sizes", t->sizes, &ns, err) || int_list(v, "strides", t->strides, &nst, err) ||
        ej_get_int(v, "offset", &t->offset, err))
        return -1;
    if (ns != nst)
        return ea_fail(err, "%s %s: expected one stride per size, got %d sizes and %d strides", v.file, v.path, ns, nst);
    t->ndim = ns;
    snprintf(t->device, sizeof t->device, "cuda:0");
    return checked_numel(v, t, err);
}

static int get_iota(ej_val d, ia_index *ix, ea_error *err)
{
    static const char *const keys[] = {"length", "start", "step", NULL};
    ej_val io;
    return ej_field(d, "iota", 1, &io, err) || ej_object(io, keys, err) || ej_get_int(io, "length", &ix->length, err) ||
                   ej_get_int(io, "start", &ix->start, err) || ej_get_int(io, "step", &ix->step, err)
               ? -1
               : 0;
}

static int get_histogram(ej_val d, ia_index *ix, ea_error *err)
{
    ej_val h;
    int n;
    if (ej_field(d, "multiplicity_histogram", 1, &h, err) || ej_map(h, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        const char *key;
        ej_val m = ej_member(h, i, &key);
        int64_t count, mult = -1;
        char tail[4] = "";
        if (sscanf(key, "%" SCNd64 "%3s", &mult, tail) < 1 || mult < 0 || mult >= EA_MULT_BUCKETS ||
            (tail[0] && strcmp(tail, "+")))
            return ea_fail(err, "%s %s: expected a multiplicity 0..%d (\"%d+\" for the last), got \"%s\"", m.file,
                           m.path, EA_MULT_BUCKETS - 1, EA_MULT_BUCKETS - 1, key);
        if (ej_as_int(m, &count, err))
            return -1;
        ix->hist[mult] = count;
    }
    return 0;
}

/* The index's derived value properties; unknown kinds leave it IA_INDEX_UNKNOWN (the caller notes it). */
static int index_props(ej_val d, ia_index *ix, ea_error *err)
{
    static const char *const iota_keys[] = {"kind", "iota", "distinct", "sorted", "saved_by", NULL};
    static const char *const as_keys[] = {"kind", "iota", "size", "stride", "offset", "numel", "min", "max",
                                          "distinct", "coverage", "multiplicity_histogram", "max_multiplicity",
                                          "sorted", "saved_by", NULL};
    static const char *const cov_keys[] = {"covered", "of", NULL};
    const char *kind;
    if (ej_get_string(d, "kind", &kind, err))
        return -1;
    if (!strcmp(kind, "iota")) {
        if (ej_object(d, iota_keys, err) || get_iota(d, ix, err) || ej_get_int(d, "distinct", &ix->distinct, err))
            return -1;
        ix->kind = IA_INDEX_IOTA;
        ix->min = ix->step >= 0 ? ix->start : ix->start + ix->step * (ix->length - 1);
        ix->max = ix->step >= 0 ? ix->start + ix->step * (ix->length - 1) : ix->start;
        ix->covered = ix->of = ix->length;
        ix->max_multiplicity = 1;
        ix->hist[1] = ix->length;
    } else if (!strcmp(kind, "as_strided_iota")) {
        int nst;
        int64_t maxm;
        ej_val cov;
        if (ej_object(d, as_keys, err) || get_iota(d, ix, err) || int_list(d, "size", ix->size, &ix->ndim, err) ||
            int_list(d, "stride", ix->stride, &nst, err) || ej_get_int(d, "offset", &ix->offset, err) ||
            ej_get_int(d, "min", &ix->min, err) || ej_get_int(d, "max", &ix->max, err) ||
            ej_get_int(d, "distinct", &ix->distinct, err) || ej_field(d, "coverage", 1, &cov, err) ||
            ej_object(cov, cov_keys, err) || ej_get_int(cov, "covered", &ix->covered, err) ||
            ej_get_int(cov, "of", &ix->of, err) || get_histogram(d, ix, err) ||
            ej_get_int(d, "max_multiplicity", &maxm, err))
            return -1;
        if (nst != ix->ndim)
            return ea_fail(err, "%s %s.stride: expected %d strides (one per size), got %d", d.file, d.path, ix->ndim, nst);
        ix->max_multiplicity = (int)maxm;
        ix->kind = IA_INDEX_AS_STRIDED;
    } else {
        return 0;
    }
    ix->derived = d.v;
    return 0;
}

/* value_properties: self's constant (arg 0) and the index's derivation (arg 2). */
static int value_props(ej_val sig, ia_scope *s, ea_error *err)
{
    ej_val vps;
    int n;
    if (ej_field(sig, "value_properties", 1, &vps, err) || ej_array(vps, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val vp = ej_index(vps, i), arg, d;
        int64_t pos;
        if (ej_field(vp, "arg", 1, &arg, err) || ej_field(vp, "derived", 0, &d, err))
            return -1;
        if (!cJSON_IsNumber(arg.v) || ej_as_int(arg, &pos, err) || !d.v)
            continue; /* keyword args and float data carry nothing the kernels depend on */
        const char *kind;
        if (pos == 0 && cJSON_IsObject(d.v) && !ej_get_string(d, "kind", &kind, err) && !strcmp(kind, "constant")) {
            if (ej_get_number(d, "value", &s->fill, err))
                return -1;
            s->self_const = 1;
        } else if (pos == 2 && index_props(d, &s->idx, err)) {
            return -1;
        }
    }
    if (s->idx.kind == IA_INDEX_UNKNOWN)
        add_note(s, "index value properties missing or of an unknown kind: no faithful index can be rebuilt, "
                    "the general oracle is used on the fabricated index");
    if (!s->self_const)
        add_note(s, "self is not a constant fill: it is generated data, and only the general oracle applies");
    return 0;
}

/* The chosen scope group's nodes and the op's position among them (-1: no op node). */
static int group_nodes(ej_val group, ej_val *nodes, int *n, int *op, ea_error *err)
{
    *op = -1;
    if (ej_field(group, "scope", 1, nodes, err) || ej_field(*nodes, "nodes", 1, nodes, err) || ej_array(*nodes, n, err))
        return -1;
    for (int i = 0; i < *n && *op < 0; i++) {
        ej_val node = ej_index(*nodes, i), role;
        const char *r;
        if (ej_field(node, "role", 1, &role, err) || ej_as_string(role, &r, err))
            return -1;
        if (!strcmp(r, "op"))
            *op = i;
    }
    return 0;
}

/* A producer mul(x, scalar) of the source inside the chosen scope group. */
static int producer_scale(ej_val nodes, int n, int opi, ia_scope *s, ea_error *err)
{
    ej_val op = opi >= 0 ? ej_index(nodes, opi) : (ej_val){0}, src;
    const cJSON *args = op.v ? cJSON_GetObjectItem(op.v, "args") : NULL;
    const cJSON *ref = cJSON_GetObjectItem(cJSON_GetArrayItem(args, 3), "ref");
    if (!cJSON_IsNumber(ref) || ref->valueint < 0 || ref->valueint >= n)
        return 0;
    src = ej_index(nodes, ref->valueint);
    const cJSON *name = cJSON_GetObjectItem(src.v, "op"), *margs = cJSON_GetObjectItem(src.v, "args");
    const cJSON *a0 = cJSON_GetArrayItem(margs, 0), *a1 = cJSON_GetArrayItem(margs, 1);
    if (!cJSON_IsString(name) || strcmp(name->valuestring, "aten.mul.Tensor") || cJSON_GetArraySize(margs) != 2)
        return 0;
    const cJSON *xref = cJSON_IsNumber(a1) ? cJSON_GetObjectItem(a0, "ref") : cJSON_GetObjectItem(a1, "ref");
    const cJSON *k = cJSON_IsNumber(a1) ? a1 : a0;
    if (!cJSON_IsNumber(k) || !cJSON_IsNumber(xref))
        return 0;
    const cJSON *xann = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes.v, xref->valueint), "ann");
    ea_tensor x;
    if (cJSON_IsString(xann) &&
        ea_tensor_parse(xann->valuestring, strlen(xann->valuestring), src.path, &x, err) == 0 &&
        x.dtype == EA_BF16 && ea_tensor_numel(&x) == ea_tensor_numel(&s->source))
        s->x = x;
    s->scaled = 1;
    s->scale = k->valuedouble;
    s->scale_escapes = cJSON_GetArraySize(cJSON_GetObjectItem(src.v, "escapes")) > 0;
    return 0;
}

static int arg_tensor(ej_val args, int i, ea_dtype want, ea_tensor *t, ea_error *err)
{
    return tensor_json(ej_index(args, i), want, t, err);
}

static int check_shapes(const ia_scope *s, ej_val sig, ea_error *err)
{
    if (s->dim < 0 || s->dim >= s->self.ndim || s->source.ndim != s->self.ndim || s->index.ndim > 1)
        return ea_fail(err, "%s %s.args: expected dim in [0, %d), source of self's rank and a 1-d index, got dim %d, "
                       "ranks %d/%d/%d", sig.file, sig.path, s->self.ndim, s->dim, s->self.ndim, s->source.ndim,
                       s->index.ndim);
    if (!ea_tensor_equal(&s->self, &s->out) || !ea_tensor_is_contiguous(&s->self) || s->self.offset != 0)
        return ea_fail(err, "%s %s.args[0]: expected self contiguous and laid out as the output (ATen's "
                       "result.copy_(self) is then one cudaMemcpyAsync, which the replica issues)", sig.file, sig.path);
    for (int d = 0; d < s->self.ndim; d++)
        if (d != s->dim && s->self.sizes[d] != s->source.sizes[d])
            return ea_fail(err, "%s %s.args[3].sizes[%d]: expected %" PRId64 " (self's), got %" PRId64, sig.file,
                           sig.path, d, s->self.sizes[d], s->source.sizes[d]);
    if (ea_tensor_numel(&s->index) != s->source.sizes[s->dim])
        return ea_fail(err, "%s %s.args[2]: expected %" PRId64 " indices (source.size(%d)), got %" PRId64, sig.file,
                       sig.path, s->source.sizes[s->dim], s->dim, ea_tensor_numel(&s->index));
    if (s->idx.kind != IA_INDEX_UNKNOWN && (s->idx.min < 0 || s->idx.max >= s->self.sizes[s->dim]))
        return ea_fail(err, "%s %s.value_properties: index range [%" PRId64 ", %" PRId64 "] is out of bounds for "
                       "dimension %d with size %" PRId64, sig.file, sig.path, s->idx.min, s->idx.max, s->dim,
                       s->self.sizes[s->dim]);
    return 0;
}

int ia_scope_parse(const cJSON *point, const char *file, int index, int group, ia_scope *s, ea_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    ej_val p = ej_point(s->file, point, index);
    snprintf(s->path, sizeof s->path, "%.63s", p.path);
    ej_val sig, args, kwargs, groups, alpha;
    const char *id;
    int nargs, ng;
    if (ej_get_string(p, "point", &id, err) || ej_get_int(p, "count", &s->occurrences, err) ||
        ej_field(p, "signature", 1, &sig, err) || ej_field(sig, "args", 1, &args, err) || ej_array(args, &nargs, err) ||
        ej_field(sig, "kwargs", 1, &kwargs, err) || ej_field(p, "scopes", 1, &groups, err) || ej_array(groups, &ng, err))
        return -1;
    snprintf(s->point, sizeof s->point, "%.63s", id);
    snprintf(s->alias, sizeof s->alias, "%.31s", id); /* the family names it (ea_repro_alias) */
    int64_t dim;
    if (nargs < 4 || nargs > 5)
        return ea_fail(err, "%s %s: expected index_add(self, dim, index, source[, alpha]), got %d args", args.file,
                       args.path, nargs);
    ej_val out;
    if (ej_field(sig, "output", 1, &out, err) || tensor_json(out, EA_BF16, &s->out, err) ||
        arg_tensor(args, 0, EA_BF16, &s->self, err) || ej_as_int(ej_index(args, 1), &dim, err) ||
        arg_tensor(args, 2, EA_I64, &s->index, err) || arg_tensor(args, 3, EA_BF16, &s->source, err))
        return -1;
    if (dim < -s->self.ndim || dim >= s->self.ndim) /* in int64: a huge dim must not wrap into range as an int */
        return ea_fail(err, "%s %s[1]: expected dim in [0, %d) (or [-%d, 0) from the end), got %" PRId64, args.file,
                       args.path, s->self.ndim, s->self.ndim, dim);
    s->dim = (int)(dim < 0 ? dim + s->self.ndim : dim);
    s->alpha = 1;
    if (nargs == 5 ? ej_as_number(ej_index(args, 4), &s->alpha, err)
                   : ej_field(kwargs, "alpha", 0, &alpha, err) || (alpha.v && ej_as_number(alpha, &s->alpha, err)))
        return -1;
    if (value_props(sig, s, err))
        return -1;
    s->x = s->source;
    if (ng > IA_MAX_GROUPS) /* every group's scope id is listed and measured: none may be dropped */
        return ea_fail(err, "%s %s: point %s has %d scope groups, more than the %d an index_add scope holds "
                       "(IA_MAX_GROUPS)", groups.file, groups.path, s->point, ng, IA_MAX_GROUPS);
    s->ngroups = ng;
    for (int g = 0; g < s->ngroups; g++) {
        const char *sid;
        if (ej_get_string(ej_index(groups, g), "scope_id", &sid, err) ||
            ej_get_int(ej_index(groups, g), "count", &s->group_counts[g], err))
            return -1;
        snprintf(s->scope_ids[g], sizeof s->scope_ids[g], "%.63s", sid);
    }
    ej_val nodes;
    int nn, op;
    if (ng > 0 && (group_nodes(ej_index(groups, group >= 0 && group < ng ? group : 0), &nodes, &nn, &op, err) ||
                   producer_scale(nodes, nn, op, s, err) || (op >= 0 && ia_consumer_parse(nodes, op, s, err))))
        return -1;
    return check_shapes(s, sig, err);
}

int64_t ia_scope_device_bytes(const ia_scope *s)
{
    int64_t b = 2 * ea_storage_bytes(&s->out) + 2 * ea_storage_bytes(&s->index) + ea_storage_bytes(&s->source);
    if (s->scaled)
        b += ea_storage_bytes(&s->x);
    if (!s->self_const)
        b += ea_storage_bytes(&s->self);
    return b;
}

int ia_scope_check_memory(const ia_scope *s, int64_t budget, const char *what, ea_error *err)
{
    int64_t need = ia_scope_device_bytes(s);
    if (need <= budget)
        return 0;
    return ea_fail(err, "%s %s (%s): refused: self, out, source and both indexes need %.3f GB of %s, more than the "
                   "%.3f GB available", s->file, s->path, s->alias, need / 1e9, what, budget / 1e9);
}

cJSON *ia_index_generator(const ia_scope *s, int fabricated)
{
    cJSON *g = NULL;
    if (fabricated) {
        g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "generator", "randint");
        cJSON_AddNumberToObject(g, "seed", IA_SEED_FABRICATED);
        cJSON_AddNumberToObject(g, "low", 0);
        /* randint(0, 100), clamped to the indexed dim so the replay stays in bounds */
        int64_t dim_size = s->self.sizes[s->dim];
        cJSON_AddNumberToObject(g, "high", (double)(dim_size < IA_FABRICATED_HIGH ? dim_size : IA_FABRICATED_HIGH));
    } else if (s->idx.kind == IA_INDEX_IOTA) {
        g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "generator", "iota");
        cJSON_AddNumberToObject(g, "start", (double)s->idx.start);
        cJSON_AddNumberToObject(g, "step", (double)s->idx.step);
    } else if (s->idx.kind == IA_INDEX_AS_STRIDED) {
        /* the derived object carries iota, size, stride and offset exactly as the generator reads them */
        g = cJSON_Duplicate(s->idx.derived, 1);
        cJSON_AddStringToObject(g, "generator", "as_strided_iota");
    }
    return g;
}
