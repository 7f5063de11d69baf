/* path_impl.h: test-only entry points of path.c.
 * ea_path_judge: ea_path_judge_outcome's rules on a bare record (why: the failure). ea_path_measure:
 * ea_path_run's sequence into an existing record. ea_path_replaces: ea_path_tune's rule of which
 * candidate is kept, on records.
 * ea_path_recorder: CUPTI around one checked call (path.c starts and stops it); ea_path_record_json
 * writes what it saw, or why there is nothing, through ea_path_kernels_json, and frees it.
 * ea_path_inject(label, extra, ctx): from now on ea_path_measure appends extra(ctx) to every call of the
 * path whose steps' label is label ("index_add xlnet current"), checked and timed alike; NULL stops it.
 * The gate's GPU test appends a delay kernel (tests/delay.h) to make one path slower by a known amount. */
#ifndef EA_PATH_IMPL_H
#define EA_PATH_IMPL_H

#include "measure/path.h"

void ea_path_inject(const char *label, ea_enqueue_fn extra, void *ctx);

int ea_path_judge(cJSON *path, double current_rel, int exact, int bound, char *why, size_t n);
/* Runs s's sequence into path; first and again receive the checks, *median_us the warm median per call
 * (NaN when check_only).
 * -1 when a step broke (err says which); path is then left as it was. */
int ea_path_measure(const ea_path_steps *s, cJSON *path, ea_check *first, ea_check *again, double *median_us,
                    ea_error *err);
/* Whether candidate (passed or not) takes the place of best (best_passed; NULL: none yet): the fastest of the
 * candidates that passed is kept, a later one only when faster by more than EA_PATH_TIE, a failed one only while
 * none passed (docs/reference/schema.md). */
int ea_path_replaces(const cJSON *candidate, int passed, const cJSON *best, int best_passed);

typedef struct {
    int recording;
    ea_kernel_list kernels;
    ea_error why; /* when not recording */
} ea_path_recorder;
void ea_path_record_json(cJSON *path, ea_path_recorder *r);

#endif
