/* alias.h: a golden point's short name ("xlnet", "roberta-infer", "densenet121-infer-28x28-k9"), derived
 * from its occurrences so that a new corpus point gets a readable one; never a table of point ids.
 * Contract: ea_alias_make writes <stem>[-<mode>][-<tag>] for point, one of the points of doc that
 * claims accepts (NULL: all of them):
 * - stem: the models' name without an organisation ("openai/") or a language-model head
 *   ("...ForCausalLM", "...LMHeadModel"), lower case, a few long names shortened ("AllenaiLongformerBase":
 *   "longformer"); a task head is kept short ("-seqcls", "-qa") when the point has that one model; when the
 *   point's models differ, the first's. A family that names its scope (stem non-NULL: "routing") uses that
 *   name instead of the stem and the mode.
 * - mode: "-infer" or "-train" when every occurrence of the point has that mode and the claimed points of
 *   doc come in both modes, or the family tags its points (tag non-NULL: a layer of the model, which both
 *   modes have), so one mode's corpus names them as the committed golden does (densenet121-train-14x14-k9).
 * - tag: only when another claimed point gets the same stem and mode: tag(point) (NULL: the output's
 *   dtype and sizes, "bf16-9437184"); where that still collides, the point id.
 * Aliases are unique among the claimed points of doc (tested on the golden points). */
#ifndef EA_ALIAS_H
#define EA_ALIAS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ea_alias_tag_fn)(const cJSON *point, char *buf, size_t n);

void ea_alias_make(const cJSON *doc, const cJSON *point, int (*claims)(const cJSON *point), const char *stem,
                   ea_alias_tag_fn tag, char *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
