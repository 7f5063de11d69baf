#include "corpus/meta.h"
#include "corpus/meta_impl.h"

#include <stdlib.h>
#include <string.h>

#define META_SCHEMA_VERSION 2

/* NULL-terminated so it doubles as the allowed-key list of counts and ops. */
static const char *const bucket_keys[] = {"fusible_in_partition", "fusible_unpartitioned", "non_fusible", NULL};

/* The attribute keys the corpus uses, per place: graph inputs/outputs vs tensor constants. */
static const char *const tensor_keys[] = {"n", "st", "off", "gen", "x", NULL};
static const char *const constant_keys[] = {"dev", "data", "gen", "x", NULL};

/* Optional field: 1 present, 0 absent, -1 error. */
static int optional(ej_val obj, const char *key, ej_val *out, ea_error *err)
{
    if (ej_field(obj, key, 0, out, err) < 0)
        return -1;
    return out->v != NULL;
}

/* Integer not below min (0 for sizes and strides, 1 for op counts). */
static int int_at_least(ej_val v, int64_t min, int64_t *out, ea_error *err)
{
    if (ej_as_int(v, out, err) < 0)
        return -1;
    if (*out < min)
        return ea_fail(err, "%s %s: expected integer >= %lld, got number %lld", v.file, v.path, (long long)min,
                       (long long)*out);
    return 0;
}

/* Exactly want elements (want < 0: any count), returned in *n. */
static int array_of(ej_val v, int64_t want, const char *what, int *n, ea_error *err)
{
    if (ej_array(v, n, err) < 0)
        return -1;
    if (want >= 0 && *n != want)
        return ea_fail(err, "%s %s: expected %s (%lld elements), got array of %d", v.file, v.path, what,
                       (long long)want, *n);
    return 0;
}

static int dims(ej_val v, int want, int64_t *out, int *n, ea_error *err)
{
    if (array_of(v, want, "one entry per dimension", n, err) < 0)
        return -1;
    if (*n > EA_MAX_DIMS)
        return ea_fail(err, "%s %s: expected at most %d dimensions, got array of %d", v.file, v.path, EA_MAX_DIMS,
                       *n);
    for (int i = 0; i < *n; i++)
        if (int_at_least(ej_index(v, i), 0, &out[i], err) < 0)
            return -1;
    return 0;
}

/* ["index"|"randint", lo, hi]: how the harness generates the tensor's values. */
static int check_gen(ej_val g, ea_error *err)
{
    int n;
    const char *kind;
    int64_t lo, hi;
    ej_val k = ej_index(g, 0), h = ej_index(g, 2);
    if (array_of(g, 3, "[kind, lo, hi]", &n, err) < 0 || ej_as_string(k, &kind, err) < 0)
        return -1;
    if (strcmp(kind, "index") != 0 && strcmp(kind, "randint") != 0)
        return ea_fail(err, "%s %s: expected \"index\" or \"randint\", got string \"%s\"", k.file, k.path, kind);
    if (ej_as_int(ej_index(g, 1), &lo, err) < 0 || ej_as_int(h, &hi, err) < 0)
        return -1;
    if (hi < lo)
        return ea_fail(err, "%s %s: expected integer >= %lld (lo), got number %lld", h.file, h.path, (long long)lo,
                       (long long)hi);
    return 0;
}

/* {"constraint_source", "observed"?: {min, max, n_unique}, "maybe_permutation"?}. */
static int check_x(ej_val x, ea_error *err)
{
    static const char *const x_keys[] = {"constraint_source", "observed", "maybe_permutation", NULL};
    static const char *const observed_keys[] = {"min", "max", "n_unique", NULL};
    const char *source;
    ej_val v;
    int64_t i;
    int b, has;
    if (ej_object(x, x_keys, err) < 0 || ej_get_string(x, "constraint_source", &source, err) < 0)
        return -1;
    if ((has = optional(x, "observed", &v, err)) < 0)
        return -1;
    if (has && (ej_object(v, observed_keys, err) < 0 || ej_get_int(v, "min", &i, err) < 0 ||
                ej_get_int(v, "max", &i, err) < 0 || ej_get_int(v, "n_unique", &i, err) < 0))
        return -1;
    if ((has = optional(x, "maybe_permutation", &v, err)) < 0)
        return -1;
    return has ? ej_as_bool(v, &b, err) : 0;
}

/* Attributes shared by both places (gen, x) and those of one place. */
static int tensor_attrs(ej_val a, int constant, ea_meta_tensor *t, ea_error *err)
{
    ej_val v;
    int has, n;
    if (ej_object(a, constant ? constant_keys : tensor_keys, err) < 0)
        return -1;
    if ((has = optional(a, "gen", &v, err)) < 0 || (has && check_gen(v, err) < 0))
        return -1;
    t->gen = v.v;
    if ((has = optional(a, "x", &v, err)) < 0 || (has && check_x(v, err) < 0))
        return -1;
    t->x = v.v;
    if (constant) {
        if ((has = optional(a, "dev", &v, err)) < 0 || (has && ej_as_string(v, &t->device, err) < 0))
            return -1;
        if ((has = optional(a, "data", &v, err)) < 0)
            return -1;
        if (has) {
            double d;
            if (array_of(v, t->numel, "one value per element", &n, err) < 0)
                return -1;
            for (int i = 0; i < n; i++)
                if (ej_as_number(ej_index(v, i), &d, err) < 0)
                    return -1;
            t->data = v.v;
        }
        return 0;
    }
    if (ej_get_string(a, "n", &t->name, err) < 0)
        return -1;
    if ((has = optional(a, "st", &v, err)) < 0 || (has && dims(v, t->ndim, t->strides, &n, err) < 0))
        return -1;
    if ((has = optional(a, "off", &v, err)) < 0 || (has && int_at_least(v, 0, &t->offset, err) < 0))
        return -1;
    return 0;
}

/* Row-major strides, which the file leaves out for contiguous tensors (torch steps over an empty dim as
 * if it had size 1), and numel; a product past int64 would make both meaningless. */
static int contiguous(ej_val sizes, ea_meta_tensor *t, ea_error *err)
{
    int64_t s = 1;
    int empty = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t step = t->sizes[d] > 1 ? t->sizes[d] : 1;
        t->strides[d] = s;
        if (s > INT64_MAX / step)
            return ea_fail(err, "%s %s: expected at most 2^63 elements, got more", sizes.file, sizes.path);
        s *= step;
        empty |= t->sizes[d] == 0;
    }
    t->numel = empty ? 0 : s;
    return 0;
}

/* [sizes, dtype, {attrs}]; with sym_ok also ["sym", value]. A constant's name is its tensor_attrs key. */
static int tensor(ej_val v, int sym_ok, const char *constant, ea_meta_tensor *t, ea_error *err)
{
    int n;
    ej_val first = ej_index(v, 0);
    memset(t, 0, sizeof *t);
    if (ej_array(v, &n, err) < 0)
        return -1;
    if (sym_ok && n == 2 && cJSON_IsString(first.v)) {
        if (strcmp(first.v->valuestring, "sym") != 0)
            return ea_fail(err, "%s %s: expected \"sym\", got string \"%s\"", first.file, first.path,
                           first.v->valuestring);
        t->is_sym = 1;
        return ej_as_int(ej_index(v, 1), &t->sym_value, err);
    }
    if (array_of(v, 3, sym_ok ? "[sizes, dtype, attrs] or [\"sym\", value]" : "[sizes, dtype, attrs]", &n, err) < 0 ||
        dims(first, -1, t->sizes, &t->ndim, err) < 0 || ej_as_string(ej_index(v, 1), &t->dtype, err) < 0)
        return -1;
    if (ea_dtype_from_name(t->dtype, strlen(t->dtype)) == EA_DTYPE_INVALID) {
        ej_val d = ej_index(v, 1);
        return ea_fail(err, "%s %s: expected a dtype (bf16, f16, f32, f64, i8, i16, i32, i64, u8, u64, b8, c64), got \"%.40s\"",
                       d.file, d.path, t->dtype);
    }
    if (contiguous(first, t, err) < 0)
        return -1;
    t->name = constant;
    return tensor_attrs(ej_index(v, 2), constant != NULL, t, err);
}

static void *alloc_array(int n, size_t size, const char *file, ea_error *err)
{
    void *p = calloc(n > 0 ? (size_t)n : 1, size);
    if (!p)
        ea_fail(err, "%s: out of memory", file);
    return p;
}

static int tensor_list(ej_val v, int sym_ok, ea_meta_tensor **out, int *n, ea_error *err)
{
    if (ej_array(v, n, err) < 0 || !(*out = alloc_array(*n, sizeof **out, v.file, err)))
        return -1;
    for (int i = 0; i < *n; i++)
        if (tensor(ej_index(v, i), sym_ok, NULL, &(*out)[i], err) < 0)
            return -1;
    return 0;
}

static int constants(ej_val v, ea_meta *m, ea_error *err)
{
    if (ej_map(v, &m->ntensor_attrs, err) < 0 ||
        !(m->tensor_attrs = alloc_array(m->ntensor_attrs, sizeof *m->tensor_attrs, v.file, err)))
        return -1;
    for (int i = 0; i < m->ntensor_attrs; i++) {
        const char *name;
        ej_val c = ej_member(v, i, &name);
        if (tensor(c, 0, name, &m->tensor_attrs[i], err) < 0)
            return -1;
    }
    return 0;
}

/* Each group names inputs that share one storage. */
static int storage_groups(ej_val v, ea_meta *m, ea_error *err)
{
    int ngroups, n;
    const char *name;
    if (ej_array(v, &ngroups, err) < 0)
        return -1;
    for (int g = 0; g < ngroups; g++) {
        ej_val group = ej_index(v, g);
        if (ej_array(group, &n, err) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            ej_val e = ej_index(group, i);
            if (ej_as_string(e, &name, err) < 0)
                return -1;
            if (!ea_meta_input(m, name))
                return ea_fail(err, "%s %s: expected the name of an input, got string \"%s\"", e.file, e.path,
                               name);
        }
    }
    m->storage_groups = v.v;
    return 0;
}

static int source(ej_val s, ea_meta *m, ea_error *err)
{
    static const char *const keys[] = {"kind", "suite", "mode", "model", "graph", NULL};
    const char *graph;
    ej_val mode, g;
    if (ej_object(s, keys, err) < 0 || ej_get_string(s, "kind", &m->kind, err) < 0 ||
        ej_get_string(s, "suite", &m->suite, err) < 0 || ej_get_string(s, "model", &m->model, err) < 0 ||
        ej_field(s, "graph", 1, &g, err) < 0 || ej_as_string(g, &graph, err) < 0 ||
        ej_field(s, "mode", 1, &mode, err) < 0)
        return -1;
    /* Microbenchmarks have no train/infer mode. */
    if (!cJSON_IsNull(mode.v) && ej_as_string(mode, &m->mode, err) < 0)
        return -1;
    if (strcmp(graph, m->graph) != 0)
        return ea_fail(err, "%s %s: expected \"%s\" (as $.graph), got string \"%s\"", g.file, g.path, m->graph,
                       graph);
    return 0;
}

static int total_mismatch(ej_val v, int64_t want, const char *what, ea_error *err)
{
    return ea_fail(err, "%s %s: expected %lld (%s), got number %lld", v.file, v.path, (long long)want, what,
                   (long long)v.v->valuedouble);
}

static int op_bucket(ej_val v, ea_meta_op **ops, int *n, int64_t *sum, ea_error *err)
{
    if (ej_map(v, n, err) < 0 || !(*ops = alloc_array(*n, sizeof **ops, v.file, err)))
        return -1;
    for (int i = 0; i < *n; i++) {
        if (int_at_least(ej_member(v, i, &(*ops)[i].name), 1, &(*ops)[i].count, err) < 0)
            return -1;
        *sum += (*ops)[i].count;
    }
    return 0;
}

/* Counts must be the sums of the per-op counts, so a bucket total can be trusted without re-adding. */
static int accounting(ej_val na, ea_meta *m, ea_error *err)
{
    static const char *const keys[] = {"total_call_functions", "counts", "ops", NULL};
    ej_val total, counts, ops, c, o;
    int64_t sum = 0;
    if (ej_object(na, keys, err) < 0 || ej_field(na, "total_call_functions", 1, &total, err) < 0 ||
        int_at_least(total, 0, &m->total_call_functions, err) < 0 || ej_field(na, "counts", 1, &counts, err) < 0 ||
        ej_object(counts, bucket_keys, err) < 0 || ej_field(na, "ops", 1, &ops, err) < 0 ||
        ej_object(ops, bucket_keys, err) < 0)
        return -1;
    for (int b = 0; b < EA_META_NBUCKETS; b++) {
        int64_t ops_sum = 0;
        if (ej_field(counts, bucket_keys[b], 1, &c, err) < 0 || int_at_least(c, 0, &m->bucket_total[b], err) < 0 ||
            ej_field(ops, bucket_keys[b], 1, &o, err) < 0 || op_bucket(o, &m->ops[b], &m->nops[b], &ops_sum, err) < 0)
            return -1;
        if (ops_sum != m->bucket_total[b])
            return total_mismatch(c, ops_sum, "sum of its ops", err);
        sum += ops_sum;
    }
    return sum == m->total_call_functions ? 0 : total_mismatch(total, sum, "sum of counts", err);
}

static int load(ej_val root, ea_meta *m, ea_error *err)
{
    static const char *const keys[] = {"schema_version", "inputs", "outputs", "tensor_attrs", "graph", "source",
                                       "node_accounting", "roundtrip", "storage_groups", NULL};
    ej_val v;
    int has;
    /* The version decides which keys are known, so it is checked before them. meta.json has no schema
     * string: the version alone. */
    if (ej_expect_schema(root, NULL, META_SCHEMA_VERSION, err) < 0)
        return -1;
    if (ej_object(root, keys, err) < 0 || ej_get_string(root, "graph", &m->graph, err) < 0 ||
        ej_get_string(root, "roundtrip", &m->roundtrip, err) < 0 || ej_field(root, "source", 1, &v, err) < 0 ||
        source(v, m, err) < 0 || ej_field(root, "node_accounting", 1, &v, err) < 0 || accounting(v, m, err) < 0 ||
        ej_field(root, "inputs", 1, &v, err) < 0 || tensor_list(v, 1, &m->inputs, &m->ninputs, err) < 0 ||
        ej_field(root, "outputs", 1, &v, err) < 0 || tensor_list(v, 0, &m->outputs, &m->noutputs, err) < 0 ||
        ej_field(root, "tensor_attrs", 1, &v, err) < 0 || constants(v, m, err) < 0 ||
        (has = optional(root, "storage_groups", &v, err)) < 0)
        return -1;
    return has ? storage_groups(v, m, err) : 0;
}

int ea_meta_load(const char *path, ea_meta *m, ea_error *err)
{
    memset(m, 0, sizeof *m);
    if (ej_load(path, &m->doc, err) < 0)
        return -1;
    m->path = m->doc.file;
    if (load(ej_root(&m->doc), m, err) < 0) {
        ea_meta_free(m);
        return -1;
    }
    return 0;
}

void ea_meta_free(ea_meta *m)
{
    for (int b = 0; b < EA_META_NBUCKETS; b++)
        free(m->ops[b]);
    free(m->inputs);
    free(m->outputs);
    free(m->tensor_attrs);
    ej_free(&m->doc);
    memset(m, 0, sizeof *m);
}

const char *ea_meta_bucket_name(int bucket)
{
    return bucket >= 0 && bucket < EA_META_NBUCKETS ? bucket_keys[bucket] : NULL;
}

int64_t ea_meta_op_count(const ea_meta *m, int bucket, const char *op)
{
    if (bucket < 0 || bucket >= EA_META_NBUCKETS)
        return 0;
    for (int i = 0; i < m->nops[bucket]; i++)
        if (strcmp(m->ops[bucket][i].name, op) == 0)
            return m->ops[bucket][i].count;
    return 0;
}

const ea_meta_tensor *ea_meta_input(const ea_meta *m, const char *name)
{
    for (int i = 0; i < m->ninputs; i++)
        if (m->inputs[i].name && strcmp(m->inputs[i].name, name) == 0)
            return &m->inputs[i];
    return NULL;
}
