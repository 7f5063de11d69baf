/* family.c: the gpt-oss routing scope (kit.h). Two registry entries read the two golden points of the one
 * scope: the histc point (histc.json, every point of it) and the cumsum point whose scope holds the sort and
 * the histc (cumsum.json, picked by rt_claims). Each point is four configurations: {whole, narrow} x
 * {uniform, skewed} (plan.h). A point no capture covers (a shape not captured yet, e.g. 128 experts) plans
 * without one; its run is one unsupported result. */
#include <stdio.h>

#include "measure/kit.h"
#include "plan.h"
#include "run.h"

/* A configuration's number: its form and its distribution. */
#define RT_CONFIG(f, d) ((int)(f) * 2 + (int)(d))

/* The point parsed and checked, with its capture: 0, 1 when none covers it (err says why), -1 on an error. */
static int scope_of(ea_run_ctx *ctx, const ea_scope_ref *ref, const char *alias, rt_scope *s, rt_capture *c,
                    ea_error *err)
{
    if (rt_scope_parse(ref->point, ref->file, ref->index, s, err) || rt_plan_check(s, err))
        return -1;
    snprintf(s->alias, sizeof s->alias, "%s", alias);
    return rt_scope_capture(s, ref->point, &ctx->caps, c, err);
}

static int plan(ea_run_ctx *ctx, const ea_scope_ref *ref, ea_kit_plan *p, ea_error *err)
{
    rt_scope s;
    rt_capture c;
    const char *ids[RT_MAX_GROUPS];
    rt_capture tuned; /* checked here too, so a plan without a GPU refuses what the run would */
    int uncaptured = scope_of(ctx, ref, p->alias, &s, &c, err);
    if (uncaptured < 0 || (!uncaptured && rt_capture_tuned(&s, &c, &tuned, err)))
        return -1;
    for (int g = 0; g < s.ngroups; g++)
        ids[g] = s.scope_ids[g];
    for (int f = RT_WHOLE; f <= RT_NARROW; f++)
        for (int d = RT_UNIFORM; d <= RT_SKEWED; d++)
            ea_kit_add(p, &(ea_kit_config){.index = RT_CONFIG(f, d), .occurrences = s.occurrences, .scope_ids = ids,
                                           .nscope_ids = s.ngroups,
                                           .config = rt_config_json(&s, uncaptured ? NULL : &c, (rt_form)f, (rt_dist)d,
                                                                    p->sm_count)});
    if (uncaptured)
        ea_kit_unsupported(p, err->msg);
    return 0;
}

static cJSON *measure(ea_run_ctx *ctx, const ea_scope_ref *ref, const ea_kit_state *st, ea_error *err)
{
    rt_scope s;
    rt_capture c, tuned;
    if (scope_of(ctx, ref, st->alias, &s, &c, err) || rt_capture_tuned(&s, &c, &tuned, err))
        return NULL;
    return rt_measure(&s, &c, &tuned, (rt_form)(st->index / 2), (rt_dist)(st->index % 2), st, err);
}

const ea_repro_family ea_family_routing_histc = {
    .name = "routing_histc",
    .op = "aten.histc.default",
    .alias_stem = "routing",
    .plan = plan,
    .measure = measure,
    .modes = EA_MODE_FAITHFUL, /* no fabricated ids */
    .description = "gpt-oss expert routing: sort -> int32 -> histc -> cumsum, the histc point",
};

const ea_repro_family ea_family_routing_cumsum = {
    .name = "routing_cumsum",
    .op = "aten.cumsum.default",
    .alias_stem = "routing-cumsum",
    .plan = plan,
    .measure = measure,
    .claims = rt_claims,
    .modes = EA_MODE_FAITHFUL,
    .description = "gpt-oss expert routing: sort -> int32 -> histc -> cumsum, the cumsum point",
};
