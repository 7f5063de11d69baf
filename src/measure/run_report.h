/* run_report.h: the two reports of `extern-audit run` that are not the baselines table: the plan
 * (run --plan: what would run, without a GPU) and the check-only document (run --check-only: every
 * path once on its inputs and checked, nothing timed, what compute-sanitizer wraps).
 * Contract:
 * - ea_run_plan_print: per planned result (repro.h, measure 0) its family, alias, point, occurrences,
 *   floor bytes, then the current path's steps and the oracle's launches and variants, each launch as
 *   "kernel <<<grid, block>>>" (a family's config names them "current", "oracle.launch",
 *   "oracle.launches", "oracle.kernel", "oracle.variants"), and its notes. A configuration that names its
 *   "capture" and lists no "current" (cat's: the capture's default run is its current path, not copied into the
 *   baselines) prints that run's steps from caps, "function <<<grid x, grid y, block x>>>". Host only.
 * - ea_run_check_doc takes ownership of results (measured with ea_run_opts.check_only) and wraps them:
 *   {"command", "gpu", "check_only": true, "results", "totals": {"results", "paths", "failed_paths",
 *   "kernels", "paths_without_kernels"}, "passed"}; "kernels" counts the kernels CUPTI saw in the
 *   checked call of every reported path (a tuned path's other candidates ran and were checked too but
 *   list no kernels); "paths_without_kernels" those whose CUPTI list is empty (kernels_note says why).
 * - ea_run_check_print: one line per path (passed or its failure, kernel count), then the totals. */
#ifndef EA_RUN_REPORT_H
#define EA_RUN_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "target/capture.h"

void ea_run_plan_print(const cJSON *plans, const ea_captures *caps, FILE *f);
cJSON *ea_run_check_doc(cJSON *results, const char *command, const char *gpu);
void ea_run_check_print(const cJSON *doc, FILE *f);

#endif
