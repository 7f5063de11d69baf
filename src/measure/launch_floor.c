/* launch_floor.c: the launch floor's record and the fractions of launch-bound scopes (contract in launch_floor.h). */
#include "measure/launch_floor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu/timer.h"
#include "measure/fractions.h"
#include "measure/result.h"
#include "measure/path.h"

int ea_launch_floor_measure(double *warm_us, double *cold_us, int n, char *cold_note, size_t note_n, ea_error *err)
{
    for (int k = 1; k <= n && k <= EA_LAUNCH_FLOOR_MAX; k++) {
        ea_timing warm, cold;
        if (ea_time_warm_cold(ea_enqueue_empty_kernels, &k, NULL, &warm, &cold, err))
            return -1;
        warm_us[k - 1] = warm.per_call_us.median;
        cold_us[k - 1] = cold.samples_us ? cold.per_call_us.median : NAN;
        if (!cold.samples_us)
            snprintf(cold_note, note_n, "%s", cold.note);
        ea_timing_free(&warm);
        ea_timing_free(&cold);
    }
    return 0;
}

cJSON *ea_launch_floor_json(const double *warm_us, const double *cold_us, int n, const char *cold_note)
{
    cJSON *f = cJSON_CreateObject(), *chains = cJSON_AddArrayToObject(f, "chains");
    for (int k = 0; k < n; k++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddNumberToObject(c, "kernels", k + 1);
        cJSON_AddNumberToObject(c, "warm_us", warm_us[k]);
        ej_add_number_or_null(c, "cold_us", cold_us[k]);
        if (!isfinite(cold_us[k]))
            cJSON_AddStringToObject(c, "cold_note", cold_note && cold_note[0] ? cold_note : "no cold time");
        cJSON_AddItemToArray(chains, c);
    }
    return f;
}

/* A chain's time at key: positive, finite and below EJ_MAX_TIME_US. */
static int chain_time(ej_val c, const char *key, double t, const char *what, ea_error *err)
{
    char got[64];
    snprintf(got, sizeof got, "%.6g", t);
    return t > 0 && t < EJ_MAX_TIME_US ? 0 : ej_bad_field(c, key, what, got, err);
}

int ea_launch_floor_validate(ej_val v, ea_error *err)
{
    static const char *const keys[] = {"chains", NULL},
                             *const chain_keys[] = {"kernels", "warm_us", "cold_us", "cold_note", NULL};
    ej_val chains, cold, note;
    const char *s;
    int n;
    if (ej_object(v, keys, err) || ej_field(v, "chains", 1, &chains, err) || ej_array(chains, &n, err))
        return -1;
    if (n < 1)
        return ej_bad_field(v, "chains", "at least the chain of one kernel", "[]", err);
    for (int i = 0; i < n; i++) {
        ej_val c = ej_index(chains, i);
        int64_t k;
        double warm, cold_us;
        char got[32], want[64];
        if (ej_object(c, chain_keys, err) || ej_get_int(c, "kernels", &k, err) ||
            ej_get_number(c, "warm_us", &warm, err) || ej_field(c, "cold_us", 1, &cold, err) ||
            ej_field(c, "cold_note", 0, &note, err))
            return -1;
        snprintf(got, sizeof got, "%lld", (long long)k);
        snprintf(want, sizeof want, "%d (the chains of 1, 2, ... kernels in order)", i + 1);
        if (k != i + 1)
            return ej_bad_field(c, "kernels", want, got, err);
        if (chain_time(c, "warm_us", warm, "a positive time below 1e9 us", err))
            return -1;
        if (cJSON_IsNull(cold.v)) {
            if (!note.v)
                return ej_bad_field(c, "cold_note", "why there is no cold time", "nothing", err);
            if (ej_as_string(note, &s, err))
                return -1;
            continue;
        }
        if (note.v)
            return ej_bad_field(c, "cold_note", "none beside a cold time", "a note", err);
        if (ej_as_number(cold, &cold_us, err) ||
            chain_time(c, "cold_us", cold_us, "a positive time below 1e9 us or null", err))
            return -1;
    }
    return 0;
}

/* a and b the same time within margin (relative to a), or both absent */
static int same_time(const cJSON *a, const cJSON *b, double margin)
{
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return cJSON_IsNumber(a) == cJSON_IsNumber(b);
    return fabs(b->valuedouble - a->valuedouble) <= margin * a->valuedouble;
}

int ea_launch_floor_moved(const cJSON *stored, const cJSON *fresh, double margin)
{
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fresh, "launch_floor"), "chains"),
                *sc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(stored, "launch_floor"), "chains");
    if (!fc)
        return 0;
    if (!sc || cJSON_GetArraySize(sc) != cJSON_GetArraySize(fc))
        return 1;
    for (int i = 0; i < cJSON_GetArraySize(fc); i++) {
        const cJSON *a = cJSON_GetArrayItem(sc, i), *b = cJSON_GetArrayItem(fc, i);
        for (int t = 0; t < 2; t++) {
            const char *key = t ? "cold_us" : "warm_us";
            if (!same_time(cJSON_GetObjectItemCaseSensitive(a, key), cJSON_GetObjectItemCaseSensitive(b, key), margin))
                return 1;
        }
    }
    return 0;
}

int ea_launch_floor_carry(cJSON *out, const cJSON *fresh)
{
    const cJSON *lf = cJSON_GetObjectItemCaseSensitive(fresh, "launch_floor");
    if (!lf || cJSON_Compare(lf, cJSON_GetObjectItemCaseSensitive(out, "launch_floor"), 1))
        return 0;
    cJSON *copy = cJSON_Duplicate(lf, 1);
    if (cJSON_HasObjectItem(out, "launch_floor")) {
        cJSON_ReplaceItemInObjectCaseSensitive(out, "launch_floor", copy);
        return 1;
    }
    /* where a run writes it, after launch_us: appended, then every member between moved behind it (a detached
     * member keeps its key) */
    cJSON_AddItemToObject(out, "launch_floor", copy);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(out, "launch_us"), *next;
    for (m = m ? m->next : copy; m != copy; m = next) {
        next = m->next;
        cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(out, m));
    }
    return 1;
}

/* The operations a path launches per call: CUPTI's per-operation record of one call, else its cold time's count,
 * else its kernel names. */
static int operations(const cJSON *path)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(path, "kernel_launches");
    const double ops = ej_num(cJSON_GetObjectItemCaseSensitive(path, "time_cold"), "operations");
    if (cJSON_IsArray(l))
        return cJSON_GetArraySize(l);
    return ops >= 1 ? (int)ops : cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(path, "kernels"));
}

static double chain(const cJSON *chains, int k, const char *key)
{
    const cJSON *c = k >= 1 ? cJSON_GetArrayItem(chains, k - 1) : NULL;
    return c ? ej_num(c, key) : NAN;
}

/* The fastest faithful oracle* path that passed (by its warm time), or NULL. */
static const cJSON *oracle_path(const cJSON *result)
{
    const cJSON *p, *best = NULL;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths"))
        if (!strncmp(ej_text(p, "name"), "oracle", 6) && !strcmp(ej_text(p, "mode"), "faithful") &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "passed")) &&
            (!best || ea_path_median(p) < ea_path_median(best)))
            best = p;
    return best;
}

static cJSON *path_fractions(const cJSON *path, const cJSON *chains, double transfer)
{
    cJSON *o = cJSON_CreateObject();
    const int k = operations(path);
    const double warm = chain(chains, k, "warm_us"), cold = chain(chains, k, "cold_us");
    const double us = ea_path_median(path), cold_us = ea_path_median_cold(path);
    cJSON_AddNumberToObject(o, "kernels", k);
    ej_add_number_or_null(o, "launch_us", warm);
    ej_add_number_or_null(o, "floor_us", transfer + warm);
    ej_add_number_or_null(o, "us", us);
    ej_add_number_or_null(o, "fraction", (transfer + warm) / us);
    ej_add_number_or_null(o, "launch_cold_us", cold);
    ej_add_number_or_null(o, "floor_cold_us", transfer + cold);
    ej_add_number_or_null(o, "cold_us", cold_us);
    ej_add_number_or_null(o, "fraction_cold", (transfer + cold) / cold_us);
    return o;
}

cJSON *ea_launch_floor_fractions(const cJSON *baselines)
{
    const cJSON *lf = cJSON_GetObjectItemCaseSensitive(baselines, "launch_floor"), *r;
    cJSON *out = cJSON_CreateObject();
    if (!lf) {
        cJSON_AddStringToObject(out, "note", "no launch floor in the baselines (a run --record measures it: chains of "
                                             "empty kernels as CUDA-graph nodes)");
        return out;
    }
    const cJSON *chains = cJSON_GetObjectItemCaseSensitive(lf, "chains");
    cJSON_AddItemToObject(out, "chains", cJSON_Duplicate(chains, 1));
    cJSON *scopes = cJSON_AddArrayToObject(out, "scopes"), *results = cJSON_GetObjectItemCaseSensitive(baselines, "scopes");
    cJSON_ArrayForEach(r, results) {
        const cJSON *o = oracle_path(r), *c = ea_path_named(r, "current", "faithful"), *m = ea_path_named(r, "floor_copy", "floor");
        ea_figures x; /* the transfer time is derived, not stored (fractions.h) */
        ea_result_figures(r, &x);
        const double transfer = x.transfer_us;
        if (!o || !isfinite(transfer) || !(chain(chains, operations(o), "warm_us") >= transfer))
            continue;
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "family", ej_text(r, "family"));
        cJSON_AddStringToObject(s, "point", ej_text(r, "point"));
        cJSON_AddNumberToObject(s, "result", ea_result_order(results, r));
        cJSON_AddStringToObject(s, "alias", ej_text(r, "alias"));
        cJSON_AddNumberToObject(s, "transfer_us", transfer);
        cJSON_AddItemToObject(s, "oracle", path_fractions(o, chains, transfer));
        if (c)
            cJSON_AddItemToObject(s, "current", path_fractions(c, chains, transfer));
        if (m)
            cJSON_AddItemToObject(s, "floor_copy", path_fractions(m, chains, transfer));
        cJSON_AddItemToArray(scopes, s);
    }
    return out;
}
