/* baseline.h: what `extern-audit run` makes of the families' results, and golden/targets/<target>/baselines.json.
 * Contract: ea_run_annotate adds the class, the floor's copy rate and the replica's fidelity to a result;
 * ea_baseline_doc wraps results into the "extern-audit/baselines" v3 document (docs/reference/schema.md),
 * ea_baseline_validate reads one strictly, ea_baseline_record writes only a document that reads back,
 * ea_baseline_print is the table. Host arithmetic on JSON: no GPU. */
#ifndef EA_BASELINE_H
#define EA_BASELINE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "measure/launch_floor.h"
#include "target/torch_ops.h"

#define EA_BASELINES_SCHEMA "extern-audit/baselines"
#define EA_BASELINES_VERSION 3
/* Written a line per member down to a result's members, and one line per path (json_layered.c: "paths" one
 * level deeper), so an entry that did not move keeps its bytes and a moved time changes its path's line. */
#define EA_BASELINES_LAYERS 3
#define EA_BASELINES_DEEPER "paths"
/* The fidelity tolerance, |replica / torch's op alone - 1| in percent (run: each family's current path
 * against the target's torch_ops.json). Why 5: the index_add replica, once it took ATen's fill launch
 * and device assert (docs/evidence/replica_gap.md), ran at 0.990-1.000 of torch's op time on the H200 in all six
 * point-modes (ci/gpu-check STEPS="cold run", this session's run against the committed torch_ops.json),
 * and ncu saw the same registers, instructions and duration for both index kernels
 * (STEPS=replica_ncu); before, 0.86-0.90, which 5 rejects. */
#define EA_FIDELITY_TOLERANCE_PCT 5
#define EA_FIDELITY_TOLERANCE (EA_FIDELITY_TOLERANCE_PCT / 100.0)
#define EA_FIDELITY_TOLERANCE_TEXT EA_STRINGIFY(EA_FIDELITY_TOLERANCE_PCT) "%" /* "5%", for usage texts */

typedef struct {
    char command[1024];
    char gpu[256], model[64], capability[16];
    int sm_count;
    size_t l2_bytes, memory_bytes;
    char driver[64], toolkit[32];
    size_t copy_bytes;                      /* per call of the copy probe */
    double kernel_bytes_per_s, memcpy_bytes_per_s; /* read + written; the kernel figure is the faster copy's */
    char copy_kernel[64];                   /* which copy kernel that was, when known */
    double strided_bytes_per_s;             /* the grid-stride copy kernel's, 0 when unknown */
    double launch_us;                       /* an empty kernel's per-call time in a graph */
    int launch_chains;                      /* launch_floor.h: chains of 1..launch_chains empty kernels timed */
    double chain_us[EA_LAUNCH_FLOOR_MAX], chain_cold_us[EA_LAUNCH_FLOOR_MAX]; /* warm, cold (NaN: none) */
    char chain_cold_note[512];              /* why a chain has no cold time */
    int calls_per_replay, replays;          /* the copy probe's warm timing, every path's default (prose.h) */
    double warmup_ms;                       /* the timer's warm-up before each timing (every path's) */
    char torch[64];                         /* the torch-ops file's torch build the fidelity compared with, or "" */
} ea_run_env;


/* point: the golden point the result measured (its occurrence ids find the capture); caps, ops and
 * classification may be NULL. */
void ea_run_annotate(cJSON *result, const cJSON *point, const ea_run_env *env, const ea_captures *caps,
                     const ea_torch_ops *ops, const cJSON *classification);
/* The fidelity ea_run_annotate records: result's current path times against torch's op alone (ops) and the
 * capture covering point (caps); a new object. Derived from recorded times alone, so gate --plan checks a
 * stored one without a GPU. */
cJSON *ea_result_fidelity(const cJSON *result, const cJSON *point, const ea_captures *caps, const ea_torch_ops *ops);
/* The capture a result's fidelity compared with, its path relative to the target into buf: fidelity.capture, or,
 * absent (schema 3: not copied), the configuration's "capture" up to its first space ("... run \"default\""); 0 and
 * buf "" when there is none (null). */
int ea_fidelity_capture(const cJSON *result, char *buf, size_t n);
/* A result measured on another GPU model than its target's (run --any-gpu): its fidelity becomes the note
 * fidelity_other_gpu, and the captured times its view quotes beside this run's (torch_compiled_us, torch_eager_us,
 * at any depth) are removed: they were taken on the target's GPU, and no ratio of them to this run means anything. */
void ea_result_on_other_gpu(cJSON *result);
/* Takes ownership of results (an array of annotated results). */
cJSON *ea_baseline_doc(cJSON *results, const ea_run_env *env);
int ea_baseline_validate(const char *file, const cJSON *doc, ea_error *err);
/* The reason a validated baselines document gives for a point it lists "unmeasured" (its id's text), or NULL. */
const char *ea_baseline_unmeasured_reason(const cJSON *doc, const char *point);
/* Validates doc (as file), then writes it atomically (file "-": on standard output); a document the reader would
 * reject is not written. */
int ea_baseline_record(const char *file, const cJSON *doc, ea_error *err);
/* ops: the target's torch timings, which the fidelity lines quote (torch's time and kernels); may be NULL. */
void ea_baseline_print(const cJSON *doc, const ea_torch_ops *ops, FILE *f);

#endif
