/* reference.h: the host side of a position-id cumsum scope: inputs, the CPU reference, comparisons.
 * Contract: cs_inputs_make fills the token ids of a CS_MASK scope from its capture's generator
 * (src/target/gen.c, bit-exact with the capture), so the reference's outputs hash to the capture's
 * checksums; CS_PACKED and CS_CONST scopes have no inputs. cs_pad_tails turns those ids into a
 * padded batch (below). cs_reference computes every output of the scope exactly as the graph does
 * (integer arithmetic with the graph's widths; the f32 scan sequentially). Outputs are dense
 * row-major host buffers, one per s->outputs[i]. cs_compare counts elements still holding the 0xFF
 * poison (unwritten) and elements that differ (mismatched); rel_l2 and max_abs are over the values. */
#ifndef CS_REFERENCE_H
#define CS_REFERENCE_H

#include <stdint.h>

#include "measure/path.h" /* ea_check: the check record every family reports */
#include "scope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seed of the padded batch every run uses; stated in the results. */
#define CS_PAD_SEED 20261130u

/* ids: rows * cols i64, caller frees; NULL (and 0) for scopes without inputs. */
int cs_inputs_make(const cs_scope *s, const ea_capture *c, int64_t **ids, ea_error *err);
/* A right-padded batch, as Hugging Face tokenizers pad to the longest sequence: row 0 keeps every
 * token (the longest sequence), row r > 0 keeps a prefix of 1 + ea_gen_hash(seed, r) % cols tokens
 * and the tail holds the pad token (the graph's ne scalar). A pad token drawn inside a prefix
 * becomes pad + 1, so each row's mask is exactly its prefix. lengths: rows entries, may be NULL. */
void cs_pad_tails(const cs_scope *s, uint64_t seed, int64_t *ids, int64_t *lengths);

/* Bytes of output i. */
int64_t cs_output_bytes(const cs_scope *s, int i);
/* out[i]: cs_output_bytes(s, i) bytes each. */
void cs_reference(const cs_scope *s, const int64_t *ids, void *const out[]);
/* Output i against its reference: every element exact. */
void cs_compare(const cs_scope *s, int i, const void *got, const void *want, ea_check *c);

#ifdef __cplusplus
}
#endif

#endif
