/* cat_small.h: small cat scopes built by hand for the cat suites (CPU and GPU): k inputs of ch[i]
 * channels, N 2, H x W h x h, values of a dtype from gen.h's uniform stream, train parameters f32, with
 * the expected outputs written from the definitions in fp64 and rounded once. small_case_dt runs the
 * checks on one (exact outputs pass, Inductor's arithmetic within tolerance, each kind of error caught). */
#ifndef EA_TEST_CAT_SMALL_H
#define EA_TEST_CAT_SMALL_H

#include "../repros/cat/cat.h"

typedef struct {
    cat_scope s;
    cat_inputs in;
    void *cat, *y;
    float *mean, *rstd, *rv;
} small;

void small_make_dt(small *m, int train, int pooled, int h, int k, const int64_t *ch, ea_dtype dt);
/* A parsed point's scope (its shapes, dtype, mode and literals) with inputs made as small_make_dt's. */
void small_from_scope(small *m, const cat_scope *s);
void small_make_k(small *m, int train, int pooled, int h, int k, const int64_t *ch); /* bf16 */
void small_make(small *m, int train, int pooled, int h);                            /* 3 inputs: 8, 4, 4 */
void small_expect(small *m);
void small_free(small *m);
void small_outs(small *m, void *outs[CAT_NOUTS]);
void small_case_dt(int train, int pooled, int h, ea_dtype dt);
void small_case(int train, int pooled, int h); /* bf16 */

#endif
