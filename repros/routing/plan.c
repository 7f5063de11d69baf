/* plan.c: a routing configuration described without a GPU (contract in plan.h). */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "target/target_layout.h"

int rt_plan_check(const rt_scope *s, ea_error *err)
{
    if (rt_hist_shared_bytes(s->bins) >= RT_HIST_SHARED_PER_BLOCK)
        return ea_fail(err, "%s %s: expected at most %d histc bins (%" PRId64 " bytes of shared memory, below a CTA's "
                       "%d: ATen's SHARED histogram mode, the one the replica implements), got %" PRId64, s->file,
                       s->path, (RT_HIST_SHARED_PER_BLOCK - 9) / 4, rt_hist_shared_bytes(s->bins),
                       RT_HIST_SHARED_PER_BLOCK, s->bins);
    if (s->n > RT_ORACLE_MAX_IDS || s->experts > RT_ORACLE_THREADS)
        return ea_fail(err, "%s %s: expected at most %d ids and %d experts (the oracle's cluster: up to %d rounds of "
                       "an id per thread, and at most an expert per thread), got %" PRId64 " ids and %" PRId64
                       " experts", s->file, s->path, RT_ORACLE_MAX_IDS, RT_ORACLE_THREADS, RT_ORACLE_ROUNDS, s->n,
                       s->experts);
    return 0;
}

/* whole: ids in, sorted ids and permutation out (int64 each), offsets out; narrow: sorted ids in, offsets out */
static int64_t rt_floor_written_bytes(const rt_scope *s, rt_form f)
{
    return (f == RT_WHOLE ? 2 : 0) * s->n * 8 + s->experts * 4;
}

static int64_t rt_floor_bytes(const rt_scope *s, rt_form f)
{
    return s->n * 8 + rt_floor_written_bytes(s, f);
}

/* The generator object of a distribution: {"generator", "seed", "experts", "k"} (src/target/gen.c). */
static cJSON *rt_generator_json(const rt_scope *s, rt_dist d)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "generator", d == RT_SKEWED ? "topk_ids_skewed" : "topk_ids");
    cJSON_AddNumberToObject(g, "seed", RT_SEED);
    cJSON_AddNumberToObject(g, "experts", (double)s->experts);
    cJSON_AddNumberToObject(g, "k", (double)s->k);
    return g;
}

static void launch_fields(cJSON *o, const char *kernel, int64_t grid, int64_t block, int64_t shared)
{
    cJSON_AddStringToObject(o, "kernel", kernel);
    cJSON_AddNumberToObject(o, "grid", (double)grid);
    cJSON_AddNumberToObject(o, "block", (double)block);
    if (shared)
        cJSON_AddNumberToObject(o, "shared_bytes", (double)shared);
}

static void launch(cJSON *arr, const char *kernel, int64_t grid, int64_t block, int64_t shared)
{
    cJSON *o = cJSON_CreateObject();
    launch_fields(o, kernel, grid, block, shared);
    cJSON_AddItemToArray(arr, o);
}

/* ATen's CUB sort of n ids as the toolkit's CUB runs it on sm_90 (sort_cub.cu): the copy and the fill,
 * then onesweep: its memsets, the histogram kernel (grid sized by occupancy on the device), the
 * exclusive sum (a CTA per digit pass), and per pass a lookback memset and the onesweep kernel. Where each
 * step is in ATen and CUB: docs/evidence/routing_sort.md. */
static void cub_sort(cJSON *cur, int64_t n, int sms)
{
    rt_cub_sort_plan p;
    char text[320];
    rt_cub_sort_shape(n, &p);
    cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemcpyAsync device-to-device (values.copy_(self))"));
    launch(cur, "rt_aten::fill_reverse_indices_kernel", (n + RT_CUB_FILL_THREADS - 1) / RT_CUB_FILL_THREADS,
           RT_CUB_FILL_THREADS, 0);
    cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemsetAsync x2 (CUB onesweep: pass counters, digit histograms)"));
    snprintf(text, sizeof text, "cub DeviceRadixSortHistogramKernel<Policy1000, long, unsigned long long>: block %d, "
             "grid its blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor) x %d SMs",
             p.histogram_threads, sms);
    cJSON_AddItemToArray(cur, cJSON_CreateString(text));
    launch(cur, "cub DeviceRadixSortExclusiveSumKernel<Policy1000, unsigned long long> (a CTA per digit pass)",
           p.passes, p.exclusive_sum_threads, 0);
    for (int pass = 0; pass < p.passes; pass++) {
        cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemsetAsync (CUB onesweep: the pass's lookback)"));
        snprintf(text, sizeof text, "cub DeviceRadixSortOnesweepKernel<Policy1000, long, OpaqueType8, unsigned long "
                 "long, int, int> (digit pass %d: bits %d..%d, %d keys a CTA)", pass, pass * p.radix_bits,
                 pass * p.radix_bits + p.radix_bits - 1, p.onesweep_tile);
        launch(cur, text, p.onesweep_blocks, p.onesweep_threads, 0);
    }
}

/* A captured Triton step's launch; without a capture (c NULL) what it stands for. */
static void triton(cJSON *arr, const ea_capture_step *st, const char *what)
{
    char name[320];
    if (!st) {
        snprintf(name, sizeof name, "%s: Inductor's Triton kernel, not captured for this shape", what);
        cJSON_AddItemToArray(arr, cJSON_CreateString(name));
        return;
    }
    snprintf(name, sizeof name, "%s (captured cubin)", st->function);
    launch(arr, name, st->grid[0] * st->grid[1] * st->grid[2], st->block[0] * st->block[1] * st->block[2], st->shared);
}

void rt_route_variant_json(const rt_scope *s, int v, cJSON *o, int full)
{
    cJSON_AddStringToObject(o, "variant", v == RT_ROUTE_CLUSTER ? "cluster" : "per_expert");
    if (!full)
        return;
    if (v == RT_ROUTE_PER_EXPERT) {
        launch_fields(o, "rt_oracle::expert_kernel", s->experts, RT_EXPERT_THREADS, 0);
        return;
    }
    int rounds = rt_oracle_rounds(s->n);
    launch_fields(o, rounds > 1 ? "rt_oracle::route_rounds_kernel" : "rt_oracle::route_kernel", RT_ORACLE_CLUSTER,
                  RT_ORACLE_THREADS, (int64_t)rt_oracle_shared_bytes(s->experts));
    cJSON_AddNumberToObject(o, "cluster", RT_ORACLE_CLUSTER);
    if (rounds > 1) /* one id per thread per round, rounds in position order */
        cJSON_AddNumberToObject(o, "rounds", rounds);
}

cJSON *rt_config_json(const rt_scope *s, const rt_capture *c, rt_form f, rt_dist d, int sms)
{
    cJSON *o = cJSON_CreateObject(), *cur, *orc, *notes, *h;
    char text[320];
    cJSON_AddStringToObject(o, "form", f == RT_WHOLE ? "routing_form_whole" : "routing_form_narrow"); /* ids: prose.c */
    cJSON_AddItemToObject(o, "distribution", rt_generator_json(s, d));
    snprintf(text, sizeof text, "i64[%" PRId64 ", %" PRId64 "]", s->tokens, s->k);
    cJSON_AddStringToObject(o, "ids", text);
    cJSON_AddNumberToObject(o, "experts", (double)s->experts);
    h = cJSON_AddObjectToObject(o, "histc");
    cJSON_AddNumberToObject(h, "bins", (double)s->bins);
    cJSON_AddNumberToObject(h, "min", (double)s->hmin);
    cJSON_AddNumberToObject(h, "max", (double)s->hmax);
    cJSON_AddStringToObject(o, "current_source", "inductor");
    /* the capture timed the whole partition on topk_ids seed 0: only that configuration prices the same work */
    cJSON_AddBoolToObject(o, "capture_comparable", c && f == RT_WHOLE && d == RT_UNIFORM);
    if (c) {
        char rel[200];
        ea_tf_capture(NULL, c->cap->scope, rel, sizeof rel);
        snprintf(text, sizeof text, "%s run \"%s\"", rel, c->run->config);
        cJSON_AddStringToObject(o, "capture", text);
    } else {
        cJSON_AddNullToObject(o, "capture");
    }
    cur = cJSON_AddArrayToObject(o, "current");
    if (f == RT_WHOLE && s->n <= RT_SORT_MAX) {
        int size = rt_sort_size(s->n);
        launch(cur, "rt_aten::elementwise_kernel_with_index<int, ArangeOp> (arange: fillSliceWithIndex)",
               (s->n + RT_ARANGE_THREADS - 1) / RT_ARANGE_THREADS, RT_ARANGE_THREADS, 0);
        cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemcpyAsync device-to-device (indices.copy_(arange))"));
        cJSON_AddItemToArray(cur, cJSON_CreateString("cudaMemcpyAsync device-to-device (values.copy_(self))"));
        if (size == RT_WARP_SORT_MAX) {
            snprintf(text, sizeof text, "rt_aten::warpMergeSortKVInPlace<-2, -1, %d, %d, long, long, LTOp<long, "
                     "true>, unsigned int> (WarpMergeSort<%d>, one warp)", size, RT_WARP_SORT_MAX_Y, size);
            launch(cur, text, 1, 32, 0);
        } else {
            snprintf(text, sizeof text, "rt_aten::radixSortKVInPlace<-2, -1, %d, %d, long, long, unsigned int> "
                     "(MediumRadixSort, sort size %d)", size / RT_SORT_ITEMS, RT_SORT_ITEMS, size);
            launch(cur, text, 1, size / RT_SORT_ITEMS, 0);
        }
    } else if (f == RT_WHOLE) {
        cub_sort(cur, s->n, sms);
    }
    triton(cur, c ? c->convert : NULL, "convert (sorted ids to int32)");
    launch(cur, "rt_aten::vectorized_elementwise_kernel<4, FillFunctor<int>> (at::zeros: histc's output)",
           (s->bins + RT_FILL_THREADS * RT_FILL_ELEMS - 1) / (RT_FILL_THREADS * RT_FILL_ELEMS), RT_FILL_THREADS, 0);
    launch(cur, "rt_aten::kernelHistogram1D<int, int, long, 1, 2, -1, SHARED> (histc)",
           rt_hist_grid(s->n, s->bins, sms), RT_HIST_THREADS, rt_hist_shared_bytes(s->bins));
    triton(cur, c ? c->scan : NULL, "cumsum (the offsets)");
    orc = cJSON_AddObjectToObject(o, "oracle");
    if (f == RT_WHOLE) {
        cJSON_AddStringToObject(orc, "kind", "counting_sort"); /* docs/evidence/routing_sort.md, "The oracle" */
        cJSON *vs = cJSON_AddArrayToObject(orc, "variants"); /* the run times each, keeps the fastest (ea_path_tune) */
        for (int v = 0; v < RT_ROUTE_VARIANTS; v++) {
            if (!rt_route_applies(v, s->n, s->experts))
                continue;
            cJSON *one = cJSON_CreateObject();
            rt_route_variant_json(s, v, one, 1);
            cJSON_AddItemToArray(vs, one);
        }
    } else {
        cJSON_AddStringToObject(orc, "kind", "boundary_search"); /* each boundary of the sorted ids writes its offsets */
        launch(cJSON_AddArrayToObject(orc, "launches"), "rt_oracle::offsets_kernel",
               (s->n + 1 + RT_NARROW_THREADS - 1) / RT_NARROW_THREADS, RT_NARROW_THREADS, 0);
    }
    /* ascending id, then ascending position: the order each of ATen's sorts gives (docs/evidence/routing_sort.md), so the
     * permutation is checked bit-exact */
    cJSON_AddStringToObject(o, "permutation_order", "stable");
    cJSON_AddNumberToObject(o, "floor_bytes", (double)rt_floor_bytes(s, f));
    cJSON_AddNumberToObject(o, "floor_written_bytes", (double)rt_floor_written_bytes(s, f));
    /* note ids (prose.c); the sources read and their provenance: docs/evidence/routing_sort.md */
    notes = cJSON_AddArrayToObject(o, "notes");
    cJSON_AddItemToArray(notes, cJSON_CreateString(s->n <= RT_WARP_SORT_MAX ? "routing_sort_warp"
                                                   : s->n <= RT_SORT_MAX    ? "routing_sort_medium"
                                                                            : "routing_sort_cub"));
    cJSON_AddItemToArray(notes, cJSON_CreateString("routing_histc_shared"));
    if (!c)
        cJSON_AddItemToArray(notes, cJSON_CreateString("no_capture_unsupported"));
    cJSON_AddItemToArray(notes, cJSON_CreateString(!c                ? "routing_checked_reference"
                                                   : d == RT_UNIFORM ? "routing_checked_capture"
                                                                     : "routing_skewed_reference"));
    if (f == RT_NARROW)
        cJSON_AddItemToArray(notes, cJSON_CreateString("routing_narrow"));
    return o;
}
