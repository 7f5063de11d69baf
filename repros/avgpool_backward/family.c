/* family.c: the avgpool_backward family (kit.h): each point one configuration covering all its scope groups
 * (their scopes differ only in producers that run before the op). */
#include "avgpool_backward.h"
#include "measure/kit.h"

static int plan(ea_run_ctx *ctx, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    ap_scope s;
    if (ap_scope_parse(r->point, r->file, r->index, &s, err))
        return -1;
    ea_kit_add(p, &(ea_kit_config){.occurrences = s.occurrences, .scope_ids = s.scope_ids, .nscope_ids = s.ngroups,
                                   .config = ap_config_json(&s)});
    return 0;
}

static cJSON *measure(ea_run_ctx *ctx, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err)
{
    ap_scope s;
    if (ap_scope_parse(r->point, r->file, r->index, &s, err))
        return NULL;
    s.alias = st->alias;
    return ap_measure(&s, st, err);
}

const ea_repro_family ea_family_avgpool_backward = {
    .name = "avgpool_backward",
    .op = "aten._adaptive_avg_pool2d_backward.default",
    .plan = plan,
    .measure = measure,
    .modes = EA_MODE_FAITHFUL,
    .description = "adaptive average pool backward of an identity pool (AlexNet 6x6, VGG16 7x7): ATen's kernel "
                   "against a copy",
};
