/* family.c: the avgpool_backward family as extern-audit run sees it (repro.h): each point planned, or
 * measured, as one configuration covering all its scope groups (their scopes differ only in producers
 * that run before the op). */
#include "avgpool_backward.h"

static const ea_alias aliases[] = {
    {"alexnet-train", "adaptive_avg_pool2d_backward-a0df034a1ddc"},
    {"vgg16-train", "adaptive_avg_pool2d_backward-01a009dfa6f7"},
};
#define AP_ALIASES ((int)(sizeof aliases / sizeof aliases[0]))

static cJSON *points(const ea_repro_family *f, const cJSON *point, const char *file, int index, const ea_run_opts *o,
                     int measure, ea_error *err)
{
    ap_scope s;
    cJSON *ids, *h, *m;
    if (ap_scope_parse(point, file, index, &s, err))
        return NULL;
    s.alias = ea_alias_of(aliases, AP_ALIASES, s.point);
    if (!s.alias)
        s.alias = s.point;
    h = ea_repro_header(f->name, s.point, s.alias, s.occurrences, &ids);
    for (int g = 0; g < s.ngroups; g++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(s.scope_ids[g]));
    if (!measure) {
        cJSON_AddItemToObject(h, "config", ap_config_json(&s));
    } else if ((m = ap_measure(&s, o, err)) != NULL) {
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
    "avgpool_backward", "aten._adaptive_avg_pool2d_backward.default", aliases, AP_ALIASES, points, NULL,
    EA_MODE_FAITHFUL,
};
