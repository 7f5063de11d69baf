/* gate.h: two baselines documents of one GPU model compared path by path (extern-audit gate).
 * Contract:
 * - ea_gate_compare matches results by family, point and what they measure, never by their order (the same
 *   "config", else the same scope_ids and configuration planned anew: gate.c's pair_results; a result with no
 *   counterpart is MISSING or ADDED, so --propose holds each configuration once), paths by name and mode, and judges each path's "time" (and "time_cold", as a separate entry
 *   "<mode>/cold", when both sides carry it; MISSING or ADDED "<mode>/cold" when one side does) with
 *   the drift rule (drift.h); a path's own "margin"
 *   wins over the rule's. It reports every entry: SAME, SLOWER, FASTER, NOISY, and MISSING / ADDED
 *   (a point or path on one side only), CLASS (the result's class changed), CONFIG (the plan it measured,
 *   its "config" or the scope groups it covers, its "scope_ids", is not the stored one: kernels, launches, notes,
 *   capture, a point's groups split otherwise), FIDELITY (gate --plan: the
 *   recorded fidelity is not what the result's times give), FAILED (the new result
 *   or path did not pass its checks), INVALID (a time the rule cannot read; the others still judged).
 *   points (NULL: all) restricts the comparison to those point ids (--scope). Documents of two GPU
 *   models are refused (-1, err says which). Both documents must have passed ea_baseline_validate.
 * - The report is JSON (schema "extern-audit/gate", EA_GATE_VERSION, docs/reference/schema.md); ea_gate_exit is 0 when every
 *   entry is SAME or holds no gate (ea_gate_entry_holds), 2 when one is INVALID, else 1. An entry of the measured
 *   floor (path.h EA_PATH_FLOOR with mode "floor" or "floor/cold") that is SLOWER, FASTER, NOISY, ADDED or MISSING
 *   holds none: the floor is the yardstick the fractions divide by, not what the gate guards, so its moves are
 *   reported (the summary line counts them apart; a move's detail says so), measured again and proposed as any
 *   path's, never a failure; a floor that fails its check fails its result (FAILED, the result's entry) and an
 *   INVALID one exits 2, like any path's.
 * - ea_gate_propose: the stored document with only what moved replaced (SLOWER/FASTER timings, a tuned warm time
 *   with its run's "variant", "unroll", "candidates", "kernels", "kernel_launches" and "kernel_launches_note",
 *   each as the fresh path has it or removed where it has none), and the fidelity when every current warm
 *   time was, CLASS, CONFIG (with the scope groups and their occurrences), FIDELITY, ADDED points, paths and cold
 *   times; not an ADDED plan of gate --plan, which has no times), the "point_wall_s" a stored result
 *   lacks taken from its point's fresh result, and fresh's "launch_floor" where a chain moved beyond the rule's margin or the stored document
 *   has none (measure/launch_floor.h ea_launch_floor_moved: no entry judges it), and the verdict its family's rule
 *   (repro.h's verdict hook) gives a passed result any time was taken into, from the times it then holds:
 *   every other byte of the stored file prints as it was read.
 * - ea_gate_print (terminal table); ea_gate_markdown (the table a CI job posts) and ea_gate_junit (JUnit XML) are
 *   the texts the CLI writes (cmd_gate.c's ea_gate_cli_texts).
 * - ea_gate_uncovered: the golden points (docs, ea_occurrences_load) that a baselines document neither
 *   measured nor lists in "unmeasured" with a reason: a JSON array of point ids, empty when covered.
 * - ea_gate_unsettled_points: the point ids of the report's entries a new measurement may settle: NOISY but
 *   for the stored side's spread (a clock step too: the entry does not say which side's step was the coarser,
 *   and the new side's may settle), SLOWER and FASTER (a move stands only when the point's last measurement
 *   shows it too); ea_gate_splice puts a re-measurement's results (again, emptied) in place of
 *   fresh's results of the same family and point, in order: a point's extra result after its last one, a
 *   point fresh lacks at the end, and a result of a re-measured point left without a new one dropped
 *   (run --keep-from merges a partial run into a whole document with it). */
#ifndef EA_GATE_H
#define EA_GATE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "measure/drift.h"
#include "base/error.h"
#include "corpus/extract.h"

#define EA_GATE_SCHEMA "extern-audit/gate"
#define EA_GATE_VERSION 2

cJSON *ea_gate_compare(const char *stored_file, const cJSON *stored, const char *new_file, const cJSON *fresh,
                       const ea_drift_rule *rule, const cJSON *points, ea_error *err);
/* The fidelity a stored result's times give today (baseline.h's ea_result_fidelity), a new object; NULL: none. */
typedef cJSON *ea_gate_derive_fn(const cJSON *stored_result, void *ctx);
/* stored's results against plans (ea_run_plan's array: today's code, no GPU): CONFIG per result whose "config"
 * or "scope_ids" is not its plan's, FIDELITY per result whose recorded fidelity is not what derive gives from its own times
 * under today's plan (its config and scope ids), the first difference named in both, numbers equal within a
 * 1e-12 relative difference (a printed double reads back within cJSON's epsilon, not bit for bit), SAME for the others; MISSING for a stored result
 * today's code does not plan or refuses; a stored refusal is not judged (no plan to compare); ADDED for a
 * configuration planned for a point the document measures (a result that is no refusal) that none of its results
 * measures (the point's groups split into more configurations), a point with no result at all being coverage's
 * (ea_gate_uncovered). Each derived fidelity is attached to its plan. A report
 * of ea_gate_compare's form, whose ea_gate_propose (fresh: {"scopes": plans}) takes the CONFIG results' plans
 * and the FIDELITY results' fidelity. */
cJSON *ea_gate_compare_plans(const char *stored_file, const cJSON *stored, cJSON *plans, const cJSON *points,
                             ea_gate_derive_fn *derive, void *ctx, ea_error *err);
int ea_gate_exit(const cJSON *report);
/* Does entry e count for the exit: not SAME, and not a move of the measured floor (above)? */
int ea_gate_entry_holds(const cJSON *e);
/* The report's "summary" (re)counted from its entries: a count per status; returns report. */
cJSON *ea_gate_summarize(cJSON *report);
cJSON *ea_gate_propose(const cJSON *stored, const cJSON *fresh, const cJSON *report);
void ea_gate_print(const cJSON *report, FILE *f);
/* The markdown a CI job posts: the summary, then every entry not SAME (malloc'd). */
char *ea_gate_markdown(const cJSON *report);
/* The JUnit XML (malloc'd): one testcase per entry, named by point, result, path and mode, a failure with its
 * status, detail and where for each entry not SAME. */
char *ea_gate_junit(const cJSON *report);
cJSON *ea_gate_uncovered(cJSON *const docs[EA_AUDIT_OPS], const cJSON *baselines);
cJSON *ea_gate_unsettled_points(const cJSON *report);
void ea_gate_splice(cJSON *fresh, cJSON *again);

#endif
