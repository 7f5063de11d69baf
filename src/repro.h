/* repro.h: the registry of scope repro families that `extern-audit run` plans and measures.
 * Contract:
 * - A family (repros/<name>/) handles the points of one audited op's golden document, or those its
 *   claims(point) accepts when several families share a document (NULL: all of them; the gpt-oss
 *   routing scope is a cumsum point measured by the routing family). It registers by adding one line
 *   to ea_repro_families (repro.c); the CLI and the baseline file stay generic.
 * - points(f, point, ..., measure 0) describes, without a GPU, what would run, and measure 1
 *   measures it on the current device. Both return a JSON array with one object per distinct configuration of the point's scope
 *   groups: family, point, alias, occurrences, scope_ids, config (kernels, launch shapes, floor bytes,
 *   notes), and after a run "paths" and "passed" (docs/schema.md, baselines: "scopes[]").
 *   Paths are named "current" (mode faithful or fabricated), "oracle" and "oracle_general"; each
 *   carries its check, its per-call time and the kernels CUPTI saw. A failed check is recorded in
 *   the result ("passed": false), not returned as an error; -1/NULL means the run itself broke.
 * - A family declares the modes it runs (modes); `run --mode` is resolved against them once for every
 *   family (ea_repro_modes), so a family only sees the modes it declared.
 * - ea_repro_resolve maps a --scope argument to points: "all", a family's name ("cat": all its
 *   points), an alias ("xlnet"), a point id or a scope id; an unknown name fails naming the families
 *   and `run --list`.
 * - ea_repro_list: every family with its op and points (point, alias or null, occurrences, scopes, the
 *   suite/mode/model each covers), the listing `run --list` prints (ea_repro_list_print) or emits. */
#ifndef EA_REPRO_H
#define EA_REPRO_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "alias.h"
#include "error.h"
#include "extract.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int faithful, fabricated; /* modes asked for */
    int sm_count;             /* plan only: the multiprocessor count to size ATen's grids with */
    FILE *log;                /* progress lines, or NULL */
    int check_only;           /* run --check-only: every path once on its inputs and checked, nothing timed
                               * (ea_path_steps.check_only, EA_REPLAY_CHECK_ONLY), so a sanitizer can wrap it */
    const cJSON *cold_from;   /* NULL: every path timed warm and cold (run); else a baselines document, and a
                               * path is timed cold only where its stored result has "time_cold"
                               * (ea_run_times_cold; gate --run passes the stored document) */
    const char *target_dir;   /* the target folder whose captures the families read (run --target); NULL:
                               * the one ea_target_resolve picks for the point's golden folder (target.h) */
} ea_run_opts;

typedef struct ea_repro_family ea_repro_family;
struct ea_repro_family {
    const char *name; /* "index_add" */
    const char *op;   /* "aten.index_add.default": the golden document it reads */
    const ea_alias *aliases;
    int naliases;
    /* measure 0: the plan, no GPU; 1: the run on the current device */
    cJSON *(*points)(const ea_repro_family *f, const cJSON *point, const char *file, int index, const ea_run_opts *o,
                     int measure, ea_error *err);
    int (*claims)(const cJSON *point); /* NULL: every point of the document */
    unsigned modes;                    /* the modes it runs: EA_MODE_FAITHFUL, EA_MODE_FABRICATED */
};

#define EA_MODE_FAITHFUL 1u
#define EA_MODE_FABRICATED 2u

/* The modes of o (run --mode) that f declares: *fo is o with the others off, why names the asked modes
 * f lacks ("" when none). Returns the EA_MODE_* bits f runs; 0: it runs none of them, so the point is an
 * unsupported result (ea_unsupported_result) with why as its reason, never a run in another mode. */
unsigned ea_repro_modes(const ea_repro_family *f, const ea_run_opts *o, ea_run_opts *fo, char *why, size_t n);

/* A result's identifying part: family, point, alias, occurrences and an empty "scope_ids" array, which
 * *scope_ids receives for the family to fill (a family may time a point's groups apart). */
cJSON *ea_repro_header(const char *family, const char *point, const char *alias, int64_t occurrences,
                       cJSON **scope_ids);
/* Moves every field of from after into's own and deletes from: a family's measurement after its header. */
void ea_repro_append(cJSON *into, cJSON *from);

/* Whether a family times path (name, mode) of point cold as well as warm (ea_path_steps.warm_only,
 * EA_REPLAY_WARM otherwise): always without o->cold_from; else when a result of family and point in
 * o->cold_from has that path with "time_cold" (a point's several results share the answer). */
int ea_run_times_cold(const ea_run_opts *o, const char *family, const char *point, const char *path,
                      const char *mode);

typedef struct {
    const ea_repro_family *family;
    const cJSON *point; /* inside the caller's document */
    const char *file;   /* the document's path, for messages */
    int index;          /* position in its "points" */
} ea_scope_ref;

/* docs/files: the golden occurrence documents and their paths (ea_occurrences_load order). Fills up
 * to max refs; *n is how many. */
int ea_repro_resolve(cJSON *const docs[EA_AUDIT_OPS], const char *const files[EA_AUDIT_OPS], const char *arg,
                     ea_scope_ref *out, int max, int *n, ea_error *err);

cJSON *ea_repro_list(cJSON *const docs[EA_AUDIT_OPS]);
void ea_repro_list_print(const cJSON *list, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
