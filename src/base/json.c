#include "base/json.h"
#include "base/json_impl.h"
#include "base/readfile.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Beyond 2^53 a double no longer holds every integer, so the value read may not be the one written. */
#define EJ_MAX_EXACT_INT 9007199254740992.0
#define EJ_STR2(x) #x
#define EJ_STR(x) EJ_STR2(x)

/* ---- messages ---- */

/* Shortest of %.15g / %.17g that reads back as the same double: "1.5", not "1.5000000000000000". */
static void format_number(double d, char *buf, size_t n)
{
    snprintf(buf, n, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, n, "%.17g", d);
}

/* What was found, for the "got <what>" half of a message. */
static void describe(const cJSON *v, char *buf, size_t n)
{
    char num[32];
    if (!v)
        snprintf(buf, n, "nothing");
    else if (cJSON_IsNull(v))
        snprintf(buf, n, "null");
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "boolean %s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNumber(v)) {
        format_number(v->valuedouble, num, sizeof num);
        snprintf(buf, n, "number %s", num);
    } else if (cJSON_IsString(v)) {
        size_t len = strlen(v->valuestring);
        snprintf(buf, n, "string \"%.40s%s\"", v->valuestring, len > 40 ? "..." : "");
    } else if (cJSON_IsArray(v))
        snprintf(buf, n, "array");
    else
        snprintf(buf, n, "object");
}

static int expected(ej_val v, const char *what, ea_error *err)
{
    char got[96];
    describe(v.v, got, sizeof got);
    return ea_fail(err, "%s %s: expected %s, got %s", v.file, v.path, what, got);
}

/* ---- parsing ---- */

static ej_val child(ej_val parent, const cJSON *v, const char *key, int index);

/* A few bytes of the offending line around pos, printable only, so the message stays one line. */
static void excerpt(const char *text, size_t len, size_t pos, char *buf, size_t n)
{
    size_t start = pos, end = pos, k = 0;
    while (start > 0 && pos - start < 12 && text[start - 1] != '\n')
        start--;
    while (end < len && end - pos < 12 && text[end] != '\n' && text[end] != '\0')
        end++;
    for (size_t i = start; i < end && k + 1 < n; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[k++] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c : '?';
    }
    buf[k] = '\0';
}

/* Brackets open at pos, strings skipped: cJSON stops at CJSON_NESTING_LIMIT without saying so. */
static int depth_at(const char *text, size_t pos)
{
    int depth = 0, in_string = 0, escaped = 0;
    for (size_t i = 0; i < pos; i++) {
        char c = text[i];
        if (in_string && escaped)
            escaped = 0;
        else if (in_string)
            escaped = c == '\\', in_string = c != '"';
        else if (c == '"')
            in_string = 1;
        else
            depth += (c == '[' || c == '{') - (c == ']' || c == '}');
    }
    return depth;
}

static int invalid_json(const char *label, const char *text, size_t len, size_t pos, ea_error *err)
{
    int line = 1, col = 1;
    char near[32];
    const char *why = "";
    for (size_t i = 0; i < pos; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (strspn(text, " \t\r\n") == len)
        why = " (empty document)";
    else if (pos >= len)
        why = " (unexpected end of input)";
    else if (text[pos] == '\0')
        why = " (NUL byte)";
    else if (depth_at(text, pos) >= CJSON_NESTING_LIMIT)
        why = " (arrays and objects nested deeper than the parser's limit of " EJ_STR(CJSON_NESTING_LIMIT) ")";
    excerpt(text, len, pos, near, sizeof near);
    return ea_fail(err, "%s:%d:%d: invalid JSON near '%s'%s", label, line, col, near, why);
}

/* Length of the well-formed UTF-8 sequence at p (no overlong form, no surrogate, at most U+10FFFF), 0 if none. */
static size_t utf8_length(const unsigned char *p, size_t left)
{
    size_t n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    if (n == 0 || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
        (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/* What cJSON lets through and JSON (RFC 8259) and Python's json refuse: a raw control character inside a string,
 * bytes that are not UTF-8. */
static int text_rules(const char *label, const char *text, size_t len, ea_error *err)
{
    const unsigned char *t = (const unsigned char *)text;
    int in_string = 0, line = 1, col = 1;
    for (size_t i = 0, n; i < len; i += n, col++) {
        n = utf8_length(t + i, len - i);
        if (n == 0)
            return ea_fail(err, "%s:%d:%d: invalid JSON: byte 0x%02x is not UTF-8", label, line, col, t[i]);
        if (in_string && t[i] < 0x20)
            return ea_fail(err, "%s:%d:%d: invalid JSON: raw control character 0x%02x in a string (JSON escapes it, "
                                "\\u%04x)", label, line, col, t[i], t[i]);
        if (in_string && t[i] == '\\')
            n = i + 1 < len ? 2 : 1, col += (int)n - 1; /* and the escaped character (ASCII: the document parsed) */
        else if (t[i] == '"')
            in_string = !in_string;
        else if (t[i] == '\n')
            line++, col = 0;
    }
    return 0;
}

/* Keys are unique in every object of the document: cJSON keeps both copies of a repeated key and its lookups see the
 * first, where Python's json (tools/capture) takes the last, so one file would say two things. */
static int by_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The walk's way down, a frame per level: the JSON path is only spelled when a duplicate is reported, since
 * spelling it at every node of every document read cost more than the check itself. */
typedef struct walk {
    const struct walk *up;
    const cJSON *v;
    int index; /* in an array; the key is v->string in an object */
} walk;

static void spell(const walk *w, ej_val *out)
{
    if (!w->up)
        return;
    spell(w->up, out);
    *out = cJSON_IsObject(w->up->v) ? child(*out, w->v, w->v->string, 0) : child(*out, w->v, NULL, w->index);
}

static int duplicate_in(ej_val root, const walk *w, const char *key, ea_error *err)
{
    ej_val at = root;
    spell(w, &at);
    return ea_fail(err, "%s %s: expected unique keys, got duplicate key '%s'", at.file, at.path, key);
}

/* A small object is checked pair by pair; a large one sorted, so a 10,000-key object stays linear-log. */
static int first_duplicate(const cJSON *v, int n, const char **dup)
{
    const cJSON *a, *b;
    if (n <= 16) {
        for (a = v->child; a; a = a->next)
            for (b = a->next; b; b = b->next)
                if (!strcmp(a->string, b->string))
                    return *dup = a->string, 1;
        return 0;
    }
    const cJSON **keys = malloc(sizeof *keys * (size_t)n);
    int i = 0, found = 0;
    if (!keys)
        return -1;
    cJSON_ArrayForEach(a, v)
        keys[i++] = a;
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    for (i = 1; !found && i < n; i++)
        if (!strcmp(keys[i - 1]->string, keys[i]->string))
            found = 1, *dup = keys[i]->string;
    free(keys);
    return found;
}

static int unique_keys(ej_val root, const walk *w, ea_error *err)
{
    const cJSON *item;
    int n = 0, i = 0;
    if (!cJSON_IsObject(w->v) && !cJSON_IsArray(w->v))
        return 0;
    cJSON_ArrayForEach(item, w->v)
        n++;
    const char *dup = NULL;
    int found = cJSON_IsObject(w->v) && n > 1 ? first_duplicate(w->v, n, &dup) : 0;
    if (found < 0)
        return ea_fail(err, "%s: out of memory", root.file);
    if (found)
        return duplicate_in(root, w, dup, err);
    cJSON_ArrayForEach(item, w->v) {
        walk down = {.up = w, .v = item, .index = i++};
        if (unique_keys(root, &down, err))
            return -1;
    }
    return 0;
}

/* text[len] must be '\0'; an earlier NUL would otherwise end the document silently. */
static int parse_buffer(const char *label, const char *text, size_t len, ej_doc *doc, ea_error *err)
{
    const char *end = NULL;
    const char *nul = memchr(text, '\0', len);
    doc->file = NULL;
    doc->root = NULL;
    if (nul)
        return invalid_json(label, text, len, (size_t)(nul - text), err);
    doc->root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!doc->root)
        return invalid_json(label, text, len, end ? (size_t)(end - text) : 0, err);
    ej_val root = {.file = label, .v = doc->root, .path = "$"};
    if (text_rules(label, text, len, err) || unique_keys(root, &(walk){.v = root.v}, err)) {
        cJSON_Delete(doc->root);
        doc->root = NULL;
        return -1;
    }
    doc->file = strdup(label);
    if (!doc->file) {
        cJSON_Delete(doc->root);
        doc->root = NULL;
        return ea_fail(err, "%s: out of memory", label);
    }
    return 0;
}

int ej_parse(const char *label, const char *text, ej_doc *doc, ea_error *err)
{
    return parse_buffer(label, text, strlen(text), doc, err);
}

int ej_load(const char *path, ej_doc *doc, ea_error *err)
{
    char *text;
    size_t len;
    doc->file = NULL;
    doc->root = NULL;
    if (ea_read_file(path, &text, &len, err))
        return -1;
    int rc = parse_buffer(path, text, len, doc, err);
    free(text);
    return rc;
}

void ej_free(ej_doc *doc)
{
    cJSON_Delete(doc->root);
    free((char *)doc->file);
    doc->root = NULL;
    doc->file = NULL;
}

cJSON *ej_doc_take_root(ej_doc *doc)
{
    cJSON *root = doc->root;
    doc->root = NULL;
    ej_free(doc);
    return root;
}

ej_val ej_root(const ej_doc *doc)
{
    ej_val v = {.file = doc->file, .v = doc->root, .path = "$"};
    return v;
}

ej_val ej_point(const char *file, const cJSON *point, int index)
{
    ej_val v = {.file = file, .v = point};
    snprintf(v.path, sizeof v.path, "$.points[%d]", index);
    return v;
}

/* ---- walking ---- */

/* Keys such as "aten.cumsum.default" would read as nested fields after a dot, so they are quoted. */
static int plain_key(const char *key)
{
    if (!(*key == '_' || (*key >= 'A' && *key <= 'Z') || (*key >= 'a' && *key <= 'z')))
        return 0;
    for (const char *p = key + 1; *p; p++)
        if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

/* s copied to path + at as far as path's size allows; at + strlen(s), as snprintf counts. */
static size_t append(char *path, size_t size, size_t at, const char *s)
{
    size_t len = strlen(s);
    if (at < size - 1)
        memcpy(path + at, s, len < size - 1 - at ? len : size - 1 - at);
    return at + len;
}

/* "[i]" */
static const char *bracketed(int i, char buf[16])
{
    char *p = buf + 15;
    unsigned u = i < 0 ? 0u - (unsigned)i : (unsigned)i;
    *p = '\0';
    *--p = ']';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (i < 0)
        *--p = '-';
    *--p = '[';
    return p;
}

/* Paths longer than ej_val.path are cut short: they only ever label messages. Spelled by hand, as
 * snprintf("%s.%s" / "%s[\"%s\"]" / "%s[%d]") would: every field and element read makes one, and the format
 * machinery was a tenth of a golden load. */
static ej_val child(ej_val parent, const cJSON *v, const char *key, int index)
{
    ej_val c;
    char num[16];
    const int plain = key && plain_key(key);
    size_t n = append(c.path, sizeof c.path, 0, parent.path);
    c.file = parent.file;
    c.v = v;
    if (key) {
        n = append(c.path, sizeof c.path, n, plain ? "." : "[\"");
        n = append(c.path, sizeof c.path, n, key);
        n = append(c.path, sizeof c.path, n, plain ? "" : "\"]");
    } else {
        n = append(c.path, sizeof c.path, n, bracketed(index, num));
    }
    c.path[n < sizeof c.path ? n : sizeof c.path - 1] = '\0';
    if (n >= sizeof c.path)
        memcpy(c.path + sizeof c.path - 4, "...", 4);
    return c;
}

/* cJSON keeps both copies of a repeated key, and lookups would silently see only the first. */
static int duplicate_key(ej_val v, const cJSON *item, ea_error *err)
{
    for (const cJSON *prev = v.v->child; prev != item; prev = prev->next)
        if (strcmp(prev->string, item->string) == 0)
            return ea_fail(err, "%s %s: expected unique keys, got duplicate key '%s'", v.file, v.path,
                           item->string);
    return 0;
}

int ej_object(ej_val v, const char *const *allowed, ea_error *err)
{
    const cJSON *item;
    if (!cJSON_IsObject(v.v))
        return expected(v, "object", err);
    cJSON_ArrayForEach(item, v.v) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, item->string) != 0)
            a++;
        if (!*a) {
            char list[768];
            size_t k = 0;
            list[0] = '\0';
            for (a = allowed; *a && k < sizeof list; a++)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", a == allowed ? "" : ", ", *a);
            return ea_fail(err, "%s %s: unknown key '%s' (expected one of: %s)", v.file, v.path, item->string,
                           list);
        }
        if (duplicate_key(v, item, err) < 0)
            return -1;
    }
    return 0;
}

int ej_map(ej_val v, int *n, ea_error *err)
{
    const cJSON *item;
    if (!cJSON_IsObject(v.v))
        return expected(v, "object", err);
    cJSON_ArrayForEach(item, v.v)
        if (duplicate_key(v, item, err) < 0)
            return -1;
    *n = cJSON_GetArraySize(v.v);
    return 0;
}

ej_val ej_member(ej_val map, int i, const char **key)
{
    const cJSON *item = cJSON_IsObject(map.v) ? cJSON_GetArrayItem(map.v, i) : NULL;
    *key = item ? item->string : NULL;
    return item ? child(map, item, item->string, 0) : child(map, NULL, NULL, i);
}

/* what names the expected value in the "missing key" message. */
static int field(ej_val obj, const char *key, int required, ej_val *out, const char *what, ea_error *err)
{
    if (!cJSON_IsObject(obj.v))
        return expected(obj, "object", err);
    *out = child(obj, cJSON_GetObjectItemCaseSensitive(obj.v, key), key, 0);
    if (!out->v && required)
        return ea_fail(err, "%s %s: expected %s, got nothing (missing key)", out->file, out->path, what);
    return 0;
}

int ej_field(ej_val obj, const char *key, int required, ej_val *out, ea_error *err)
{
    return field(obj, key, required, out, "a value", err);
}

ej_val ej_index(ej_val arr, int i)
{
    /* cJSON would also index an object's members; an element of a non-array is nothing. */
    return child(arr, cJSON_IsArray(arr.v) ? cJSON_GetArrayItem(arr.v, i) : NULL, NULL, i);
}

ej_val ej_next(ej_val arr, ej_val at, int i)
{
    return child(arr, cJSON_IsArray(arr.v) && at.v ? at.v->next : NULL, NULL, i + 1);
}

int ej_array(ej_val v, int *n, ea_error *err)
{
    if (!cJSON_IsArray(v.v))
        return expected(v, "array", err);
    *n = cJSON_GetArraySize(v.v);
    return 0;
}

/* ---- typed reads ---- */

int ej_as_string(ej_val v, const char **out, ea_error *err)
{
    if (!cJSON_IsString(v.v))
        return expected(v, "string", err);
    *out = v.v->valuestring;
    return 0;
}

int ej_as_number(ej_val v, double *out, ea_error *err)
{
    if (!cJSON_IsNumber(v.v) || !isfinite(v.v->valuedouble))
        return expected(v, "finite number", err);
    *out = v.v->valuedouble;
    return 0;
}

int ej_as_int(ej_val v, int64_t *out, ea_error *err)
{
    double d;
    if (!cJSON_IsNumber(v.v) || !isfinite(v.v->valuedouble))
        return expected(v, "integer", err);
    d = v.v->valuedouble;
    if (floor(d) != d)
        return expected(v, "integer", err);
    if (fabs(d) >= EJ_MAX_EXACT_INT) /* 2^53 itself is also what 2^53+1 reads as */
        return expected(v, "integer of magnitude below 2^53", err);
    *out = (int64_t)d;
    return 0;
}

int ej_as_bool(ej_val v, int *out, ea_error *err)
{
    if (!cJSON_IsBool(v.v))
        return expected(v, "boolean", err);
    *out = cJSON_IsTrue(v.v);
    return 0;
}

int ej_get_string(ej_val obj, const char *key, const char **out, ea_error *err)
{
    ej_val v;
    return field(obj, key, 1, &v, "string", err) ? -1 : ej_as_string(v, out, err);
}

int ej_get_int(ej_val obj, const char *key, int64_t *out, ea_error *err)
{
    ej_val v;
    return field(obj, key, 1, &v, "integer", err) ? -1 : ej_as_int(v, out, err);
}

int ej_get_number(ej_val obj, const char *key, double *out, ea_error *err)
{
    ej_val v;
    return field(obj, key, 1, &v, "finite number", err) ? -1 : ej_as_number(v, out, err);
}

int ej_get_bool(ej_val obj, const char *key, int *out, ea_error *err)
{
    ej_val v;
    return field(obj, key, 1, &v, "boolean", err) ? -1 : ej_as_bool(v, out, err);
}

/* ---- checks shared by the readers ---- */

int ej_bad_field(ej_val obj, const char *key, const char *what, const char *got, ea_error *err)
{
    const cJSON *v = cJSON_IsObject(obj.v) ? cJSON_GetObjectItemCaseSensitive(obj.v, key) : NULL;
    ej_val f = child(obj, v, key, 0);
    return ea_fail(err, "%s %s: expected %s, got %s", f.file, f.path, what, got);
}

int ej_get_one_of(ej_val obj, const char *key, const char *const *allowed, const char *what, const char **out,
                  ea_error *err)
{
    char got[96];
    if (ej_get_string(obj, key, out, err) != 0)
        return -1;
    for (const char *const *a = allowed; *a; a++)
        if (!strcmp(*out, *a))
            return 0;
    snprintf(got, sizeof got, "\"%.80s\"", *out);
    return ej_bad_field(obj, key, what, got, err);
}

int ej_get_int_min(ej_val obj, const char *key, int64_t min, int64_t *out, ea_error *err)
{
    char what[64], got[32];
    if (ej_get_int(obj, key, out, err) != 0)
        return -1;
    if (*out >= min)
        return 0;
    snprintf(what, sizeof what, "an integer >= %" PRId64, min);
    snprintf(got, sizeof got, "%" PRId64, *out);
    return ej_bad_field(obj, key, what, got, err);
}

int ej_expect_schema(ej_val root, const char *schema, int64_t version, ea_error *err)
{
    const char *s;
    int64_t v;
    char what[128], got[96];
    if (schema) {
        if (ej_get_string(root, "schema", &s, err) != 0)
            return -1;
        if (strcmp(s, schema) != 0) {
            snprintf(what, sizeof what, "\"%.100s\"", schema);
            snprintf(got, sizeof got, "\"%.80s%s\"", s, strlen(s) > 80 ? "..." : "");
            return ej_bad_field(root, "schema", what, got, err);
        }
    }
    if (ej_get_int(root, "schema_version", &v, err) != 0)
        return -1;
    if (v == version)
        return 0;
    snprintf(what, sizeof what, "%" PRId64, version);
    snprintf(got, sizeof got, "%" PRId64, v);
    return ej_bad_field(root, "schema_version", what, got, err);
}
