/* cat.h: DenseNet's large cats as scopes (golden/occurrences/cat.json): cat(k inputs, dim=1) followed by
 * BatchNorm (eval: running stats; train: var_mean over N,H,W) -> ReLU -> the input's dtype (bf16, f16 or
 * f32, every tensor of the point the same), and at a block's end
 * optionally a mean over H,W (norm5 -> relu -> adaptive_avg_pool).
 * Contract:
 * - cat_scope_parse reads a point and finds the capture of its first scope group among caps (the run
 *   context's, ea_capture_of_point): shapes and channel offsets from the
 *   signature, the mode from the occurrences, eps / Bessel factor / momentum from the scope's literals,
 *   pooling from an aten.mean.dim in the scope, and which capture input and output plays which role
 *   (cat inputs in order, then the per-channel parameters; outputs cat, mean, rstd, running var, y for
 *   train, y alone for infer). Anything else fails naming the file, the JSON path and what was expected.
 *   Several scope groups share one measurement only when they parse to the same configuration.
 *   Returns 0; -1 on an error; 1 when no capture covers the point (a shape not captured yet, e.g. the
 *   fixtures' DenseNet-201 cat): s is whole, with the roles a capture of the scope would have, *cap is
 *   NULL, s->capture "", and err names the missing capture (a run reports it unsupported).
 * - cat_plan_make derives what runs without a GPU: the capture's kernels (current), the oracle kernel
 *   and its launch shape, the vector width, and the floor bytes (every input and parameter read once,
 *   every scope output written once).
 * - cat_inputs_make generates the capture's inputs (gen.h); cat_check compares outputs with the fp64
 *   reference: the cat bit-exact, BN outputs within CAT_TOL (below), statistics within CAT_STAT_TOL.
 * - cat_view computes the block-level view from a whole golden document (its totals use cat_floor_bytes;
 *   the plan gets the block's line as a note, so plan.c does not read the view).
 * Layout: contiguous NCHW only (every golden point); a channels-last point is refused with a message. */
#ifndef CAT_CAT_H
#define CAT_CAT_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "corpus/alias.h"
#include "target/capture.h"
#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inputs of a cat the family takes: the oracle passes their pointers by value in its kernel argument, as
 * ATen's CatArrayBatchedCopy passes CatArrInputTensorMetadata, and takes as many as ATen's batch:
 * CAT_ARRAY_BATCH_SIZE = 128 in aten/src/ATen/native/cuda/Shape.cu (read at pytorch/pytorch 017943b70f69,
 * the index's copy; the v2.11.0 tag is not readable here), which is what eager torch launches per batch of
 * contiguous inputs, so a cat within it is one ATen launch. The graphs have at most 49 (DenseNet-201's
 * 1792-channel block; DenseNet-169: 33). Inductor's own limit is another: a cat of more than
 * max_pointwise_cat_inputs (8, golden/old_rule.json) inputs is a ConcatKernel (producers write into the
 * output's slices, graph inputs get copy kernels), which every golden cat's capture on the H200 at torch
 * 2.11 shows; the current path replays that capture. */
#define CAT_MAX_INPUTS 128
#define CAT_MAX_GROUPS 8
/* Tolerance of a BN output y against the fp64 value r (y = relu(s * (x - mean) * w + b), or its
 * mean over H,W): |y - r| <= u |r| + CAT_TOL * m, m = (|x| + |mean|) |s w| + |b| (averaged over H,W
 * when pooled). u |r| is the rounding of the output to its dtype, half an ulp: 2^-8 for bf16 (8
 * significant bits), 2^-11 for f16, 2^-24 for f32 (cat_rounding);
 * CAT_TOL covers fp32 arithmetic before it with >= 4x margin: x - mean, the multiplies and the fma
 * (<= 2 ulp), 1/sqrt by div.full (<= 2 ulp) or rsqrt (<= 2 ulp), and a 49-term fp32 sum when pooled
 * (<= 48 ulp of the summed magnitudes, 2^-18.4). */
#define CAT_TOL 0x1p-16
/* mean, rstd and the running-variance update (fp32) against fp64: relative. The oracle sums in fp64
 * (one pass: oracle.cu's train_terms bounds its error far below this); the bound leaves room for
 * Inductor's fp32 sums of 3136 terms. */
#define CAT_STAT_TOL 0x1p-16

enum { CAT_P_MEAN, CAT_P_VAR, CAT_P_WEIGHT, CAT_P_BIAS, CAT_NPARAMS };     /* infer parameters */
enum { CAT_O_CAT, CAT_O_MEAN, CAT_O_RSTD, CAT_O_RV, CAT_O_Y, CAT_NOUTS }; /* scope outputs */

typedef struct {
    char file[256], path[64];       /* the document and $.points[i], for messages */
    char point[64], alias[160], model[64];
    char scope_ids[CAT_MAX_GROUPS][64];
    int ngroups;
    int64_t occurrences;
    char capture[512];              /* the first group's capture (captures/<scope>/capture.json, of the target
                                     * or the base it inherits from): the current path replays it; relative, so
                                     * a recorded plan does not change with the golden folder's location */
    int train, pooled;
    ea_dtype dt;                    /* x, the cat, y and the infer parameters: bf16, f16 or f32 */
    int64_t n, c, h, w, hw;
    int k;                          /* cat inputs */
    int64_t ch[CAT_MAX_INPUTS];     /* channels of each input */
    int64_t c_off[CAT_MAX_INPUTS + 1];
    double eps;
    double bessel, momentum, decay; /* train: running_var' = var * bessel * momentum + running_var * decay */
    /* roles in the capture: indices into its inputs / outputs, -1 when absent */
    int in_x[CAT_MAX_INPUTS];
    int in_param[CAT_NPARAMS];      /* infer: mean, var, weight, bias; train: [CAT_P_VAR] running var,
                                       weight, bias (mean unused) */
    int out[CAT_NOUTS];
} cat_scope;

/* What tells one model's cat points apart in their aliases (alias.h): "<H>x<W>-k<inputs>", so a point of
 * DenseNet-121's third block is densenet121-infer-14x14-k25. */
void cat_alias_tag(const cJSON *point, char *buf, size_t n);
/* Parses point ($.points[index] of file); *cap: the capture of its first group, one of caps. */
int cat_scope_parse(const cJSON *point, const char *file, int index, const ea_captures *caps, cat_scope *s,
                    const ea_capture **cap, ea_error *err);

typedef enum {
    CAT_ORACLE_STREAM,  /* infer without pooling: every input read once, y written once */
    CAT_ORACLE_CHANNEL, /* train or pooled: a CTA per channel, staged in shared memory */
    CAT_ORACLE_WARP,    /* ... a warp per channel, CAT_WARP_CHANNELS per CTA, staged */
    CAT_ORACLE_REGS,    /* train without pooling: a warp per channel, its values in registers */
    CAT_ORACLE_ROWS     /* infer pooled: a warp per tile of `rows` channels of one sample, a lane per channel */
} cat_oracle_kind;

typedef struct {
    cat_oracle_kind kind;
    int vec;              /* elements per access: 8 = 16 bytes */
    int threads;
    int unroll;           /* stream: vectors per thread */
    int packs;            /* regs: vectors per lane (a power of two, at most CAT_REGS_MAX_PACKS) */
    int rows;             /* rows: channels per tile (a power of two, at most 32, dividing every input's) */
    int64_t grid_x, grid_y; /* stream: vectors of a row / (threads * unroll) x N; channel: C x 1; warp and
                               regs: C / CAT_WARP_CHANNELS; rows: N * C / rows / CAT_WARP_CHANNELS (each
                               quotient rounded up) */
    int64_t shared_bytes;   /* channel, warp: the channels' N*H*W values as fp32; rows: the tiles in the dtype;
                               stream: the span's table */
    int64_t tab_cap;        /* stream: channels one CTA's span touches at most */
    int64_t floor_bytes, floor_written_bytes;
} cat_plan;

#define CAT_UNROLLS 4
#define CAT_WARP_CHANNELS 4   /* warp, regs and rows layouts: warps per CTA */
#define CAT_REGS_MAX_PACKS 8  /* regs: a lane holds at most 8 vectors (64 values at 16 bytes) */
#define CAT_MAX_VARIANTS 4

/* Bytes the scope must move: every input and parameter read once, every output written once; es: bytes
 * of an element of the scope's dtype; the written part into *written unless it is NULL. */
int64_t cat_floor_bytes(int train, int pooled, int64_t n, int64_t c, int64_t hw, int es, int64_t *written);
/* The scope's first oracle layout (stream at this unroll, or channel), its vector width and floor. */
int cat_plan_make(const cat_scope *s, int unroll, cat_plan *p, ea_error *err);
/* Every oracle layout the scope allows, each timed as a candidate: stream at each of cat_unrolls; or
 * channel, then warp (where its staging fits the channel kernel's 96 KiB), regs (train without
 * pooling, N*H*W within 32 * CAT_REGS_MAX_PACKS vectors) and rows (infer pooled, where its tiles fit
 * the same 96 KiB). Returns how many, -1 on a refused scope. */
int cat_plan_variants(const cat_scope *s, cat_plan v[CAT_MAX_VARIANTS], ea_error *err);
/* The variant's name in results ("stream", "channel", "channel-warp", "channel-regs", "rows"). */
const char *cat_variant_name(const cat_plan *p);
/* The configuration block (docs/reference/schema.md: floor_bytes, notes, current_source "inductor"); cap NULL for a
 * point no capture covers: "capture" null, no current launches, a note saying why. block_note (cat_view_line
 * of the scope's block; NULL or "": none) is its first note. */
cJSON *cat_config_json(const cat_scope *s, const cat_plan *p, const ea_capture *cap, const char *block_note);

/* Host inputs: data[i] is capture input i (storage as its descriptor lays it out). */
typedef struct {
    int n;
    void *data[CAT_MAX_INPUTS + CAT_NPARAMS];
} cat_inputs;
int cat_inputs_make(const cat_scope *s, const ea_capture *cap, cat_inputs *in, ea_error *err);
void cat_inputs_free(cat_inputs *in);

typedef struct {
    double rel_l2, max_abs;     /* over the BN outputs (y, and mean/rstd/running var when kept) */
    double y_rel_l2;            /* y's alone: what the accuracy rule compares */
    int64_t unwritten, nonfinite, mismatched; /* poison left; NaN/Inf; cat bits or outside tolerance */
    int64_t cat_mismatched, y_outside, stats_outside;
} cat_check_result;

/* outs[CAT_O_*]: host copies of the outputs in the capture's layouts (NULL: not an output of the
 * scope). Elements still holding the 0xFF poison count as unwritten. */
void cat_check(const cat_scope *s, const cat_inputs *in, void *const outs[CAT_NOUTS], cat_check_result *r);
/* cat_check over one point's inputs, remembering the outputs it last judged: outputs equal to them byte
 * for byte get the same result without a walk (cat_check is a function of the bytes), which is what the
 * point's oracle layouts and their checks after timing mostly are. cat_checker_check returns 1 when the
 * result was remembered, 0 when it walked. s and in must outlive the checker; bytes[CAT_O_*]: each
 * output's size (0 for one the scope lacks). */
typedef struct {
    const cat_scope *s;
    const cat_inputs *in;
    size_t bytes[CAT_NOUTS];
    void *seen[CAT_NOUTS];
    cat_check_result res;
    int valid;
} cat_checker;
void cat_checker_init(cat_checker *k, const cat_scope *s, const cat_inputs *in, const size_t bytes[CAT_NOUTS]);
int cat_checker_check(cat_checker *k, void *const outs[CAT_NOUTS], cat_check_result *r);
void cat_checker_free(cat_checker *k);
/* The error of the BN output y that Inductor's arithmetic gives, emulated in fp32 on the CPU (IEEE 1/x
 * for div.full, 1/sqrtf for rsqrt, sequential fp32 sums for tl.sum), judged like cat_check's y: the
 * current path's accuracy, which the oracle may not fall below. y (may be NULL) receives the emulated
 * output in the capture's layout: for every infer point and the pooled train point it is torch's bit for
 * bit (the capture's checksum; test_cat); the other train points' statistics are summed in another
 * order than Triton's. */
void cat_emulate_current(const cat_scope *s, const cat_inputs *in, cat_check_result *r, void *y);
/* Bytes of one output (its capture descriptor). */
int64_t cat_output_bytes(const ea_capture *cap, int out);

/* The block-level view of a golden cat document: per (model, mode, H x W) dense block, the cats over
 * the cap, bytes copied into them today and bytes a fused design moves. A JSON object
 * {"blocks": [...]}, NULL on a malformed document (err says which point). */
cJSON *cat_view(const cJSON *doc, const char *file, ea_error *err);
/* The block entry of view containing s (NULL if none, or view NULL). */
const cJSON *cat_view_block(const cJSON *view, const cat_scope *s);
/* The block's one-line summary, the configuration's note; "" for a NULL block. */
void cat_view_line(const cJSON *block, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
