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

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.histc on int32 as ATen's CUDA kernel bins it, in int64 arithmetic: values outside [min, max]
 * are ignored; bin = (x - min) * bins / (max - min), truncated; bin == bins (x == max) goes to the last
 * bin. counts: bins int32 (histc returns the input's dtype). Needs bins >= 1 and min < max. */
int rt_histc_i32(const int32_t *x, int64_t n, int64_t bins, int64_t min, int64_t max, int32_t *counts, ea_error *err);

/* Inclusive prefix sum in int32 (cumsum(dtype=int32)), wrapping as the GPU does. */
void rt_cumsum_i32(const int32_t *x, int64_t n, int32_t *out);

/* The whole scope: ids (T * k of them, row-major) -> sorted ids, permutation, offsets[E]. Any output
 * may be NULL. Needs n <= INT32_MAX and 1 <= E. */
int rt_reference(const int64_t *ids, int64_t n, int64_t E, int64_t *sorted, int64_t *perm, int32_t *offsets,
                 ea_error *err);

/* The narrow form: offsets[e] = the number of sorted ids <= e (an upper-bound search), e in [0, E). */
void rt_offsets_narrow(const int64_t *sorted, int64_t n, int64_t E, int32_t *offsets);

/* 0 when (sorted, perm) is the stable sort of ids; else -1 with why naming the first violation. */
int rt_check_sort(const int64_t *ids, int64_t n, const int64_t *sorted, const int64_t *perm, char *why, size_t len);

/* The scope's input: i64 [tokens, k] from topk_ids (skewed 0) or topk_ids_skewed (skewed 1) with the
 * seed; *ids is malloc'd, caller frees. */
int rt_ids_make(int64_t tokens, int64_t k, int64_t E, int seed, int skewed, int64_t **ids, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
