/* consumer.h: the consumer fold of an index_add scope (scope.h) and the captured kernel its current path runs.
 * Contract:
 * - ia_consumer_parse follows the op's output (nodes[op] of a scope group's nodes) through views to a div or mul by a
 *   scalar and fills s's consumer fields when the fold holds: the output has that one use and no escape, every node
 *   on the way is a view (as_strided, permute, squeeze.dim, unsqueeze, or a reshape/view torch makes without a
 *   copy), the scalar op reads a contiguous view at offset 0 of all of out's elements, writes bf16, and a div's
 *   divisor is a power of two (Inductor multiplies by the reciprocal, exact then). Otherwise consumed stays 0 (a
 *   non-power-of-two divisor adds a sentence to s->note; any other op, or sizes given as symbols, ends the walk
 *   without a fold); -1 (file and JSON path) for a view or scalar node without an annotation, or a view whose
 *   arguments or annotation are not what the view gives. self must be a constant fill, parsed before.
 * - ia_consumer_step_find finds what Inductor runs for the fold in the capture of scope group `group` of the point:
 *   the run's one ATen step (the index_add) followed by a Triton step named for the scalar op ("_div_") whose
 *   arguments are one buffer of out's bytes at offset 0 and the scalar numel(out), so it reads and writes out in
 *   place. 0 with *c filled; 1 when no
 *   capture covers the group or its partition has no ATen step (a candidate lowering replaced it; err says
 *   which): the point is unsupported on that target; -1 (capture file and JSON path) when the step is not that
 *   kernel. Host only. */
#ifndef IA_CONSUMER_H
#define IA_CONSUMER_H

#include <cjson/cJSON.h>

#include "base/json.h"
#include "scope.h"
#include "target/capture.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ia_consumer_step {
    const ea_capture *cap;
    const ea_capture_run *run;
    const ea_capture_step *step;
    int run_index, step_index;
} ia_consumer_step;

int ia_consumer_parse(ej_val nodes, int op, ia_scope *s, ea_error *err);
int ia_consumer_step_find(const ia_scope *s, const cJSON *point, int group, const ea_captures *caps, const char *config,
                     ia_consumer_step *c, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
