/* path.c: the measured path record (contract in path.h). */
#include "path.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "delay.h"
#include "path_impl.h"

/* 0 untried, 1 loaded, -1 unavailable: CUPTI is loaded once per process */
static int cupti_state;
static char cupti_missing[512];

void ea_path_record_begin(ea_path_recorder *r)
{
    char where[512];
    memset(r, 0, sizeof *r);
    if (cupti_state == 0) {
        ea_error e;
        cupti_state = ea_cupti_load(where, sizeof where, &e) == 0 ? 1 : -1;
        snprintf(cupti_missing, sizeof cupti_missing, "CUPTI unavailable: %.480s", cupti_state < 0 ? e.msg : "");
    }
    if (cupti_state < 0) {
        snprintf(r->why.msg, sizeof r->why.msg, "%s", cupti_missing);
        return;
    }
    r->recording = ea_cupti_begin(&r->why) == 0;
}

void ea_path_record_end(ea_path_recorder *r)
{
    if (r->recording && ea_cupti_end(&r->kernels, &r->why) != 0) { /* nothing recorded: why says so */
        memset(&r->kernels, 0, sizeof r->kernels);
        r->recording = 0;
    }
}

/* "ia_aten::indexFuncLargeIndex<unsigned int, 2, 2, -2, false>" from CUPTI's mangled name. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

static char *kernel_name(const char *mangled)
{
    int status = -1;
    char *d = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0 || !d)
        return strdup(mangled);
    int depth = 0;
    for (char *c = d; *c; c++) { /* drop the parameter list after the template arguments */
        depth += (*c == '<') - (*c == '>');
        if (*c == '(' && depth == 0) {
            *c = '\0';
            break;
        }
    }
    return d;
}

void ea_path_kernels_json(cJSON *path, const ea_kernel_list *seen, const char *note)
{
    cJSON *arr = cJSON_AddArrayToObject(path, "kernels");
    for (size_t i = 0; seen && i < seen->count; i++) {
        char *name = kernel_name(seen->kernels[i].name);
        cJSON_AddItemToArray(arr, cJSON_CreateString(name ? name : seen->kernels[i].name));
        free(name);
    }
    if (!seen) /* the schema: an empty list always says why */
        cJSON_AddStringToObject(path, "kernels_note", note && note[0] ? note : "CUPTI recorded nothing");
}

void ea_path_record_json(cJSON *path, ea_path_recorder *r)
{
    ea_path_kernels_json(path, r->recording ? &r->kernels : NULL, r->why.msg);
    ea_kernel_list_free(&r->kernels);
}

void ea_path_check_json(cJSON *path, const char *key, const ea_check *c)
{
    cJSON *j = cJSON_AddObjectToObject(path, key);
    cJSON_AddNumberToObject(j, "rel_l2", c->rel_l2);
    cJSON_AddNumberToObject(j, "max_abs", c->max_abs);
    cJSON_AddNumberToObject(j, "unwritten", (double)c->unwritten);
    cJSON_AddNumberToObject(j, "nonfinite", (double)c->nonfinite);
    cJSON_AddNumberToObject(j, "mismatched", (double)c->mismatched);
}

cJSON *ea_path_time_json(const ea_timing *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "median_us", t->per_call_us.median);
    cJSON_AddNumberToObject(o, "q1_us", t->per_call_us.q1);
    cJSON_AddNumberToObject(o, "q3_us", t->per_call_us.q3);
    cJSON_AddNumberToObject(o, "iqr_us", t->per_call_us.iqr);
    cJSON_AddNumberToObject(o, "samples", (double)t->per_call_us.count);
    cJSON_AddNumberToObject(o, "calls_per_replay", t->calls_per_replay);
    cJSON_AddStringToObject(o, "cache_policy", t->policy);
    return o;
}

/* A check's count or error; NaN when absent, which fails every rule below. */
static double check_value(const cJSON *check, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(check, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int ea_path_judge(cJSON *path, double current_rel, int exact, int bound, char *why, size_t n)
{
    const cJSON *c = cJSON_GetObjectItem(path, "check"), *a = cJSON_GetObjectItem(path, "check_after_timing");
    double rel = check_value(c, "rel_l2");
    const char *fail = NULL;
    for (int i = 0; i < 2 && !fail; i++) {
        const cJSON *k = i ? a : c;
        if (!(check_value(k, "unwritten") <= 0))
            fail = i ? "elements unwritten after timing" : "elements left holding the poison (never written)";
        else if (!(check_value(k, "nonfinite") <= 0))
            fail = i ? "NaN or infinite elements after timing" : "NaN or infinite elements in the output";
        else if (bound && !(check_value(k, "rel_l2") <= EA_MAX_REL_L2))
            fail = "relative L2 error above 1e-2 (or not a number)";
        else if (exact && !(check_value(k, "mismatched") <= 0))
            fail = "differs from its exact CPU emulation";
    }
    if (!fail && current_rel >= 0 && !(rel <= current_rel))
        fail = "less accurate than the current path";
    cJSON_AddBoolToObject(path, "passed", !fail);
    if (fail) {
        cJSON_AddStringToObject(path, "failure", fail);
        snprintf(why, n, "%s", fail);
    }
    return !fail;
}

const cJSON *ea_path_named(const cJSON *result, const char *name, const char *mode)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "name"), *m = cJSON_GetObjectItemCaseSensitive(p, "mode");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name) &&
            (!mode || (cJSON_IsString(m) && !strcmp(m->valuestring, mode))))
            return p;
    }
    return NULL;
}

double ea_path_median(const cJSON *path)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(path, "time"), "median_us");
    return cJSON_IsNumber(m) ? m->valuedouble : NAN;
}

int ea_path_replaces(const cJSON *candidate, int passed, const cJSON *best, int best_passed)
{
    return !best || (passed && (!best_passed || ea_path_median(candidate) < ea_path_median(best)));
}

static struct {
    const char *label;
    double us;
} injected;

void ea_path_inject_delay(const char *label, double us)
{
    injected.label = label;
    injected.us = us;
}

static int enqueue_delayed(void *ctx, void *stream, ea_error *err)
{
    const ea_path_steps *s = ctx;
    return s->enqueue(s->ctx, stream, err) || ea_enqueue_delay(&injected.us, stream, err) ? -1 : 0;
}

int ea_path_measure(const ea_path_steps *s, cJSON *path, ea_check *first, ea_check *again, double *median_us,
                    ea_error *err)
{
    ea_path_recorder rec;
    ea_timing t = {0};
    int delayed = injected.label && !strcmp(injected.label, s->label);
    ea_enqueue_fn enqueue = delayed ? enqueue_delayed : s->enqueue;
    void *ctx = delayed ? (void *)s : s->ctx;
    if (s->poison(s->ctx, err))
        return -1;
    ea_path_record_begin(&rec);
    int rc = enqueue(ctx, NULL, err) ? -1 : (int)cudaDeviceSynchronize();
    ea_path_record_end(&rec);
    if (rc > 0)
        ea_fail(err, "%s: run: %s", s->label, cudaGetErrorString((cudaError_t)rc));
    if (rc || s->check(s->ctx, 0, first, err) || ea_time_graph(enqueue, ctx, s->timer, &t, err) ||
        s->check(s->ctx, 1, again, err)) {
        ea_kernel_list_free(&rec.kernels);
        ea_timing_free(&t);
        return -1;
    }
    ea_path_record_json(path, &rec);
    cJSON_AddItemToObject(path, "time", ea_path_time_json(&t));
    ea_path_check_json(path, "check", first);
    ea_path_check_json(path, "check_after_timing", again);
    *median_us = t.per_call_us.median;
    ea_timing_free(&t);
    return 0;
}
