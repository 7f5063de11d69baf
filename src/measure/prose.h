/* prose.h: the sentences a baselines document stands for, rendered from its numbers and identifiers when printed.
 * Contract: a stored result holds no sentence (docs/reference/schema.md, baselines since v2): its config's "notes" are note ids,
 * its "verdict" a verdict id, its times the numbers of their cache policy, the header the run's (calls_per_replay,
 * replays), an "unmeasured" entry's "reason" a reason id. ea_note_text gives a note id's text
 * (NULL: no such id); ea_verdict_known says whether an id is a verdict; ea_verdict_text renders a result's verdict
 * from its id and the result's numbers ("" when it has none); ea_time_policy_text renders a time object's cache
 * policy from it and its document's header. Rewording any of them changes what is printed and nothing that is
 * stored or gated. Research notes and their citations live in docs/ (the note texts say where). */
#ifndef EA_PROSE_H
#define EA_PROSE_H

#include <stddef.h>

#include <cjson/cJSON.h>

const char *ea_note_text(const char *id);
int ea_verdict_known(const char *id);
/* A verdict id's printf format (its speedup, then for fused_kernel its launches); NULL: no such id. A verdict quoting
 * no number (no_material_headroom) renders as its format. */
const char *ea_verdict_template(const char *id);
void ea_verdict_text(const cJSON *result, char *out, size_t n);
/* time: a path's "time" (cold 0) or "time_cold" (cold 1) object; doc: the document's header (gpu.l2_bytes,
 * warmup_ms). */
void ea_time_policy_text(const cJSON *doc, const cJSON *time, int cold, char *out, size_t n);
/* The run's warm cache policy, the header's (its calls_per_replay, replays, warmup_ms and gpu.l2_bytes): the copy
 * probe's timing and every path's default. */
void ea_run_policy_text(const cJSON *doc, char *out, size_t n);
/* The warm policy the document's paths were timed under: the header's, with the range of the calls per replay
 * its paths' "time" objects record (each path sizes its own) in place of the header's count. */
void ea_paths_policy_text(const cJSON *doc, char *out, size_t n);
/* An "unmeasured" entry's reason id: its text, NULL when no such id. ea_unmeasured_id: the id whose text is text
 * exactly, NULL when none (schema 2 stored the text: the migration reads it back with this). */
const char *ea_unmeasured_text(const char *id);
/* Whether reason id says a GPU run has yet to record the point (not a reason by design). */
int ea_unmeasured_awaits_gpu(const char *id);
const char *ea_unmeasured_id(const char *text);
/* Why the floor bounds no warm time, when the result's floor bytes fit in the document's L2; else NULL. */
const char *ea_floor_note_text(const cJSON *doc, const cJSON *result);

#endif
