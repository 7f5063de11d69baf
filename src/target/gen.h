/* gen.h: deterministic scope inputs and output checksums, bit-exact with tools/capture/gen.py.
 * Contract (docs/reference/schema.md, "Deterministic inputs"): element i of an input with seed s hashes
 * splitmix64((s << 40) ^ i); "uniform" gives 0.5 + (h >> 41) * 2^-23 in f32, rounded to nearest even
 * for bf16/f16; "randint" lo + (h >> 1) % (hi - lo); "bool" h >> 63; "constant", "iota",
 * "as_strided_iota", "topk_ids" and "topk_ids_skewed" reproduce their definitions. Buffers are
 * host storage laid out by the descriptor's strides and offset; the checksum sums splitmix64 over
 * row-major elements. */
#ifndef EA_GEN_H
#define EA_GEN_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "base/tensor.h"

uint64_t ea_gen_hash(uint64_t seed, uint64_t i);
uint16_t ea_f32_to_bf16(float f);
uint16_t ea_f32_to_f16(float f);

/* Bytes of host storage the descriptor needs (extent * element size). -1 if symbolic. */
int64_t ea_storage_bytes(const ea_tensor *t);
/* Fill storage (ea_storage_bytes long) per the generator object; where names it in errors. */
int ea_gen_fill(const cJSON *generator, const ea_tensor *t, void *storage, const char *where, ea_error *err);
/* The order-independent checksum of the tensor's row-major elements. */
uint64_t ea_checksum(const ea_tensor *t, const void *storage);
/* Relative L2 error of row-major elements 0, stride, 2 stride, ... (n of them) of a floating tensor
 * (bf16, f16, f32, f64) against ref: ||x - ref|| / max(||ref||, 1e-30). NaN when an element is not
 * finite or the dtype is not floating. The replay's judge where bits depend on the order of atomics. */
double ea_sampled_rel_l2(const ea_tensor *t, const void *storage, int64_t stride, const double *ref, int64_t n);

#endif
