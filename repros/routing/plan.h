/* plan.h: what runs for a routing configuration, described without a GPU.
 * Contract: a point yields four configurations, {whole, narrow} x {uniform, skewed} (rt_form, rt_dist in
 * scope.h), each its own result object. rt_plan_check refuses a scope outside what the replica and the
 * oracles implement (histc's SHARED mode: bins * 4 + 8 bytes below a CTA's 48 KiB; the cluster oracle:
 * at most 65536 ids and 512 experts), with the point's file and JSON path. rt_config_json is the
 * result's "config" for a GPU of sms multiprocessors (ATen's histc grid depends on it): the current path's launches
 * in order (ATen replicas with their grids, the captured Triton steps with theirs), the oracle's launch
 * (the whole form: its "variants", each rt_route_variant_json's, those rt_route_applies to),
 * the distribution's generator, "current_source" "inductor" (the captured partition, its two ATen
 * fallbacks replicated), "capture_comparable" (true only for whole x uniform: the capture timed the
 * whole partition on the uniform ids, so only that configuration prices the same work), "floor_bytes"
 * (ids in; sorted ids, permutation and offsets out; the narrow form: sorted ids in, offsets out) and
 * "notes" (note ids, prose.c; what was read, and where: docs/evidence/routing_sort.md). c may be NULL (no capture covers the point): "capture" null, the Triton steps named as not
 * captured, capture_comparable false. */
#ifndef RT_PLAN_H
#define RT_PLAN_H

#include <cjson/cJSON.h>

#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

int rt_plan_check(const rt_scope *s, ea_error *err);
cJSON *rt_config_json(const rt_scope *s, const rt_capture *c, rt_form f, rt_dist d, int sms);
/* Whole-form oracle variant v (kernels.h RT_ROUTE_*) into o: its "variant" name; full, its kernel, grid,
 * block, shared bytes, cluster and rounds too (the plan's entry; else a measured path's). */
void rt_route_variant_json(const rt_scope *s, int v, cJSON *o, int full);

#ifdef __cplusplus
}
#endif

#endif
