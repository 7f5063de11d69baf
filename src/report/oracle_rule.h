/* oracle_rule.h: the oracle's rule (issue 25): on every measured point the oracle is at least as fast, warm and
 * cold, as every implementation the repository measures there; a breach names the winner.
 * Contract:
 * - ea_oracle_rule_breaches: per result of a validated baselines document (file names it in messages) and per
 *   mode (warm: a path's "time", cold: its "time_cold"), the oracle is the fastest faithful path named oracle*
 *   that passed; its rivals are every other faithful path that passed (current, ...) and, warm only where the
 *   result's fidelity says the capture times the same scope ("comparable"), torch.compile's own time of each
 *   Inductor run of that capture in caps ("torch compiled <config>": default, coordinate_descent,
 *   without_lowering; probe runs and untimed runs are not rivals). Each pair is judged by the drift rule
 *   (drift.h) with the rival stored and the oracle new and no margin: the two sit side by side in one
 *   document, so the notches and the clock step are their whole noise; SLOWER is a breach, NOISY is counted
 *   unjudged. A candidate-lowering target (t->lowering) judges only the results whose capture it made under
 *   its lowering: the rest were kept from its base and are judged there.
 *   out: {"judged": pairs, "unjudged": pairs, "breaches": [{"family", "point", "result" (its order among the
 *   point's results, as gate matches them), "alias", "mode", "winner", "winner_us", "oracle", "oracle_us",
 *   "ratio" (winner_us / oracle_us, the oracle's speedup: < 1), "change", "tolerance"}]}.
 * - The allowlist (EA_ORACLE_ALLOWLIST in the golden folder, reviewed like any golden file): entries
 *   {"target", "family", "point", "result", "alias", "mode", "winner", "ratio", "issue", "reason"} for breaches
 *   known until a better oracle is measured. ea_oracle_allowlist_load reads it strictly (absent: no entries):
 *   a wrong key or type, a ratio outside (0, 1), an empty reason, an entry listed twice or a target with no
 *   folder under <golden>/targets fails naming the file and JSON path.
 * - ea_oracle_rule_apply marks each breach of target that an entry lists with "allowed" (the entry's reason
 *   and issue), and appends to failures ({"kind", "row", "why"}) every breach no entry lists
 *   ("oracle_beaten"), every listed breach now worse than its entry's ratio beyond the ratio's printed
 *   precision ("oracle_allowlist_worse") and every entry of target no breach matches ("oracle_allowlist_stale":
 *   delete it). So a new breach fails and the list can only shrink. Returns the number appended. */
#ifndef EA_ORACLE_RULE_H
#define EA_ORACLE_RULE_H

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "target/target.h"

#define EA_ORACLE_ALLOWLIST "oracle_allowlist.json"
#define EA_ORACLE_ALLOWLIST_SCHEMA "extern-audit/oracle-allowlist"
#define EA_ORACLE_ALLOWLIST_VERSION 1
/* An entry's ratio is written to two decimals: a measured ratio within half a unit of the last is the same. */
#define EA_ORACLE_RATIO_SLACK 0.005

int ea_oracle_rule_breaches(const ea_target *t, const char *file, const cJSON *baselines, const ea_captures *caps,
                            cJSON **out, ea_error *err);
/* *entries: the "allowed" array (an empty one when the file is absent), owned by the caller. */
int ea_oracle_allowlist_load(const char *golden, cJSON **entries, char *file, size_t nfile, ea_error *err);
int ea_oracle_rule_apply(cJSON *rule, const cJSON *entries, const char *target, const char *allowlist_file,
                         cJSON *failures);

#endif
