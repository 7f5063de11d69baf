/* pattern.h: the source words that the copy probes fill their buffers with, one definition for the host and the
 * device.
 * Contract:
 * - ea_pattern_word(i, w) writes word i's four lanes into w: distinct from its neighbours, never the zero word
 *   and never all lanes 0xFFFFFFFF (the poison), so a copy that skips, shifts or drops a word cannot match by
 *   accident and an unwritten word is told apart. */
#ifndef EA_PATTERN_H
#define EA_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define EA_HOST_DEVICE __host__ __device__
#else
#define EA_HOST_DEVICE
#endif

static inline EA_HOST_DEVICE void ea_pattern_word(size_t i, uint32_t w[4])
{
    uint32_t h = (uint32_t)(i * 4u) * 2654435761u + 1u;
    w[0] = h | 1u; /* never zero, and never all ones with w[2] = ~h */
    w[1] = h ^ 0x5a5a5a5au;
    w[2] = ~h;
    w[3] = h + 7u;
}

#endif
