/* family.c: the cat family (kit.h). Every point has its own shapes, so each is one configuration, timed once;
 * a point no capture covers (a shape not captured) is planned, but its current path cannot run. */
#include <stdio.h>

#include "cat.h"
#include "measure/kit.h"
#include "run.h"

/* The point parsed with its capture and the document's view block (derived once per run): 0, 1 when no
 * capture covers it (err says why), -1 on an error. */
static int scope_of(ea_run_ctx *ctx, const ea_scope_ref *r, const char *alias, cat_scope *s, const ea_capture **cap,
                    const cJSON **block, ea_error *err)
{
    const cJSON *view = ea_run_ctx_memo(ctx, r->family, cat_view, err);
    int uncaptured = view ? cat_scope_parse(r->point, r->file, r->index, &ctx->caps, s, cap, err) : -1;
    snprintf(s->alias, sizeof s->alias, "%s", alias);
    *block = view ? cat_view_block(view, s) : NULL;
    return uncaptured;
}

static int plan(ea_run_ctx *ctx, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    cat_scope s;
    const ea_capture *cap;
    const cJSON *block;
    cat_plan pl;
    char note[1024], why[sizeof err->msg];
    const char *ids[CAT_MAX_GROUPS];
    int uncaptured = scope_of(ctx, r, p->alias, &s, &cap, &block, err);
    snprintf(why, sizeof why, "%s", uncaptured ? err->msg : "");
    if (uncaptured < 0 || cat_plan_make(&s, 1, &pl, err))
        return -1;
    cat_view_line(block, note, sizeof note);
    for (int g = 0; g < s.ngroups; g++)
        ids[g] = s.scope_ids[g];
    ea_kit_add(p, &(ea_kit_config){.occurrences = s.occurrences, .scope_ids = ids, .nscope_ids = s.ngroups,
                                   .config = cat_config_json(&s, &pl, uncaptured ? NULL : cap, note)});
    if (uncaptured)
        ea_kit_unsupported(p, why);
    return 0;
}

static cJSON *measure(ea_run_ctx *ctx, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err)
{
    cat_scope s;
    const ea_capture *cap;
    const cJSON *block;
    return scope_of(ctx, r, st->alias, &s, &cap, &block, err) ? NULL : cat_measure(&s, cap, st, err);
}

const ea_repro_family ea_family_cat = {
    .name = "cat",
    .op = "aten.cat.default",
    .alias_tag = cat_alias_tag,
    .plan = plan,
    .measure = measure,
    .modes = EA_MODE_FAITHFUL, /* no index to fabricate */
    .description = "DenseNet's cat of > 8 inputs -> BatchNorm -> ReLU (-> mean), replayed from Inductor's kernels",
};
