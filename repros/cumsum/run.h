/* run.h: one position-id scope measured on the current GPU, and its configuration block.
 * Contract: cs_measure uploads the scope's inputs (the capture's generator), computes the CPU
 * reference and checks it against the capture's output checksums (torch's own outputs), then runs
 * its paths, "current" (the captured Inductor launches of run, current.h), "current_tuned" (the same
 * of the capture's coordinate_descent run, where it is Triton launches only) and "oracle" (kernels.h):
 * each output poisoned with 0xFF, one call under CUPTI, every element compared with the reference,
 * timed by ea_time_graph (warm cache, automatic calls per replay), compared again after timing.
 * The oracle runs so at each launch variant that applies (cs_mask_variant, cs_const_variant, cs_packed_variant)
 * and keeps the fastest (ea_path_tune's rule) that passed, the others in its "candidates"; every variant must pass. A CS_MASK scope then reruns
 * every path (every oracle variant) on a padded batch (reference.h) against its reference.
 * ea_replay_run replays the capture as `extern-audit replay` does, as a second witness of the
 * current path (its checksums and time go to "view"). The verdict compares the medians:
 * current / oracle <= CS_HEADROOM_RATIO is "no_material_headroom", more is
 * "headroom" (ids, prose.h: the sentence quotes the speedup when printed); no verdict unless every check passed.
 * Returns the result's fields after "config" (kit.h's measure), NULL only when the run broke. */
#ifndef CS_RUN_H
#define CS_RUN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "kernels.h"
#include "measure/kit.h"
#include "scope.h"

/* Within 10% of the current path is no material headroom (issue 5). */
#define CS_HEADROOM_RATIO 1.10

cJSON *cs_measure(const cs_scope *s, const ea_capture *c, const ea_capture_run *run, const ea_kit_state *st,
                  ea_error *err);
/* The verdict a stored result's faithful current and oracle medians give (the family's verdict hook: gate --propose
 * derives it again when it takes a time); NULL without both. */
const char *cs_result_verdict(const cJSON *result);
/* Kind, shapes, the graph's literals, outputs, inputs, the captured launches and the oracle's. */
cJSON *cs_config_json(const cs_scope *s, const ea_capture *c, const ea_capture_run *run);
/* The launch variants a kind's oracle is tuned over (cs_mask_variant, cs_const_variant, cs_packed_variant). */
int cs_oracle_variants(cs_kind k);
/* Variant v of s's oracle, where it applies to s (1; else 0, o untouched): its "variant" (the name) and "unroll"
 * (mask: 16-byte column pairs a lane; const: elements a thread writes; packed: items a thread scans), the keys a tuned path has
 * (docs/reference/schema.md), added to o; launch: also its launch ("grid" and "block"; mask: "warps" too). */
int cs_oracle_variant_json(const cs_scope *s, int v, cJSON *o, int launch);
/* " (row: 2 pairs, 8 warps, 1 segment)", for logs. */
void cs_mask_shape_text(const cs_mask_shape *sh, char *text, size_t n);
/* " (flat: 1 element a thread, 128 threads a CTA)", for logs. */
void cs_const_shape_text(const cs_const_shape *sh, char *text, size_t n);
/* " (t256: 4 items a thread, 256 threads a CTA)", for logs. */
void cs_packed_shape_text(const cs_packed_shape *sh, char *text, size_t n);

#endif
