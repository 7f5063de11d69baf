#include "target/capture.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/capture_impl.h"

/* A stride list must match its size list entry for entry. */
static int same_rank(ej_val obj, const char *key, int sizes, int strides, ea_error *err)
{
    char what[48], got[16];
    if (sizes == strides)
        return 0;
    snprintf(what, sizeof what, "%d strides (one per size)", sizes);
    snprintf(got, sizeof got, "%d", strides);
    return ej_bad_field(obj, key, what, got, err);
}

/* ---- inputs and outputs ---- */

static int read_generator(ej_val v, ea_dtype dt, ea_capture_gen *g, ea_error *err)
{
    static const struct {
        const char *name;
        const char *const keys[16];
    } kinds[] = {
        [EA_GEN_UNIFORM] = {"uniform", {"generator", "seed", NULL}},
        [EA_GEN_RANDINT] = {"randint", {"generator", "seed", "low", "high", NULL}},
        [EA_GEN_BOOL] = {"bool", {"generator", "seed", NULL}},
        [EA_GEN_CONSTANT] = {"constant", {"generator", "value", NULL}},
        [EA_GEN_IOTA] = {"iota", {"generator", "start", "step", NULL}},
        /* the occurrence's derived object: its statistics travel along for review, unread */
        [EA_GEN_AS_STRIDED_IOTA] = {"as_strided_iota",
                                    {"generator", "iota", "size", "stride", "offset", "numel", "min", "max", "distinct",
                                     "coverage", "multiplicity_histogram", "max_multiplicity", "sorted", "saved_by",
                                     NULL}},
        [EA_GEN_TOPK_IDS] = {"topk_ids", {"generator", "seed", "experts", "k", NULL}},
    };
    const char *name;
    int kind = 0, nk = (int)(sizeof kinds / sizeof kinds[0]);
    g->json = v.v;
    if (ej_get_string(v, "generator", &name, err) != 0)
        return -1;
    while (kind < nk && strcmp(kinds[kind].name, name))
        kind++;
    if (kind == nk) {
        char got[96];
        snprintf(got, sizeof got, "\"%.80s\"", name);
        return ej_bad_field(v, "generator", "uniform, randint, bool, constant, iota, as_strided_iota or topk_ids", got,
                            err);
    }
    g->kind = (ea_gen_kind)kind;
    if (ej_object(v, kinds[kind].keys, err) != 0)
        return -1;
    /* c64 (an FFT's input or output): the real part uniform, the imaginary part 0 (tools/capture/scope.py) */
    int uniform_ok = ea_dtype_is_float(dt) || dt == EA_C64;
    if ((g->kind == EA_GEN_UNIFORM && !uniform_ok) || (g->kind == EA_GEN_RANDINT && uniform_ok))
        return ej_bad_field(
            v, "generator", g->kind == EA_GEN_UNIFORM ? "a floating or c64 dtype for uniform" : "an integer dtype for randint",
            ea_dtype_name(dt), err);
    switch (g->kind) {
    case EA_GEN_UNIFORM:
    case EA_GEN_BOOL:
        return ej_get_int_min(v, "seed", 0, &g->seed, err);
    case EA_GEN_RANDINT:
        if (ej_get_int_min(v, "seed", 0, &g->seed, err) || ej_get_int(v, "low", &g->low, err) ||
            ej_get_int_min(v, "high", g->low + 1, &g->high, err))
            return -1;
        return 0;
    case EA_GEN_CONSTANT: {
        ej_val val;
        int b;
        if (ej_field(v, "value", 1, &val, err) != 0)
            return -1;
        if (cJSON_IsBool(val.v))
            return ej_as_bool(val, &b, err) ? -1 : (g->value = b, 0);
        /* occurrences spell non-finite fills as strings (docs/reference/schema.md, "arg") */
        const char *s = cJSON_IsString(val.v) ? val.v->valuestring : "";
        if (!strcmp(s, "inf") || !strcmp(s, "-inf") || !strcmp(s, "nan")) {
            g->value = s[0] == 'n' ? NAN : s[0] == '-' ? -INFINITY : INFINITY;
            return 0;
        }
        return ej_as_number(val, &g->value, err);
    }
    case EA_GEN_IOTA:
        return ej_get_int(v, "start", &g->start, err) || ej_get_int(v, "step", &g->step, err) ? -1 : 0;
    case EA_GEN_AS_STRIDED_IOTA: {
        static const char *const iota_keys[] = {"length", "start", "step", NULL};
        ej_val iota;
        int ns;
        if (ej_field(v, "iota", 1, &iota, err) || ej_object(iota, iota_keys, err) ||
            ej_get_int_min(iota, "length", 0, &g->length, err) || ej_get_int(iota, "start", &g->start, err) ||
            ej_get_int(iota, "step", &g->step, err) ||
            cap_int_list(v, "size", 0, 0, EA_MAX_DIMS, g->size, &g->ndim, err) ||
            cap_int_list(v, "stride", 0, 0, EA_MAX_DIMS, g->stride, &ns, err) ||
            ej_get_int_min(v, "offset", 0, &g->offset, err))
            return -1;
        return same_rank(v, "stride", g->ndim, ns, err);
    }
    case EA_GEN_TOPK_IDS:
        return ej_get_int_min(v, "seed", 0, &g->seed, err) || ej_get_int_min(v, "experts", 1, &g->experts, err) ||
                       ej_get_int_min(v, "k", 1, &g->k, err)
                   ? -1
                   : 0;
    }
    return 0;
}

static int parse_checksum(ej_val obj, uint64_t *out, ea_error *err)
{
    const char *s;
    if (ej_get_string(obj, "checksum", &s, err) != 0)
        return -1;
    if (strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16) {
        *out = strtoull(s, NULL, 16);
        return 0;
    }
    char got[96];
    snprintf(got, sizeof got, "\"%.80s\"", s);
    return ej_bad_field(obj, "checksum", "16 lowercase hex digits", got, err);
}

/* Elements of a size list, or -1 beyond EA_TENSOR_MAX (no real tensor is that large). */
static int64_t elements(const int64_t *sizes, int n)
{
    int64_t p = 1;
    for (int d = 0; d < n; d++) {
        if (sizes[d] != 0 && p > EA_TENSOR_MAX / sizes[d])
            return -1;
        p *= sizes[d];
    }
    return p;
}

/* An as_strided_iota input holds the view's values in row-major order of its size, one per element:
 * sizes [] (one element) for a [2, 4, 6, 2] view would leave 95 values unread. */
static int view_fills_tensor(ej_val v, const ea_capture_tensor *t, ea_error *err)
{
    int64_t want = elements(t->values.size, t->values.ndim), have = elements(t->t.sizes, t->t.ndim);
    char what[96], got[64];
    if (want >= 0 && want == have)
        return 0;
    if (want < 0)
        snprintf(what, sizeof what, "a values.size below 2^53 elements");
    else
        snprintf(what, sizeof what, "%" PRId64 " elements (values.size has %d dimensions)", want, t->values.ndim);
    snprintf(got, sizeof got, "%d dimensions, %" PRId64 " elements", t->t.ndim, have);
    return ej_bad_field(v, "sizes", what, got, err);
}

/* An output's optional "reference": {"stride": s >= 1, "values": ceil(numel / s) numbers}, floating only. */
static int read_reference(ej_val v, ea_capture_tensor *t, ea_error *err)
{
    static const char *const keys[] = {"stride", "values", NULL};
    ej_val ref, vals;
    int n;
    double x;
    char what[96], got[64];
    if (ej_field(v, "reference", 0, &ref, err) || !ref.v)
        return ref.v ? -1 : 0;
    if (t->t.dtype != EA_BF16 && t->t.dtype != EA_F16 && t->t.dtype != EA_F32 && t->t.dtype != EA_F64)
        return ej_bad_field(v, "reference", "no reference for a non-floating output (its checksum is exact)",
                            "a reference", err);
    if (ej_object(ref, keys, err) || ej_get_int_min(ref, "stride", 1, &t->ref_stride, err) ||
        ej_field(ref, "values", 1, &vals, err) || ej_array(vals, &n, err))
        return -1;
    ej_val e = ej_index(vals, 0);
    for (int i = 0; i < n; e = ej_next(vals, e, i++))
        if (ej_as_number(e, &x, err))
            return -1;
    int64_t numel = elements(t->t.sizes, t->t.ndim), want = (numel + t->ref_stride - 1) / t->ref_stride;
    if (n != want) {
        snprintf(what, sizeof what, "%" PRId64 " values (every %" PRId64 "th of %" PRId64 " elements)", want,
                 t->ref_stride, numel);
        snprintf(got, sizeof got, "%d", n);
        return ej_bad_field(ref, "values", what, got, err);
    }
    t->reference = vals.v;
    return 0;
}

static int read_tensor(ej_val v, int input, ea_capture_tensor *t, ea_error *err)
{
    static const char *const in_keys[] = {"name", "dtype", "sizes", "strides", "offset", "values", NULL};
    static const char *const out_keys[] = {"name", "dtype", "sizes", "strides", "offset", "checksum", "reference", NULL};
    int ns;
    ej_val gen;
    if (ej_object(v, input ? in_keys : out_keys, err) || ej_get_string(v, "name", &t->name, err) ||
        cap_dtype_field(v, "dtype", &t->t.dtype, err) ||
        cap_int_list(v, "sizes", 0, 0, EA_MAX_DIMS, t->t.sizes, &t->t.ndim, err) ||
        cap_int_list(v, "strides", 0, 0, EA_MAX_DIMS, t->t.strides, &ns, err) ||
        ej_get_int_min(v, "offset", 0, &t->t.offset, err))
        return -1;
    if (same_rank(v, "strides", t->t.ndim, ns, err) != 0)
        return -1;
    if (!input)
        return parse_checksum(v, &t->checksum, err) || read_reference(v, t, err);
    if (ej_field(v, "values", 1, &gen, err) || read_generator(gen, t->t.dtype, &t->values, err))
        return -1;
    return t->values.kind == EA_GEN_AS_STRIDED_IOTA ? view_fills_tensor(v, t, err) : 0;
}

int ea_capture_read_input(ej_val v, ea_capture_tensor *t, ea_error *err)
{
    memset(t, 0, sizeof *t);
    return read_tensor(v, 1, t, err);
}

static int read_tensors(ea_capture *c, ej_val root, int input, ea_error *err)
{
    ej_val arr;
    ea_capture_tensor **items = input ? &c->inputs : &c->outputs;
    int *n = input ? &c->ninputs : &c->noutputs;
    if (cap_obj_list(c, root, input ? "inputs" : "outputs", sizeof **items, (void **)items, n, &arr, err) != 0)
        return -1;
    for (int i = 0; i < *n; i++) {
        ej_val e = ej_index(arr, i);
        if (read_tensor(e, input, &(*items)[i], err) != 0)
            return -1;
        /* outputs are read second, so every earlier name is already in place */
        for (int k = 0; k < c->ninputs + (input ? 0 : i); k++) {
            const char *other = k < c->ninputs ? c->inputs[k].name : c->outputs[k - c->ninputs].name;
            if (!(input && k >= i) && !strcmp(other, (*items)[i].name))
                return ej_bad_field(e, "name", "a name no other input or output has", (*items)[i].name, err);
        }
    }
    return 0;
}

/* ---- documents ---- */

/* "fp64" (captures under a lowering): {"method", "eager_error"} or {"error"}, never both. */
static int read_fp64(ea_capture *c, ej_val root, ea_error *err)
{
    static const char *const keys[] = {"method", "eager_error", "error", NULL};
    ej_val f, e;
    const char *s;
    if (ej_field(root, "fp64", 0, &f, err) || !f.v)
        return f.v ? -1 : 0;
    if (ej_object(f, keys, err) || ej_field(f, "error", 0, &e, err))
        return -1;
    if (e.v)
        return ej_as_string(e, &c->fp64_error, err) ||
                       (cJSON_HasObjectItem(f.v, "method") || cJSON_HasObjectItem(f.v, "eager_error")
                            ? ej_bad_field(f, "error", "either an error or a method and eager_error", "both", err)
                            : 0)
                   ? -1
                   : 0;
    if (ej_get_string(f, "method", &s, err) || cap_error_list(c, f, "eager_error", &c->fp64_eager, err))
        return -1;
    return c->fp64_eager ? 0 : ej_bad_field(f, "eager_error", "an array", "nothing", err);
}

/* "fabricated" (captures under a lowering of an op with a fabricated mode): the candidate's and today's
 * compiled scope timed on the pipeline's randint index, or {"error"}. */
static int read_fabricated(ea_capture *c, ej_val root, ea_error *err)
{
    static const char *const keys[] = {"index", "method", "calls_per_replay", "replays", "default", "without_lowering",
                                       "error", NULL};
    ej_val f, e;
    const char *s;
    int64_t n;
    ea_capture_gen g;
    if (ej_field(root, "fabricated", 0, &f, err) || !f.v)
        return f.v ? -1 : 0;
    if (ej_object(f, keys, err) || ej_field(f, "error", 0, &e, err))
        return -1;
    if (e.v) {
        if (ej_as_string(e, &c->fabricated_error, err))
            return -1;
        return cJSON_GetArraySize(f.v) == 1 ? 0 : ej_bad_field(f, "error", "an error alone", "more keys", err);
    }
    if (ej_field(f, "index", 1, &e, err) || read_generator(e, EA_I64, &g, err))
        return -1;
    /* the C side's draw (repros/index_add/scope.h: IA_SEED_FABRICATED, IA_FABRICATED_HIGH), or the price is of
     * other values than the replica's */
    if (g.kind != EA_GEN_RANDINT || g.seed != 2 || g.low != 0 || g.high > 100)
        return ej_bad_field(f, "index", "randint with seed 2, low 0 and high <= 100 (the pipeline's draw)",
                            g.kind != EA_GEN_RANDINT ? "another generator" : "other parameters", err);
    if (ej_get_string(f, "method", &s, err) || ej_get_int_min(f, "calls_per_replay", 1, &n, err) ||
        ej_get_int_min(f, "replays", 1, &n, err) || cap_read_stats(f, "default", &c->fab_default, err) ||
        cap_read_stats(f, "without_lowering", &c->fab_without, err))
        return -1;
    c->has_fabricated = 1;
    return 0;
}

static int read_capture(ea_capture *c, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "scope", "covers", "command", "environment",
                                       "inputs", "outputs", "runs", "lowering", "fp64", "fabricated", NULL};
    static const char *const lowering_keys[] = {"name", "stands_for", "ops", NULL};
    static const char *const env_keys[] = {"torch", "torch_git", "triton", "gpu", "capability", "driver", "cuda", NULL};
    ej_val root = ej_root(&c->doc), env, low;
    const char *s;
    const char **ops;
    int nops;
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_CAPTURE_SCHEMA, EA_CAPTURE_VERSION, err))
        return -1;
    if (ej_get_string(root, "scope", &c->scope, err) ||
        cap_str_list(c, root, "covers", 1, &c->covers, &c->ncovers, err) ||
        ej_get_string(root, "command", &c->command, err) || ej_field(root, "environment", 1, &env, err) ||
        ej_object(env, env_keys, err))
        return -1;
    for (const char *const *k = env_keys; *k; k++)
        if (ej_get_string(env, *k, &s, err) != 0)
            return -1;
    c->environment = env.v;
    /* a capture made under a candidate lowering (tools/capture/lowerings/) says which */
    if (ej_field(root, "lowering", 0, &low, err))
        return -1;
    if (low.v && (ej_object(low, lowering_keys, err) || ej_get_string(low, "name", &c->lowering, err) ||
                  ej_get_string(low, "stands_for", &s, err) || cap_str_list(c, low, "ops", 1, &ops, &nops, err)))
        return -1;
    return read_tensors(c, root, 1, err) || read_tensors(c, root, 0, err) || read_fp64(c, root, err) || read_fabricated(c, root, err) ||
                   cap_read_runs(c, root, err)
               ? -1
               : 0;
}

int ea_capture_load(const char *path, ea_capture *c, ea_error *err)
{
    memset(c, 0, sizeof *c);
    const char *slash = strrchr(path, '/');
    if (!(c->file = cap_take(c, strlen(path) + 1, 1)) || !(c->dir = cap_take(c, strlen(path) + 2, 1))) {
        ea_capture_free(c);
        return cap_oom(path, err);
    }
    strcpy(c->file, path);
    if (slash)
        memcpy(c->dir, path, (size_t)(slash - path) + (slash == path));
    else
        strcpy(c->dir, ".");
    if (ej_load(path, &c->doc, err) != 0 || read_capture(c, err) != 0) {
        ea_capture_free(c);
        return -1;
    }
    return 0;
}

void ea_capture_free(ea_capture *c)
{
    for (int i = 0; i < c->nblocks; i++)
        free(c->blocks[i]);
    free(c->blocks);
    ej_free(&c->doc);
    memset(c, 0, sizeof *c);
}
