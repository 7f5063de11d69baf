/* family.c: the cat family as extern-audit run sees it (repro.h): plan and run a point. Every point has
 * its own shapes, so each is one configuration, timed once. */
#include <stdio.h>

#include "cat.h"
#include "repro.h"
#include "run.h"
#include "unsupported.h"

static cJSON *each(ea_run_ctx *ctx, const ea_scope_ref *r, int measure, ea_error *err)
{
    cat_scope s;
    const ea_capture *cap;
    cat_plan p;
    const cJSON *view = ea_run_ctx_memo(ctx, r->family, cat_view, err); /* the document's blocks, once per run */
    int uncaptured = view ? cat_scope_parse(r->point, r->file, r->index, &ctx->caps, &s, &cap, err) : -1;
    if (uncaptured < 0)
        return NULL;
    ea_repro_alias(ctx, r, s.alias, sizeof s.alias);
    if (uncaptured && measure) { /* a shape not captured: planned, but its current path cannot run */
        cJSON *arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, ea_unsupported_result(ctx, r, err->msg));
        return arr;
    }
    if (cat_plan_make(&s, 1, &p, err))
        return NULL;
    const cJSON *block = cat_view_block(view, &s);
    char note[1024];
    cJSON *ids, *m, *h = ea_repro_header("cat", s.point, s.alias, s.occurrences, &ids);
    for (int g = 0; g < s.ngroups; g++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(s.scope_ids[g]));
    if (!measure) {
        cat_view_line(block, note, sizeof note);
        cJSON_AddItemToObject(h, "config", cat_config_json(&s, &p, uncaptured ? NULL : cap, note));
    } else if ((m = cat_measure(&s, cap, block, ctx->opts, err)) != NULL) {
        ea_repro_append(h, m);
    } else {
        cJSON_Delete(h);
        h = NULL;
    }
    if (!h)
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, h);
    return arr;
}


const ea_repro_family ea_family_cat = {
    "cat", "aten.cat.default", NULL, cat_alias_tag, each, NULL, EA_MODE_FAITHFUL, /* no index to fabricate */
    "DenseNet's cat of > 8 inputs -> BatchNorm -> ReLU (-> mean), replayed from Inductor's kernels",
};
