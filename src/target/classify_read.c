/* classify_read.c: a stored classification.json read back strictly (classify.h: ea_classification_validate,
 * ea_classification_load): every entry's fields and capture path, each occurrence once, and the summary equal to
 * what its entries give (ea_classification_summary), never trusted. */
#include "target/classify.h"
#include "target/classify_impl.h"
#include "base/readfile.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "target/target_layout.h"
#include "target/target.h"

/* A string field, "" when absent: the checks below name what is missing, never crash on it. */
static const char *text(const cJSON *o, const char *key)
{
    const char *s = ej_str(o, key);
    return s ? s : "";
}

/* A required field holding null or what ej_as_string / ej_as_bool accepts. */
static int nullable(ej_val obj, const char *key, int boolean, ea_error *err)
{
    ej_val v;
    const char *s;
    int b;
    if (ej_field(obj, key, 1, &v, err) != 0)
        return -1;
    if (cJSON_IsNull(v.v))
        return 0;
    return boolean ? ej_as_bool(v, &b, err) : ej_as_string(v, &s, err);
}

/* A capture named as classify names it, captures/<scope>/capture.json inside the target folder: no other path
 * (absolute, "..", a hidden or nested name) may point a reader outside it. */
static int capture_inside(ej_val e, ea_error *err)
{
    const char *c = ej_str(e.v, "capture");
    char scope[256], want[4096];
    if (!c)
        return 0;
    /* the scope read back, then the path rebuilt from it: equal only for the one form classify writes */
    if (ea_tf_capture_scope(c, scope, sizeof scope) && ea_plain_name(scope) &&
        ea_tf_capture(NULL, scope, want, sizeof want) == 0 && !strcmp(want, c))
        return 0;
    char got[300];
    snprintf(got, sizeof got, "\"%.280s\"", c);
    return ej_bad_field(e, "capture", "null or " EA_CAPTURES_NAME "/<scope>/" EA_CAPTURE_NAME
                        " (a capture of the target folder)", got, err);
}

static int check_entry(ej_val e, ea_error *err)
{
    static const char *const keys[] = {"id", "op", "point", "scope", "class", "reason", "old_rule", "false_extern",
                                       "capture", "configs_agree", NULL};
    const char *s;
    int b;
    if (ej_object(e, keys, err) != 0)
        return -1;
    for (int i = 0; i < 6; i++) /* id .. reason */
        if (ej_get_string(e, keys[i], &s, err) != 0)
            return -1;
    const char *const *name = ea_class_names;
    while (*name && strcmp(*name, text(e.v, "class")))
        name++;
    if (!*name) {
        ej_val c;
        ej_field(e, "class", 1, &c, err);
        return ea_fail(err,
                       "%s %s: expected lowered, conditional_lowered, conditional_fallback, true_fallback, "
                       "library_extern, unclassified or not_captured, got \"%s\"",
                       c.file, c.path, c.v->valuestring);
    }
    if (ea_classify_op_index(text(e.v, "op")) < 0)
        return ej_bad_field(e, "op", "an op of the audit set (aten.cat.default, ...)", text(e.v, "op"), err);
    if (nullable(e, "old_rule", 0, err) || ej_get_bool(e, "false_extern", &b, err) ||
        nullable(e, "capture", 0, err) || nullable(e, "configs_agree", 1, err))
        return -1;
    /* derived: the old rule files it under extern and Inductor lowers it */
    const char *cls = text(e.v, "class");
    int want = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e.v, "old_rule")) &&
               (!strcmp(cls, "lowered") || !strcmp(cls, "conditional_lowered"));
    if (b != want)
        return ej_bad_field(e, "false_extern",
                            want ? "true (an old_rule verdict and a lowered class)"
                                 : "false (true only with an old_rule verdict and a lowered class)",
                            b ? "true" : "false", err);
    return capture_inside(e, err);
}

static int check_finding(ej_val f, ea_error *err)
{
    static const char *const keys[] = {"call", "scopes", "occurrences", "note", NULL};
    const char *s;
    int64_t n;
    int ns;
    ej_val scopes;
    if (ej_object(f, keys, err) || ej_get_string(f, "call", &s, err) || ej_field(f, "scopes", 1, &scopes, err) ||
        ej_array(scopes, &ns, err) || ej_get_int(f, "occurrences", &n, err) || ej_get_string(f, "note", &s, err))
        return -1;
    for (int i = 0; i < ns; i++)
        if (ej_as_string(ej_index(scopes, i), &s, err) != 0)
            return -1;
    return 0;
}

/* Calls check on every element of an array field, or every member of a map field. */
static int each(ej_val obj, const char *key, int map, int (*check)(ej_val, ea_error *), ea_error *err)
{
    ej_val v;
    const char *k;
    int n;
    if (ej_field(obj, key, 1, &v, err) || (map ? ej_map(v, &n, err) : ej_array(v, &n, err)))
        return -1;
    for (int i = 0; i < n; i++)
        if (check(map ? ej_member(v, i, &k) : ej_index(v, i), err) != 0)
            return -1;
    return 0;
}

/* "<file> $.summary[op].cls: expected N (the count of its $.occurrences ...), got M" */
static int mismatch(ej_val stored, const char *op, const char *cls, double want, const cJSON *got, ea_error *err)
{
    char what[160], found[64];
    ej_val at;
    ej_field(stored, op, 0, &at, err);
    snprintf(what, sizeof what, "%.0f (the count of its $.occurrences%s)", want,
             strcmp(cls, "false_extern") ? " of that op and class" : " of that op with false_extern true");
    snprintf(found, sizeof found, got ? "%.17g" : "nothing", got ? got->valuedouble : 0);
    return at.v ? ej_bad_field(at, cls, what, found, err) : ej_bad_field(stored, op, "an object of counts", found, err);
}

/* {class: count, ..., "false_extern": n} */
static int check_op_summary(ej_val v, ea_error *err)
{
    int n;
    int64_t count;
    const char *k;
    if (ej_map(v, &n, err) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (ej_as_int(ej_member(v, i, &k), &count, err) != 0)
            return -1;
    return 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->valuestring, (*(const cJSON *const *)b)->valuestring);
}

/* Each occurrence listed once: a second entry would count twice in the summary. */
static int unique_ids(ej_val root, ea_error *err)
{
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root.v, "occurrences"), *e;
    int n = cJSON_GetArraySize(entries), k = 0, rc = 0;
    const cJSON **ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
    if (!ids)
        return ea_fail(err, "%s: out of memory", root.file);
    cJSON_ArrayForEach(e, entries)
        ids[k++] = cJSON_GetObjectItemCaseSensitive(e, "id");
    qsort(ids, (size_t)n, sizeof *ids, by_string);
    for (int i = 1; rc == 0 && i < n; i++)
        if (!strcmp(ids[i - 1]->valuestring, ids[i]->valuestring))
            rc = ea_fail(err, "%s $.occurrences: expected each occurrence once, got \"%s\" twice", root.file,
                         ids[i]->valuestring);
    free(ids);
    return rc;
}

static int summary_key(const char *k)
{
    const char *const *name = ea_class_names;
    while (*name && strcmp(*name, k))
        name++;
    return *name || !strcmp(k, "false_extern");
}

/* $.summary must be what its entries give (a count is derived, never trusted): every count equal, none missing,
 * no op outside the audit set, no key but a class or false_extern. */
static int summary_agrees(ej_val root, ea_error *err)
{
    ej_val stored, in;
    cJSON *want = ea_classification_summary(cJSON_GetObjectItemCaseSensitive(root.v, "occurrences"));
    const cJSON *op, *c;
    int rc = 0;
    ej_field(root, "summary", 1, &stored, err);
    cJSON_ArrayForEach(op, stored.v) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(want, op->string);
        ej_field(stored, op->string, 1, &in, err);
        if (rc == 0 && !w)
            rc = ea_fail(err, "%s %s: expected an op of the audit set, got \"%s\"", in.file, in.path, op->string);
        cJSON_ArrayForEach(c, op) {
            double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, c->string));
            if (rc == 0 && !summary_key(c->string))
                rc = ea_fail(err, "%s %s: unknown key '%s' (expected a class or false_extern)", in.file, in.path,
                             c->string);
            if (rc == 0 && c->valuedouble != (isnan(n) ? 0 : n))
                rc = mismatch(stored, op->string, c->string, isnan(n) ? 0 : n, c, err);
        }
    }
    cJSON_ArrayForEach(op, want)
        cJSON_ArrayForEach(c, op) {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(stored.v, op->string),
                                                              c->string);
            if (rc == 0 && !s && c->valuedouble != 0)
                rc = mismatch(stored, op->string, c->string, c->valuedouble, NULL, err);
        }
    cJSON_Delete(want);
    return rc;
}

static int check_env_value(ej_val v, ea_error *err)
{
    const char *s;
    return ej_as_string(v, &s, err);
}

int ea_classification_validate(const char *file, const cJSON *doc, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "environment", "rule_recorded_for", "occurrences",
                                       "summary", "findings", NULL};
    ej_val root = {file, doc, "$"}, env;
    const char *s;
    if (ej_object(root, keys, err) ||
        ej_expect_schema(root, EA_CLASSIFICATION_SCHEMA, EA_CLASSIFICATION_VERSION, err))
        return -1;
    if (ej_field(root, "environment", 1, &env, err) ||
        (!cJSON_IsNull(env.v) && each(root, "environment", 1, check_env_value, err)) ||
        ej_get_string(root, "rule_recorded_for", &s, err) || each(root, "occurrences", 0, check_entry, err) ||
        each(root, "summary", 1, check_op_summary, err) || each(root, "findings", 0, check_finding, err))
        return -1;
    return unique_ids(root, err) || summary_agrees(root, err) ? -1 : 0;
}

int ea_classification_load(const char *target_dir, ej_doc *doc, ea_error *err)
{
    char path[4096];
    ea_tf_path(target_dir, EA_TF_CLASSIFICATION, path, sizeof path);
    memset(doc, 0, sizeof *doc);
    int present = ea_file_present(path, err);
    if (present <= 0)
        return present;
    if (ej_load(path, doc, err))
        return -1;
    if (ea_classification_validate(path, doc->root, err)) {
        ej_free(doc);
        return -1;
    }
    return 0;
}
