/* gate_run.h: gate --run's measurement, for the CLI and for the suite's one measurement per run.
 * Contract:
 * - ea_gate_run measures pts (as ro asks), compares the result with stored (named baseline in messages) by
 *   rule, then measures again the points the report leaves unsettled (ea_gate_unsettled_points: NOISY on the
 *   new side, SLOWER, FASTER) up to retries times, each new measurement spliced in place of the point's
 *   results (the last one stands). A measuring again that fails is tried point by point; a point that still
 *   fails keeps its last measurement and is measured no more: each of its unsettled entries says so in its
 *   detail, the report lists it in "remeasure_failed" ([{"point", "error"}], absent when none) and the
 *   other points' verdicts stand. Only the first measurement's failure fails the run (-1, err set). On success
 *   *fresh is the measured document and *report the comparison of it, with "remeasurements" (rounds) and
 *   "device_lock" (whether another process timed meanwhile).
 * - ea_gate_point_ids: the point ids of pts, a new array. */
#ifndef EA_GATE_RUN_H
#define EA_GATE_RUN_H

#include <cjson/cJSON.h>

#include "measure/drift.h"
#include "base/error.h"
#include "measure/run.h"

int ea_gate_run(const char *baseline, const cJSON *stored, ea_run_points *pts, const ea_run_opts *ro,
                const ea_drift_rule *rule, int retries, const char *command, cJSON **fresh, cJSON **report,
                ea_error *err);
cJSON *ea_gate_point_ids(const ea_run_points *pts);

#endif
