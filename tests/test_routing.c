/* The routing family on the host (repros/routing): its plan without a GPU, the claims predicate and
 * --scope resolution, the config JSON's contract, the CPU reference against the capture's checksums
 * (which fixes torch's permutation order), and every malformed point or capture failing with the file,
 * the JSON path and the expectation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/routing/kernels.h"
#include "../repros/routing/plan.h"
#include "../repros/routing/reference.h"
#include "target/capture_impl.h"
#include "target/gen.h"
#include "helpers.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "measure/prose.h"
#include "measure/prose_impl.h"
#include "measure/repro.h"
#include "measure/run_report.h"

static void plan_print(const cJSON *plans, FILE *f)
{
    ea_run_plan_print(plans, NULL, f);
}

extern const ea_repro_family ea_family_routing_histc, ea_family_routing_cumsum;

#define HISTC_FILE "golden/occurrences/histc.json"
#define CUMSUM_FILE "golden/occurrences/cumsum.json"
#define CAPTURE_DIR "golden/targets/H200-torch2.11.0+cu130/captures/cumsum-bbbc239b67b8-008242e3eb1a"

static const ea_run_opts plan_opts = {.faithful = 1, .sm_count = 132};

static cJSON *load(const char *file)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

/* The point's copy (caller deletes) and its index in the document. */
static cJSON *point_named(const char *file, const char *id, int *index)
{
    cJSON *doc = load(file), *p;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        if (!strcmp(cJSON_GetObjectItem(p, "point")->valuestring, id))
            break;
        i++;
    }
    cr_assert_not_null(p, "%s not in %s", id, file);
    cJSON *copy = cJSON_Duplicate(p, 1);
    cJSON_Delete(doc);
    *index = i;
    return copy;
}

static cJSON *histc_point(int *index)
{
    return point_named(HISTC_FILE, test_point_id("routing_histc", "routing"), index);
}

/* The oracle's launch i: the whole form's variant i (each one launch), the narrow form's launch i. */
static const cJSON *oracle_launch(const cJSON *cfg, int i)
{
    const cJSON *orc = cJSON_GetObjectItem(cfg, "oracle");
    const cJSON *v = cJSON_GetObjectItem(orc, "variants");
    return cJSON_GetArrayItem(v ? v : cJSON_GetObjectItem(orc, "launches"), i);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Notes are ids (prose.h): a sentence reworded in prose.c changes what `run --plan` prints and nothing the gate
 * compares (the config of each plan), so the gate cannot report it as drift; its research text lives in docs/. */
Test(routing, a_reworded_note_changes_what_is_printed_and_no_plan)
{
    int index;
    cJSON *pt = histc_point(&index);
    ea_error err;
    cJSON *before = test_family_points(&ea_family_routing_histc, pt, HISTC_FILE, index, &plan_opts, 0, &err);
    cr_assert_not_null(before, "%s", err.msg);
    char *was = test_printed(plan_print, before);
    ea_prose_reword("routing_histc_shared", "histc, in other words");
    cJSON *after = test_family_points(&ea_family_routing_histc, pt, HISTC_FILE, index, &plan_opts, 0, &err);
    char *now = test_printed(plan_print, after);
    ea_prose_reword(NULL, NULL);
    cr_assert_not_null(after, "%s", err.msg);
    cr_assert(cJSON_Compare(before, after, 1), "the plans, configs and notes alike, are the same");
    cr_assert(strstr(was, "  note: histc: kernelHistogram1D in SHARED mode"), "%s", was);
    cr_assert(strstr(now, "  note: histc, in other words\n"), "%s", now);
    cr_assert_null(strstr(now, "kernelHistogram1D in SHARED mode"));
    for (const char *doc = was; (doc = strstr(doc, "  note: ")); doc++)
        cr_assert(strncmp(doc, "  note: routing_", 16), "every note id renders as a sentence: %.60s", doc);
    free(was), free(now), cJSON_Delete(before), cJSON_Delete(after), cJSON_Delete(pt);
}

Test(routing, plan_without_gpu)
{
    int index;
    cJSON *pt = histc_point(&index);
    ea_error err;
    cJSON *arr = test_family_points(&ea_family_routing_histc, pt, HISTC_FILE, index, &plan_opts, 0, &err), *r;
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 4, "{whole, narrow} x {uniform, skewed}");
    int k = 0;
    cJSON_ArrayForEach(r, arr) {
        int whole = k < 2, skewed = k % 2;
        const cJSON *cfg = cJSON_GetObjectItem(r, "config");
        cr_assert_str_eq(str(r, "family"), "routing_histc");
        cr_assert_str_eq(str(r, "alias"), "routing");
        cr_assert_eq(cJSON_GetObjectItem(r, "occurrences")->valueint, 24);
        cr_assert_str_eq(str(cfg, "current_source"), "inductor");
        cr_assert_str_eq(str(cJSON_GetObjectItem(cfg, "distribution"), "generator"),
                         skewed ? "topk_ids_skewed" : "topk_ids");
        /* ids in, sorted ids + permutation out (int64), offsets out; narrow: sorted ids in, offsets out */
        cr_assert_eq(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble, whole ? 3 * 4000 * 8 + 128 : 4000 * 8 + 128);
        cr_assert_eq(cJSON_GetObjectItem(cfg, "floor_written_bytes")->valuedouble, whole ? 2 * 4000 * 8 + 128 : 128,
                     "sorted ids and the permutation (whole), offsets");
        cr_assert(cJSON_IsArray(cJSON_GetObjectItem(cfg, "notes")));
        const cJSON *cur = cJSON_GetObjectItem(cfg, "current");
        cr_assert_eq(cJSON_GetArraySize(cur), whole ? 8 : 4, "%s", cJSON_PrintUnformatted(cur));
        const cJSON *last = cJSON_GetArrayItem(cur, cJSON_GetArraySize(cur) - 1);
        cr_assert(strstr(str(last, "kernel"), "triton_per_fused_cumsum_1"), "%s", str(last, "kernel"));
        if (whole) {
            const cJSON *sort = cJSON_GetArrayItem(cur, 3);
            cr_assert(strstr(str(sort, "kernel"), "radixSortKVInPlace<-2, -1, 128, 32, long, long"), "%s",
                      str(sort, "kernel"));
            cr_assert_eq(cJSON_GetObjectItem(sort, "grid")->valueint, 1);
        }
        const cJSON *orc = cJSON_GetObjectItem(cfg, "oracle"), *ol = oracle_launch(cfg, 0), *pe = oracle_launch(cfg, 1);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(orc, whole ? "variants" : "launches")), whole ? 2 : 1);
        cr_assert_str_eq(str(orc, "kind"), whole ? "counting_sort" : "boundary_search");
        if (whole) { /* one cluster of eight CTAs of 512 threads: an id per thread; or a CTA per expert */
            cr_assert(cJSON_GetObjectItem(ol, "grid")->valueint == 8 && cJSON_GetObjectItem(ol, "block")->valueint == 512 &&
                          cJSON_GetObjectItem(ol, "cluster")->valueint == 8, "%s", cJSON_PrintUnformatted(orc));
            cr_assert_str_eq(str(ol, "variant"), "cluster");
            cr_assert_str_eq(str(ol, "kernel"), "rt_oracle::route_kernel");
            cr_assert_str_eq(str(pe, "variant"), "per_expert");
            cr_assert_str_eq(str(pe, "kernel"), "rt_oracle::expert_kernel");
            cr_assert(cJSON_GetObjectItem(pe, "grid")->valueint == 32 && cJSON_GetObjectItem(pe, "block")->valueint == 512,
                      "%s", cJSON_PrintUnformatted(pe));
        }
        const cJSON *hist = cJSON_GetArrayItem(cur, whole ? 6 : 2);
        cr_assert_eq(cJSON_GetObjectItem(hist, "grid")->valueint, 8, "ceil(4000 / 512) blocks");
        cr_assert_eq(cJSON_GetObjectItem(hist, "shared_bytes")->valueint, 32 * 4 + 8);
        k++;
    }
    cJSON_Delete(arr);
    cJSON_Delete(pt);
}

/* The cumsum point is the same scope: the same configurations, under its own family and alias. */
Test(routing, cumsum_point_plans_the_same_scope)
{
    int hi, ci;
    cJSON *h = histc_point(&hi);
    cJSON *c = point_named(CUMSUM_FILE, test_point_id("routing_cumsum", "routing-cumsum"), &ci);
    ea_error err;
    cJSON *ha = test_family_points(&ea_family_routing_histc, h, HISTC_FILE, hi, &plan_opts, 0, &err);
    cr_assert_not_null(ha, "%s", err.msg);
    cJSON *ca = test_family_points(&ea_family_routing_cumsum, c, CUMSUM_FILE, ci, &plan_opts, 0, &err);
    cr_assert_not_null(ca, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(ca), 4);
    for (int i = 0; i < 4; i++) {
        cJSON *a = cJSON_GetArrayItem(ha, i), *b = cJSON_GetArrayItem(ca, i);
        cr_assert(cJSON_Compare(cJSON_GetObjectItem(a, "config"), cJSON_GetObjectItem(b, "config"), 1));
        cr_assert_str_eq(str(b, "alias"), "routing-cumsum");
        cr_assert_str_eq(str(b, "family"), "routing_cumsum");
    }
    cJSON_Delete(ha), cJSON_Delete(ca), cJSON_Delete(h), cJSON_Delete(c);
}

Test(routing, claims_only_the_routing_cumsum)
{
    cJSON *doc = load(CUMSUM_FILE), *p;
    int claimed = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        int mine = !strcmp(str(p, "point"), test_point_id("routing_cumsum", "routing-cumsum"));
        cr_assert_eq(ea_family_routing_cumsum.claims(p), mine, "%s", str(p, "point"));
        claimed += mine;
    }
    cr_assert_eq(claimed, 1);
    cJSON_Delete(doc);
    /* a scope without sort or histc is not claimed, whatever else it holds */
    cJSON *bare = cJSON_Parse("{\"scopes\": [{\"scope\": {\"nodes\": [{\"op\": \"aten.cumsum.default\"}]}}]}");
    cr_assert_eq(ea_family_routing_cumsum.claims(bare), 0);
    cJSON_Delete(bare);
}

Test(routing, scope_resolution)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS];
    char paths[EA_AUDIT_OPS][128];
    ea_error err;
    test_golden_docs(docs, files, paths);
    ea_scope_ref refs[8];
    int n;
    cr_assert_eq(ea_repro_resolve(docs, files, "routing", refs, 8, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(refs[0].family, &ea_family_routing_histc);
    cr_assert_eq(ea_repro_resolve(docs, files, "routing-cumsum", refs, 8, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(refs[0].family, &ea_family_routing_cumsum);
    /* the capture's scope id names the cumsum point */
    cr_assert_eq(ea_repro_resolve(docs, files, "cumsum-bbbc239b67b8-008242e3eb1a", refs, 8, &n, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(refs[0].family, &ea_family_routing_cumsum, "one family only: the cumsum family leaves it out");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

/* The CPU reference on the capture's input reproduces all three checksums torch wrote, the permutation
 * included: torch's order for equal ids is the stable one. */
Test(routing, reference_matches_capture_checksums)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(CAPTURE_DIR "/capture.json", &c, &err), 0, "%s", err.msg);
    int64_t *ids, sorted[4000], perm[4000];
    int32_t offsets[32];
    cr_assert_eq(rt_ids_make(1000, 4, 32, 0, 0, &ids, &err), 0, "%s", err.msg);
    int64_t *from_capture = malloc(4000 * 8);
    cr_assert_eq(ea_gen_fill(c.inputs[0].values.json, &c.inputs[0].t, from_capture, "in0", &err), 0, "%s", err.msg);
    cr_assert_arr_eq(ids, from_capture, 4000 * 8, "the repro's ids are the capture's input");
    cr_assert_eq(rt_reference(ids, 4000, 32, sorted, perm, offsets, &err), 0, "%s", err.msg);
    const void *out[3] = {sorted, perm, offsets};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(ea_checksum(&c.outputs[i].t, out[i]), c.outputs[i].checksum, "%s", c.outputs[i].name);
    free(ids);
    free(from_capture);
    ea_capture_free(&c);
}

/* ---- malformed input ---- */

static void expect_plan_error(const cJSON *pt, const char *file, int index, const char *want1, const char *want2)
{
    ea_error err = {{0}};
    cJSON *arr = test_family_points(&ea_family_routing_histc, pt, file, index, &plan_opts, 0, &err);
    cr_assert_null(arr, "expected a failure mentioning %s", want2);
    cr_assert(strstr(err.msg, file), "names the file: %s", err.msg);
    cr_assert(strstr(err.msg, want1), "wanted \"%s\" in: %s", want1, err.msg);
    cr_assert(strstr(err.msg, want2), "wanted \"%s\" in: %s", want2, err.msg);
}

static cJSON *nodes_of(cJSON *pt)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0), "scope"),
                               "nodes");
}

static cJSON *node_op(cJSON *pt, const char *op)
{
    cJSON *n;
    cJSON_ArrayForEach(n, nodes_of(pt))
        if (!strcmp(str(n, "op"), op))
            return n;
    cr_assert_fail("no %s node", op);
    return NULL;
}

static cJSON *derived(cJSON *pt)
{
    cJSON *vps = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "value_properties");
    return cJSON_GetObjectItem(cJSON_GetArrayItem(vps, 0), "derived");
}

Test(routing, malformed_points)
{
    int i;
    cJSON *pt;
    char at[64];

    pt = histc_point(&i); /* histc with 16 bins: the offsets would not be per expert */
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_op(pt, "aten.histc.default"), "args"), 1, cJSON_CreateNumber(16));
    snprintf(at, sizeof at, "$.points[%d].scopes[0]", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected histc(bins=32, min=0, max=31)");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* no sort in the scope */
    cJSON *nodes = nodes_of(pt);
    for (int k = 0; k < cJSON_GetArraySize(nodes); k++)
        if (!strcmp(str(cJSON_GetArrayItem(nodes, k), "op"), "aten.sort.default"))
            cJSON_DeleteItemFromArray(nodes, k--);
    snprintf(at, sizeof at, "$.points[%d].scopes[0].scope.nodes", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected an aten.sort.default node");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* a descending sort */
    cJSON_ReplaceItemInObject(derived(pt), "descending", cJSON_CreateTrue());
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties[0].derived.descending", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected false");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* ids past the experts */
    cJSON_ReplaceItemInObject(derived(pt), "range", cJSON_CreateIntArray((const int[]){0, 40}, 2));
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties[0].derived.range", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected ids within [0, 31]");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* 32 ids: ATen's unstable bitonic sort (stable=False), not replicated */
    cJSON_ReplaceItemInObject(derived(pt), "tokens", cJSON_CreateNumber(8));
    snprintf(at, sizeof at, "$.points[%d]", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected 33..2147483647 ids to sort (ATen's WarpMergeSort up to 128, "
                      "MediumRadixSort up to 4096, its CUB radix sort above: what the replicas run), got 32 (8 tokens "
                      "x 4)");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* more ids than ATen sorts along one dimension (Sort.cpp: INT_MAX) */
    cJSON_ReplaceItemInObject(derived(pt), "tokens", cJSON_CreateNumber(1073741824));
    expect_plan_error(pt, HISTC_FILE, i, at, "got 4294967296 (1073741824 tokens x 4)");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* cumsum in int64 */
    cJSON *kw = cJSON_GetObjectItem(node_op(pt, "aten.cumsum.default"), "kwargs");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(kw, "dtype"), "dtype", cJSON_CreateString("i64"));
    expect_plan_error(pt, HISTC_FILE, i, "kwargs.dtype", "expected \"i32\"");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* no value properties to generate ids from */
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"),
                                                                       "value_properties"), 0), "derived");
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected a derived \"sorted_topk_ids\"");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* a mistyped field */
    cJSON_ReplaceItemInObject(derived(pt), "experts", cJSON_CreateString("32"));
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties[0].derived.experts", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected");
    cJSON_Delete(pt);
}

static cJSON *histc_args(cJSON *pt, int group)
{
    cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"),
                                                                                     group), "scope"), "nodes"))
        if (!strcmp(str(n, "op"), "aten.histc.default"))
            return cJSON_GetObjectItem(n, "args");
    cr_assert_fail("no histc node in group %d", group);
    return NULL;
}

/* The point as routing over e experts: the ids' range and histc's bins and max follow. */
static void with_experts(cJSON *pt, int e)
{
    cJSON_ReplaceItemInObject(derived(pt), "experts", cJSON_CreateNumber(e));
    cJSON_ReplaceItemInObject(derived(pt), "range", cJSON_CreateIntArray((const int[]){0, e - 1}, 2));
    cJSON_ReplaceItemInArray(histc_args(pt, 0), 1, cJSON_CreateNumber(e));
    cJSON_ReplaceItemInArray(histc_args(pt, 0), 3, cJSON_CreateNumber(e - 1));
}

/* The bounds and shapes the parse and the plan check refuse, each naming where and what. */
Test(routing, malformed_points_bounds)
{
    int i;
    cJSON *pt;
    char at[96];

    pt = histc_point(&i); /* one expert: nothing to route */
    cJSON_ReplaceItemInObject(derived(pt), "experts", cJSON_CreateNumber(1));
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties[0].derived:", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected 2 <= experts <= 1024");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* tokens * k would overflow int64: refused before the product */
    cJSON_ReplaceItemInObject(derived(pt), "tokens", cJSON_CreateNumber(4e15));
    expect_plan_error(pt, HISTC_FILE, i, at, "1 <= tokens < 2^31");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* a range that is not [min, max] */
    cJSON_ReplaceItemInObject(derived(pt), "range", cJSON_CreateIntArray((const int[]){0, 15, 31}, 3));
    snprintf(at, sizeof at, "$.points[%d].signature.value_properties[0].derived.range", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected [min, max]");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* histc without its max */
    cJSON_DeleteItemFromArray(histc_args(pt, 0), 3);
    snprintf(at, sizeof at, "$.points[%d].scopes[0].scope.nodes[", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected histc(input, bins, min, max), got 3 args");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* a group without occurrences: no capture to find */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0), "occurrences",
                              cJSON_CreateArray());
    snprintf(at, sizeof at, "$.points[%d].scopes[0].occurrences", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected at least one occurrence");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* no scope groups at all */
    cJSON_ReplaceItemInObject(pt, "scopes", cJSON_CreateArray());
    snprintf(at, sizeof at, "$.points[%d].scopes", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected 1 to 8 scope groups, got 0");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* a second group that bins differently */
    cJSON *groups = cJSON_GetObjectItem(pt, "scopes");
    cJSON_AddItemToArray(groups, cJSON_Duplicate(cJSON_GetArrayItem(groups, 0), 1));
    cJSON_ReplaceItemInArray(histc_args(pt, 1), 1, cJSON_CreateNumber(16));
    snprintf(at, sizeof at, "$.points[%d].scopes[1].scope.nodes[", i);
    expect_plan_error(pt, HISTC_FILE, i, at, "expected the arguments of the first scope group (bins 32, [0, 31]), got "
                      "bins 16");
    cJSON_Delete(pt);

    pt = histc_point(&i); /* 128 experts plan (below), but the golden capture is of 32: it cannot run them */
    with_experts(pt, 128);
    ea_error err = {{0}};
    cr_assert_null(test_family_points(&ea_family_routing_histc, pt, HISTC_FILE, i, &plan_opts, 0, &err));
    cr_assert(strstr(err.msg, CAPTURE_DIR "/capture.json $.outputs[2]: expected a contiguous i32[128] at offset 0 "
                              "(the scope's), got i32[32]"), "%s", err.msg);
    cJSON_Delete(pt);
}

/* gpt-oss-120b's routing (128 experts) and its neighbours: the parse and the plan check accept them, and
 * histc's launch is ATen's SHARED mode, as the torch profiler saw torch 2.11 run 128 bins on the H200:
 * grid 8 x 512, 520 bytes of shared memory. The sort depends on the ids alone (4000: MediumRadixSort of
 * 4096); the oracle's tables stay within a CTA's 48 KiB. */
Test(routing, plan_other_expert_counts)
{
    int i;
    cJSON *pt = histc_point(&i);
    ea_error err;
    rt_scope s32, s;
    rt_capture c;
    cr_assert_eq(rt_scope_parse(pt, HISTC_FILE, i, &s32, &err), 0, "%s", err.msg);
    cr_assert_eq(rt_scope_capture(&s32, pt, test_golden_captures(), &c, &err), 0, "%s", err.msg);
    for (int e = 64; e <= 256; e *= 2) {
        with_experts(pt, e);
        cr_assert_eq(rt_scope_parse(pt, HISTC_FILE, i, &s, &err), 0, "%s", err.msg);
        cr_assert_eq(s.bins, e);
        cr_assert_eq(rt_plan_check(&s, &err), 0, "%d experts: %s", e, err.msg);
        cJSON *cfg = rt_config_json(&s, &c, RT_WHOLE, RT_UNIFORM, 132), *l;
        const cJSON *hist = NULL, *sort = NULL;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "current")) {
            hist = strstr(str(l, "kernel"), "kernelHistogram1D") ? l : hist;
            sort = strstr(str(l, "kernel"), "radixSortKVInPlace") ? l : sort;
        }
        cr_assert(hist && sort, "%s", cJSON_PrintUnformatted(cfg));
        cr_assert_eq(cJSON_GetObjectItem(hist, "grid")->valueint, 8, "%d experts", e);
        cr_assert_eq(cJSON_GetObjectItem(hist, "block")->valueint, 512);
        cr_assert_eq(cJSON_GetObjectItem(hist, "shared_bytes")->valueint, e * 4 + 8);
        cr_assert(strstr(str(sort, "kernel"), "radixSortKVInPlace<-2, -1, 128, 32, long, long"), "%s", str(sort, "kernel"));
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cfg, "histc"), "bins")->valueint, e);
        const cJSON *ol = oracle_launch(cfg, 0);
        cr_assert_leq(cJSON_GetObjectItem(ol, "shared_bytes")->valueint, 48 * 1024);
        cr_assert_eq(cJSON_GetObjectItem(oracle_launch(cfg, 1), "grid")->valueint, e, "a CTA per expert");
        int cited = 0;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "notes"))
            cited |= !strcmp(l->valuestring, "routing_histc_shared");
        cr_assert(cited, "the notes name the histc reading (its text, prose.c, points at docs/evidence/routing_sort.md)");
        cJSON_Delete(cfg);
    }
    cJSON_Delete(pt);
}

/* ATen's SHARED-mode grid (SummaryOps.cu CUDA_tensor_histogram) transcribed: the profiler's 128-bin
 * launch, getApplyGrid's ceil(n / 512) when it is the smaller, optimalGrid's atomics balance when it is
 * (its direct branch: enough work per SM; its sqrt branch: too little), and the multiprocessor count. */
Test(routing, histc_grid_as_aten_sizes_it)
{
    cr_assert_eq(rt_hist_grid(4000, 128, 132), 8, "the H200 profile: 8 x 512");
    cr_assert_eq(rt_hist_shared_bytes(128), 520);
    cr_assert_eq(rt_hist_grid(4000, 32, 132), 8, "the golden point's launch is unchanged");
    cr_assert_eq(rt_hist_grid(1000000, 32, 132), 977, "optimalGrid >= #SM: ceil(n / (2 steps x 512))");
    cr_assert_eq(rt_hist_grid(100000, 512, 132), 40, "sqrt branch: 1 + sqrt(8n / bins) = 40, 5 steps");
    cr_assert_eq(rt_hist_grid(100000, 512, 8), 196, "8 SMs: the direct branch (196 >= 8), one step of ceil(n / 512)");
    cr_assert_eq(rt_hist_grid(100, 4, 132), 1);
}

/* The plan check's own bounds: what the oracle's cluster can hold (16 rounds of an id per thread, an expert
 * per thread), each refusal naming where. */
Test(routing, plan_check_refuses_past_the_oracle)
{
    rt_scope s = {.file = "points.json", .path = "$.points[3]", .n = 4000, .experts = 32, .bins = 32};
    ea_error err = {{0}};
    cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
    s.experts = 513;
    cr_assert_eq(rt_plan_check(&s, &err), -1);
    cr_assert(strstr(err.msg, "points.json $.points[3]: expected at most 65536 ids and 512 experts") &&
                  strstr(err.msg, "got 4000 ids and 513 experts"), "%s", err.msg);
    s.experts = 32, s.n = 65536; /* 16 rounds */
    cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
    s.n = 65537;
    cr_assert_eq(rt_plan_check(&s, &err), -1);
    cr_assert(strstr(err.msg, "got 65537 ids and 32 experts"), "%s", err.msg);
    s.n = 4000, s.experts = s.bins = 512; /* the most experts: 2056 bytes of histogram, SHARED */
    cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
    s.bins = 12286; /* 49152 bytes: not below sharedMemPerBlock, ATen's GLOBAL mode */
    cr_assert_eq(rt_plan_check(&s, &err), -1);
    cr_assert(strstr(err.msg, "points.json $.points[3]: expected at most 12285 histc bins (49152 bytes") &&
                  strstr(err.msg, "got 12286"), "%s", err.msg);
}

/* A golden folder at dir whose one target holds the routing capture, its capture.json edited by edit(). */
static const char *golden_with_capture(void (*edit)(cJSON *cap))
{
    const char *dir = test_tmpdir();
    char cmd[5000], *target = test_target(dir, "H200", "2.11.0+cu130", "9.0");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/captures && cp -r %s %s/captures/", target, CAPTURE_DIR, target);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cJSON *cap = load(CAPTURE_DIR "/capture.json");
    edit(cap);
    char *text = cJSON_Print(cap);
    free(test_write(target, "captures/cumsum-bbbc239b67b8-008242e3eb1a/capture.json", text));
    free(target);
    free(text);
    cJSON_Delete(cap);
    return dir;
}

static cJSON *step(cJSON *cap, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 0), "steps"), i);
}

static void unstable_sort(cJSON *cap)
{
    cJSON_ReplaceItemInObject(step(cap, 0), "call", cJSON_CreateString("torch.ops.aten.sort.default"));
}

static void other_offsets(cJSON *cap)
{
    cJSON *out2 = cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "outputs"), 2);
    cJSON_ReplaceItemInObject(out2, "sizes", cJSON_CreateIntArray((const int[]){16}, 1));
}

static void convert_reads_perm(cJSON *cap)
{
    cJSON *arg0 = cJSON_GetArrayItem(cJSON_GetObjectItem(step(cap, 1), "args"), 0);
    cJSON_ReplaceItemInObject(arg0, "buffer", cJSON_CreateString("out1"));
}

static void no_default_run(cJSON *cap)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cap, "runs"), 0); /* coordinate_descent is left */
}

static void three_steps(cJSON *cap)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 0), "steps"), 3);
}

/* run 1 is the coordinate_descent run (the current_tuned path) */
static cJSON *tuned_run(cJSON *cap)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 1);
}

static void tuned_three_steps(cJSON *cap)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(tuned_run(cap), "steps"), 3);
}

static void tuned_scan_writes_perm(cJSON *cap)
{
    cJSON *scan = cJSON_GetArrayItem(cJSON_GetObjectItem(tuned_run(cap), "steps"), 3);
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(scan, "args"), 0), "buffer", cJSON_CreateString("out1"));
}

static void tuned_other_buffer(cJSON *cap)
{
    cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(tuned_run(cap), "buffers"), 0);
    cJSON_ReplaceItemInObject(b, "bytes", cJSON_CreateNumber(32000));
}

static void not_covering(cJSON *cap)
{
    cJSON_ReplaceItemInObject(cap, "covers", cJSON_CreateStringArray((const char *[]){"elsewhere:histc"}, 1));
}

static void expect_capture_error(void (*edit)(cJSON *), const char *want1, const char *want2)
{
    const char *dir = golden_with_capture(edit);
    char file[512];
    snprintf(file, sizeof file, "%s/occurrences/histc.json", dir); /* only its folder matters */
    int i;
    cJSON *pt = histc_point(&i);
    ea_error err = {{0}};
    cr_assert_null(test_family_points(&ea_family_routing_histc, pt, file, i, &plan_opts, 0, &err));
    cr_assert(strstr(err.msg, dir), "names the folder: %s", err.msg);
    cr_assert(strstr(err.msg, want1), "wanted \"%s\" in: %s", want1, err.msg);
    cr_assert(strstr(err.msg, want2), "wanted \"%s\" in: %s", want2, err.msg);
    cJSON_Delete(pt);
}

Test(routing, malformed_captures)
{
    expect_capture_error(unstable_sort, "capture.json $.runs[0].steps[0]",
                         "expected torch.ops.aten.sort.stable, got torch.ops.aten.sort.default");
    expect_capture_error(other_offsets, "capture.json $.outputs[2]", "expected a contiguous i32[32]");
    expect_capture_error(convert_reads_perm, "capture.json $.runs[0].steps[1].args[0]", "expected buffer \"out0\"");
    expect_capture_error(no_default_run, "capture.json $.runs", "expected a run with config \"default\", got none");
    expect_capture_error(three_steps, "capture.json $.runs[0].steps",
                         "expected 4 steps (sort, convert, histc, cumsum), got 3");
    /* the coordinate_descent run is the current_tuned path: held to the same shape, refused at plan time */
    expect_capture_error(tuned_three_steps, "capture.json $.runs[1].steps",
                         "expected 4 steps (sort, convert, histc, cumsum), got 3");
    expect_capture_error(tuned_scan_writes_perm, "capture.json $.runs[1].steps[3].args[0]", "expected buffer \"out2\"");
    expect_capture_error(tuned_other_buffer, "capture.json $.runs[1].buffers[0]",
                         "expected the \"default\" run's buffers (the replay shares them): buf0 of 16000 bytes, got buf0 "
                         "of 32000");
}

/* A point no capture covers (a shape not captured yet) plans without one: the ATen launches and the
 * oracle, the Triton steps named as not captured, "capture" null; its run is one unsupported result,
 * decided before any device call, whose reason names the captures folder and the occurrence. */
Test(routing, uncaptured_point_plans_and_its_run_is_unsupported)
{
    const char *dir = golden_with_capture(not_covering);
    char file[512];
    snprintf(file, sizeof file, "%s/occurrences/histc.json", dir);
    int i;
    cJSON *pt = histc_point(&i);
    ea_error err = {{0}};
    cJSON *arr = test_family_points(&ea_family_routing_histc, pt, file, i, &plan_opts, 0, &err), *r;
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 4);
    cJSON_ArrayForEach(r, arr) {
        const cJSON *cfg = cJSON_GetObjectItem(r, "config"), *l;
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cfg, "capture")));
        cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cfg, "capture_comparable")));
        int hist = 0, uncaptured = 0;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "current")) {
            hist += cJSON_IsObject(l) && strstr(str(l, "kernel"), "kernelHistogram1D") != NULL;
            uncaptured += cJSON_IsString(l) && strstr(l->valuestring, "not captured for this shape") != NULL;
        }
        cr_assert(hist == 1 && uncaptured == 2, "%s", cJSON_PrintUnformatted(cfg));
    }
    cJSON_Delete(arr);
    const ea_run_opts run_opts = {.faithful = 1};
    arr = test_family_points(&ea_family_routing_histc, pt, file, i, &run_opts, 1, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    const cJSON *u = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "unsupported");
    cr_assert(cJSON_IsString(u) && strstr(u->valuestring, dir) &&
                  strstr(u->valuestring, "or one covering hf/infer/openai/gpt-oss-20b"),
              "%s", cJSON_PrintUnformatted(arr));
    cJSON_Delete(arr);
    cJSON_Delete(pt);
}

/* ---- past ATen's small sort: more than 4096 ids ---- */

/* What the toolkit's CUB sorts with on sm_90 for ATen's types (int64 keys, 8-byte values, int64 count), read
 * from its Policy900 at compile time: a single tile holds 256 x 9 keys, so every size past 4096 takes
 * onesweep, 8 digit passes of 8 bits, tiles of 384 x 12 keys. */
Test(routing, cub_sort_shape_from_the_toolkit)
{
    rt_cub_sort_plan p;
    cr_assert_eq(rt_cub_sort_shape(8192, &p), 0);
    cr_assert_eq(p.single_tile_items, 256 * 9);
    cr_assert_eq(p.radix_bits, 8);
    cr_assert_eq(p.passes, 8);
    cr_assert_eq(p.onesweep_threads, 384);
    cr_assert_eq(p.onesweep_tile, 384 * 12);
    cr_assert_eq(p.onesweep_blocks, 2);
    cr_assert_eq(p.histogram_threads, 128);
    cr_assert_eq(p.exclusive_sum_threads, 256);
    cr_assert_eq(rt_cub_sort_shape(16384, &p), 0);
    cr_assert_eq(p.onesweep_blocks, 4);
    cr_assert_eq(rt_cub_sort_shape(2304, &p), -1, "a single tile: CUB's other kernel, not replicated");
    cr_assert_eq(rt_cub_sort_shape(2147483648LL, &p), -1, "past ATen's INT_MAX");
    /* and the oracle's rounds */
    cr_assert_eq(rt_oracle_rounds(4096), 1);
    cr_assert_eq(rt_oracle_rounds(4097), 2);
    cr_assert_eq(rt_oracle_rounds(8192), 2);
    cr_assert_eq(rt_oracle_rounds(16384), 4);
    cr_assert_eq(rt_oracle_rounds(65536), 16);
}

/* The golden point routing `tokens` tokens at its top-4 over e experts. */
static cJSON *point_with(int *index, int tokens, int e)
{
    cJSON *pt = histc_point(index);
    with_experts(pt, e);
    cJSON_ReplaceItemInObject(derived(pt), "tokens", cJSON_CreateNumber(tokens));
    return pt;
}

static const cJSON *launch_named(const cJSON *launches, const char *name, int nth)
{
    const cJSON *l;
    cJSON_ArrayForEach(l, launches)
        if (cJSON_IsObject(l) && strstr(str(l, "kernel"), name) && nth-- == 0)
            return l;
    return NULL;
}

static int count_named(const cJSON *launches, const char *name)
{
    int k = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, launches)
        k += strstr(cJSON_IsString(l) ? l->valuestring : str(l, "kernel"), name) != NULL;
    return k;
}

/* 2048 and 4096 tokens at top-4 (8192 and 16384 ids) over 128 and 256 experts: the parse and the plan check
 * accept them; the whole form's current path is ATen's CUB sort as SortStable.cu runs it (the copy, the fill
 * of grid ceil(n / 128), onesweep's histogram, exclusive sum and 8 passes of ceil(n / 4608) CTAs), then the
 * Triton convert, histc and the scan as for any size; the oracle is the cluster in n / 4096 rounds. */
Test(routing, plan_past_the_small_sort)
{
    const int tokens[] = {2048, 4096}, experts[] = {128, 256};
    for (int t = 0; t < 2; t++)
        for (int ei = 0; ei < 2; ei++) {
            int i, n = tokens[t] * 4, e = experts[ei];
            cJSON *pt = point_with(&i, tokens[t], e);
            rt_scope s;
            ea_error err;
            cr_assert_eq(rt_scope_parse(pt, HISTC_FILE, i, &s, &err), 0, "%s", err.msg);
            cr_assert_eq(s.n, n);
            cr_assert_eq(rt_plan_check(&s, &err), 0, "%d ids, %d experts: %s", n, e, err.msg);
            for (int f = RT_WHOLE; f <= RT_NARROW; f++) {
                cJSON *cfg = rt_config_json(&s, NULL, (rt_form)f, RT_UNIFORM, 132);
                char *text = cJSON_PrintUnformatted(cfg);
                const cJSON *cur = cJSON_GetObjectItem(cfg, "current"), *l;
                cr_assert_eq(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble,
                             (f == RT_WHOLE ? 3.0 : 1.0) * n * 8 + e * 4, "%s", text);
                cr_assert_eq(count_named(cur, "radixSortKVInPlace"), 0, "no small sort: %s", text);
                const cJSON *hist = launch_named(cur, "kernelHistogram1D", 0);
                cr_assert(hist, "%s", text);
                cr_assert_eq(cJSON_GetObjectItem(hist, "grid")->valueint, rt_hist_grid(n, e, 132));
                cr_assert_eq(cJSON_GetObjectItem(hist, "shared_bytes")->valueint, e * 4 + 8);
                const cJSON *orc = oracle_launch(cfg, 0);
                if (f == RT_NARROW) { /* the sort is outside this form */
                    cr_assert_eq(count_named(cur, "DeviceRadixSort"), 0, "%s", text);
                    cr_assert_str_eq(str(orc, "kernel"), "rt_oracle::offsets_kernel");
                    cJSON_Delete(cfg), free(text);
                    continue;
                }
                const cJSON *fill = launch_named(cur, "fill_reverse_indices_kernel", 0);
                cr_assert(fill && cJSON_GetObjectItem(fill, "grid")->valueint == n / 128 &&
                              cJSON_GetObjectItem(fill, "block")->valueint == 128, "%s", text);
                cr_assert_str_eq(cJSON_GetArrayItem(cur, 0)->valuestring,
                                 "cudaMemcpyAsync device-to-device (values.copy_(self))");
                cr_assert_eq(count_named(cur, "DeviceRadixSortHistogramKernel"), 1, "%s", text);
                const cJSON *scan = launch_named(cur, "DeviceRadixSortExclusiveSumKernel", 0);
                cr_assert(scan && cJSON_GetObjectItem(scan, "grid")->valueint == 8, "%s", text);
                cr_assert_eq(count_named(cur, "DeviceRadixSortOnesweepKernel"), 8, "%s", text);
                cr_assert_eq(count_named(cur, "the pass's lookback"), 8, "%s", text);
                for (int pass = 0; pass < 8; pass++) {
                    l = launch_named(cur, "DeviceRadixSortOnesweepKernel", pass);
                    char bits[32];
                    snprintf(bits, sizeof bits, "bits %d..%d", pass * 8, pass * 8 + 7);
                    cr_assert(strstr(str(l, "kernel"), bits), "%s", str(l, "kernel"));
                    cr_assert_eq(cJSON_GetObjectItem(l, "grid")->valueint, (n + 4607) / 4608);
                    cr_assert_eq(cJSON_GetObjectItem(l, "block")->valueint, 384);
                }
                /* the scope after the sort as at any size: convert (not captured here), zeros, histc, scan */
                cr_assert_eq(count_named(cur, "not captured for this shape"), 2, "%s", text);
                cr_assert_str_eq(str(orc, "kernel"), "rt_oracle::route_rounds_kernel");
                cr_assert_eq(cJSON_GetObjectItem(orc, "grid")->valueint, 8);
                cr_assert_eq(cJSON_GetObjectItem(orc, "block")->valueint, 512);
                cr_assert_leq(cJSON_GetObjectItem(orc, "shared_bytes")->valueint, 48 * 1024);
                cr_assert_eq(cJSON_GetObjectItem(orc, "rounds")->valueint, n / 4096);
                cr_assert_null(oracle_launch(cfg, 1), "past 4096 ids the cluster alone: %s", text);
                cr_assert_str_eq(str(cfg, "permutation_order"), "stable", "%s", text);
                int cited = 0;
                cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "notes"))
                    cited |= !strcmp(l->valuestring, "routing_sort_cub");
                cr_assert(cited, "%s", text);
                cJSON_Delete(cfg), free(text);
            }
            cJSON_Delete(pt);
        }
}

/* The same sizes through the family: no capture covers them (Inductor compiles the convert and the scan per
 * shape), so each plans its four configurations without one, and a run is one unsupported result naming
 * the occurrence, before any device call. */
Test(routing, family_past_the_small_sort_plans_without_capture)
{
    const char *dir = golden_with_capture(not_covering);
    char file[512];
    snprintf(file, sizeof file, "%s/occurrences/histc.json", dir);
    int i;
    cJSON *pt = point_with(&i, 4096, 128);
    ea_error err = {{0}};
    cJSON *arr = test_family_points(&ea_family_routing_histc, pt, file, i, &plan_opts, 0, &err), *r;
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 4);
    cJSON_ArrayForEach(r, arr) {
        const cJSON *cfg = cJSON_GetObjectItem(r, "config");
        cr_assert_str_eq(str(cfg, "ids"), "i64[4096, 4]");
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cfg, "capture")));
    }
    cJSON_Delete(arr);
    const ea_run_opts run_opts = {.faithful = 1};
    arr = test_family_points(&ea_family_routing_histc, pt, file, i, &run_opts, 1, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "unsupported")));
    cJSON_Delete(arr);
    cJSON_Delete(pt);
}

/* Past the oracle's 65536 ids (16 rounds of the cluster), the plan refuses the point, naming it. */
Test(routing, plan_refuses_past_the_oracle_rounds)
{
    int i;
    cJSON *pt = point_with(&i, 16385, 128);
    char at[160];
    snprintf(at, sizeof at, "%s $.points[%d]: expected at most 65536 ids", HISTC_FILE, i);
    expect_plan_error(pt, HISTC_FILE, i, at, "got 65540 ids and 128 experts");
    cJSON_Delete(pt);
}

/* 33..128 ids (a decode step's routing: 10 or 32 tokens at top-4): ATen's small-sort path with its
 * WarpMergeSort<128> kernel, one warp, instead of MediumRadixSort; the slice size table at the bounds. */
Test(routing, plan_warp_merge_sort_below_129_ids)
{
    cr_assert_eq(rt_sort_size(32), 0, "bitonic: not replicated");
    cr_assert_eq(rt_sort_size(33), 128);
    cr_assert_eq(rt_sort_size(128), 128);
    cr_assert_eq(rt_sort_size(129), 1024);
    cr_assert_eq(rt_sort_size(4097), 0, "the CUB sort");
    const int tokens[] = {10, 32};
    for (int t = 0; t < 2; t++) {
        int i, n = tokens[t] * 4;
        cJSON *pt = point_with(&i, tokens[t], 32);
        rt_scope s;
        ea_error err;
        cr_assert_eq(rt_scope_parse(pt, HISTC_FILE, i, &s, &err), 0, "%s", err.msg);
        cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
        cJSON *cfg = rt_config_json(&s, NULL, RT_WHOLE, RT_UNIFORM, 132), *l;
        char *text = cJSON_PrintUnformatted(cfg);
        const cJSON *cur = cJSON_GetObjectItem(cfg, "current");
        cr_assert_eq(count_named(cur, "radixSortKVInPlace"), 0, "%s", text);
        cr_assert_eq(count_named(cur, "DeviceRadixSort"), 0, "%s", text);
        const cJSON *arange = launch_named(cur, "elementwise_kernel_with_index", 0);
        cr_assert(arange && cJSON_GetObjectItem(arange, "grid")->valueint == (n + 63) / 64, "%s", text);
        cr_assert_eq(count_named(cur, "cudaMemcpyAsync"), 2, "the small-sort path's copies: %s", text);
        const cJSON *sort = launch_named(cur, "warpMergeSortKVInPlace<-2, -1, 128, 16, long, long", 0);
        cr_assert(sort && cJSON_GetObjectItem(sort, "grid")->valueint == 1 &&
                      cJSON_GetObjectItem(sort, "block")->valueint == 32, "%s", text);
        cr_assert_str_eq(str(cfg, "permutation_order"), "stable", "%s", text);
        int cited = 0;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "notes"))
            cited |= !strcmp(l->valuestring, "routing_sort_warp");
        cr_assert(cited, "%s", text);
        cJSON_Delete(cfg), free(text), cJSON_Delete(pt);
    }
}
