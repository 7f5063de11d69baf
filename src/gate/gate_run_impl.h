/* gate_run_impl.h: ea_gate_run with its measurement injected, so the suite tests the loop without a GPU.
 * Contract: ea_gate_run_measured is ea_gate_run (gate_run.h) measuring with measure in place of ea_run_measure
 * (same arguments, same meaning: 0 and *doc a baselines document, or -1 with err set). */
#ifndef EA_GATE_RUN_IMPL_H
#define EA_GATE_RUN_IMPL_H

#include "gate/gate_run.h"

typedef int ea_gate_measure_fn(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs,
                               int n, cJSON **doc, ea_error *err);

int ea_gate_run_measured(ea_gate_measure_fn *measure, const char *baseline, const cJSON *stored, ea_run_points *pts,
                         const ea_run_opts *ro, const ea_drift_rule *rule, int retries, const char *command,
                         cJSON **fresh, cJSON **report, ea_error *err);

#endif
