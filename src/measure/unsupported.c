/* unsupported.c: a refused point as a run result (contract in unsupported.h). */
#include "measure/unsupported.h"

#include <stdio.h>

cJSON *ea_unsupported_result(const ea_run_ctx *c, const ea_scope_ref *ref, const char *reason)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(ref->point, "point");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(ref->point, "count"), *g;
    char where[512];
    snprintf(where, sizeof where, "%.480s $.points[%d]", ref->file, ref->index);
    const char *point = cJSON_IsString(id) ? id->valuestring : where;
    char alias[256];
    if (cJSON_IsString(id))
        ea_repro_alias(c, ref, alias, sizeof alias);
    else
        snprintf(alias, sizeof alias, "%.127s", point);
    cJSON *ids, *o = ea_repro_header(ref->family->name, point, alias,
                                     cJSON_IsNumber(count) ? (int64_t)count->valuedouble : 0, &ids);
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(ref->point, "scopes")) {
        const cJSON *sid = cJSON_GetObjectItemCaseSensitive(g, "scope_id");
        if (cJSON_IsString(sid))
            cJSON_AddItemToArray(ids, cJSON_CreateString(sid->valuestring));
    }
    cJSON_AddStringToObject(o, "unsupported", reason);
    cJSON_AddBoolToObject(o, "passed", 0);
    return o;
}

const char *ea_unsupported_reason(const cJSON *result)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(result, "unsupported");
    return cJSON_IsString(r) ? r->valuestring : NULL;
}
