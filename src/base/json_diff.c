/* json_diff.c: where two JSON values first differ, as a sentence (contract in json_diff.h). */
#include "base/json_diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Two numbers a document prints alike: run derives from its in-memory doubles, a reader from their printed form
 * (cJSON prints 15 significant digits where they read back within its epsilon), so a derived ratio may differ in
 * its last bits while nothing it derives from changed. */
#define SAME_NUMBER_REL 1e-12

/* Where two JSON values first differ: path (starting as the caller's, e.g. "$.config") extended to the
 * first key or index that differs in document order, numbers within SAME_NUMBER_REL of each other equal,
 * *da and *db the values there (NULL on the side that lacks the key or index); 1 when they differ. */
static int first_difference(const cJSON *a, const cJSON *b, char *path, size_t n, const cJSON **da, const cJSON **db)
{
    size_t len = strlen(path);
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        const cJSON *x;
        cJSON_ArrayForEach(x, a) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            snprintf(path + len, n - len, ".%s", x->string);
            if (!y)
                return *da = x, *db = NULL, 1;
            if (first_difference(x, y, path, n, da, db))
                return 1;
        }
        cJSON_ArrayForEach(x, b)
            if (!cJSON_HasObjectItem(a, x->string))
                return snprintf(path + len, n - len, ".%s", x->string), *da = NULL, *db = x, 1;
        path[len] = '\0';
        return 0;
    }
    if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        for (int i = 0; i < (na > nb ? na : nb); i++) {
            const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
            snprintf(path + len, n - len, "[%d]", i);
            if (!x || !y)
                return *da = x, *db = y, 1;
            if (first_difference(x, y, path, n, da, db))
                return 1;
        }
        path[len] = '\0';
        return 0;
    }
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b) &&
        fabs(a->valuedouble - b->valuedouble) <= SAME_NUMBER_REL * fmax(fabs(a->valuedouble), fabs(b->valuedouble)))
        return 0;
    if (!cJSON_IsNumber(a) && cJSON_Compare(a, b, 1))
        return 0;
    return *da = a, *db = b, 1; /* two scalars, or two kinds of value: the difference is the value itself */
}

/* text from byte from on ("..." marking what is left out on either side), cut to fit buf; "(none)" for no text. */
static const char *shown(const char *text, size_t from, char *buf, size_t n)
{
    size_t len = text ? strlen(text) : 0;
    int w = snprintf(buf, n, "%s%s", from && from < len ? "..." : "", text ? text + (from < len ? from : len) : "(none)");
    if (w >= 0 && (size_t)w >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
    return buf;
}

/* Where two printed values should start being shown so their first difference is in view: a little before
 * it, at the start of a character. */
static size_t window_of(const char *a, const char *b)
{
    size_t i = 0;
    if (!a || !b)
        return 0;
    while (a[i] && a[i] == b[i])
        i++;
    size_t from = i > 40 ? i - 40 : 0;
    while (from > 0 && ((unsigned char)a[from] & 0xC0) == 0x80) /* not inside a UTF-8 character */
        from--;
    return from;
}

int ej_first_difference(const cJSON *a, const cJSON *b, const char *root, char *text, size_t n)
{
    char where[256];
    const cJSON *was, *now;
    snprintf(where, sizeof where, "%s", root);
    if (!first_difference(a, b, where, sizeof where, &was, &now))
        return 0;
    char *pa = was ? cJSON_PrintUnformatted(was) : NULL, *pb = now ? cJSON_PrintUnformatted(now) : NULL;
    char sa[160], sb[160];
    size_t from = window_of(pa, pb);
    snprintf(text, n, "first at %s: %s -> %s", where, shown(pa, from, sa, sizeof sa), shown(pb, from, sb, sizeof sb));
    cJSON_free(pa);
    cJSON_free(pb);
    return 1;
}
