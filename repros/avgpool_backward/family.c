/* family.c: the avgpool_backward family as extern-audit run sees it (repro.h): each point planned, or
 * measured, as one configuration covering all its scope groups (their scopes differ only in producers
 * that run before the op). */
#include "avgpool_backward.h"

static cJSON *points(ea_run_ctx *ctx, const ea_scope_ref *r, int measure, ea_error *err)
{
    ap_scope s;
    char alias[256];
    cJSON *ids, *h, *m;
    if (ap_scope_parse(r->point, r->file, r->index, &s, err))
        return NULL;
    ea_repro_alias(ctx, r, alias, sizeof alias);
    s.alias = alias;
    h = ea_repro_header(r->family->name, s.point, s.alias, s.occurrences, &ids);
    for (int g = 0; g < s.ngroups; g++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(s.scope_ids[g]));
    if (!measure) {
        cJSON_AddItemToObject(h, "config", ap_config_json(&s));
    } else if ((m = ap_measure(&s, ctx->opts, err)) != NULL) {
        ea_repro_append(h, m);
    } else {
        cJSON_Delete(h);
        return NULL;
    }
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, h);
    return arr;
}

const ea_repro_family ea_family_avgpool_backward = {
    "avgpool_backward", "aten._adaptive_avg_pool2d_backward.default", NULL, NULL, points, NULL,
    EA_MODE_FAITHFUL,
    "adaptive average pool backward of an identity pool (AlexNet 6x6, VGG16 7x7): ATen's kernel against a copy",
};
