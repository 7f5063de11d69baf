/* gate_run.c: measure, compare, measure the unsettled points again (contract in gate_run.h). */
#include "gate/gate_run.h"
#include "gate/gate_run_impl.h"

#include <stdio.h>
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

/* Has measuring point again failed (failed: [{"point", "error"}])? */
static int failed_before(const cJSON *failed, const char *point)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, failed)
        if (!strcmp(ej_text(f, "point"), point))
            return 1;
    return 0;
}

/* The refs of the points the report leaves unsettled, but those whose measuring again failed before. */
static int unsettled_refs(const cJSON *report, const ea_run_points *p, const cJSON *failed, ea_scope_ref *out)
{
    cJSON *ids = ea_gate_unsettled_points(report);
    const cJSON *id;
    int n = 0;
    for (int i = 0; i < p->n; i++)
        cJSON_ArrayForEach(id, ids)
            if (!strcmp(ej_text(p->refs[i].point, "point"), id->valuestring) && !failed_before(failed, id->valuestring)) {
                out[n++] = p->refs[i];
                break;
            }
    cJSON_Delete(ids);
    return n;
}

/* refs measured again and spliced into fresh: together, or each alone when that fails, so a point that cannot be
 * measured again is named in failed (its last measurement stands) and hides no other point's. */
static void remeasure(ea_gate_measure_fn *measure, ea_run_points *pts, const char *command, const ea_run_opts *ro,
                      const ea_scope_ref *refs, int n, cJSON *fresh, cJSON *failed)
{
    cJSON *doc = NULL;
    ea_error err;
    if (measure(&pts->ctx, command, ro, refs, n, &doc, &err) == 0) {
        ea_gate_splice(fresh, doc);
        cJSON_Delete(doc);
        return;
    }
    cJSON_Delete(doc);
    if (n > 1) {
        if (ro->log)
            fprintf(ro->log, "gate: measuring %d points again failed (%s); measuring each alone\n", n, err.msg);
        for (int i = 0; i < n; i++)
            remeasure(measure, pts, command, ro, refs + i, 1, fresh, failed);
        return;
    }
    const char *point = ej_text(refs[0].point, "point");
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "point", point);
    cJSON_AddStringToObject(f, "error", err.msg);
    cJSON_AddItemToArray(failed, f);
    if (ro->log)
        fprintf(ro->log, "gate: measuring point %s again failed, its last measurement stands: %s\n", point, err.msg);
}

/* Each entry a point whose measuring again failed left unsettled says so (its verdict is its last measurement's,
 * not confirmed), and the report lists those points. */
static void note_failures(cJSON *report, cJSON *failed)
{
    cJSON *e;
    const cJSON *f;
    char detail[1600];
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        cJSON_ArrayForEach(f, failed)
            if (!strcmp(ej_text(e, "point"), ej_text(f, "point")) && strcmp(ej_text(e, "status"), "SAME")) {
                snprintf(detail, sizeof detail, "%s; measuring the point again failed, so this is its last "
                         "measurement's, unconfirmed: %.300s", ej_text(e, "detail"), ej_text(f, "error"));
                cJSON_ReplaceItemInObjectCaseSensitive(e, "detail", cJSON_CreateString(detail));
            }
    if (cJSON_GetArraySize(failed))
        cJSON_AddItemToObject(report, "remeasure_failed", failed);
    else
        cJSON_Delete(failed);
}

int ea_gate_run(const char *baseline, const cJSON *stored, ea_run_points *pts, const ea_run_opts *ro,
                const ea_drift_rule *rule, int retries, const char *command, cJSON **fresh, cJSON **report,
                ea_error *err)
{
    return ea_gate_run_measured(ea_run_measure, baseline, stored, pts, ro, rule, retries, command, fresh, report, err);
}

int ea_gate_run_measured(ea_gate_measure_fn *measure, const char *baseline, const cJSON *stored, ea_run_points *pts,
                         const ea_run_opts *ro, const ea_drift_rule *rule, int retries, const char *command,
                         cJSON **fresh, cJSON **report, ea_error *err)
{
    cJSON *ids = ea_gate_point_ids(pts), *failed = cJSON_CreateArray();
    ea_lock_mark mark;
    ea_device_lock_mark(&mark);
    *report = NULL;
    if (measure(&pts->ctx, command, ro, pts->refs, pts->n, fresh, err)) {
        cJSON_Delete(ids);
        cJSON_Delete(failed);
        return -1;
    }
    *report = ea_gate_compare(baseline, stored, "(this run)", *fresh, rule, ids, err);
    ea_scope_ref again[EA_RUN_MAX_REFS];
    int n, tries = 0;
    while (*report && tries < retries && (n = unsettled_refs(*report, pts, failed, again)) > 0) {
        tries++;
        if (ro->log)
            fprintf(ro->log, "gate: %d point(s) with paths NOISY, SLOWER or FASTER, measuring them again (%d of %d)\n",
                    n, tries, retries);
        remeasure(measure, pts, command, ro, again, n, *fresh, failed);
        cJSON_Delete(*report);
        *report = ea_gate_compare(baseline, stored, "(this run)", *fresh, rule, ids, err);
    }
    if (*report) {
        char note[1024];
        note_failures(*report, failed);
        cJSON_AddNumberToObject(*report, "remeasurements", tries);
        /* whether the device was shared meanwhile, for whoever reads a failed verdict */
        ea_device_lock_note(&mark, note, sizeof note);
        cJSON_AddStringToObject(*report, "device_lock", note);
        if (ro->log && ea_gate_exit(*report))
            fprintf(ro->log, "gate: device lock: %s\n", note);
    } else {
        cJSON_Delete(failed);
    }
    cJSON_Delete(ids);
    if (!*report) {
        cJSON_Delete(*fresh);
        *fresh = NULL;
    }
    return *report ? 0 : -1;
}
