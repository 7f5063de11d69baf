/* json_layered.c: a document printed one level per line down to a depth, each deeper value on one line (json.h).
 * Why: a golden file's diff then names the entry that moved (a baselines path is one line), and an entry that did
 * not move keeps its bytes whenever the file is written again: the text depends on the values alone. */
#include "base/json.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const char *t, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, t, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void put_str(buf *b, const char *t)
{
    put(b, t, strlen(t));
}

static void put_compact(buf *b, const cJSON *v)
{
    char *t = cJSON_PrintUnformatted(v);
    if (!t) {
        b->failed = 1;
        return;
    }
    put_str(b, t);
    cJSON_free(t);
}

static void indent(buf *b, int level)
{
    put_str(b, "\n");
    for (int i = 0; i < level; i++)
        put_str(b, "\t");
}

static void layered(buf *b, const cJSON *v, int level, int depth, const char *deeper)
{
    int object = cJSON_IsObject(v);
    if (level >= depth || !(object || cJSON_IsArray(v)) || !v->child) {
        put_compact(b, v);
        return;
    }
    put_str(b, object ? "{" : "[");
    for (const cJSON *c = v->child; c; c = c->next) {
        indent(b, level + 1);
        if (object) {
            cJSON *key = cJSON_CreateString(c->string);
            put_compact(b, key);
            cJSON_Delete(key);
            put_str(b, ": ");
        }
        layered(b, c, level + 1, depth + (object && deeper && !strcmp(c->string, deeper)), deeper);
        if (c->next)
            put_str(b, ",");
    }
    indent(b, level);
    put_str(b, object ? "}" : "]");
}

char *ej_print_layered(const cJSON *root, int depth, const char *deeper)
{
    buf b = {0};
    layered(&b, root, 0, depth, deeper);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

int ej_write_layered_atomic(const char *path, const cJSON *root, int depth, const char *deeper, ea_error *err)
{
    char *text = ej_print_layered(root, depth, deeper);
    size_t n = text ? strlen(text) : 0;
    char *whole = text ? realloc(text, n + 2) : NULL;
    if (!whole) {
        free(text);
        return ea_fail(err, "%s: cannot write: out of memory", path);
    }
    memcpy(whole + n, "\n", 2); /* the last line ends as every text file's */
    int rc = ea_write_file_atomic(path, whole, n + 1, err);
    free(whole);
    return rc;
}
