#include "corpus/occurrences.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "corpus/occurrences_impl.h"
#include "base/tensor.h"
#include "base/text_table.h"

static int expect_string(ej_val v, const char *key, const char *want, ea_error *err)
{
    const char *s;
    if (ej_get_string(v, key, &s, err) != 0)
        return -1;
    if (strcmp(s, want) != 0)
        return ea_fail(err, "%s %s.%s: expected \"%s\", got \"%s\"", v.file, v.path, key, want, s);
    return 0;
}

static int expect_kind(ej_val obj, const char *key, int type, const char *what, ea_error *err)
{
    ej_val f;
    if (ej_field(obj, key, 1, &f, err) != 0)
        return -1;
    if (!(f.v->type & type))
        return ea_fail(err, "%s %s: expected %s", f.file, f.path, what);
    return 0;
}

static int validate_occurrence(ej_val o, ea_error *err)
{
    static const char *const keys[] = {"id", "suite", "mode", "model", "graph", "node", "line", "arg_nodes", "source", NULL};
    static const char *const source_keys[] = {"file", "line", "func", "code", NULL};
    const char *f[5], *id;
    int64_t line;
    if (ej_object(o, keys, err) != 0 || ej_get_string(o, "id", &id, err) != 0)
        return -1;
    for (int i = 0; i < 5; i++) /* suite, mode, model, graph, node */
        if (ej_get_string(o, keys[i + 1], &f[i], err) != 0)
            return -1;
    if (ej_get_int_min(o, "line", 1, &line, err) != 0) /* graph lines count from 1 */
        return -1;
    char want[2048];
    snprintf(want, sizeof want, "%s/%s/%s/%s:%s", f[0], f[1], f[2], f[3], f[4]);
    if (strcmp(id, want) != 0)
        return ea_fail(err, "%s %s.id: expected \"%s\" (suite/mode/model/graph:node), got \"%s\"", o.file, o.path, want, id);
    ej_val names, src;
    int n;
    if (ej_field(o, "arg_nodes", 1, &names, err) != 0 || ej_array(names, &n, err) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        const char *s;
        if (ej_as_string(ej_index(names, i), &s, err) != 0)
            return -1;
    }
    if (ej_field(o, "source", 1, &src, err) != 0)
        return -1;
    if (cJSON_IsNull(src.v))
        return 0;
    const char *s;
    return ej_object(src, source_keys, err) || ej_get_string(src, "file", &s, err) ||
                   ej_get_int_min(src, "line", 1, &line, err) || ej_get_string(src, "func", &s, err) ||
                   ej_get_string(src, "code", &s, err)
               ? -1
               : 0;
}

/* n integers >= 0 at key, at most EA_MAX_DIMS (below 2^53: ej_as_int). */
static int dims(ej_val t, const char *key, int64_t *out, int *n, ea_error *err)
{
    ej_val arr;
    if (ej_field(t, key, 1, &arr, err) || ej_array(arr, n, err))
        return -1;
    if (*n > EA_MAX_DIMS) {
        char what[32], got[32];
        snprintf(what, sizeof what, "at most %d dimensions", EA_MAX_DIMS);
        snprintf(got, sizeof got, "%d", *n);
        return ej_bad_field(t, key, what, got, err);
    }
    for (int i = 0; i < *n; i++) {
        ej_val d = ej_index(arr, i);
        if (ej_as_int(d, &out[i], err))
            return -1;
        if (out[i] < 0)
            return ea_fail(err, "%s %s: expected an integer >= 0, got %" PRId64, d.file, d.path, out[i]);
    }
    return 0;
}

/* A bool at key that must be what the descriptor's sizes and strides give. */
static int derived_flag(ej_val t, const char *key, int want, ea_error *err)
{
    int b;
    if (ej_get_bool(t, key, &b, err))
        return -1;
    return b == want ? 0
                     : ej_bad_field(t, key, want ? "true (what its sizes and strides give)"
                                                 : "false (what its sizes and strides give)",
                                    b ? "true" : "false", err);
}

/* A tensor descriptor as extract writes it (extract.c's tensor_json): {"ann"} for a value that is no tensor,
 * {dtype, ann, symbolic: true}, or the exact one every repro allocates from: a dtype of the table, sizes and
 * strides (one per size), offset >= 0, device, and contiguous and channels_last as its sizes and strides give
 * them. */
static int validate_tensor(ej_val t, ea_error *err)
{
    static const char *const exact[] = {"dtype", "sizes", "strides", "offset", "device", "contiguous",
                                        "channels_last", NULL};
    static const char *const symbolic[] = {"dtype", "ann", "symbolic", NULL};
    static const char *const none[] = {"ann", NULL};
    const char *s;
    int b, ns;
    ea_tensor x = {0};
    if (!cJSON_IsObject(t.v))
        return ej_object(t, exact, err);
    if (!cJSON_GetObjectItemCaseSensitive(t.v, "dtype")) { /* no tensor: its annotation, or null */
        ej_val ann;
        return ej_object(t, none, err) || ej_field(t, "ann", 1, &ann, err) ||
                       (!cJSON_IsNull(ann.v) && ej_as_string(ann, &s, err))
                   ? -1
                   : 0;
    }
    if (ej_get_string(t, "dtype", &s, err))
        return -1;
    if ((x.dtype = ea_dtype_from_name(s, strlen(s))) == EA_DTYPE_INVALID)
        return ea_fail(err, "%s %s.dtype: expected a dtype of the table (bf16, f32, i64, ...), got \"%.40s\"", t.file,
                       t.path, s);
    if (cJSON_GetObjectItemCaseSensitive(t.v, "symbolic"))
        return ej_object(t, symbolic, err) || ej_get_string(t, "ann", &s, err) || ej_get_bool(t, "symbolic", &b, err)
                   ? -1
                   : b ? 0 : ej_bad_field(t, "symbolic", "true (a descriptor without sizes)", "false", err);
    if (ej_object(t, exact, err) || dims(t, "sizes", x.sizes, &x.ndim, err) ||
        dims(t, "strides", x.strides, &ns, err) || ej_get_int_min(t, "offset", 0, &x.offset, err) ||
        ej_get_string(t, "device", &s, err))
        return -1;
    if (ns != x.ndim) {
        char what[48], got[32];
        snprintf(what, sizeof what, "%d strides, one per size", x.ndim);
        snprintf(got, sizeof got, "%d", ns);
        return ej_bad_field(t, "strides", what, got, err);
    }
    return derived_flag(t, "contiguous", ea_tensor_is_contiguous(&x), err) ||
                   derived_flag(t, "channels_last", ea_tensor_is_channels_last(&x), err)
               ? -1
               : 0;
}

/* The objects among a node's arguments, in lists and keyword maps at any depth: a dtype, device or enum literal
 * ({"dtype"}, {"device"} or {"enum"} alone, values.c's ea_arg_json) or a tensor descriptor. */
static int validate_arg_tensors(ej_val v, ea_error *err)
{
    static const char *const literals[] = {"dtype", "device", "enum"};
    int n;
    if (cJSON_IsArray(v.v)) {
        ej_array(v, &n, err);
        for (int i = 0; i < n; i++)
            if (validate_arg_tensors(ej_index(v, i), err))
                return -1;
        return 0;
    }
    if (!cJSON_IsObject(v.v))
        return 0;
    for (int i = 0; i < 3 && cJSON_GetArraySize(v.v) == 1; i++)
        if (cJSON_GetObjectItemCaseSensitive(v.v, literals[i])) {
            const char *s;
            return ej_get_string(v, literals[i], &s, err);
        }
    return validate_tensor(v, err);
}

static int validate_signature(ej_val sig, const char *op, ea_error *err)
{
    static const char *const keys[] = {"op", "output", "args", "kwargs", "value_properties", NULL};
    ej_val out, args, kwargs;
    int n;
    const char *key;
    if (ej_object(sig, keys, err) || expect_string(sig, "op", op, err) ||
        expect_kind(sig, "output", cJSON_Object, "an object (tensor descriptor)", err) ||
        expect_kind(sig, "args", cJSON_Array, "an array", err) ||
        expect_kind(sig, "kwargs", cJSON_Object, "an object", err) ||
        expect_kind(sig, "value_properties", cJSON_Array, "an array", err) || ej_field(sig, "output", 1, &out, err) ||
        validate_tensor(out, err) || ej_field(sig, "args", 1, &args, err) || validate_arg_tensors(args, err) ||
        ej_field(sig, "kwargs", 1, &kwargs, err) || ej_map(kwargs, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_arg_tensors(ej_member(kwargs, i, &key), err))
            return -1;
    return 0;
}

/* Every {"ref": k} inside v (a node's args or kwargs) names an earlier entry: 0 <= k < node. */
static int validate_refs(ej_val v, int node, ea_error *err)
{
    static const char *const ref_keys[] = {"ref", NULL};
    int n;
    if (cJSON_IsObject(v.v) && cJSON_GetObjectItemCaseSensitive(v.v, "ref")) {
        int64_t k;
        char what[64], got[32];
        if (ej_object(v, ref_keys, err) || ej_get_int(v, "ref", &k, err))
            return -1;
        if (k >= 0 && k < node)
            return 0;
        snprintf(what, sizeof what, "the index of an earlier scope node (0..%d)", node - 1);
        snprintf(got, sizeof got, "%" PRId64, k);
        return ej_bad_field(v, "ref", what, got, err);
    }
    if (cJSON_IsArray(v.v) && ej_array(v, &n, err) == 0) {
        for (int i = 0; i < n; i++)
            if (validate_refs(ej_index(v, i), node, err))
                return -1;
    } else if (cJSON_IsObject(v.v) && ej_map(v, &n, err) == 0) {
        const char *key;
        for (int i = 0; i < n; i++)
            if (validate_refs(ej_member(v, i, &key), node, err))
                return -1;
    }
    return 0;
}

/* docs/reference/schema.md "scope": nodes in graph order, each with a known role; args refer back by index. */
static int validate_scope(ej_val scope, ea_error *err)
{
    static const char *const keys[] = {"nodes", "boundary_consumers", "truncated", NULL};
    static const char *const node_keys[] = {"role", "op", "ann", "args", "kwargs", "escapes", NULL};
    static const char *const roles[] = {"input", "producer", "op", "consumer", NULL};
    ej_val nodes, f;
    int n, truncated;
    if (ej_object(scope, keys, err) || ej_get_bool(scope, "truncated", &truncated, err) ||
        expect_kind(scope, "boundary_consumers", cJSON_Array, "an array", err) || ej_field(scope, "nodes", 1, &nodes, err) ||
        ej_array(nodes, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val node = ej_index(nodes, i);
        const char *role, *s;
        if (ej_object(node, node_keys, err) ||
            ej_get_one_of(node, "role", roles, "\"input\", \"producer\", \"op\" or \"consumer\"", &role, err) ||
            ej_get_string(node, "op", &s, err))
            return -1;
        if (ej_field(node, "ann", 0, &f, err) || (f.v && ej_as_string(f, &s, err)) ||
            ej_field(node, "args", 0, &f, err) || (f.v && (ej_array(f, &truncated, err) || validate_refs(f, i, err))) ||
            ej_field(node, "kwargs", 0, &f, err) || (f.v && (ej_map(f, &truncated, err) || validate_refs(f, i, err))))
            return -1;
    }
    return 0;
}

/* Points, a point's scopes and a scope's occurrences are looked up by id: a copy would count twice. */
static int same_id(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "id");
}

static int same_scope(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "scope_id");
}

static int same_point(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "point");
}

/* A list of occurrences under a counted parent: count must equal the list's length. */
static int validate_counted(ej_val parent, const char *what, int64_t *count, ea_error *err)
{
    ej_val occ;
    int n;
    if (ej_get_int(parent, "count", count, err) || ej_field(parent, what, 1, &occ, err) || ej_array(occ, &n, err))
        return -1;
    int64_t listed = 0;
    for (int i = 0; i < n; i++) {
        ej_val item = ej_index(occ, i);
        int64_t sub = 1;
        if (strcmp(what, "scopes") == 0) {
            static const char *const keys[] = {"scope_id", "count", "scope", "occurrences", NULL};
            const char *id;
            ej_val scope;
            if (ej_object(item, keys, err) || ej_get_string(item, "scope_id", &id, err) ||
                ej_field(item, "scope", 1, &scope, err) || validate_scope(scope, err) ||
                validate_counted(item, "occurrences", &sub, err))
                return -1;
        } else if (validate_occurrence(item, err) != 0) {
            return -1;
        }
        listed += sub;
    }
    if (strcmp(what, "scopes") ? ej_each_once(occ, same_id, "each occurrence once", err)
                               : ej_each_once(occ, same_scope, "each scope once", err))
        return -1;
    if (*count != listed || n == 0)
        return ea_fail(err, "%s %s.count: expected the number of occurrences listed under %s (%" PRId64
                       ", at least 1), got %" PRId64,
                       parent.file, parent.path, what, listed, *count);
    return 0;
}

static int validate_point(ej_val p, const char *op, int64_t *total, ea_error *err)
{
    static const char *const keys[] = {"point", "count", "signature", "scopes", NULL};
    const char *id;
    int64_t count;
    ej_val sig;
    if (ej_object(p, keys, err) || ej_get_string(p, "point", &id, err) || ej_field(p, "signature", 1, &sig, err) ||
        validate_signature(sig, op, err) || validate_counted(p, "scopes", &count, err))
        return -1;
    *total += count;
    return 0;
}

/* An occurrence is one node of one graph: its id names it once in the whole document, not only once in its
 * scope's list (a node listed under two scopes or two points would count twice). */
static int each_occurrence_once(const char *file, const cJSON *points, ea_error *err)
{
    cJSON *seen = cJSON_CreateObject();
    const cJSON *p, *sc, *o;
    int i = 0, rc = 0;
    cJSON_ArrayForEach(p, points) {
        int j = 0;
        cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(p, "scopes")) {
            int k = 0;
            cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(sc, "occurrences")) {
                const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
                char at[128];
                snprintf(at, sizeof at, "$.points[%d].scopes[%d].occurrences[%d]", i, j, k++);
                const cJSON *first = cJSON_GetObjectItemCaseSensitive(seen, id);
                if (first) {
                    rc = ea_fail(err, "%s %s.id: expected each occurrence once in the document, got a repeat of %s",
                                 file, at, first->valuestring);
                    goto out;
                }
                cJSON_AddItemToObject(seen, id, cJSON_CreateString(at));
            }
            j++;
        }
        i++;
    }
out:
    cJSON_Delete(seen);
    return rc;
}

int ea_occurrences_validate(const char *file, const cJSON *doc, const char *expected_op, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "op", "extracted_by", "cat_input_cap",
                                       "corpus", "occurrences", "points", NULL};
    static const char *const corpus_keys[] = {"graphs", "digest", NULL};
    ej_val root = {file, doc, "$"}, corpus, points;
    int64_t cap, graphs, listed, total = 0;
    const char *s;
    int n;
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_OCCURRENCES_SCHEMA, EA_OCCURRENCES_VERSION, err))
        return -1;
    if (expect_string(root, "op", expected_op, err) || ej_get_string(root, "extracted_by", &s, err) ||
        ej_get_int_min(root, "cat_input_cap", 0, &cap, err) || ej_field(root, "corpus", 1, &corpus, err) ||
        ej_object(corpus, corpus_keys, err) || ej_get_int_min(corpus, "graphs", 1, &graphs, err) ||
        ej_get_string(corpus, "digest", &s, err) || ej_get_int(root, "occurrences", &listed, err) ||
        ej_field(root, "points", 1, &points, err) || ej_array(points, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (validate_point(ej_index(points, i), expected_op, &total, err) != 0)
            return -1;
    if (ej_each_once(points, same_point, "each point once", err) || each_occurrence_once(file, points.v, err))
        return -1;
    if (total != listed)
        return ea_fail(err, "%s $.occurrences: expected the sum of point counts (%" PRId64 "), got %" PRId64, file, total, listed);
    return 0;
}

/* docs[i] is of docs[0]'s extraction: the same corpus (digest, graphs) and cat cap. Files of two runs (a writer
 * killed between renames, or two writers at once) would give occurrences of two corpora as one set. */
static int one_set(const char *dir, cJSON *const docs[EA_AUDIT_OPS], int i, ea_error *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(docs[0], "corpus"),
                *b = cJSON_GetObjectItemCaseSensitive(docs[i], "corpus");
    const char *what = strcmp(ej_text(a, "digest"), ej_text(b, "digest")) ? "digest"
                       : ej_num(a, "graphs") != ej_num(b, "graphs")      ? "graphs"
                                                                          : NULL;
    if (what)
        return ea_fail(err, "%s/%s.json $.corpus.%s: expected %s/%s.json's (one extraction's set), got another: the "
                            "folder mixes two extractions; extract --out it again",
                       dir, ea_audit_ops[i].short_name, what, dir, ea_audit_ops[0].short_name);
    if (ej_num(docs[0], "cat_input_cap") != ej_num(docs[i], "cat_input_cap"))
        return ea_fail(err, "%s/%s.json $.cat_input_cap: expected %s/%s.json's (one extraction's set), got another",
                       dir, ea_audit_ops[i].short_name, dir, ea_audit_ops[0].short_name);
    return 0;
}

int ea_occurrences_load(const char *dir, cJSON *docs[EA_AUDIT_OPS], ea_error *err)
{
    memset(docs, 0, sizeof(cJSON *) * EA_AUDIT_OPS);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", dir, ea_audit_ops[i].short_name);
        ej_doc d;
        if (ej_load(path, &d, err) != 0)
            goto fail;
        if (ea_occurrences_validate(path, d.root, ea_audit_ops[i].target, err) != 0) {
            ej_free(&d);
            goto fail;
        }
        docs[i] = ej_doc_take_root(&d); /* the tree moves to the caller; the rest of d is freed */
        if (i > 0 && one_set(dir, docs, i, err))
            goto fail;
    }
    return 0;
fail:
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cJSON_Delete(docs[i]);
        docs[i] = NULL;
    }
    return -1;
}

/* One row per op and model, in audit-op order then suite/mode/model. */
static cJSON *model_row(cJSON *rows, const char *op, const cJSON *occ)
{
    cJSON *r;
    cJSON_ArrayForEach(r, rows)
        if (!strcmp(ej_text(r, "op"), op) && !strcmp(ej_text(r, "suite"), ej_text(occ, "suite")) &&
            !strcmp(ej_text(r, "mode"), ej_text(occ, "mode")) && !strcmp(ej_text(r, "model"), ej_text(occ, "model")))
            return r;
    r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "op", op);
    cJSON_AddStringToObject(r, "suite", ej_text(occ, "suite"));
    cJSON_AddStringToObject(r, "mode", ej_text(occ, "mode"));
    cJSON_AddStringToObject(r, "model", ej_text(occ, "model"));
    cJSON_AddNumberToObject(r, "occurrences", 0);
    cJSON_AddNumberToObject(r, "points", 0);
    cJSON_AddItemToArray(rows, r);
    return r;
}

static void bump(cJSON *o, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cJSON_SetNumberValue(v, v->valuedouble + 1);
}

static int row_order(const cJSON *x, const cJSON *y)
{
    static const char *const keys[] = {"suite", "mode", "model"};
    for (int i = 0; i < 3; i++) {
        int c = strcmp(ej_text(x, keys[i]), ej_text(y, keys[i]));
        if (c)
            return c;
    }
    return 0;
}

static int is_bf16_self(const cJSON *sig)
{
    const cJSON *self = cJSON_GetArrayItem(cJSON_GetObjectItem(sig, "args"), 0);
    const cJSON *dt = cJSON_GetObjectItem(self, "dtype");
    return cJSON_IsString(dt) && strcmp(dt->valuestring, "bf16") == 0;
}

cJSON *ea_occurrences_summary(cJSON *const docs[EA_AUDIT_OPS])
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "schema", EA_OCCURRENCE_SUMMARY_SCHEMA);
    cJSON_AddNumberToObject(s, "schema_version", EA_OCCURRENCES_VERSION);
    cJSON *total = cJSON_AddNumberToObject(s, "occurrences_total", 0);
    cJSON *by_op = cJSON_AddObjectToObject(s, "occurrences_by_op");
    cJSON *pts_op = cJSON_AddObjectToObject(s, "points_by_op");
    cJSON *bf16 = cJSON_AddNumberToObject(s, "bf16_index_add", 0);
    cJSON *rows = cJSON_AddArrayToObject(s, "by_model");
    int nall = 0;
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        const char *op = ea_audit_ops[i].target;
        cJSON *op_rows = cJSON_CreateArray(), *p;
        int occ_n = 0, pt_n = 0;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(docs[i], "points"))
        {
            const cJSON *o, *sc;
            int n = cJSON_GetObjectItem(p, "count")->valueint;
            pt_n++;
            occ_n += n;
            if (i == 3 && is_bf16_self(cJSON_GetObjectItem(p, "signature")))
                cJSON_SetNumberValue(bf16, bf16->valuedouble + n);
            /* a point counts once in each model row it touches */
            const cJSON **counted = malloc(sizeof *counted * (size_t)(n ? n : 1));
            int ntouched = 0;
            cJSON_ArrayForEach(sc, cJSON_GetObjectItem(p, "scopes"))
            cJSON_ArrayForEach(o, cJSON_GetObjectItem(sc, "occurrences"))
            {
                cJSON *r = model_row(op_rows, op, o);
                bump(r, "occurrences");
                int dup = 0;
                for (int k = 0; k < ntouched; k++)
                    dup |= counted[k] == r;
                if (!dup) {
                    counted[ntouched++] = r;
                    bump(r, "points");
                }
            }
            free(counted);
        }
        cJSON_AddNumberToObject(by_op, op, occ_n);
        cJSON_AddNumberToObject(pts_op, op, pt_n);
        nall += occ_n;
        /* sort this op's rows, then move them to the summary */
        ej_sort(op_rows, row_order);
        while (cJSON_GetArraySize(op_rows))
            cJSON_AddItemToArray(rows, cJSON_DetachItemFromArray(op_rows, 0));
        cJSON_Delete(op_rows);
    }
    cJSON_SetNumberValue(total, nall);
    return s;
}

void ea_occurrences_print(const cJSON *summary, FILE *f)
{
    const cJSON *by_op = cJSON_GetObjectItem(summary, "occurrences_by_op");
    const cJSON *pts = cJSON_GetObjectItem(summary, "points_by_op"), *o;
    cJSON *t = cJSON_CreateArray(), *r = ea_text_row(t);
    for (const char *const *h = (const char *const[]){"op", "occurrences", "points", NULL}; *h; h++)
        ea_text_cell(r, "%s", *h);
    cJSON_ArrayForEach(o, by_op)
    {
        r = ea_text_row(t);
        ea_text_cell(r, "%s", o->string);
        ea_text_cell(r, "%d", o->valueint);
        ea_text_cell(r, "%d", cJSON_GetObjectItem(pts, o->string)->valueint);
    }
    r = ea_text_row(t);
    ea_text_cell(r, "total");
    ea_text_cell(r, "%d", cJSON_GetObjectItem(summary, "occurrences_total")->valueint);
    ea_text_cell(r, "%s", "");
    ea_text_cell(r, "(bf16 index_add: %d)", cJSON_GetObjectItem(summary, "bf16_index_add")->valueint);
    ea_text_table_print(f, t, "lrrl", "");
    cJSON_Delete(t);
    fputc('\n', f);
    t = cJSON_CreateArray();
    r = ea_text_row(t);
    for (const char *const *h = (const char *const[]){"op", "suite", "mode", "model", "occurrences", "points", NULL}; *h; h++)
        ea_text_cell(r, "%s", *h);
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(summary, "by_model"))
    {
        r = ea_text_row(t);
        for (const char *const *k = (const char *const[]){"op", "suite", "mode", "model", NULL}; *k; k++)
            ea_text_cell(r, "%s", ej_text(o, *k));
        ea_text_cell(r, "%d", cJSON_GetObjectItem(o, "occurrences")->valueint);
        ea_text_cell(r, "%d", cJSON_GetObjectItem(o, "points")->valueint);
    }
    ea_text_table_print(f, t, "llllrr", "");
    cJSON_Delete(t);
}

int ea_golden_dir_of(const char *occurrence_file, char *out, size_t n)
{
    if ((size_t)snprintf(out, n, "%s", occurrence_file) >= n)
        return -1;
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(out, '/');
        if (!slash) /* the path ran out: the folder the rest is relative to */
            return (size_t)snprintf(out, n, "%s", up ? "." : "..") >= n ? -1 : 0;
        *slash = '\0';
    }
    if (!out[0]) /* "/occurrences/cat.json" */
        snprintf(out, n, "/");
    return 0;
}
