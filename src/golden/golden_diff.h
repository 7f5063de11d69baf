/* golden_diff.h: what changes when a staged target replaces a golden one (extern-audit golden diff).
 * Contract:
 * - ea_golden_diff compares two loaded targets (golden_target.h) over the shared golden occurrences
 *   (ea_occurrences_load docs) and every occurrence either classification lists. Changes, each with its
 *   op, point, scope and the models ("suite/mode/model") of the occurrences it touches:
 *   class (an occurrence's class, with the old rule's verdict and the false-extern flag on each side),
 *   point_added / point_removed (a point in one target's classification or baselines only),
 *   partition (a capture on one side only, or a run whose Triton kernels / ATen calls or launch shapes
 *   differ), boundary (a capture's covered occurrences or its input/output tensors differ), timing (the
 *   gate's comparison of the two baselines documents, gate.h and drift.h: every entry but SAME and CLASS;
 *   not compared, with a note, when the GPU models differ).
 *   A partial stage (target.json "scopes") compares only its scopes: everything outside them is counted
 *   as "not staged", never as removed.
 * - The report is JSON (schema "extern-audit/golden-diff", EA_GOLDEN_DIFF_VERSION, docs/reference/schema.md):
 *   summary by op and by model first, then the changes sorted by kind, op, point, scope and detail (stable
 *   output).
 * - ea_golden_diff_exit: 0 nothing differs, 1 something does, 2 a timing the rule cannot read.
 * - ea_golden_diff_print (terminal) and ea_golden_diff_markdown (malloc'd) render the same report. */
#ifndef EA_GOLDEN_DIFF_H
#define EA_GOLDEN_DIFF_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "measure/drift.h"
#include "base/error.h"
#include "corpus/extract.h"
#include "golden/golden_target.h"

#define EA_GOLDEN_DIFF_SCHEMA "extern-audit/golden-diff"
#define EA_GOLDEN_DIFF_VERSION 2

/* The change kinds, in report order, NULL-terminated: "class", "point_added", "point_removed", "partition",
 * "boundary", "timing". */
extern const char *const ea_golden_diff_kinds[];

cJSON *ea_golden_diff(cJSON *const docs[EA_AUDIT_OPS], const ea_golden_target *old, const ea_golden_target *fresh,
                      const ea_drift_rule *rule);
int ea_golden_diff_exit(const cJSON *report);
void ea_golden_diff_print(const cJSON *report, FILE *f);
char *ea_golden_diff_markdown(const cJSON *report);

#endif
