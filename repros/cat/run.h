/* run.h: measuring one cat scope on the current GPU.
 * Contract: cat_measure replays the capture's default run as the current path (ea_replay_run_judged: torch's
 * checksums, CUPTI names, ea_time_graph at the capture's calls per replay) and its coordinate_descent run,
 * where it is Triton launches only, as current_tuned alike (outputs that are not the default run's bits
 * judged by cat_check, ea_replay_run_judged), then runs the oracle
 * (each layout of cat_plan_variants, the fastest that passed kept by ea_path_tune's rule) on the same generated inputs:
 * outputs poisoned with 0xFF, one call under CUPTI, cat_check, timed with the same timer settings,
 * checked again. Result object per docs/reference/schema.md ("scopes[]"), with "verdict" and "view" (per output
 * whether the oracle's checksum equals torch's, and the emulation's y against torch's), the fields after
 * "config" (kit.h's measure). "passed" is false when a rule failed; NULL only when the run itself broke
 * (allocation, CUDA error), err says why. */
#ifndef CAT_RUN_H
#define CAT_RUN_H

#include <cjson/cJSON.h>

#include "cat.h"
#include "measure/kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The oracle may not be less accurate than the current path: its y rel L2 at most the current's, as the
 * CPU emulation of Inductor's arithmetic gives it, times CAT_EXACT_SLACK when that emulation is torch's
 * y bit for bit (checksum; a margin for rounding in the L2 sums themselves), else times
 * CAT_EMULATION_SLACK (the emulation sums statistics in another order than Triton); an oracle whose y
 * checksum equals torch's is the current path's y and passes. */
#define CAT_EXACT_SLACK 1.001
#define CAT_EMULATION_SLACK 1.05

cJSON *cat_measure(const cat_scope *s, const ea_capture *cap, const ea_kit_state *st, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
