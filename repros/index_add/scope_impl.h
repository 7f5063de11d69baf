/* scope_impl.h: test-only entry points of the index_add family's plan.c and scope.c.
 * - ia_fastdiv_make: the magic numbers ia_fastdiv_div divides by d with.
 * - ia_slice_staged_elems: shared elements a span of chunks may stage (the bound widened to 16-byte
 *   alignment at both ends); ia_slice_stage_make fills q->stage for a vec 8 slice (ia_plan_make
 *   calls it), span_max staying 0 otherwise.
 * - ia_aten_plan_make: ATen's launch plan of index_add on these tensors (ia_plan_make's p->aten).
 * - ia_scope_device_bytes: device bytes a run of the scope allocates (inputs, both indexes, self, out).
 * - ia_slice_source_bound: copied elements (source elements read) that any elems consecutive output
 *   elements of q can hold: whole rows hold row_src each, the rest at most min(rest, row_src). */
#ifndef IA_SCOPE_IMPL_H
#define IA_SCOPE_IMPL_H

#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

ia_fastdiv ia_fastdiv_make(int64_t d);
int64_t ia_slice_staged_elems(const ia_slice *q, int64_t chunks);
void ia_slice_stage_make(ia_slice *q);
int ia_aten_plan_make(const ea_tensor *self, const ea_tensor *index, const ea_tensor *source, int dim,
                      int sm_count, ia_aten_plan *p, ea_error *err);
int64_t ia_scope_device_bytes(const ia_scope *s);
int64_t ia_slice_source_bound(const ia_slice *q, int64_t elems);

#ifdef __cplusplus
}
#endif

#endif
