/* family.c: the index_add family as extern-audit run sees it (repro.h): plan and run a point. A point's
 * scope groups share one measurement unless their producers differ (a mul folded in one, not in
 * another): each distinct configuration is parsed, planned and measured once. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "repro.h"
#include "run.h"
#include "scope.h"

/* Groups of the point with distinct configurations: groups[i] lists the scope groups measured as i. */
static int distinct_configs(const cJSON *point, const char *file, int index, ia_scope *scopes, int group_of[],
                            int *n, ea_error *err)
{
    ia_scope probe;
    *n = 0;
    if (ia_scope_parse(point, file, index, -1, &probe, err))
        return -1;
    for (int g = 0; g < probe.ngroups; g++) {
        ia_scope s;
        if (ia_scope_parse(point, file, index, g, &s, err))
            return -1;
        int k = 0;
        while (k < *n && !(scopes[k].scaled == s.scaled && scopes[k].scale == s.scale &&
                           scopes[k].scale_escapes == s.scale_escapes && ea_tensor_equal(&scopes[k].x, &s.x)))
            k++;
        if (k == *n)
            scopes[(*n)++] = s;
        group_of[g] = k;
    }
    return 0;
}

static cJSON *header(const ia_scope *s, int k, const int group_of[])
{
    cJSON *ids, *o = ea_repro_header("index_add", s->point, s->alias, s->occurrences, &ids);
    for (int g = 0; g < s->ngroups; g++)
        if (group_of[g] == k)
            cJSON_AddItemToArray(ids, cJSON_CreateString(s->scope_ids[g]));
    return o;
}

static cJSON *each_config(ea_run_ctx *ctx, const ea_scope_ref *r, int measure, ea_error *err)
{
    ia_scope scopes[IA_MAX_GROUPS];
    const ea_run_opts *o = ctx->opts;
    int group_of[IA_MAX_GROUPS], n, sm = o->sm_count; /* a plan: the caller's count (ia_plan_make wants >= 1) */
    if (distinct_configs(r->point, r->file, r->index, scopes, group_of, &n, err))
        return NULL;
    for (int k = 0; k < n; k++)
        ea_repro_alias(ctx, r, scopes[k].alias, sizeof scopes[k].alias);
    /* a run: ATen sizes its grids by the device it runs on */
    if (measure && cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        return ea_fail(err, "index_add: cannot read the multiprocessor count"), NULL;
    cJSON *arr = cJSON_CreateArray();
    for (int k = 0; k < n; k++) {
        ia_plan p;
        if (ia_plan_make(&scopes[k], sm, &p, err))
            return cJSON_Delete(arr), NULL;
        cJSON *h = header(&scopes[k], k, group_of), *m;
        if (!measure) {
            cJSON_AddItemToObject(h, "config", ia_config_json(&scopes[k], &p));
        } else if ((m = ia_measure(&scopes[k], &p, o, err)) != NULL) {
            ea_repro_append(h, m);
        } else {
            cJSON_Delete(h);
            return cJSON_Delete(arr), NULL;
        }
        cJSON_AddItemToArray(arr, h);
    }
    return arr;
}

const ea_repro_family ea_family_index_add = {
    "index_add", "aten.index_add.default", NULL, NULL, each_config, NULL,
    EA_MODE_FAITHFUL | EA_MODE_FABRICATED,
    "bf16 zeros -> index_add -> reshape (Longformer, XLNet): ATen's fallback replicated, graph-built indices",
};
