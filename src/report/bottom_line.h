/* bottom_line.h: what `extern-audit audit` ends with.
 * Contract: ea_bottom_line prints how many occurrences the old rule files under "extern" are false
 * externs, from the stored classification's summary ({op: {class: n, "false_extern": n}}; NULL: not
 * classified yet, said so), then one row per scope of the target's baselines.json (baseline_table.h: its
 * mode and variant, faithful current and oracle warm and cold, "-" where not timed cold, floor (median us
 * per call), speedup and the oracle's share of the floor with its basis), a line for its
 * replay.json (captures, replayed, ok), and each golden/targets/<target>/sanitize.json's totals
 * (sanitize_record.h) with the registry's families its scopes do not cover whole; an absent file (or t->name "": no
 * target) is said so. A baselines, replay or sanitize file that does not validate fails with its message (-1). */
#ifndef EA_BOTTOM_LINE_H
#define EA_BOTTOM_LINE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "target/target.h"

int ea_bottom_line(const ea_target *t, const cJSON *classes, FILE *f, ea_error *err);

#endif
