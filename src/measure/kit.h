/* kit.h: the family kit, what a scope family (repros/<name>/) declares and what the runner does for it, in the
 * spirit of nvbench's benchmark and state: a family plans and measures; the loop, the results' headers,
 * check-only and the cold policy are the runner's.
 * Contract:
 * - A family is an ea_repro_family (repro.h) with designated initializers: .name, .op, .modes,
 *   .description, .plan and .measure (.claims, .alias_stem, .alias_tag when it needs them).
 * - plan(ctx, ref, p, err) describes ref's point without a GPU: one ea_kit_add per configuration the family
 *   measures apart (a scope group, a distinct producer, a form of the scope), in the order its results are
 *   listed, each with its "config"; or, after adding them, ea_kit_unsupported when this target cannot run the
 *   point (a shape not captured): planned, but its run is one unsupported result. p->alias is the point's alias
 *   (alias.h), p->sm_count the multiprocessor count ATen's grids are sized by (the run's option on a plan, the
 *   device's on a run). -1 (err set) refuses the point.
 * - measure(ctx, ref, st, err) runs configuration st->index on the current device and returns its fields after
 *   "config" ("paths", "passed", and what else it records, docs/reference/schema.md); NULL when the run itself broke.
 * - ea_repro_points is the runner: the plan, then per configuration a result {family, point, alias,
 *   occurrences, scope_ids, config} and, on a run, measure's fields after it, with the configuration's measured
 *   floor (floor_path.h: config.floor_bytes and floor_written_bytes, which every plan gives) appended to its paths
 *   under the same policy; a floor that fails its check fails the result.
 * - ea_kit_path runs one path (ea_path_run) under the runner's policy: the label "<family> <alias> <name>"
 *   unless steps gives one, check-only as the run asks, timed cold as ea_run_times_cold decides for the
 *   point; ea_kit_times_cold is that decision, for a path the family times itself (a captured replay). */
#ifndef EA_KIT_H
#define EA_KIT_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "measure/path.h"
#include "measure/repro.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One configuration of a point, as plan adds it. */
typedef struct {
    int index;                     /* the family's number for it, handed back to measure (st->index) */
    int64_t occurrences;           /* the occurrences it covers */
    const char *const *scope_ids;  /* the scope groups it covers */
    int nscope_ids;
    cJSON *config;                 /* its plan, "config" (taken) */
} ea_kit_config;

struct ea_kit_plan {
    const char *alias; /* the point's alias */
    int sm_count;      /* ATen's grids are sized by it */
    /* the runner's */
    const ea_repro_family *family;
    const char *point;
    cJSON *results;
    int *index, n, unsupported;
    char why[1024];
};

struct ea_kit_state {
    int index;               /* the configuration's, as plan added it */
    const char *alias;       /* the point's alias */
    const ea_run_opts *opts; /* the run's, in the family's modes; sm_count the device's */
    const char *family, *point;
};

void ea_kit_add(ea_kit_plan *p, const ea_kit_config *c);
void ea_kit_unsupported(ea_kit_plan *p, const char *why);

cJSON *ea_repro_points(ea_run_ctx *c, const ea_scope_ref *r, int measure, ea_error *err);

int ea_kit_path(const ea_kit_state *st, const ea_path_steps *steps, const char *name, const char *mode,
                ea_path_outcome *out, ea_error *err);
int ea_kit_times_cold(const ea_kit_state *st, const char *name, const char *mode);

#ifdef __cplusplus
}
#endif

#endif
