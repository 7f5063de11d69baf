/* family.c: the index_add family (kit.h). A point's scope groups share one measurement unless their producers
 * or consumers differ (a mul folded in one, not in another; a consumer div in one): each distinct configuration
 * is planned and measured once. A consumer-folded configuration runs the captured consumer kernel of its first
 * group (consumer.h); where no capture gives it, the point is unsupported on that target. */
#include <stdio.h>
#include <string.h>

#include "consumer.h"
#include "measure/kit.h"
#include "run.h"
#include "scope.h"

static int same_config(const ia_scope *a, const ia_scope *b)
{
    return a->scaled == b->scaled && a->scale == b->scale && a->scale_escapes == b->scale_escapes &&
           ea_tensor_equal(&a->x, &b->x) && a->consumed == b->consumed && a->consumer_div == b->consumer_div &&
           a->consumer_by == b->consumer_by && ea_tensor_equal(&a->final, &b->final);
}

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
        while (k < *n && !same_config(&scopes[k], &s))
            k++;
        if (k == *n)
            scopes[(*n)++] = s;
        group_of[g] = k;
    }
    return 0;
}

/* Configuration k's consumer kernel from the capture of its first group, and the coordinate-descent run's where the
 * capture has that run (tuned->step NULL otherwise): 0 (none needed: cs->step NULL, or found), 1 when no capture
 * gives it (err says why), -1 on a broken capture. */
static int consumer_of(ea_run_ctx *ctx, const ea_scope_ref *r, const ia_scope *s, const int group_of[], int k,
                       ia_consumer_step *cs, ia_consumer_step *tuned, ea_error *err)
{
    memset(cs, 0, sizeof *cs);
    memset(tuned, 0, sizeof *tuned);
    int g = 0, rc;
    while (g < s->ngroups && group_of[g] != k)
        g++;
    if (!s->consumed || (rc = ia_consumer_step_find(s, r->point, g, &ctx->caps, "default", cs, err)))
        return s->consumed ? rc : 0;
    if (!ea_capture_run_named(cs->cap, "coordinate_descent"))
        return 0;
    rc = ia_consumer_step_find(s, r->point, g, &ctx->caps, "coordinate_descent", tuned, err);
    return rc > 0 ? -1 : rc; /* the default run has the ATen step: this one must too */
}

static int plan(ea_run_ctx *ctx, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    ia_scope scopes[IA_MAX_GROUPS];
    int group_of[IA_MAX_GROUPS], n, uncaptured = 0;
    char why[sizeof err->msg] = "";
    if (distinct_configs(r->point, r->file, r->index, scopes, group_of, &n, err))
        return -1;
    for (int k = 0; k < n; k++) {
        ia_plan pl;
        ia_consumer_step cs, tuned;
        const char *ids[IA_MAX_GROUPS];
        int nids = 0, rc = consumer_of(ctx, r, &scopes[k], group_of, k, &cs, &tuned, err);
        if (rc < 0 || ia_plan_make(&scopes[k], p->sm_count, &pl, err))
            return -1;
        if (rc > 0 && !uncaptured++)
            snprintf(why, sizeof why, "%s", err->msg);
        int64_t occurrences = 0;
        for (int g = 0; g < scopes[k].ngroups; g++)
            if (group_of[g] == k) {
                ids[nids++] = scopes[k].scope_ids[g];
                occurrences += scopes[k].group_counts[g];
            }
        ea_kit_add(p, &(ea_kit_config){.index = k, .occurrences = occurrences, .scope_ids = ids,
                                       .nscope_ids = nids, .config = ia_config_json(&scopes[k], &pl, rc ? NULL : &cs, rc ? NULL : &tuned)});
    }
    if (uncaptured)
        ea_kit_unsupported(p, why);
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
    ia_consumer_step cs, tuned;
    snprintf(s->alias, sizeof s->alias, "%s", st->alias);
    if (consumer_of(ctx, r, s, group_of, st->index, &cs, &tuned, err)) /* planned supported: a capture gives it */
        return NULL;
    return ia_plan_make(s, st->opts->sm_count, &pl, err)
               ? NULL
               : ia_measure(s, &pl, s->consumed ? &cs : NULL, s->consumed ? &tuned : NULL, st, err);
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
