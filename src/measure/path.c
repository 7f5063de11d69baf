/* path.c: the measured path record (contract in path.h). */
#include "measure/path.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/json.h"
#include "gpu/device_lock.h"
#include "measure/path_impl.h"

/* 0 untried, 1 loaded, -1 unavailable: CUPTI is loaded once per process */
static int cupti_state;
static char cupti_missing[512];

/* copies: memcpy and memset records too (ea_cupti_begin_copies) */
static void record_begin(ea_path_recorder *r, int copies)
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
    r->recording = (copies ? ea_cupti_begin_copies(&r->why) : ea_cupti_begin(&r->why)) == 0;
}

static void ea_path_record_begin(ea_path_recorder *r)
{
    record_begin(r, 0);
}

static void ea_path_record_end(ea_path_recorder *r)
{
    if (r->recording && ea_cupti_end(&r->kernels, &r->why) != 0) { /* nothing recorded: why says so */
        memset(&r->kernels, 0, sizeof r->kernels);
        r->recording = 0;
    }
}

/* "ia_aten::indexFuncLargeIndex<__nv_bfloat16, long, unsigned int, 2, 2, -2, false, ia_aten::ReduceAdd>"
 * from CUPTI's mangled name. */
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

static cJSON *ints3(const int v[3])
{
    return cJSON_CreateIntArray(v, 3);
}

void ea_path_launches_json(cJSON *path, const ea_kernel_list *seen, int calls)
{
    size_t n = calls > 0 ? seen->count / (size_t)calls : 0;
    int equal = n > 0 && n * (size_t)calls == seen->count && !seen->dropped;
    for (size_t i = n; equal && i < seen->count; i++) /* every call ran the first call's sequence */
        equal = !strcmp(seen->kernels[i].name, seen->kernels[i % n].name);
    if (!equal) {
        char note[160];
        snprintf(note, sizeof note, "CUPTI saw %zu kernels%s over %d calls: no per-kernel durations", seen->count,
                 seen->dropped ? " and dropped records" : "", calls);
        cJSON_AddStringToObject(path, "kernel_launches_note", note);
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(path, "kernel_launches");
    double us[EA_PATH_PROFILE_CALLS];
    for (size_t i = 0; i < n; i++) {
        const ea_kernel_record *k = &seen->kernels[i];
        ea_stats st;
        ea_error e;
        int m = 0;
        for (int c = 0; c < calls && m < EA_PATH_PROFILE_CALLS; c++)
            us[m++] = (double)seen->kernels[(size_t)c * n + i].duration_ns / 1e3;
        if (ea_stats_compute(us, (size_t)m, &st, &e)) /* m >= 1 and finite: cannot fail */
            continue;
        cJSON *o = cJSON_CreateObject();
        char *name = kernel_name(k->name);
        cJSON_AddStringToObject(o, "name", name ? name : k->name);
        free(name);
        cJSON_AddItemToObject(o, "grid", ints3(k->grid)); /* [0, 0, 0] for a copy or a memset */
        cJSON_AddItemToObject(o, "block", ints3(k->block));
        cJSON_AddNumberToObject(o, "shared_bytes", (double)k->static_shared + k->dynamic_shared);
        if (k->kind != EA_RECORD_KERNEL)
            cJSON_AddNumberToObject(o, "bytes", (double)k->bytes);
        cJSON_AddNumberToObject(o, "median_us", st.median);
        cJSON_AddNumberToObject(o, "min_us", st.min);
        cJSON_AddNumberToObject(o, "max_us", st.max);
        cJSON_AddNumberToObject(o, "calls", m);
        cJSON_AddItemToArray(arr, o);
    }
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
    if (t->resolution_us > 0)
        cJSON_AddNumberToObject(o, "resolution_us", t->resolution_us);
    if (t->cache == EA_CACHE_COLD) /* the rest of its policy's sentence is the document's (prose.h) */
        cJSON_AddNumberToObject(o, "operations", t->ops_per_call);
    return o;
}

void ea_path_cold_json(cJSON *path, const ea_timing *cold)
{
    if (cold->samples_us)
        cJSON_AddItemToObject(path, "time_cold", ea_path_time_json(cold));
    else
        cJSON_AddStringToObject(path, "time_cold_note", cold->note);
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
    /* a check-only run never timed, so it has no second check; anywhere else a missing one fails */
    int checks = cJSON_IsTrue(cJSON_GetObjectItem(path, "check_only")) && !a ? 1 : 2;
    for (int i = 0; i < checks && !fail; i++) {
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

static double median_of(const cJSON *path, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(path, key), "median_us");
    return cJSON_IsNumber(m) ? m->valuedouble : NAN;
}

double ea_path_median(const cJSON *path)
{
    return median_of(path, "time");
}

double ea_path_median_cold(const cJSON *path)
{
    return median_of(path, "time_cold");
}

int ea_path_table_stale(const cJSON *path)
{
    const cJSON *c, *table = cJSON_GetObjectItemCaseSensitive(path, "candidates");
    if (!table)
        return 0;
    const double t = ea_path_median(path);
    cJSON_ArrayForEach(c, table)
        if (!strcmp(ej_text(c, "variant"), ej_text(path, "variant")) && ej_same_key(c, path, "unroll") &&
            ej_num(c, "median_us") == t)
            return 0;
    return 1;
}

void ea_paths_fold_checks(cJSON *result)
{
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths")) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "check"), *a = cJSON_GetObjectItemCaseSensitive(p, "check_after_timing");
        if (cJSON_IsObject(c) && cJSON_IsObject(a) && ej_same_text(c, a))
            cJSON_ReplaceItemInObjectCaseSensitive(p, "check_after_timing", cJSON_CreateString("same"));
    }
}

/* The rule of ea_path_replaces on numbers: have_best 0 means nothing kept yet. A candidate must beat the kept
 * one by more than EA_PATH_TIE: between two variants within it (Longformer's mask scan at 1 pair x 16 warps and
 * 2 pairs x 8, 1.345 against 1.346 us warm on the H200) the pick flipped from run to run, and with it the cold
 * time the gate judges (2.05 against 1.89 us), so the first in table order stays. */
static int replaces(double median, int passed, int have_best, double best_median, int best_passed)
{
    return !have_best || (passed && (!best_passed || median < best_median * (1 - EA_PATH_TIE)));
}

int ea_path_replaces(const cJSON *candidate, int passed, const cJSON *best, int best_passed)
{
    return replaces(ea_path_median(candidate), passed, best != NULL, ea_path_median(best), best_passed);
}

static struct {
    const char *label;
    ea_enqueue_fn extra;
    void *ctx;
} injected;

void ea_path_inject(const char *label, ea_enqueue_fn extra, void *ctx)
{
    injected.label = label;
    injected.extra = extra;
    injected.ctx = ctx;
}

static int enqueue_delayed(void *ctx, void *stream, ea_error *err)
{
    const ea_path_steps *s = ctx;
    return s->enqueue(s->ctx, stream, err) || injected.extra(injected.ctx, stream, err) ? -1 : 0;
}

/* EA_PATH_PROFILE_CALLS more calls under CUPTI, copies and memsets recorded too: "kernel_launches"
 * (or "kernel_launches_note", why not) into prof. */
static int profile_calls(const ea_path_steps *s, cJSON *prof, ea_error *err)
{
    ea_path_recorder r;
    record_begin(&r, 1);
    int rc = 0;
    for (int i = 0; i < EA_PATH_PROFILE_CALLS && rc == 0; i++)
        rc = s->enqueue(s->ctx, NULL, err);
    ea_path_record_end(&r);
    if (rc == 0 && (rc = (int)cudaDeviceSynchronize()) != 0)
        rc = ea_fail(err, "%s: profiled calls: %s", s->label, cudaGetErrorString((cudaError_t)rc));
    if (rc == 0 && r.recording)
        ea_path_launches_json(prof, &r.kernels, EA_PATH_PROFILE_CALLS);
    else if (rc == 0)
        cJSON_AddStringToObject(prof, "kernel_launches_note", r.why.msg[0] ? r.why.msg : "CUPTI recorded nothing");
    ea_kernel_list_free(&r.kernels);
    return rc;
}

int ea_path_measure(const ea_path_steps *s, cJSON *path, ea_check *first, ea_check *again, double *median_us,
                    ea_error *err)
{
    ea_path_recorder rec;
    ea_timing t = {0}, cold = {0};
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
    if (rc == 0)
        rc = s->check(s->ctx, 0, first, err);
    if (rc == 0 && s->check_only) {
        *again = *first;
        *median_us = NAN;
        ea_path_record_json(path, &rec);
        cJSON_AddBoolToObject(path, "check_only", 1);
        ea_path_check_json(path, "check", first);
        return 0;
    }
    cJSON *prof = cJSON_CreateObject();
    if (rc || profile_calls(s, prof, err) ||
        (s->warm_only ? ea_time_graph(enqueue, ctx, s->timer, &t, err)
                      : ea_time_warm_cold(enqueue, ctx, s->timer, &t, &cold, err)) ||
        s->check(s->ctx, 1, again, err)) {
        cJSON_Delete(prof);
        ea_kernel_list_free(&rec.kernels);
        ea_timing_free(&t);
        ea_timing_free(&cold);
        return -1;
    }
    ea_path_record_json(path, &rec);
    for (cJSON *item; (item = prof->child) != NULL;) /* kernel_launches, or the note why not */
        cJSON_AddItemToObject(path, item->string, cJSON_DetachItemViaPointer(prof, item));
    cJSON_Delete(prof);
    cJSON_AddItemToObject(path, "time", ea_path_time_json(&t));
    if (!s->warm_only)
        ea_path_cold_json(path, &cold);
    ea_path_check_json(path, "check", first);
    ea_path_check_json(path, "check_after_timing", again);
    *median_us = t.per_call_us.median;
    ea_timing_free(&t);
    ea_timing_free(&cold);
    return 0;
}

int ea_path_run(const ea_path_steps *s, const char *name, const char *mode, ea_path_outcome *out, ea_error *err)
{
    memset(out, 0, sizeof *out);
    out->json = cJSON_CreateObject();
    cJSON_AddStringToObject(out->json, "name", name);
    cJSON_AddStringToObject(out->json, "mode", mode);
    /* the profile's kernel durations are timings too: the whole path holds the device (device_lock.h) */
    if (ea_device_lock(err) == 0) {
        int rc = ea_path_measure(s, out->json, &out->check, &out->again, &out->median_us, err);
        ea_device_unlock();
        if (rc == 0)
            return 0;
    }
    cJSON_Delete(out->json);
    out->json = NULL;
    return -1;
}

int ea_path_judge_outcome(ea_path_outcome *out, double current_rel, int exact, int bound)
{
    out->failure[0] = '\0';
    return out->passed = ea_path_judge(out->json, current_rel, exact, bound, out->failure, sizeof out->failure);
}

void ea_path_verdict(ea_path_outcome *out, const char *failure)
{
    cJSON *passed = cJSON_CreateBool(!failure);
    if (cJSON_HasObjectItem(out->json, "passed"))
        cJSON_ReplaceItemInObjectCaseSensitive(out->json, "passed", passed);
    else
        cJSON_AddItemToObject(out->json, "passed", passed);
    if (failure)
        cJSON_AddStringToObject(out->json, "failure", failure);
    out->passed = !failure;
    snprintf(out->failure, sizeof out->failure, "%s", failure ? failure : "");
}

static cJSON *candidate_entry(const ea_path_tuning *t, int v, const ea_path_outcome *o)
{
    cJSON *c = cJSON_CreateObject();
    t->describe(t->ctx, v, c, 1);
    cJSON_AddNumberToObject(c, "median_us", o->median_us);
    cJSON_AddBoolToObject(c, "passed", o->passed);
    if (!o->passed) /* kept only if none passed: its reason stays with it here */
        cJSON_AddStringToObject(c, "failure", o->failure);
    return c;
}

int ea_path_tune(const ea_path_tuning *t, ea_path_tuned *r, ea_error *err)
{
    cJSON *cands = cJSON_CreateArray();
    memset(r, 0, sizeof *r);
    r->first_failed = r->kept_v = -1;
    for (int v = 0; v < t->n; v++) {
        ea_path_outcome o;
        int rc = t->measure(t->ctx, v, &o, err);
        if (rc == 1)
            continue;
        if (rc) {
            cJSON_Delete(r->kept.json), cJSON_Delete(cands);
            r->kept.json = NULL;
            return -1;
        }
        r->tried++, r->passed += o.passed;
        if (!o.passed && r->first_failed < 0) {
            r->first_failed = v;
            snprintf(r->first_failure, sizeof r->first_failure, "%s", o.failure);
        }
        cJSON_AddItemToArray(cands, candidate_entry(t, v, &o));
        t->describe(t->ctx, v, o.json, 0);
        if (replaces(o.median_us, o.passed, r->kept.json != NULL, r->kept.median_us, r->kept.passed)) {
            cJSON_Delete(r->kept.json);
            r->kept = o;
            r->kept_v = v;
        } else {
            cJSON_Delete(o.json);
        }
    }
    if (!r->kept.json)
        return cJSON_Delete(cands), ea_fail(err, "%s: none of its %d variants applies to the scope", t->label, t->n);
    cJSON_AddItemToObject(r->kept.json, "candidates", cands);
    return 0;
}
