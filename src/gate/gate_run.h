/* gate_run.h: gate --run's measurement, for the CLI and for the suite's one measurement per run.
 * Contract:
 * - ea_gate_run measures pts (as ro asks), compares the result with stored (named baseline in messages) by
 *   rule, then measures again the points the report leaves unsettled (ea_gate_unsettled_points: NOISY on the
 *   new side, SLOWER, FASTER) up to retries times, each new measurement spliced in place of the point's
 *   results (the last one stands). On success *fresh is the measured document and *report the comparison of
 *   it, with "remeasurements" (rounds) and "device_lock" (whether another process timed meanwhile).
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
