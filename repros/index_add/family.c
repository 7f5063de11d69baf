/* family.c: the index_add family (kit.h). A point's scope groups share one measurement unless their producers
 * differ (a mul folded in one, not in another): each distinct configuration is planned and measured once. */
#include <stdio.h>

#include "measure/kit.h"
#include "run.h"
#include "scope.h"

/* Groups of the point with distinct configurations: group_of[g] is the configuration group g is measured as. */
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

static int plan(ea_run_ctx *ctx, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    ia_scope scopes[IA_MAX_GROUPS];
    int group_of[IA_MAX_GROUPS], n;
    if (distinct_configs(r->point, r->file, r->index, scopes, group_of, &n, err))
        return -1;
    for (int k = 0; k < n; k++) {
        ia_plan pl;
        const char *ids[IA_MAX_GROUPS];
        int nids = 0;
        if (ia_plan_make(&scopes[k], p->sm_count, &pl, err))
            return -1;
        for (int g = 0; g < scopes[k].ngroups; g++)
            if (group_of[g] == k)
                ids[nids++] = scopes[k].scope_ids[g];
        ea_kit_add(p, &(ea_kit_config){.index = k, .occurrences = scopes[k].occurrences, .scope_ids = ids,
                                       .nscope_ids = nids, .config = ia_config_json(&scopes[k], &pl)});
    }
    return 0;
}

static cJSON *measure(ea_run_ctx *ctx, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err)
{
    ia_scope scopes[IA_MAX_GROUPS];
    int group_of[IA_MAX_GROUPS], n;
    ia_plan pl;
    if (distinct_configs(r->point, r->file, r->index, scopes, group_of, &n, err))
        return NULL;
    ia_scope *s = &scopes[st->index];
    snprintf(s->alias, sizeof s->alias, "%s", st->alias);
    return ia_plan_make(s, st->opts->sm_count, &pl, err) ? NULL : ia_measure(s, &pl, st, err);
}

const ea_repro_family ea_family_index_add = {
    .name = "index_add",
    .op = "aten.index_add.default",
    .plan = plan,
    .measure = measure,
    .modes = EA_MODE_FAITHFUL | EA_MODE_FABRICATED,
    .description = "bf16 zeros -> index_add -> reshape (Longformer, XLNet): ATen's fallback replicated, graph-built "
                   "indices",
};
