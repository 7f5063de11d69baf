/* baseline.h: what `extern-audit run` makes of the families' results, and golden/baselines/<gpu>.json.
 * Contract:
 * - ea_run_annotate adds to one result (repro.h) what needs the whole run: the class (from the golden
 *   classification, "unclassified" without it), the floor (floor bytes / the copy bandwidth measured
 *   in this run, plus one launch), the speedup of the oracle over the faithful current path, the
 *   oracle's fraction of the floor and of the copy bandwidth, and the replica's fidelity. That is,
 *   under "torch_op", the current path against the same op timed alone in torch on this GPU model
 *   (torch_ops.h), per index mode: faithful against faithful, fabricated against fabricated, each
 *   within 15% or not ("no torch measurement" when the file or the point is absent); and, as
 *   context, the ratio to the torch eager time of a capture of the point ("no capture" without one),
 *   judged only when that capture prices the same work (ea_fidelity_comparable), else with a note.
 * - ea_baseline_doc wraps the results into the "extern-audit/baselines" v1 document (docs/schema.md);
 *   ea_baseline_validate reads one back strictly (unknown keys, wrong types, another schema or version
 *   fail with the file and JSON path named); ea_baseline_print is the human table.
 * Everything here is host arithmetic on JSON: no GPU. */
#ifndef EA_BASELINE_H
#define EA_BASELINE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "capture.h"
#include "error.h"
#include "torch_ops.h"

#define EA_BASELINES_SCHEMA "extern-audit/baselines"
#define EA_BASELINES_VERSION 1
#define EA_FIDELITY_TOLERANCE 0.15

typedef struct {
    char command[1024];
    char gpu[256], model[64], capability[16];
    int sm_count;
    size_t l2_bytes, memory_bytes;
    char driver[64], toolkit[32];
    size_t copy_bytes;                      /* per call of the copy probe */
    double kernel_bytes_per_s, memcpy_bytes_per_s; /* read + written */
    double launch_us;                       /* an empty kernel's per-call time in a graph */
    char cache_policy[512];
} ea_run_env;

/* "NVIDIA H200" -> "H200", "NVIDIA GeForce RTX 4090" -> "GeForce-RTX-4090": the baseline file's name. */
void ea_gpu_model(const char *name, char *buf, size_t n);

/* point: the golden point the result measured (its occurrence ids find the capture); caps, ops and
 * classification may be NULL. */
void ea_run_annotate(cJSON *result, const cJSON *point, const ea_run_env *env, const ea_captures *caps,
                     const ea_torch_ops *ops, const cJSON *classification);
/* 1 when the capture's run holds only the op (op: "aten.index_add.default") and fills, i.e. prices
 * what a replica runs; else 0 with the other steps' names appended to extra (a JSON array). */
int ea_fidelity_comparable(const ea_capture_run *run, const char *op, cJSON *extra);
/* Takes ownership of results (an array of annotated results). */
cJSON *ea_baseline_doc(cJSON *results, const ea_run_env *env);
int ea_baseline_validate(const char *file, const cJSON *doc, ea_error *err);
void ea_baseline_print(const cJSON *doc, FILE *f);

#endif
