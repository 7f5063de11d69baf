/* reference.h: the host side of an index_add scope run: inputs, fp64 reference, CPU emulations, checks.
 * Contract:
 * - ia_inputs_make generates every input with src/gen.c (docs/schema.md generators): the source (or
 *   the mul's input x, then source = bf16(x * scale) as the graph's mul rounds it) uniform with seed
 *   IA_SEED_SOURCE, the faithful index rebuilt exactly from its value properties, the fabricated index
 *   from randint(0, 100) with seed IA_SEED_FABRICATED, as the attribution pipeline's replay draws it.
 * - ia_reference is the whole scope in fp64 (self + alpha * sum of scale * x), over out's row-major
 *   elements. ia_emulate_current rounds to bf16 after every add in source order, as ATen's bf16 atomics
 *   do (in some order); ia_emulate_oracle reproduces the structured oracle bit for bit (fp32 sums in
 *   window order, one rounding), so a GPU result can be compared exactly.
 * - ia_compare measures relative L2 error against the reference, counts elements still holding the
 *   0xFF poison (never written) and, given an exact emulation, elements that differ from it.
 * - ia_index_check rebuilds the multiplicity histogram, range and coverage of an index and compares
 *   them with the golden properties; a difference is an error naming the first field that differs. */
#ifndef IA_REFERENCE_H
#define IA_REFERENCE_H

#include <stdint.h>

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

typedef struct {
    double rel_l2, max_abs;
    int64_t unwritten, mismatched, n;
} ia_check;

int ia_inputs_make(const ia_scope *s, int fabricated, ia_inputs *in, ea_error *err);
void ia_inputs_free(ia_inputs *in);

int ia_index_check(const ia_scope *s, const int64_t *index, ea_error *err);

/* *ref: numel(out) doubles, caller frees. index: the faithful or the fabricated one. */
int ia_reference(const ia_scope *s, const ia_plan *p, const ia_inputs *in, const int64_t *index, double **ref,
                 ea_error *err);
/* out: numel(out) bf16 values (row-major). */
void ia_emulate_current(const ia_scope *s, const ia_inputs *in, const int64_t *index, uint16_t *out);
/* 0, or -1 when the plan has no structured oracle. */
int ia_emulate_oracle(const ia_scope *s, const ia_plan *p, const ia_inputs *in, uint16_t *out);

/* exact may be NULL; out and exact are row-major over out's logical elements. */
void ia_compare(const uint16_t *out, const double *ref, const uint16_t *exact, int64_t n, ia_check *c);
/* The layout every path here writes (contiguous, out's sizes) against the signature's output; 0 when
 * equal, else -1 with why filled. */
int ia_contract_check(const ia_scope *s, char *why, size_t n);

float ia_bf16_to_f32(uint16_t b);
/* What the oracles read: x when the plan folds the mul's scale, else the materialized source. */
const uint16_t *ia_oracle_input(const ia_plan *p, const ia_inputs *in);

#ifdef __cplusplus
}
#endif

#endif
