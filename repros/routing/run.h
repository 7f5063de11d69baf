/* run.h: one routing configuration (form x distribution) measured on the current GPU.
 * Contract: rt_measure generates the distribution's ids (reference.h), computes the CPU reference, then
 * for the current path (ATen replicas + the capture's two Triton cubins, launched with their captured
 * grids and arguments), current_tuned (the same with tuned, the coordinate_descent run's two) and the
 * oracle: poisons every output with 0xFF, runs one call while CUPTI
 * records the kernels, checks every output element against the reference (bit-exact: sorted ids,
 * permutation in the stable order, offsets), times it with ea_time_graph (warm L2, the capture's calls
 * per replay) and checks again after timing. On the uniform distribution (the capture's input) each
 * path's outputs must also match the capture's checksums. It returns the result's fields after "config"
 * (docs/reference/schema.md "scopes[]": paths, passed, failure, view; kit.h's measure); "passed" false when a
 * check failed, NULL only when the run itself broke (allocation, module load, launch), with err. */
#ifndef RT_RUN_H
#define RT_RUN_H

#include <cjson/cJSON.h>

#include "plan.h"
#include "measure/kit.h"

#ifdef __cplusplus
extern "C" {
#endif

cJSON *rt_measure(const rt_scope *s, const rt_capture *c, const rt_capture *tuned, rt_form f, rt_dist d,
                  const ea_kit_state *st, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
