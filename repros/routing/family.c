/* family.c: the gpt-oss routing scope as extern-audit run sees it (repro.h). Two registry entries read
 * the two golden points of the one scope: the histc point (histc.json, every point of it) and the
 * cumsum point whose scope holds the sort and the histc (cumsum.json, picked by rt_claims). Each point
 * gives four result objects: {whole, narrow} x {uniform, skewed} (plan.h). A point no capture covers
 * (a shape not captured yet, e.g. 128 experts) plans without one; its run is one unsupported result. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "plan.h"
#include "repro.h"
#include "run.h"
#include "unsupported.h"

static cJSON *each_config(ea_run_ctx *ctx, const ea_scope_ref *ref, int measure, ea_error *err)
{
    const ea_repro_family *family = ref->family;
    rt_scope s;
    rt_capture c;
    ea_run_opts ro = *ctx->opts; /* a run: ATen sizes histc's grid by the device it runs on */
    if (rt_scope_parse(ref->point, ref->file, ref->index, &s, err) || rt_plan_check(&s, err))
        return NULL;
    ea_repro_alias(ctx, ref, s.alias, sizeof s.alias);
    int captured = rt_scope_capture(&s, ref->point, &ctx->caps, &c, err);
    if (captured < 0)
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    if (captured > 0 && measure) { /* a shape not captured: planned, but its current path cannot run */
        cJSON_AddItemToArray(arr, ea_unsupported_result(ctx, ref, err->msg));
        return arr;
    }
    if (measure && cudaDeviceGetAttribute(&ro.sm_count, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
        cJSON_Delete(arr);
        return ea_fail(err, "routing: cannot read the multiprocessor count"), NULL;
    }
    for (int f = RT_WHOLE; f <= RT_NARROW; f++)
        for (int d = RT_UNIFORM; d <= RT_SKEWED; d++) {
            cJSON *r;
            if (measure) {
                r = rt_measure(&s, &c, (rt_form)f, (rt_dist)d, family->name, &ro, err);
            } else {
                r = rt_header(&s, family->name);
                cJSON_AddItemToObject(r, "config", rt_config_json(&s, captured ? NULL : &c, (rt_form)f, (rt_dist)d,
                                                                  ro.sm_count));
            }
            if (!r) {
                cJSON_Delete(arr);
                return NULL;
            }
            cJSON_AddItemToArray(arr, r);
        }
    return arr;
}

const ea_repro_family ea_family_routing_histc = {
    "routing_histc", "aten.histc.default", "routing", NULL, each_config, NULL,
    EA_MODE_FAITHFUL, /* no fabricated ids */
    "gpt-oss expert routing: sort -> int32 -> histc -> cumsum, the histc point",
};

const ea_repro_family ea_family_routing_cumsum = {
    "routing_cumsum", "aten.cumsum.default", "routing-cumsum", NULL, each_config, rt_claims, EA_MODE_FAITHFUL,
    "gpt-oss expert routing: sort -> int32 -> histc -> cumsum, the cumsum point",
};
