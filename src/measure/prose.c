/* prose.c: note texts, verdicts, unmeasured reasons and cache policies rendered from ids and numbers (contract in
 * prose.h). */
#include "measure/prose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu/timer.h"
#include "base/json.h"
#include "measure/fractions.h"
#include "measure/path.h"
#include "measure/prose_impl.h"
#include "target/target_layout.h"

/* One row per note id a family's plan may list. A text may change freely: documents store the id. */
static const struct {
    const char *id, *text;
} notes[] = {
    {"avgpool_identity_copy",
     "an identity pool's backward is its grad: the copy is the oracle of the op alone; in the scope the grad (a "
     "reshape of the dropout backward's product, used by nothing else) could be aliased, so a decomposition would "
     "move no bytes at all and the consumer's convert_element_type reads it directly"},
    {"avgpool_aten_atomic",
     "ATen (AdaptiveAveragePooling.cu, contiguous input): zeros_like, then one atomic bf16 add per element (atomic "
     "is forced: 'bool atomic = true'), 36 or 49 of the block's 256 threads busy per plane"},
    {"avgpool_memset_fill",
     "the current path zeroes with cudaMemsetAsync where ATen launches its fill kernel "
     "(vectorized_elementwise_kernel<8, FillFunctor<c10::BFloat16>>); the run's fidelity line compares the path with "
     "torch's op alone (the target's " EA_TORCH_OPS_NAME ", tools/capture/op_timing.py)"},
    {"cat_block",
     "the dense block the cat belongs to (repros/cat/view.c derives it from the golden cats): its cats over the cap, "
     "how often the block's first conv output is read and copied into them, and the bytes copied into cats today "
     "against a fused design's"},
    {"cat_current_replayed",
     "current: the captured Inductor kernels replayed (ea_replay_run); its check counts output tensors whose "
     "checksum differs from torch's (mismatched) and reports as rel_l2/max_abs the CPU emulation of Inductor's "
     "fp32 arithmetic against fp64 (the replay returns checksums, not values)"},
    {"cat_tolerance",
     "tolerance: the cat bit-exact; y within one rounding of the config's dtype times |ref| + 2^-16 of its terms' "
     "magnitude; statistics within 2^-16 relative (accumulated in fp64 in train mode); the oracle no less accurate "
     "than the current path"},
    {"cumsum_mask",
     "create_position_ids_from_input_ids: ids != pad, row cumsum, (i32(cumsum) + past) * mask + pad; the capture's "
     "randint ids almost never hold the pad token, so both paths are checked on a right-padded batch too "
     "(view.padded)"},
    {"cumsum_packed",
     "find_packed_sequence_indices: the position ids come from iota in the graph, every difference is 1, so the "
     "scope's cumsum is all zeros whatever the batch; both paths still build and scan the flags"},
    {"cumsum_const",
     "the attention mask is full(1.0) in the graph: Inductor folds the f32 scan into one pointwise kernel "
     "((j + 1) * fill), and so does the oracle; exact while the sums stay below 2^24"},
    {"cumsum_current_replayed",
     "current: the capture's run (config.current lists its Triton launches), replayed on the scope's buffers; "
     "floor: inputs read + outputs written"},
    {"fidelity_no_torch_mode", "no torch measurement in this mode"},
    {"fidelity_replica_not_run", "the replica did not run in this mode (see --mode)"},
    {"fidelity_torch_ops_absent",
     "no torch measurement: the target's " EA_TORCH_OPS_NAME " absent (tools/capture/op_timing.py writes it)"},
    {"fidelity_torch_ops_no_entry", "no torch measurement: the target's " EA_TORCH_OPS_NAME " has no entry for this point"},
    {"fidelity_no_capture", "no capture"},
    {"fidelity_scope_beyond_op",
     "not against the op alone: the scope's current path runs the captured consumer kernel after the replica (the "
     "same replica's other configurations of the point are compared)"},
    {"fidelity_other_gpu",
     "none: measured on another GPU model than the target's (run --any-gpu); the captured and torch times are the "
     "target GPU's"},
    {"fidelity_replica_not_run_capture_mode", "the replica did not run in the capture's mode"},
    {"fidelity_capture_not_comparable",
     "another form of the scope or other inputs than the capture's run (config.capture_comparable false): the ratio "
     "is no fidelity check"},
    {"fidelity_capture_larger_partition",
     "the capture times a larger partition than the replica (its extra steps are listed): the ratio is no fidelity "
     "check"},
    {"index_add_index_unknown",
     "index value properties missing or of an unknown kind: no faithful index can be rebuilt, the general oracle is "
     "used on the fabricated index"},
    {"index_add_self_generated",
     "self is not a constant fill: it is generated data, and only the general oracle applies"},
    {"index_add_no_oracle", "out, self and source are not all contiguous with equal layouts: no oracle"},
    {"index_add_no_structured_oracle",
     "the index structure (config.index) has no structured oracle: the general one is timed"},
    {"no_capture_unsupported",
     "no capture covers this point: Inductor compiles the scope's kernels per shape, so the current path runs once "
     "tools/capture has recorded them on a GPU; until then `run` reports it unsupported"},
    {"routing_sort_warp",
     "aten.sort.stable(stable=False) on up to 128 int64 ids: should_use_small_sort sends it to sortKeyValueInplace, "
     "whose WarpMergeSort<128> sorts 33..128 ids in one warp (docs/evidence/routing_sort.md)"},
    {"routing_sort_medium",
     "aten.sort.stable(stable=False) on up to 4096 int64 ids: should_use_small_sort sends it to "
     "sortKeyValueInplace's MediumRadixSort, one CTA, not SortImpl.cu's segmented CUB sort (docs/evidence/routing_sort.md)"},
    {"routing_sort_cub",
     "aten.sort.stable(stable=False) on more than 4096 int64 ids: SortStable.cu segmented_sort_large_segments, "
     "cub::DeviceRadixSort::SortPairs on 64 bits, CUB's sm_90 onesweep (docs/evidence/routing_sort.md)"},
    {"routing_histc_shared",
     "histc: kernelHistogram1D in SHARED mode (config.histc's bins fit in sharedMemPerBlock; torch 2.11 has no bins "
     "threshold), grid min(ceil(n / 512), optimalGrid) for the config's multiprocessors (docs/evidence/routing_sort.md)"},
    {"routing_checked_reference", "no capture: checked against the CPU reference only"},
    {"routing_checked_capture",
     "the capture's own input (topk_ids seed 0): outputs also checked against its checksums"},
    {"routing_skewed_reference", "topk_ids_skewed has no capture: checked against the CPU reference only"},
    {"routing_narrow",
     "current starts from the sorted ids: convert, histc (zeros + kernel), scan; the sort is outside this form"},
    /* a configuration's terms (config.form, oracle.kind, ...): ids, rendered where a plan or table prints them */
    {"avgpool_fill_memset", "at::zeros_like(self): the output zeroed (cudaMemsetAsync here)"},
    {"avgpool_oracle_memcpy", "cudaMemcpyAsync device to device of the grad"},
    {"cat_oracle_stream", "stream: one fused kernel, every input read once, y written once"},
    {"cat_oracle_channel_train",
     "channel: a CTA or a warp per channel reads it once, writes the cat, fp64 statistics, normalized output"},
    {"cat_oracle_channel_infer", "channel: per channel or per tile of channels, normalized and pooled"},
    {"cumsum_scan_ballot",
     "the pad flags summed by warp ballots and popcounts, the warps' totals through shared memory (one barrier; none "
     "in a one-warp CTA)"},
    {"cumsum_scan_block", "cub::BlockScan<int> InclusiveSum, one row per CTA, blocked items per thread"},
    {"index_add_staged_grid",
     "multiprocessors x resident blocks (occupancy at launch), each looping over equal spans of at most "
     "span_chunks_max chunks"},
    {"routing_form_whole", "whole scope: ids -> sorted ids, permutation, offsets"},
    {"routing_form_narrow", "narrow: sorted ids -> offsets (the sort stays)"},
};

static const char *reworded_id, *reworded_text;

void ea_prose_reword(const char *id, const char *text)
{
    reworded_id = id;
    reworded_text = text;
}

static const char *reworded(const char *id, const char *text)
{
    return reworded_id && !strcmp(id, reworded_id) ? reworded_text : text;
}

const char *ea_note_text(const char *id)
{
    for (size_t i = 0; id && i < sizeof notes / sizeof notes[0]; i++)
        if (!strcmp(id, notes[i].id))
            return reworded(id, notes[i].text);
    return NULL;
}

/* A verdict's sentence, its speedup (and for fused_kernel the launches it replaces) filled in. */
static const struct {
    const char *id, *text;
} verdicts[] = {
    {"no_material_headroom", "measured, no material headroom"},
    {"headroom", "headroom: %.2fx"},
    {"fused_kernel", "speedup %.2fx over the current path (%d Inductor launches -> 1 fused kernel)"},
};

const char *ea_verdict_template(const char *id)
{
    for (size_t i = 0; id && i < sizeof verdicts / sizeof verdicts[0]; i++)
        if (!strcmp(id, verdicts[i].id))
            return reworded(id, verdicts[i].text);
    return NULL;
}

int ea_verdict_known(const char *id)
{
    return ea_verdict_template(id) != NULL;
}

void ea_verdict_text(const cJSON *result, char *out, size_t n)
{
    const char *id = ej_str(result, "verdict");
    const cJSON *view = cJSON_GetObjectItemCaseSensitive(result, "view");
    double launches = ej_num(cJSON_GetObjectItemCaseSensitive(result, "config"), "current_launches");
    int y = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(view, "oracle_checksums_equal_torch"), "y"));
    snprintf(out, n, "%s", "");
    for (size_t i = 0; id && i < sizeof verdicts / sizeof verdicts[0]; i++)
        if (!strcmp(id, verdicts[i].id)) {
            const char *f = ea_verdict_template(id);
            ea_figures x;
            ea_result_figures(result, &x);
            int len = snprintf(out, n, f, x.speedup, (int)launches);
            if (!strcmp(id, "fused_kernel") && y && len >= 0 && (size_t)len < n)
                snprintf(out + len, n - (size_t)len, "; y bit-identical to torch's");
        }
}

/* Why a golden point holds no result: one row per reason id a baselines document's "unmeasured" list may give. */
static const struct {
    const char *id, *text;
    int awaits_gpu; /* a GPU run records the point (not a reason by design) */
} unmeasured[] = {
    {"fft_library",
     "library: a cuFFT plan behind ATen's _fft_c2c (FNet's fft2 over 512 x 768, complex64); Inductor has no FFT "
     "lowering and no repro replaces cuFFT, so no timing is kept; its captures (" EA_CAPTURES_NAME "/fft_c2c-*, "
     "STEPS=newops ci/gpu-check) show Inductor calling torch.ops.aten._fft_c2c.default between its own Triton kernels: "
     "class library_extern",
     0},
    {"view_as_real_alias",
     "a view: c64 storage read as f32 pairs, no bytes moved, so nothing of its own to time; its captures "
     "(" EA_CAPTURES_NAME "/view_as_real-*, STEPS=newops ci/gpu-check) show Inductor calling "
     "torch.ops.aten.view_as_real.default, an aliasing call that launches no kernel, between its own Triton kernels",
     0},
    {"view_as_complex_alias",
     "a view: the select_scatter's f32 pairs read as c64, no bytes moved, so nothing of its own to time; its captures "
     "(" EA_CAPTURES_NAME "/view_as_complex-*, STEPS=newops ci/gpu-check) show Inductor calling "
     "torch.ops.aten.view_as_complex.default, an aliasing call that launches no kernel, between its own Triton "
     "kernels",
     0},
    {"symint_host_arithmetic",
     "host arithmetic: the SymInt product s16*s82 (a reshape size) evaluated in Inductor's wrapper, no tensor and no "
     "kernel; tools/capture cannot build its symbolic scope",
     0},
    {"avgpool_backward_not_recorded",
     "no baseline recorded yet: the avgpool_backward family (ATen's fill + atomic kernel, a copy oracle) runs on a GPU "
     "in STEPS=newops ci/gpu-check, whose result gate --propose adds",
     1},
};

int ea_unmeasured_awaits_gpu(const char *id)
{
    for (size_t i = 0; id && i < sizeof unmeasured / sizeof unmeasured[0]; i++)
        if (!strcmp(id, unmeasured[i].id))
            return unmeasured[i].awaits_gpu;
    return 0;
}

const char *ea_unmeasured_text(const char *id)
{
    for (size_t i = 0; id && i < sizeof unmeasured / sizeof unmeasured[0]; i++)
        if (!strcmp(id, unmeasured[i].id))
            return reworded(id, unmeasured[i].text);
    return NULL;
}

const char *ea_unmeasured_id(const char *text)
{
    for (size_t i = 0; text && i < sizeof unmeasured / sizeof unmeasured[0]; i++)
        if (!strcmp(text, unmeasured[i].text))
            return unmeasured[i].id;
    return NULL;
}

static void policy_text(const cJSON *doc, int cold, int calls, int replays, int ops, char *out, size_t n)
{
    ea_timing t = {0};
    t.cache = cold ? EA_CACHE_COLD : EA_CACHE_WARM;
    t.calls_per_replay = calls;
    t.replays = replays;
    t.warmup_ms = ej_num(doc, "warmup_ms");
    t.l2_bytes = (size_t)ej_num(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "l2_bytes");
    t.flush_bytes = 2 * t.l2_bytes; /* ea_timer_flush_plan's rule */
    t.ops_per_call = ops;
    ea_timer_describe(&t);
    snprintf(out, n, "%s", t.policy);
}

void ea_time_policy_text(const cJSON *doc, const cJSON *time, int cold, char *out, size_t n)
{
    policy_text(doc, cold, (int)ej_num(time, "calls_per_replay"), (int)ej_num(time, "samples"),
                (int)ej_num(time, "operations"), out, n);
}

void ea_run_policy_text(const cJSON *doc, char *out, size_t n)
{
    policy_text(doc, 0, (int)ej_num(doc, "calls_per_replay"), (int)ej_num(doc, "replays"), 0, out, n);
}

void ea_paths_policy_text(const cJSON *doc, char *out, size_t n)
{
    const cJSON *r, *p;
    double lo = INFINITY, hi = -INFINITY;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths")) {
            double k = ej_num(cJSON_GetObjectItemCaseSensitive(p, "time"), "calls_per_replay");
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
    if (!(lo <= hi) || lo == hi) { /* none recorded, or one count: the header's sentence, with that count */
        policy_text(doc, 0, lo == hi ? (int)lo : (int)ej_num(doc, "calls_per_replay"), (int)ej_num(doc, "replays"), 0,
                    out, n);
        return;
    }
    char calls[64];
    snprintf(calls, sizeof calls, "%.0f to %.0f (each path's own)", lo, hi);
    ea_timer_describe_warm(out, n, calls, (int)ej_num(doc, "replays"), ej_num(doc, "warmup_ms"),
                           (size_t)ej_num(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "l2_bytes"));
}

const char *ea_floor_note_text(const cJSON *doc, const cJSON *result)
{
    double l2 = ej_num(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "l2_bytes");
    double bytes = cJSON_HasObjectItem(result, "floor") ? ej_num(cJSON_GetObjectItemCaseSensitive(result, "config"), "floor_bytes") : NAN;
    const cJSON *oracle = ea_path_named(result, "oracle", NULL);
    oracle = oracle ? oracle : ea_path_named(result, "oracle_general", NULL);
    if (!(l2 > 0) || !(bytes <= l2))
        return NULL;
    /* Warm replays keep a working set that fits in L2 between calls, and DRAM's rate bounds nothing then. */
    return ea_path_median_cold(oracle) > 0
               ? reworded("floor_fits_l2_cold", "the scope's bytes fit in L2: against the warm times the "
                                                "copy-bandwidth floor is a reference, not a bound; the fractions are "
                                                "taken against the cold time, which it bounds")
               : reworded("floor_fits_l2_warm", "the scope's bytes fit in L2 and the replays are warm: the "
                                                "copy-bandwidth floor is a reference, not a bound (a fraction above 1 "
                                                "is possible)");
}
