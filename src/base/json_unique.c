/* json_unique.c: uniqueness of a document's listed items (contract in json.h). A second copy of a result,
 * point or run reads as valid item by item, yet counts twice wherever the list is summed or looked up. */
#include "base/json.h"

int ej_each_once(ej_val arr, ej_same_fn *same, const char *what, ea_error *err)
{
    int n, j = 0;
    if (ej_array(arr, &n, err))
        return -1;
    /* every pair by the list's links (ej_index per pair walked the list and spelled two paths: cubic) */
    for (const cJSON *b = arr.v->child; b; b = b->next, j++) {
        int i = 0;
        for (const cJSON *a = arr.v->child; a != b; a = a->next, i++)
            if (same(a, b)) {
                ej_val dup = ej_index(arr, j);
                return ea_fail(err, "%s %s: expected %s, got a repeat of %s[%d]", dup.file, dup.path, what, arr.path, i);
            }
    }
    return 0;
}

int ej_same_key(const cJSON *a, const cJSON *b, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, key), *y = cJSON_GetObjectItemCaseSensitive(b, key);
    return x || y ? cJSON_Compare(x, y, 1) : 1;
}
