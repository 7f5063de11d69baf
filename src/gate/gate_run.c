/* gate_run.c: measure, compare, measure the unsettled points again (contract in gate_run.h). */
#include "gate/gate_run.h"

#include <string.h>

#include "gpu/device_lock.h"
#include "gate/gate.h"
#include "base/json.h"

cJSON *ea_gate_point_ids(const ea_run_points *pts)
{
    cJSON *ids = cJSON_CreateArray();
    for (int i = 0; i < pts->n; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(ej_text(pts->refs[i].point, "point")));
    return ids;
}

/* The refs of the points the report leaves unsettled. */
static int unsettled_refs(const cJSON *report, const ea_run_points *p, ea_scope_ref *out)
{
    cJSON *ids = ea_gate_unsettled_points(report);
    const cJSON *id;
    int n = 0;
    for (int i = 0; i < p->n; i++)
        cJSON_ArrayForEach(id, ids)
            if (!strcmp(ej_text(p->refs[i].point, "point"), id->valuestring)) {
                out[n++] = p->refs[i];
                break;
            }
    cJSON_Delete(ids);
    return n;
}

int ea_gate_run(const char *baseline, const cJSON *stored, ea_run_points *pts, const ea_run_opts *ro,
                const ea_drift_rule *rule, int retries, const char *command, cJSON **fresh, cJSON **report,
                ea_error *err)
{
    cJSON *ids = ea_gate_point_ids(pts);
    ea_lock_mark mark;
    ea_device_lock_mark(&mark);
    *report = NULL;
    if (ea_run_measure(&pts->ctx, command, ro, pts->refs, pts->n, fresh, err)) {
        cJSON_Delete(ids);
        return -1;
    }
    *report = ea_gate_compare(baseline, stored, "(this run)", *fresh, rule, ids, err);
    ea_scope_ref again[EA_RUN_MAX_REFS];
    int n, tries = 0;
    while (*report && tries < retries && (n = unsettled_refs(*report, pts, again)) > 0) {
        cJSON *doc = NULL;
        tries++;
        if (ro->log)
            fprintf(ro->log, "gate: %d point(s) with paths NOISY, SLOWER or FASTER, measuring them again (%d of %d)\n",
                    n, tries, retries);
        if (ea_run_measure(&pts->ctx, command, ro, again, n, &doc, err)) {
            cJSON_Delete(*report);
            *report = NULL;
            break;
        }
        ea_gate_splice(*fresh, doc);
        cJSON_Delete(doc);
        cJSON_Delete(*report);
        *report = ea_gate_compare(baseline, stored, "(this run)", *fresh, rule, ids, err);
    }
    if (*report) {
        char note[1024];
        cJSON_AddNumberToObject(*report, "remeasurements", tries);
        /* whether the device was shared meanwhile, for whoever reads a failed verdict */
        ea_device_lock_note(&mark, note, sizeof note);
        cJSON_AddStringToObject(*report, "device_lock", note);
        if (ro->log && ea_gate_exit(*report))
            fprintf(ro->log, "gate: device lock: %s\n", note);
    }
    cJSON_Delete(ids);
    if (!*report) {
        cJSON_Delete(*fresh);
        *fresh = NULL;
    }
    return *report ? 0 : -1;
}
