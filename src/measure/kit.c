/* kit.c: the runner of the family kit (contract in kit.h). */
#include "measure/kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/json.h"
#include "measure/floor_path.h"
#include "measure/kit_impl.h"
#include "measure/unsupported.h"

void ea_kit_add(ea_kit_plan *p, const ea_kit_config *c)
{
    int *grown = p->n < 0 ? NULL : realloc(p->index, sizeof *grown * (size_t)(p->n + 1));
    if (!grown) { /* out of memory: this configuration and the next are dropped, and the runner refuses the point */
        cJSON_Delete(c->config);
        p->n = -1;
        return;
    }
    cJSON *ids, *h = ea_repro_header(p->family->name, p->point, p->alias, c->occurrences, &ids);
    for (int i = 0; i < c->nscope_ids; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(c->scope_ids[i]));
    cJSON_AddItemToObject(h, "config", c->config);
    cJSON_AddItemToArray(p->results, h);
    p->index = grown;
    p->index[p->n++] = c->index;
}

void ea_kit_unsupported(ea_kit_plan *p, const char *why)
{
    p->unsupported = 1;
    snprintf(p->why, sizeof p->why, "%s", why);
}

/* Moves every field of from after into's own and deletes from: a measurement after its header and plan. */
static void append(cJSON *into, cJSON *from)
{
    cJSON *item = from->child;
    while (item) {
        cJSON *next = item->next;
        cJSON_AddItemToObject(into, item->string, cJSON_DetachItemViaPointer(from, item));
        item = next;
    }
    cJSON_Delete(from);
}

/* The measured floor (floor_path.h) of the point's k-th configuration appended to m's paths; a failed check fails
 * the result. */
static int measure_floor(const ea_kit_state *st, int k, const cJSON *config, cJSON *m, ea_error *err)
{
    char label[320];
    ea_floor_path f;
    ea_path_outcome out;
    cJSON *paths = cJSON_GetObjectItemCaseSensitive(m, "paths");
    /* #k as the gate names a point's results */
    snprintf(label, sizeof label, "%s %s #%d %s", st->family, st->alias, k, EA_PATH_FLOOR);
    if (!cJSON_IsArray(paths))
        return ea_fail(err, "%s: the family's measurement has no \"paths\" to add the floor to", label);
    int rc = ea_floor_path_open(config, label, &f, err);
    const ea_path_steps steps = ea_floor_path_steps(&f);
    const size_t read = f.read * 16, written = f.written * 16;
    rc = rc || ea_kit_path(st, &steps, EA_PATH_FLOOR, EA_PATH_FLOOR_MODE, &out, err);
    ea_floor_path_close(&f);
    if (rc)
        return -1;
    if (!ea_path_judge_outcome(&out, -1, 1, 1)) {
        cJSON *no = cJSON_CreateFalse();
        if (!cJSON_ReplaceItemInObjectCaseSensitive(m, "passed", no))
            cJSON_AddItemToObject(m, "passed", no);
        if (!cJSON_HasObjectItem(m, "failure"))
            cJSON_AddStringToObject(m, "failure", EA_PATH_FLOOR " failed its check");
    }
    if (st->opts->log) {
        char timed[48] = "checked";
        if (!st->opts->check_only)
            snprintf(timed, sizeof timed, "%.2f us per call", out.median_us);
        fprintf(st->opts->log, "%s: %s, %zu bytes read and %zu written (whole 16-byte words)%s\n", label, timed, read,
                written, out.passed ? "" : ": FAILED");
    }
    cJSON_AddItemToArray(paths, out.json);
    return 0;
}

/* Each planned configuration measured after its header and plan; -1 when a run broke. */
static int measure_all(ea_run_ctx *c, const ea_scope_ref *r, const ea_kit_plan *p, const ea_run_opts *o,
                       ea_error *err)
{
    ea_kit_state st = {.alias = p->alias, .opts = o, .family = p->family->name, .point = p->point};
    cJSON *h = p->results->child;
    for (int k = 0; k < p->n; k++, h = h->next) {
        st.index = p->index[k];
        cJSON *m = p->family->measure(c, r, &st, err);
        if (!m || measure_floor(&st, k, cJSON_GetObjectItemCaseSensitive(h, "config"), m, err)) {
            cJSON_Delete(m);
            return -1;
        }
        append(h, m);
    }
    return 0;
}

/* The family's plan of r's point into *p, ATen's grids sized for sm multiprocessors. */
static int plan_with(ea_run_ctx *c, const ea_scope_ref *r, const char *alias, int sm, ea_kit_plan *p, ea_error *err)
{
    *p = (ea_kit_plan){.alias = alias, .sm_count = sm, .family = r->family, .point = ej_text(r->point, "point"),
                       .results = cJSON_CreateArray()};
    int rc = r->family->plan(c, r, p, err);
    return !rc && p->n < 0 ? ea_fail(err, "%s %s: out of memory for its configurations", r->family->name, p->point)
                           : rc;
}

static void plan_free(ea_kit_plan *p)
{
    cJSON_Delete(p->results);
    free(p->index);
    p->results = NULL, p->index = NULL;
}

/* A run: an unsupported point's one result, decided before any device call; else the plan again for the
 * device's multiprocessor count (ATen sizes its grids by the device it runs on), measured. */
static int run_point(ea_run_ctx *c, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    ea_run_opts o = *c->opts;
    if (p->unsupported) {
        cJSON_Delete(p->results);
        p->results = cJSON_CreateArray();
        cJSON_AddItemToArray(p->results, ea_unsupported_result(c, r, p->why));
        return 0;
    }
    if (cudaDeviceGetAttribute(&o.sm_count, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        return ea_fail(err, "%s: cannot read the multiprocessor count", r->family->name);
    if (o.sm_count != p->sm_count) {
        const char *alias = p->alias;
        plan_free(p);
        if (plan_with(c, r, alias, o.sm_count, p, err))
            return -1;
    }
    return measure_all(c, r, p, &o, err);
}

cJSON *ea_repro_points(ea_run_ctx *c, const ea_scope_ref *r, int measure, ea_error *err)
{
    char alias[256];
    ea_kit_plan p;
    ea_repro_alias(c, r, alias, sizeof alias);
    /* a run asks the device only for a point it can run: until then any count >= 1 plans (run_point plans again) */
    int sm = measure && c->opts->sm_count < 1 ? 1 : c->opts->sm_count;
    int rc = plan_with(c, r, alias, sm, &p, err);
    if (!rc && measure)
        rc = run_point(c, r, &p, err);
    if (rc)
        plan_free(&p);
    free(p.index);
    return rc ? NULL : p.results;
}

int ea_kit_times_cold(const ea_kit_state *st, const char *name, const char *mode)
{
    return ea_run_times_cold(st->opts, st->family, st->point, name, mode);
}

ea_path_steps ea_kit_steps(const ea_kit_state *st, const ea_path_steps *steps, const char *name, const char *mode,
                           char *label, size_t n)
{
    ea_path_steps s = *steps;
    if (!s.label) {
        snprintf(label, n, "%s %s %s", st->family, st->alias, name);
        s.label = label;
    }
    s.check_only = st->opts->check_only;
    s.warm_only = !ea_kit_times_cold(st, name, mode);
    return s;
}

int ea_kit_path(const ea_kit_state *st, const ea_path_steps *steps, const char *name, const char *mode,
                ea_path_outcome *out, ea_error *err)
{
    char label[320];
    const ea_path_steps s = ea_kit_steps(st, steps, name, mode, label, sizeof label);
    return ea_path_run(&s, name, mode, out, err);
}
