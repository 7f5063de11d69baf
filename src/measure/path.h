/* path.h: one measured path of a scope (docs/reference/schema.md "path"), the record every repro family writes.
 * Contract:
 * - ea_check: what a family's comparison of an output found; ea_path_check_json writes it under key.
 * - ea_path_kernels_json: the demangled kernel names (template arguments kept, parameter lists
 *   dropped); seen NULL gives "kernels": [] and "kernels_note": note (or "CUPTI recorded nothing").
 * - ea_path_time_json: ea_time_graph's per-call statistics and cache policy.
 * - ea_path_judge_outcome adds "passed" (and "failure"): both checks with every element written and
 *   finite, rel_l2 <= EA_MAX_REL_L2 when bound, no mismatch when exact, rel_l2 <= current_rel when
 *   current_rel >= 0; every rule written so that a NaN or a missing number fails. Host-only.
 * - ea_path_named, ea_path_median: finding a result's path and its median.
 * - ea_path_run: the sequence every family's path runs: poison the outputs, one call under CUPTI,
 *   check, EA_PATH_PROFILE_CALLS more calls under CUPTI (copies and memsets recorded too) for
 *   per-kernel durations, time warm and
 *   cold (ea_time_warm_cold; warm alone with steps.warm_only), check again; it writes "kernels",
 *   "kernel_launches", "time", "time_cold" (or "time_cold_note" without CUPTI; neither when warm_only),
 *   "check" and "check_after_timing" into the path. With steps.check_only (run
 *   --check-only) it stops after the first check: "kernels", "check" and "check_only": true, which
 *   the judgement reads as "no check after timing to judge"; the outcome's again is then its check.
 * - ea_path_launches_json: "kernel_launches", one entry per kernel, copy or memset of a call (name,
 *   grid, block, shared bytes, a copy's "bytes", median/min/max us over the calls CUPTI saw), from a
 *   list of `calls` equal calls.
 * - The path record comes back as a typed ea_path_outcome (median, checks, and the verdict the family
 *   then sets: passed, failure), so a family decides from numbers, not by reading its JSON back.
 * - ea_path_tune: the candidates loop every family shares: measure each variant of a path, keep the
 *   fastest that passed (ea_path_replaces' rule: a later variant within EA_PATH_TIE of the kept one does not
 *   replace it, so near-ties keep one pick from run to run), list every variant under the kept path's
 *   "candidates" (docs/reference/schema.md). */
#ifndef EA_PATH_H
#define EA_PATH_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpu/cupti.h"
#include "base/error.h"
#include "gpu/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EA_MAX_REL_L2 1e-2 /* relative L2 error against an fp64 reference, for floating scopes */
/* The path a lowered scope's capture gives beside "current" (its default run): the coordinate_descent run,
 * Inductor with coordinate-descent tuning on, replayed alike (faithful mode). */
#define EA_PATH_CURRENT_TUNED "current_tuned"
/* The measured floor every configuration carries beside its paths (floor_path.h): no implementation of the
 * scope, so its mode is neither faithful nor fabricated and no rule that compares implementations reads it. */
#define EA_PATH_FLOOR "floor_copy"
#define EA_PATH_FLOOR_MODE "floor"

typedef struct {
    double rel_l2, max_abs;     /* over the written, finite elements */
    int64_t unwritten;          /* still holding the poison: never written */
    int64_t nonfinite;          /* written NaN or infinity */
    int64_t mismatched, n;      /* against an exact reference or emulation */
} ea_check;

void ea_path_kernels_json(cJSON *path, const ea_kernel_list *seen, const char *note);
#define EA_PATH_PROFILE_CALLS 5
/* seen holds `calls` calls' kernels in order; when they are not `calls` equal sequences it writes
 * "kernel_launches_note" instead. */
void ea_path_launches_json(cJSON *path, const ea_kernel_list *seen, int calls);

void ea_path_check_json(cJSON *path, const char *key, const ea_check *c);
cJSON *ea_path_time_json(const ea_timing *t);
/* ea_time_warm_cold's cold half: "time_cold", or "time_cold_note" (why none) when it has no samples. */
void ea_path_cold_json(cJSON *path, const ea_timing *cold);

/* The path of result named name (and of mode, unless NULL), or NULL. */
const cJSON *ea_path_named(const cJSON *result, const char *name, const char *mode);
/* Its median per call, NaN when path or its time is absent. */
double ea_path_median(const cJSON *path);
/* The same of its "time_cold": NaN when absent (files before cold timing, check-only runs). */
double ea_path_median_cold(const cJSON *path);
/* 1 when path has a variant table ("candidates") in which no entry of its kept variant (and unroll) holds its
 * warm median: a table older than its time. */
int ea_path_table_stale(const cJSON *path);
/* Each path of result whose "check_after_timing" is its "check" object, member for member, holds the id "same"
 * in its place (baselines schema 3): the output the last timed replay left was the first check's. */
void ea_paths_fold_checks(cJSON *result);

/* A path as the measurement drives it: poison fills its outputs with 0xFF; enqueue is one call; check
 * copies the outputs back and compares them (after_timing: 0 after the first call, 1 after timing). */
typedef struct {
    const char *label; /* "<family> <alias> <path>", for messages */
    void *ctx;
    int (*poison)(void *ctx, ea_error *err);
    ea_enqueue_fn enqueue;
    int (*check)(void *ctx, int after_timing, ea_check *c, ea_error *err);
    const ea_timer_config *timer; /* NULL: ea_time_graph's defaults */
    int check_only;               /* ea_run_opts.check_only: no profile, no timing */
    int warm_only;                /* !ea_run_times_cold: timed warm alone, no "time_cold" */
} ea_path_steps;


/* One measured path. json is the record (its owner deletes it); passed and failure are the family's
 * verdict, which ea_path_run leaves at 0 and "" for the family to set (ea_path_judge, or its own rule). */
typedef struct {
    cJSON *json;
    double median_us; /* warm median per call; NaN when check_only */
    ea_check check;   /* after the first call */
    ea_check again;   /* after timing (a copy of check when check_only) */
    int passed;
    char failure[256];
} ea_path_outcome;

/* ea_path_measure of s into a new record {"name": name, "mode": mode, ...}; -1 (out->json NULL) when
 * it broke. */
int ea_path_run(const ea_path_steps *s, const char *name, const char *mode, ea_path_outcome *out, ea_error *err);
/* ea_path_judge of out->json into out->passed and out->failure; returns out->passed. */
int ea_path_judge_outcome(ea_path_outcome *out, double current_rel, int exact, int bound);
/* A family's own verdict: failure NULL passes; "passed" (replaced where the record has one already) and
 * "failure" written into out->json, and set in out. */
void ea_path_verdict(ea_path_outcome *out, const char *failure);

/* The variants of one path a family tunes over. */
typedef struct {
    const char *label; /* "<family> <alias> <path>", for messages */
    void *ctx;
    int n;             /* variants 0 .. n-1 */
    /* Sets variant v up, measures it and gives the verdict (out->passed, out->failure): 0; 1 when v does
     * not apply to the scope (skipped, not listed); -1 when the run broke. */
    int (*measure)(void *ctx, int v, ea_path_outcome *out, ea_error *err);
    /* Adds v's identifying fields ("variant", "unroll", ...) to o: the measured path (entry 0) or its
     * "candidates" entry (entry 1). */
    void (*describe)(void *ctx, int v, cJSON *o, int entry);
} ea_path_tuning;

typedef struct {
    ea_path_outcome kept; /* the kept path, "candidates" added; kept.json is the caller's */
    int kept_v;
    int tried, passed;    /* variants measured, and how many passed */
    int first_failed;     /* the first that failed, -1 none; its failure in first_failure */
    char first_failure[256];
} ea_path_tuned;

#define EA_PATH_TIE 0.01 /* a variant replaces the kept one only when more than 1% faster warm */

/* Measures t's variants in order; keeps the fastest that passed (a later one must beat the kept one by more
 * than EA_PATH_TIE), a failed one only while none passed.
 * Each candidate entry: describe's fields, "median_us", "passed", and "failure" when it failed. -1 when a
 * run broke or no variant applied (err says which); nothing is then kept. */
int ea_path_tune(const ea_path_tuning *t, ea_path_tuned *r, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
