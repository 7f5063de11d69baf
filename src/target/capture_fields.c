/* capture_fields.c: the capture reader's allocation and typed fields (capture_impl.h), under the document
 * (capture.c) and its runs (capture_run.c). */
#include "target/capture_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation: every block hangs off the capture, so a failure half-way frees cleanly ---- */

/* Zeroed n * size bytes freed with the capture; NULL when out of memory. */
void *cap_take(ea_capture *c, size_t n, size_t size)
{
    if (c->nblocks == c->capblocks) {
        int cap = c->capblocks ? c->capblocks * 2 : 16;
        void **bigger = realloc(c->blocks, sizeof *bigger * (size_t)cap);
        if (!bigger)
            return NULL;
        c->blocks = bigger;
        c->capblocks = cap;
    }
    void *p = calloc(n ? n : 1, size);
    if (p)
        c->blocks[c->nblocks++] = p;
    return p;
}

char *cap_join(ea_capture *c, const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = cap_take(c, n, 1);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int cap_oom(const char *file, ea_error *err)
{
    return ea_fail(err, "%s: out of memory", file);
}

/* ---- typed fields with the checks the schema adds to the JSON layer ---- */

int cap_int_list(ej_val obj, const char *key, int64_t min, int exact, int max, int64_t *out, int *n, ea_error *err)
{
    ej_val arr;
    char what[64], got[32];
    if (ej_field(obj, key, 1, &arr, err) || ej_array(arr, n, err))
        return -1;
    if ((exact > 0 && *n != exact) || *n > max) {
        snprintf(what, sizeof what, exact > 0 ? "%d integers" : "at most %d integers", exact > 0 ? exact : max);
        snprintf(got, sizeof got, "%d", *n);
        return ej_bad_field(obj, key, what, got, err);
    }
    for (int i = 0; i < *n; i++) {
        ej_val e = ej_index(arr, i);
        if (ej_as_int(e, &out[i], err) != 0)
            return -1;
        if (out[i] < min) {
            snprintf(got, sizeof got, "%" PRId64, out[i]);
            return ea_fail(err, "%s %s: expected an integer >= %" PRId64 ", got %s", e.file, e.path, min, got);
        }
    }
    return 0;
}

int cap_str_list(ea_capture *c, ej_val obj, const char *key, int unique, const char ***out, int *n, ea_error *err)
{
    ej_val arr;
    if (ej_field(obj, key, 1, &arr, err) || ej_array(arr, n, err))
        return -1;
    if (unique && *n == 0)
        return ej_bad_field(obj, key, "a non-empty array", "an empty one", err);
    if (!(*out = cap_take(c, (size_t)*n, sizeof **out)))
        return cap_oom(obj.file, err);
    for (int i = 0; i < *n; i++) {
        ej_val e = ej_index(arr, i);
        if (ej_as_string(e, &(*out)[i], err) != 0)
            return -1;
        for (int k = 0; unique && k < i; k++)
            if (!strcmp((*out)[k], (*out)[i]))
                return ea_fail(err, "%s %s: expected each entry once, got \"%s\" again", e.file, e.path, (*out)[i]);
    }
    return 0;
}

int cap_error_list(ea_capture *c, ej_val obj, const char *key, double **out, ea_error *err)
{
    ej_val arr;
    int n;
    *out = NULL;
    if (ej_field(obj, key, 0, &arr, err) || !arr.v)
        return arr.v ? -1 : 0;
    if (ej_array(arr, &n, err))
        return -1;
    if (n != c->noutputs) {
        char got[32];
        snprintf(got, sizeof got, "%d entries", n);
        char what[64];
        snprintf(what, sizeof what, "one entry per output (%d)", c->noutputs);
        return ej_bad_field(obj, key, what, got, err);
    }
    if (!(*out = cap_take(c, (size_t)n, sizeof **out)))
        return cap_oom(obj.file, err);
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(arr, i);
        (*out)[i] = NAN;
        if (cJSON_IsNull(e.v))
            continue;
        if (ej_as_number(e, &(*out)[i], err) != 0)
            return -1;
        if (!((*out)[i] >= 0))
            return ea_fail(err, "%s %s: expected a relative L2 error >= 0 or null, got %g", e.file, e.path, (*out)[i]);
    }
    return 0;
}

int cap_obj_list(ea_capture *c, ej_val obj, const char *key, size_t size, void **items, int *n, ej_val *arr,
                 ea_error *err)
{
    if (ej_field(obj, key, 1, arr, err) || ej_array(*arr, n, err))
        return -1;
    return (*items = cap_take(c, (size_t)*n, size)) ? 0 : cap_oom(obj.file, err);
}

int cap_dtype_field(ej_val obj, const char *key, ea_dtype *dt, ea_error *err)
{
    const char *s;
    if (ej_get_string(obj, key, &s, err) != 0)
        return -1;
    *dt = ea_dtype_from_name(s, strlen(s));
    if (*dt != EA_DTYPE_INVALID && !strcmp(ea_dtype_name(*dt), s))
        return 0;
    char got[96];
    snprintf(got, sizeof got, "\"%.80s\"", s);
    return ej_bad_field(obj, key, "a dtype (bf16, f16, f32, f64, i8, i16, i32, i64, u8, u64, b8, c64)", got, err);
}
