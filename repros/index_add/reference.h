/* reference.h: the host side of an index_add scope run: inputs, fp64 reference, CPU emulations, checks.
 * Contract: inputs are generated reproducibly from the point (src/target/gen.c); ia_reference is the scope in
 * fp64; the emulations reproduce the current path's and the structured oracle's bf16 results; ia_compare
 * counts unwritten (poison), non-finite and mismatched elements and the relative L2 error of the rest. */
#ifndef IA_REFERENCE_H
#define IA_REFERENCE_H

#include <stdint.h>

#include "measure/path.h"
#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IA_POISON 0xFFFFu /* bf16 NaN: 0xFF bytes, never a value these scopes produce */

typedef struct {
    uint16_t *x;          /* the producer mul's input x; the source itself when there is no mul */
    uint16_t *source;     /* index_add's source as the graph materializes it */
    uint16_t *self;       /* NULL when self is a constant */
    int64_t *index;       /* faithful; NULL when the properties are unknown */
    int64_t *fabricated;  /* NULL unless asked for */
} ia_inputs;


int ia_inputs_make(const ia_scope *s, int fabricated, ia_inputs *in, ea_error *err);
void ia_inputs_free(ia_inputs *in);

int ia_index_check(const ia_scope *s, const int64_t *index, ea_error *err);

/* *ref: numel(out) doubles, caller frees. index: the faithful or the fabricated one. */
int ia_reference(const ia_scope *s, const ia_plan *p, const ia_inputs *in, const int64_t *index, double **ref,
                 ea_error *err);
/* 0, or -1 when the plan has no structured oracle. */
int ia_emulate_oracle(const ia_scope *s, const ia_plan *p, const ia_inputs *in, uint16_t *out);

/* exact may be NULL; out and exact are row-major over out's logical elements. */
void ia_compare(const uint16_t *out, const double *ref, const uint16_t *exact, int64_t n, ea_check *c);
/* The layout every path here writes (contiguous, out's sizes) against the signature's output; 0 when
 * equal, else -1 with why filled. */
int ia_contract_check(const ia_scope *s, char *why, size_t n);


#ifdef __cplusplus
}
#endif

#endif
