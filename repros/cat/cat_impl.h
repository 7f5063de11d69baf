/* cat_impl.h: test-only entry points of the cat family.
 * - cat_unrolls: the stream oracle's variants, vectors per thread (plan.c).
 * - cat_variant_kernel: a variant's kernel as the configuration lists it (plan.c).
 * - cat_stream_emulate: the stream oracle (infer without pooling) at this unroll, emulated on the CPU
 *   through the kernel's own block code (stream_block.h): y in the capture's layout. Fails when a
 *   vector would read outside its CTA's table or the inputs (emulate.c).
 * - cat_rounding: half an ulp of dt relative (the output rounding of CAT_TOL's bound): 2^-8 bf16, 2^-11 f16,
 *   2^-24 f32 (reference.c). */
#ifndef CAT_CAT_IMPL_H
#define CAT_CAT_IMPL_H

#include "cat.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const int cat_unrolls[CAT_UNROLLS];
void cat_variant_kernel(const cat_scope *s, const cat_plan *p, char *buf, size_t n);
int cat_stream_emulate(const cat_scope *s, const cat_inputs *in, int unroll, void *y, ea_error *err);
double cat_rounding(ea_dtype dt);

#ifdef __cplusplus
}
#endif

#endif
