/* reference.h: the gpt-oss routing scope on the CPU, exact (issue 5).
 * The graph: ids i64[T, k] -> flatten -> sort -> to int32 -> histc(bins=E, min=0, max=E-1) ->
 * cumsum(dim=0, dtype=int32) -> offsets i32[E]; the sort's permutation feeds the token gather.
 * Order: the sort is ascending by id. torch's sort.default (stable=False) leaves the order of equal ids
 * unspecified, so the oracle's permutation is defined as ascending id, then ascending flat position
 * (a stable counting sort); every path is checked against that order.
 * The narrow form is the scope for when the sort stays: sorted ids -> offsets by a boundary search. */
#ifndef RT_REFERENCE_H
#define RT_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole scope: ids (T * k of them, row-major) -> sorted ids, permutation, offsets[E]. Any output
 * may be NULL. Needs n <= INT32_MAX and 1 <= E. */
int rt_reference(const int64_t *ids, int64_t n, int64_t E, int64_t *sorted, int64_t *perm, int32_t *offsets,
                 ea_error *err);

/* The scope's input: i64 [tokens, k] from topk_ids (skewed 0) or topk_ids_skewed (skewed 1) with the
 * seed; *ids is malloc'd, caller frees. */
int rt_ids_make(int64_t tokens, int64_t k, int64_t E, int seed, int skewed, int64_t **ids, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
