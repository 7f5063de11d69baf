/* torch_ops.h: golden/targets/<target>/torch_ops.json, the audited ops timed alone in eager torch
 * (tools/capture/op_timing.py on a GPU): what the C replicas' fidelity is measured against.
 * Contract:
 * - ea_torch_ops_load accepts exactly the schema in docs/reference/schema.md (extern-audit/torch-ops v1): an
 *   unknown key, a wrong type, a missing field, another schema or version, a point listed twice, an
 *   input named twice, a timing that is not a positive median inside its quartiles, or (model not
 *   NULL) an environment GPU of another model than the file is named for, or a "pipeline" timing that
 *   is not one call per replay with positive times over at least 2 replays, fails with
 *   "<file> <JSON path>: expected ..., got ...". Strings point into the loaded document.
 * - ea_torch_ops_load_dir loads <target_dir>/torch_ops.json (model: the target's GPU model); an absent file is no error: 0 with
 *   loaded 0 (the caller reports "no torch measurement"). ea_torch_ops_find looks a point up.
 * Host-only: no GPU, no torch. */
#ifndef EA_TORCH_OPS_H
#define EA_TORCH_OPS_H

#include <stdint.h>

#include "base/error.h"
#include "base/json.h"

#define EA_TORCH_OPS_SCHEMA "extern-audit/torch-ops"
#define EA_TORCH_OPS_VERSION 1

typedef struct {
    int timed;            /* 0: the mode is null in the file (no faithful index, or not timed) */
    const char *call;     /* the timed expression, as Python source */
    double median_us, q1_us, q3_us;
    int64_t samples;
} ea_torch_time;

/* The attribution pipeline's own method (better-benchmark's extern replay): the op alone on fabricated
 * inputs, one call per CUDA-graph replay, the minimum over replays; steady_us is the same call 20 to
 * a replay (median), so min_us - steady_us is what a lone launch adds. Optional: older files lack it. */
typedef struct {
    int timed;
    const char *call;
    double min_us, steady_us;
    int64_t replays;
} ea_torch_pipeline;

typedef struct {
    const char *point, *op;
    ea_torch_time faithful, fabricated;
    ea_torch_pipeline pipeline;
    const char **kernels; /* the device activity of one call, in order */
    int nkernels;
    const char *kernels_note; /* why kernels is empty, or NULL */
} ea_torch_op;

typedef struct {
    int loaded;
    char file[4096];      /* as loaded */
    char rel[256];        /* relative to the target folder: "torch_ops.json" */
    const char *torch, *gpu;
    ea_torch_op *ops;
    int n;
    ej_doc doc;
} ea_torch_ops;

int ea_torch_ops_load(const char *path, const char *model, ea_torch_ops *t, ea_error *err);
int ea_torch_ops_load_dir(const char *target_dir, const char *model, ea_torch_ops *t, ea_error *err);
void ea_torch_ops_free(ea_torch_ops *t);
/* The point's measurement, or NULL (also when t is NULL or nothing was loaded). */
const ea_torch_op *ea_torch_ops_find(const ea_torch_ops *t, const char *point);

#endif
