/* hash.h: FNV-1a over bytes, for content digests and stable ids (not for security).
 * Contract: ea_fnv1a64(EA_FNV1A64_INIT, p, n) hashes n bytes; feed the result back to continue. */
#ifndef EA_HASH_H
#define EA_HASH_H

#include <stddef.h>
#include <stdint.h>

#define EA_FNV1A64_INIT 0xcbf29ce484222325ULL

static inline uint64_t ea_fnv1a64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#endif
