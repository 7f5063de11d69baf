/* gen_impl.h: test-only entry points of gen.c: the hash and the uniform value under ea_gen_fill
 * (gen.h's contract), which the tests check against tools/capture/gen.py's numbers. */
#ifndef EA_GEN_IMPL_H
#define EA_GEN_IMPL_H

#include <stdint.h>

uint64_t ea_splitmix64(uint64_t x);
float ea_gen_uniform(uint64_t seed, uint64_t i);

#endif
