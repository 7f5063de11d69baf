/* reference_impl.h: test-only entry points of the routing family's reference.c, the steps rt_reference
 * chains.
 * - rt_histc_i32: torch.histc on int32 as ATen's CUDA kernel bins it, in int64 arithmetic: values
 *   outside [min, max] are ignored; bin = (x - min) * bins / (max - min), truncated; bin == bins
 *   (x == max) goes to the last bin. counts: bins int32 (histc returns the input's dtype). Needs
 *   bins >= 1 and min < max.
 * - rt_cumsum_i32: inclusive prefix sum in int32 (cumsum(dtype=int32)), wrapping as the GPU does.
 * - rt_offsets_narrow: the narrow form, offsets[e] = the number of sorted ids <= e (an upper-bound
 *   search), e in [0, E).
 * - rt_check_sort: 0 when (sorted, perm) is the stable sort of ids; else -1 with why naming the first
 *   violation. */
#ifndef RT_REFERENCE_IMPL_H
#define RT_REFERENCE_IMPL_H

#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

int rt_histc_i32(const int32_t *x, int64_t n, int64_t bins, int64_t min, int64_t max, int32_t *counts, ea_error *err);
void rt_cumsum_i32(const int32_t *x, int64_t n, int32_t *out);
void rt_offsets_narrow(const int64_t *sorted, int64_t n, int64_t E, int32_t *offsets);
int rt_check_sort(const int64_t *ids, int64_t n, const int64_t *sorted, const int64_t *perm, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
