/* run.h: measuring one index_add scope configuration on the current GPU.
 * Contract: ia_measure builds the inputs (reference.h), checks the rebuilt index against the golden
 * properties, computes the fp64 reference, then for each path (current faithful, oracle, general
 * oracle, current fabricated, as the modes ask; a consumer-folded scope's current paths end with cs's captured
 * kernel, bound to the output it rewrites in place, and where tuned has a step (the capture's coordinate-descent
 * run) current_tuned is the same replica ending with that kernel; cs and tuned are NULL unless s->consumed): poisons the output with 0xFF, runs one call while
 * CUPTI records the kernels, checks it (ea_path_judge_outcome's rules, the output contract), times it with
 * ea_time_graph (warm cache, automatic calls per replay), and checks the output again after timing.
 * It returns the result's fields after "config" (docs/reference/schema.md, baselines, "scopes[]"; kit.h's measure),
 * "passed" false when a rule failed; NULL only when the run itself broke (no memory, a CUDA error, buffers
 * larger than the free device memory), with err->msg. */
#ifndef IA_RUN_H
#define IA_RUN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpu/cupti.h"
#include "measure/kit.h"
#include "consumer.h"
#include "reference.h"
#include "measure/path.h"
#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

cJSON *ia_measure(const ia_scope *s, const ia_plan *p, const ia_consumer_step *cs, const ia_consumer_step *tuned,
                  const ea_kit_state *st, ea_error *err);


#ifdef __cplusplus
}
#endif

#endif
