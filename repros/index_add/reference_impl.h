/* reference_impl.h: test-only entry points of the index_add family's reference.c (the
 * staged slice kernel's CPU build, slice_staged.h, uses ia_bf16_to_f32 too).
 * - ia_emulate_current: the current path's bf16 output, numel(out) values row-major, rounded after
 *   every add in source order as ATen's atomics do.
 * - ia_oracle_input: what the oracles read: x when the plan folds the mul's scale, else the
 *   materialized source. */
#ifndef IA_REFERENCE_IMPL_H
#define IA_REFERENCE_IMPL_H

#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

void ia_emulate_current(const ia_scope *s, const ia_inputs *in, const int64_t *index, uint16_t *out);
float ia_bf16_to_f32(uint16_t b);
const uint16_t *ia_oracle_input(const ia_plan *p, const ia_inputs *in);

#ifdef __cplusplus
}
#endif

#endif
