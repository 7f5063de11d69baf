/* family.c: the index_add family as extern-audit run sees it (repro.h): plan and run a point. A point's
 * scope groups share one measurement unless their producers differ (a mul folded in one, not in
 * another): each distinct configuration is parsed, planned and measured once. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "repro.h"
#include "run.h"

static cJSON *launch_json(const char *kernel, int64_t grid, int64_t block)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kernel", kernel);
    cJSON_AddNumberToObject(o, "grid", (double)grid);
    cJSON_AddNumberToObject(o, "block", (double)block);
    return o;
}

static int64_t blocks(int64_t items, int64_t threads)
{
    return (items + threads - 1) / threads; /* oracle.cu's one item per thread */
}

static cJSON *index_json(const ia_index *ix)
{
    cJSON *o = cJSON_CreateObject();
    static const char *const kinds[] = {"unknown", "iota", "as_strided_iota"};
    cJSON_AddStringToObject(o, "kind", kinds[ix->kind]);
    if (ix->kind == IA_INDEX_UNKNOWN)
        return o;
    cJSON_AddNumberToObject(o, "start", (double)ix->start);
    cJSON_AddNumberToObject(o, "step", (double)ix->step);
    cJSON_AddNumberToObject(o, "length", (double)ix->length);
    if (ix->kind == IA_INDEX_AS_STRIDED) {
        double sz[EA_MAX_DIMS], st[EA_MAX_DIMS];
        for (int d = 0; d < ix->ndim; d++)
            sz[d] = (double)ix->size[d], st[d] = (double)ix->stride[d];
        cJSON_AddItemToObject(o, "size", cJSON_CreateDoubleArray(sz, ix->ndim));
        cJSON_AddItemToObject(o, "stride", cJSON_CreateDoubleArray(st, ix->ndim));
        cJSON_AddNumberToObject(o, "offset", (double)ix->offset);
    }
    cJSON_AddNumberToObject(o, "max_multiplicity", ix->max_multiplicity);
    return o;
}

cJSON *ia_config_json(const ia_scope *s, const ia_plan *p)
{
    static const char *const oracles[] = {"general", "slice", "windows"};
    char text[256];
    cJSON *o = cJSON_CreateObject(), *cur, *orc, *notes;
    cJSON_AddNumberToObject(o, "dim", s->dim);
    cJSON_AddNumberToObject(o, "alpha", s->alpha);
    ea_tensor_format(&s->out, text, sizeof text);
    cJSON_AddStringToObject(o, "out", text);
    ea_tensor_format(&s->source, text, sizeof text);
    cJSON_AddStringToObject(o, "source", text);
    if (s->self_const)
        cJSON_AddNumberToObject(o, "self_fill", s->fill);
    cJSON_AddItemToObject(o, "index", index_json(&s->idx));
    if (s->scaled) {
        snprintf(text, sizeof text, "mul(x, %g) %s", s->scale,
                 s->scale_escapes ? "escapes the scope (materialized): every path reads its output"
                                  : "folded into the oracles, which read x");
        cJSON_AddStringToObject(o, "producer", text);
    }
    cJSON_AddStringToObject(o, "current_source", "aten");
    cur = cJSON_AddArrayToObject(o, "current");
    if (s->self_const)
        cJSON_AddItemToArray(cur, launch_json("fill (full)", blocks(ea_tensor_numel(&s->out) / 8, 256), 256));
    cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemcpyAsync device-to-device (result.copy_(self))"));
    cJSON_AddItemToArray(cur, launch_json(p->aten.name, p->aten.grid, p->aten.block));
    orc = cJSON_AddObjectToObject(o, "oracle");
    cJSON_AddStringToObject(orc, "kind", p->general_ok ? oracles[p->oracle] : "none");
    if (p->oracle == IA_ORACLE_SLICE) { /* the grid depends on the variant the run picks */
        cJSON_AddStringToObject(orc, "kernel", p->slice.vec == 8 ? "ia_oracle_slice_vec8<unroll, fast, streaming>, "
                                                                   "ia_oracle_slice_shfl<fast> or ia_oracle_slice_staged"
                                                                 : "ia_oracle_slice_scalar");
        if (p->slice.vec == 8) {
            cJSON *vs = cJSON_AddArrayToObject(orc, "variants"); /* the run times each, keeps the best */
            for (int v = 0; v < IA_SLICE_VARIANTS; v++) {
                cJSON *one = cJSON_CreateObject();
                ia_slice_variant_json(one, v);
                cJSON_AddItemToArray(vs, one);
            }
            cJSON *st = cJSON_AddObjectToObject(orc, "staged");
            cJSON_AddNumberToObject(st, "block", IA_STAGED_THREADS);
            cJSON_AddNumberToObject(st, "shared_bytes", IA_STAGED_SHARED_ELEMS * 2);
            cJSON_AddNumberToObject(st, "span_chunks_max", (double)p->slice.stage.span_max);
            cJSON_AddNumberToObject(st, "span_source_elems_max",
                                    (double)ia_slice_source_bound(&p->slice, p->slice.stage.span_max * 8));
            cJSON_AddStringToObject(st, "grid", "multiprocessors x resident blocks (occupancy at launch), each "
                                                "looping over equal spans of at most span_chunks_max chunks");
        }
    }
    if (p->oracle == IA_ORACLE_WINDOWS) {
        cJSON_AddItemToObject(orc, "launch", launch_json("ia_oracle_windows_kernel", blocks(p->win.n_out / p->win.vec, 128), 128));
        cJSON_AddNumberToObject(orc, "windows", (double)p->win.nwin);
        cJSON_AddNumberToObject(orc, "window_step_rows", (double)p->win.k);
        cJSON_AddNumberToObject(orc, "window_rows", (double)p->win.csize);
    }
    if (p->oracle != IA_ORACLE_GENERAL)
        cJSON_AddNumberToObject(orc, "vector_elements", p->oracle == IA_ORACLE_SLICE ? p->slice.vec : p->win.vec);
    cJSON_AddNumberToObject(o, "floor_bytes", (double)p->floor_bytes);
    notes = cJSON_AddArrayToObject(o, "notes");
    if (s->note[0])
        cJSON_AddItemToArray(notes, cJSON_CreateString(s->note));
    if (p->note[0] && strcmp(p->note, s->note))
        cJSON_AddItemToArray(notes, cJSON_CreateString(p->note));
    return o;
}


/* Groups of the point with distinct configurations: groups[i] lists the scope groups measured as i. */
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

static cJSON *header(const ia_scope *s, int k, const int group_of[])
{
    cJSON *ids, *o = ea_repro_header("index_add", s->point, s->alias, s->occurrences, &ids);
    for (int g = 0; g < s->ngroups; g++)
        if (group_of[g] == k)
            cJSON_AddItemToArray(ids, cJSON_CreateString(s->scope_ids[g]));
    return o;
}

static cJSON *each_config(const ea_repro_family *f, const cJSON *point, const char *file, int index,
                          const ea_run_opts *o, int measure, ea_error *err)
{
    ia_scope scopes[IA_MAX_GROUPS];
    int group_of[IA_MAX_GROUPS], n, sm = o->sm_count; /* a plan: the caller's count (ia_plan_make wants >= 1) */
    if (distinct_configs(point, file, index, scopes, group_of, &n, err))
        return NULL;
    /* a run: ATen sizes its grids by the device it runs on */
    if (measure && cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        return ea_fail(err, "index_add: cannot read the multiprocessor count"), NULL;
    cJSON *arr = cJSON_CreateArray();
    for (int k = 0; k < n; k++) {
        ia_plan p;
        if (ia_plan_make(&scopes[k], sm, &p, err))
            return cJSON_Delete(arr), NULL;
        cJSON *h = header(&scopes[k], k, group_of), *m;
        if (!measure) {
            cJSON_AddItemToObject(h, "config", ia_config_json(&scopes[k], &p));
        } else if ((m = ia_measure(&scopes[k], &p, o, err)) != NULL) {
            ea_repro_append(h, m);
        } else {
            cJSON_Delete(h);
            return cJSON_Delete(arr), NULL;
        }
        cJSON_AddItemToArray(arr, h);
    }
    return arr;
}

const ea_repro_family ea_family_index_add = {
    "index_add", "aten.index_add.default", ia_aliases, IA_ALIASES, each_config, NULL,
};
