/* family.c: the cat family as extern-audit run sees it (repro.h): plan and run a point. Every point has
 * its own shapes, so each is one configuration, timed once. */
#include <stdio.h>

#include "cat_impl.h"
#include "repro.h"
#include "run.h"
#include "unsupported.h"

/* The golden points by the alias their shapes give them (cat_alias_make; a test re-derives every
 * entry from golden/occurrences/cat.json, so the table cannot drift from the data). */
const ea_alias cat_aliases[CAT_ALIASES] = {
    {"densenet121-infer-28x28-k9", "cat-70386f03485a"},
    {"densenet121-infer-28x28-k10", "cat-5975f0bd6406"},
    {"densenet121-infer-28x28-k11", "cat-4bf4da12a92f"},
    {"densenet121-infer-28x28-k12", "cat-ce0dab2f4189"},
    {"densenet121-infer-28x28-k13", "cat-4d3ecebae199"},
    {"densenet121-infer-14x14-k9", "cat-5c31c1061a5c"},
    {"densenet121-infer-14x14-k10", "cat-fc4d74b64015"},
    {"densenet121-infer-14x14-k11", "cat-907e29088650"},
    {"densenet121-infer-14x14-k12", "cat-124913ce3cd2"},
    {"densenet121-infer-14x14-k13", "cat-aee27b70139d"},
    {"densenet121-infer-14x14-k14", "cat-16fdceb2fc61"},
    {"densenet121-infer-14x14-k15", "cat-db5f033a83b2"},
    {"densenet121-infer-14x14-k16", "cat-7cefdeb254d4"},
    {"densenet121-infer-14x14-k17", "cat-566198a212ee"},
    {"densenet121-infer-14x14-k18", "cat-5a41a30fdbf7"},
    {"densenet121-infer-14x14-k19", "cat-ab1e7586a864"},
    {"densenet121-infer-14x14-k20", "cat-dd348c411cbe"},
    {"densenet121-infer-14x14-k21", "cat-9fbda5c8374c"},
    {"densenet121-infer-14x14-k22", "cat-045eee571676"},
    {"densenet121-infer-14x14-k23", "cat-f9f12a8ad02e"},
    {"densenet121-infer-14x14-k24", "cat-a14e1408272c"},
    {"densenet121-infer-14x14-k25", "cat-46f45a30dab3"},
    {"densenet121-infer-7x7-k9", "cat-c55205584f58"},
    {"densenet121-infer-7x7-k10", "cat-6ecb135a221d"},
    {"densenet121-infer-7x7-k11", "cat-8f5365ec047b"},
    {"densenet121-infer-7x7-k12", "cat-3a6fc83ddaa4"},
    {"densenet121-infer-7x7-k13", "cat-a770bf33695a"},
    {"densenet121-infer-7x7-k14", "cat-c21e81e5c555"},
    {"densenet121-infer-7x7-k15", "cat-34fa494a48ba"},
    {"densenet121-infer-7x7-k16", "cat-3e190c800516"},
    {"densenet121-infer-7x7-k17", "cat-42eebc7e97d4"},
    {"densenet121-train-28x28-k9", "cat-e246e78900bc"},
    {"densenet121-train-28x28-k10", "cat-f474e24fea25"},
    {"densenet121-train-28x28-k11", "cat-7f769664ab1d"},
    {"densenet121-train-28x28-k12", "cat-16df921cfa51"},
    {"densenet121-train-28x28-k13", "cat-12dd595d336b"},
    {"densenet121-train-14x14-k9", "cat-0551fee65013"},
    {"densenet121-train-14x14-k10", "cat-05d7caab7ab2"},
    {"densenet121-train-14x14-k11", "cat-92fc380c25f7"},
    {"densenet121-train-14x14-k12", "cat-6fdffff80342"},
    {"densenet121-train-14x14-k13", "cat-d4e09caf9bba"},
    {"densenet121-train-14x14-k14", "cat-29c72110a8ce"},
    {"densenet121-train-14x14-k15", "cat-49c1c6dfc857"},
    {"densenet121-train-14x14-k16", "cat-26013a77aedc"},
    {"densenet121-train-14x14-k17", "cat-3ef84d62236e"},
    {"densenet121-train-14x14-k18", "cat-2bcd9dbb60ba"},
    {"densenet121-train-14x14-k19", "cat-8c9ff542613d"},
    {"densenet121-train-14x14-k20", "cat-5d0bb8aa6c9d"},
    {"densenet121-train-14x14-k21", "cat-5f2a253e5959"},
    {"densenet121-train-14x14-k22", "cat-d270f05bafb1"},
    {"densenet121-train-14x14-k23", "cat-a8ad4071a574"},
    {"densenet121-train-14x14-k24", "cat-abd21c573424"},
    {"densenet121-train-14x14-k25", "cat-9c1b1313e319"},
    {"densenet121-train-7x7-k9", "cat-fbcfdb99fa2b"},
    {"densenet121-train-7x7-k10", "cat-4bc412d7b0d4"},
    {"densenet121-train-7x7-k11", "cat-b227c1853f39"},
    {"densenet121-train-7x7-k12", "cat-ed6d083b16d5"},
    {"densenet121-train-7x7-k13", "cat-f826b299fe17"},
    {"densenet121-train-7x7-k14", "cat-d5e46c5a2b80"},
    {"densenet121-train-7x7-k15", "cat-c364ab07dcd9"},
    {"densenet121-train-7x7-k16", "cat-ce547284592d"},
    {"densenet121-train-7x7-k17", "cat-fbb3a4da8e7d"},
};


static cJSON *each(ea_run_ctx *ctx, const ea_scope_ref *r, int measure, ea_error *err)
{
    cat_scope s;
    const ea_capture *cap;
    cat_plan p;
    const cJSON *view = ea_run_ctx_memo(ctx, r->family, cat_view, err); /* the document's blocks, once per run */
    int uncaptured = view ? cat_scope_parse(r->point, r->file, r->index, &ctx->caps, &s, &cap, err) : -1;
    if (uncaptured < 0)
        return NULL;
    if (uncaptured && measure) { /* a shape not captured: planned, but its current path cannot run */
        cJSON *arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, ea_unsupported_result(r, err->msg));
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
    "cat", "aten.cat.default", cat_aliases, CAT_ALIASES, each, NULL, EA_MODE_FAITHFUL, /* no index to fabricate */
    "DenseNet's cat of > 8 inputs -> BatchNorm -> ReLU (-> mean), replayed from Inductor's kernels",
};
