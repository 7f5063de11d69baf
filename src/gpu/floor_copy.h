/* floor_copy.h: the kernel a scope's measured floor times (measure/floor_path.h): one pass over the scope's bytes,
 * as coalesced as a copy can be.
 * Contract: ea_floor_copy_launch(dst, src, read, written, stream) launches one thread per 16-byte word of
 * max(read, written), 256 to a block: thread t < written writes dst[t] = (t < read ? src[t] : the zero word); a
 * thread in [written, read) reads src[t] and stores it (at dst[t % written]) only when it is the zero word, so its
 * load cannot be dropped: a source without zero words (the caller's to keep) leaves dst as said. written >= 1.
 * Capturable; returns the launch's cudaError_t (0 on success). */
#ifndef EA_FLOOR_COPY_H
#define EA_FLOOR_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int ea_floor_copy_launch(void *dst, const void *src, size_t read, size_t written, void *stream);

#ifdef __cplusplus
}
#endif

#endif
