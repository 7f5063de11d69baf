/* family.c: the position-id cumsum family (kit.h). Each scope group of a point is measured against its own
 * capture (the target's captures/<scope>/, or the capture that covers one of its occurrences), so one
 * configuration per group. The gpt-oss routing point shares the cumsum document but is the routing
 * family's: claims leaves it out. */
#include <stdio.h>
#include <string.h>

#include "current.h"
#include "measure/kit.h"
#include "run.h"

/* Group g of the point parsed, its capture (outputs checked) and the capture's default run; its
 * coordinate_descent run, where it is Triton launches only (the current_tuned path), checked as cs_current_bind
 * needs it, so a plan refuses what the run would. */
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
    const ea_capture_run *tuned = ea_capture_run_tuned_replayable(*c);
    if (cs_current_check(*c, *run, err) || (tuned && cs_current_check(*c, tuned, err)))
        return -1;
    return cs_outputs_check(s, *c, err);
}

static int plan(ea_run_ctx *ctx, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->point, "scopes"));
    for (int g = 0; g < n; g++) {
        cs_scope s;
        const ea_capture *c;
        const ea_capture_run *run;
        if (resolve(r, g, &ctx->caps, &s, &c, &run, err))
            return -1;
        const char *id = s.scope_id;
        ea_kit_add(p, &(ea_kit_config){.index = g, .occurrences = s.occurrences, .scope_ids = &id, .nscope_ids = 1,
                                       .config = cs_config_json(&s, c, run)});
    }
    return 0;
}

static cJSON *measure(ea_run_ctx *ctx, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err)
{
    cs_scope s;
    const ea_capture *c;
    const ea_capture_run *run;
    if (resolve(r, st->index, &ctx->caps, &s, &c, &run, err))
        return NULL;
    snprintf(s.alias, sizeof s.alias, "%s", st->alias);
    return cs_measure(&s, c, run, st, err);
}

const ea_repro_family ea_family_cumsum = {
    .name = "cumsum",
    .op = "aten.cumsum.default",
    .plan = plan,
    .measure = measure,
    .claims = cs_claims,
    .modes = EA_MODE_FAITHFUL, /* the capture's ids */
    .description = "position ids: cumsum of a padding mask or of constants, replayed from Inductor's scan",
    .verdict = cs_result_verdict,
};
