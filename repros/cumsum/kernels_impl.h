/* kernels_impl.h: the oracle launchers' host-side choices, test-only entry points of the cumsum kernels.
 * - cs_mask_fixed: 1 when sh runs rows of cols columns in a kernel compiled for that width (a row variant
 *   covering the row exactly, at one of the widths compiled in); the launch takes it when the buffers allow
 *   16-byte accesses.
 * - cs_const_i32: 1 when every value of a const row lies within +-CS_CONST_I32_BOUND (fill * cols + |sub|):
 *   the kernel then converts through i32, with the same bits (fill >= 0, as the scope requires; NaN: 0). */
#ifndef CS_KERNELS_IMPL_H
#define CS_KERNELS_IMPL_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CS_CONST_I32_BOUND 1073741824.0
int cs_mask_fixed(const cs_mask_shape *sh, int64_t cols);
int cs_const_i32(int64_t cols, double fill, double sub);

#ifdef __cplusplus
}
#endif

#endif
