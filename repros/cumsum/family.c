/* family.c: the position-id cumsum family as extern-audit run sees it (repro.h). Each scope group
 * of a point is measured against its own capture (the target's captures/<scope>/, or the capture that
 * covers one of its occurrences), so one result per group. The gpt-oss routing point shares the
 * cumsum document but is the routing family's: claims leaves it out. */
#include <stdio.h>
#include <string.h>

#include "repro.h"
#include "run.h"

static cJSON *header(const cs_scope *s)
{
    cJSON *ids, *o = ea_repro_header("cumsum", s->point, s->alias, s->occurrences, &ids);
    cJSON_AddItemToArray(ids, cJSON_CreateString(s->scope_id));
    return o;
}

/* The parsed scope, its capture (outputs checked) and the capture's default run. */
static int resolve(const ea_scope_ref *r, int g, const ea_captures *caps, cs_scope *s, const ea_capture **c,
                   const ea_capture_run **run, ea_error *err)
{
    if (cs_scope_parse(r->point, r->file, r->index, g, s, err))
        return -1;
    if (!(*c = ea_capture_of_point(caps, r->point, g, err))) {
        ea_error inner = *err;
        return ea_fail(err, "%s %s: expected a capture for scope %s or one of its occurrences: %s", r->file, s->where,
                       s->scope_id, inner.msg);
    }
    if (!(*run = ea_capture_run_named(*c, "default")))
        return ea_fail(err, "%s $.runs: expected a \"default\" run, got none", (*c)->file);
    if (!(*run)->replayable)
        return ea_fail(err, "%s: run \"default\" is not replayable from C: expected Triton launches only", (*c)->file);
    return cs_outputs_check(s, *c, err);
}

static cJSON *each_group(ea_run_ctx *ctx, const ea_scope_ref *r, int measure, ea_error *err)
{
    cJSON *arr = cJSON_CreateArray();
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->point, "scopes"));
    for (int g = 0; g < n; g++) {
        cs_scope s;
        const ea_capture *c = NULL;
        const ea_capture_run *run = NULL;
        cJSON *h, *m;
        if (resolve(r, g, &ctx->caps, &s, &c, &run, err))
            return cJSON_Delete(arr), NULL;
        ea_repro_alias(ctx, r, s.alias, sizeof s.alias);
        h = header(&s);
        if (!measure) {
            cJSON_AddItemToObject(h, "config", cs_config_json(&s, c, run));
        } else if ((m = cs_measure(&s, c, run, ctx->opts, err)) != NULL) {
            ea_repro_append(h, m);
        } else {
            cJSON_Delete(h);
            return cJSON_Delete(arr), NULL;
        }
        cJSON_AddItemToArray(arr, h);
    }
    return arr;
}


const ea_repro_family ea_family_cumsum = {
    "cumsum", "aten.cumsum.default", NULL, NULL, each_group, cs_claims,
    EA_MODE_FAITHFUL, /* the capture's ids */
    "position ids: cumsum of a padding mask or of constants, replayed from Inductor's scan",
};
