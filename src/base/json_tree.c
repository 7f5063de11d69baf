/* json_tree.c: building and plain reads of cJSON trees (json.h): sorting and inserting items, number arrays, a
 * member's string or number or its absence, two values equal as printed; nothing here reports an error. */
#include "base/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int (*sort_cmp)(const cJSON *, const cJSON *);

static int sort_items(const void *a, const void *b)
{
    return sort_cmp(*(const cJSON *const *)a, *(const cJSON *const *)b);
}

void ej_sort(cJSON *arr, int (*cmp)(const cJSON *a, const cJSON *b))
{
    int n = cJSON_GetArraySize(arr);
    cJSON **v = malloc(sizeof *v * (size_t)(n ? n : 1));
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        v[i] = cJSON_DetachItemFromArray(arr, 0);
    sort_cmp = cmp; /* qsort has no context argument; extern-audit is single-threaded */
    qsort(v, (size_t)n, sizeof *v, sort_items);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, v[i]);
    free(v);
}

/* cJSON_InsertItemInArray of Debian's libcjson 1.7.15-1+deb12u4 refuses every index but 0 and the size and
 * returns false, the item lost: the items from at on are moved out and back instead. */
void ej_insert(cJSON *arr, int at, cJSON *item)
{
    cJSON *tail = cJSON_CreateArray(), *x;
    while (cJSON_GetArraySize(arr) > at)
        cJSON_AddItemToArray(tail, cJSON_DetachItemFromArray(arr, at));
    cJSON_AddItemToArray(arr, item);
    while ((x = cJSON_DetachItemFromArray(tail, 0)) != NULL)
        cJSON_AddItemToArray(arr, x);
    cJSON_Delete(tail);
}

cJSON *ej_int_array(const int64_t *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

const char *ej_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *ej_text(const cJSON *obj, const char *key)
{
    const char *s = ej_str(obj, key);
    return s ? s : "";
}

double ej_num(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

void ej_add_number_or_null(cJSON *obj, const char *key, double v)
{
    cJSON_AddItemToObject(obj, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

int ej_same_text(const cJSON *a, const cJSON *b)
{
    char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
    int same = x && y && !strcmp(x, y);
    cJSON_free(x);
    cJSON_free(y);
    return same;
}
