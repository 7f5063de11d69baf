/* golden_accept.h: whether a staged target may replace golden/targets/<name> (extern-audit golden accept).
 * Contract: ea_golden_accept_check reads the stage with the project's strict readers and lists every
 * problem, one string each, never stopping at the first: target.json unreadable or a partial stage
 * ("scopes"); a golden occurrence no capture covers; a capture, baselines or torch_ops file of another
 * GPU model than target.json; a classification that is absent, unreadable or not what the stage's
 * captures give (recomputed with golden's occurrences and old rule, as classify does); a golden point
 * without a baseline (ea_gate_uncovered); replay.json absent or unreadable. *bad_input is set when a
 * problem is a file that could not be read as its schema says (exit 2), else problems are gaps and
 * inconsistencies (exit 1). Returns the array (empty: the stage is complete) with *info the stage's
 * target.json (the caller frees it with ea_target_info_free; empty when it did not read), or NULL when
 * golden's own occurrences cannot be read (err). */
#ifndef EA_GOLDEN_ACCEPT_H
#define EA_GOLDEN_ACCEPT_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "golden/golden_target.h"

cJSON *ea_golden_accept_check(const char *golden, const char *staged, ea_target_info *info, int *bad_input,
                              ea_error *err);

#endif
