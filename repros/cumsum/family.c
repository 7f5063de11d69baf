/* family.c: the position-id cumsum family as extern-audit run sees it (repro.h). Each scope group
 * of a point is measured against its own capture (the target's captures/<scope>/, or the capture that
 * covers one of its occurrences), so one result per group. The gpt-oss routing point shares the
 * cumsum document but is the routing family's: claims leaves it out. */
#include <stdio.h>
#include <string.h>

#include "occurrences.h"
#include "repro.h"
#include "run.h"
#include "target.h"

static cJSON *header(const cs_scope *s)
{
    cJSON *ids, *o = ea_repro_header("cumsum", s->point, s->alias, s->occurrences, &ids);
    cJSON_AddItemToArray(ids, cJSON_CreateString(s->scope_id));
    return o;
}

/* The parsed scope, its capture (outputs checked) and the capture's default run. */
static int resolve(const cJSON *point, const char *file, int index, int g, const ea_captures *caps, cs_scope *s,
                   const ea_capture **c, const ea_capture_run **run, ea_error *err)
{
    if (cs_scope_parse(point, file, index, g, s, err))
        return -1;
    if (!(*c = cs_capture_of(s, caps)))
        return ea_fail(err, "%s %s: expected a capture in captures/ for scope %s or one of its occurrences "
                       "(tools/capture), got none", file, s->where, s->scope_id);
    if (!(*run = ea_capture_run_named(*c, "default")))
        return ea_fail(err, "%s $.runs: expected a \"default\" run, got none", (*c)->file);
    if (!(*run)->replayable)
        return ea_fail(err, "%s: run \"default\" is not replayable from C: expected Triton launches only", (*c)->file);
    return cs_outputs_check(s, *c, err);
}

static cJSON *each_group(const ea_repro_family *f, const cJSON *point, const char *file, int index,
                         const ea_run_opts *o, int measure, ea_error *err)
{
    ea_captures caps;
    if (ea_target_captures(o->target_dir, file, &caps, err))
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(point, "scopes"));
    for (int g = 0; g < n; g++) {
        cs_scope s;
        const ea_capture *c = NULL;
        const ea_capture_run *run = NULL;
        cJSON *h, *m;
        if (resolve(point, file, index, g, &caps, &s, &c, &run, err))
            goto fail;
        h = header(&s);
        if (!measure) {
            cJSON_AddItemToObject(h, "config", cs_config_json(&s, c, run));
        } else if ((m = cs_measure(&s, c, run, o, err)) != NULL) {
            ea_repro_append(h, m);
        } else {
            cJSON_Delete(h);
            goto fail;
        }
        cJSON_AddItemToArray(arr, h);
    }
    ea_captures_free(&caps);
    return arr;
fail:
    ea_captures_free(&caps);
    cJSON_Delete(arr);
    return NULL;
}


const ea_repro_family ea_family_cumsum = {
    "cumsum", "aten.cumsum.default", cs_aliases, CS_ALIASES, each_group, cs_claims,
    EA_MODE_FAITHFUL, /* the capture's ids */
};
