/* keep_from.h: a measurement of some points (run) or captures (replay) made whole with a base document of
 * the same target, so a stage that recaptured a few scopes (ci/golden-stage --lowering) measures only
 * those and keeps the base's entries for the rest byte for byte (run / replay --keep-from FILE).
 * Contract:
 * - ea_baselines_keep_from: a copy of base (a valid baselines document, base_file for messages) with every
 *   result of each (family, point) that fresh measured replaced by fresh's, in order (ea_gate_splice),
 *   base's "unmeasured" entries of those points dropped, fresh's "launch_floor" in place of base's where fresh
 *   has one (measure/launch_floor.h), "passed" re-derived over every result and
 *   "command" saying which points came from which run, "<fresh's> (N points" EA_KEPT_FROM_MARK "<base_file>:
 *   <base's>)". NULL (err names base_file and what) when the two
 *   are of different GPU models, or when a golden point (docs) is neither in fresh nor in base (results or
 *   "unmeasured" with a reason): a merged document never hides a point.
 * - ea_replay_keep_from: a copy of base (a valid replay.json) with fresh's row in place of the base's row of
 *   the same scope (a new scope appended); NULL when the result does not have exactly one row per capture
 *   of caps, the target's (ea_replay_file_covers: err names base_file and the capture or row).
 * - ea_keep_from: file read, checked by validate (the command's reader) and merged with *doc by merge (given
 *   ctx), the merge replacing *doc: one sequence for both commands, so a --keep-from file that does not read or
 *   merge is refused the same way, naming it, whichever command reads it. -1 (err) leaves *doc as it was. */
#ifndef EA_KEEP_FROM_H
#define EA_KEEP_FROM_H

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "corpus/extract.h"

/* What a merged document's "command" says before the base's file and command (golden rebase finds it there). */
#define EA_KEPT_FROM_MARK "; every other result kept from "

cJSON *ea_baselines_keep_from(const char *base_file, const cJSON *base, const cJSON *fresh,
                              cJSON *const docs[EA_AUDIT_OPS], ea_error *err);
cJSON *ea_replay_keep_from(const char *base_file, const cJSON *base, const cJSON *fresh, const ea_captures *caps,
                           ea_error *err);

typedef int ea_keep_validate(const char *file, const cJSON *doc, ea_error *err);
typedef cJSON *ea_keep_merge(const char *base_file, const cJSON *base, const cJSON *fresh, const void *ctx,
                             ea_error *err);
int ea_keep_from(const char *file, ea_keep_validate *validate, ea_keep_merge *merge, const void *ctx, cJSON **doc,
                 ea_error *err);

#endif
