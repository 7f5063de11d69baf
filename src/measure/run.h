/* run.h: what `extern-audit run` and `extern-audit gate --run` share (cmd_run.c).
 * Contract: ea_run_points_load loads and validates the golden occurrence documents under golden and
 * resolves a --scope argument to points (repro.h); ea_run_measure measures those points on the
 * current device into a baselines document (baseline.h): the copy bandwidth and launch time of this
 * run, each family's results annotated with class, floor and fidelity. No device: -1 with
 * "no CUDA device: <reason>". */
#ifndef EA_RUN_H
#define EA_RUN_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/extract.h"
#include "measure/repro.h"

#define EA_RUN_MAX_REFS 256

typedef struct {
    ea_run_ctx ctx; /* the documents the refs point into, and the target's captures */
    ea_scope_ref refs[EA_RUN_MAX_REFS];
    int n;
} ea_run_points;

/* target_dir: the target folder (target.h) whose captures the families read, NULL for none. */
int ea_run_points_load(const char *golden, const char *target_dir, const char *scope, ea_run_points *p,
                       ea_error *err);
void ea_run_points_free(ea_run_points *p);
/* c: the context refs come from, opened on the target folder whose captures, classification and torch
 * timings the run reads; command: what the document's "command" records. */
int ea_run_measure(ea_run_ctx *c, const char *command, const ea_run_opts *ro, const ea_scope_ref *refs, int n,
                   cJSON **doc, ea_error *err);
/* The refs' plans (their families' results without times, ATen's grids sized for ro->sm_count) appended to
 * out, each with "sm_count"; a point its family refuses is an unsupported result, counted in *unsupported.
 * Needs no GPU. */
int ea_run_plan(ea_run_ctx *c, const ea_run_opts *ro, const ea_scope_ref *refs, int n, cJSON *out, int *unsupported,
                ea_error *err);

#endif
