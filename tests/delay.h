/* delay.h: a kernel that waits a known time, for tests that need a path slower by a known amount.
 * Contract: ea_enqueue_delay(ctx, stream, err) is an ea_enqueue_fn (timer.h) whose ctx points to a
 * double, the wait in microseconds: one thread spins on the GPU's global timer until that much time
 * has passed since it started. Capturable in a CUDA graph. */
#ifndef EA_DELAY_H
#define EA_DELAY_H

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

int ea_enqueue_delay(void *ctx, void *stream, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
