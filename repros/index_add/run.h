/* run.h: measuring one index_add scope configuration on the current GPU.
 * Contract: ia_measure builds the inputs (reference.h), checks the rebuilt index against the golden
 * properties, computes the fp64 reference, then for each path (current faithful, oracle, general
 * oracle, current fabricated, as the modes ask): poisons the output with 0xFF, runs one call while
 * CUPTI records the kernels, checks it (every element written, relative L2 error, bit-exactness of a
 * structured oracle against its CPU emulation, the output contract), times it with ea_time_graph
 * (warm cache, automatic calls per replay), and checks the output again after timing. It returns
 * the result object of docs/schema.md (baselines, "scopes[]"), "passed" false when a rule failed.
 * NULL only when the run itself broke (no memory, a CUDA error), with err->msg. Refuses up front a
 * scope whose buffers exceed the free device memory. */
#ifndef IA_RUN_H
#define IA_RUN_H

#include <cjson/cJSON.h>

#include "repro.h"
#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IA_MAX_REL_L2 1e-2 /* the bound on relative L2 error against the fp64 reference */

cJSON *ia_measure(const ia_scope *s, const ia_plan *p, const ea_run_opts *o, ea_error *err);
/* The configuration block every result and plan carries: dim, index, producer, ATen's choice, oracle. */
cJSON *ia_config_json(const ia_scope *s, const ia_plan *p);

#ifdef __cplusplus
}
#endif

#endif
