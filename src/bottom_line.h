/* bottom_line.h: what `extern-audit audit` ends with.
 * Contract: ea_bottom_line prints how many occurrences the old rule files under "extern" are false
 * externs, from the stored classification's summary ({op: {class: n, "false_extern": n}}; NULL: not
 * classified yet, said so), then one row per scope of every golden/baselines/<gpu>.json: faithful
 * current and oracle warm and cold ("-" where not timed cold), floor (median us per call), speedup
 * and the oracle's share of the floor with its basis (fraction_basis: cold, else warm), a line per
 * golden/replay/<gpu>.json (captures, replayed, ok), and each golden/sanitize/<gpu>.json's totals
 * (sanitize_record.h). A baselines, replay or sanitize file that does not validate fails with its
 * message (-1). */
#ifndef EA_BOTTOM_LINE_H
#define EA_BOTTOM_LINE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "error.h"

int ea_bottom_line(const char *golden, const cJSON *classes, FILE *f, ea_error *err);

#endif
