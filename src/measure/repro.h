/* repro.h: the registry of scope repro families that `extern-audit run` plans and measures.
 * Contract:
 * - A family (repros/<name>/) handles the points of one audited op's golden document, or those its
 *   claims(point) accepts when several families share a document (NULL: all of them; the gpt-oss
 *   routing scope is a cumsum point measured by the routing family). It registers by adding one line
 *   to ea_repro_families (repros/registry.c, beside the table of audited ops); the CLI's lists of
 *   families come from it, and the CLI and the baseline file stay generic.
 * - A family reads a run context (ea_run_ctx), never a path: the golden folder, the target folder, the
 *   occurrence documents and the target's captures are loaded once per run (ea_run_ctx_open); which
 *   capture covers a point is capture.h's ea_capture_of_point on ctx->caps; what a family derives from
 *   its document once per run is kept in the context (ea_run_ctx_memo), freed with it.
 * - A family declares plan and measure (kit.h); the runner, ea_repro_points(ctx, ref, measure 0), describes
 *   without a GPU what would run, and with measure 1 measures it on the current device, with the options
 *   ctx->opts (the run's, in the modes the family declares). Both return a JSON array with one object per
 *   distinct configuration of the point's scope groups: family, point, alias, occurrences, scope_ids, config
 *   (kernels, launch shapes, floor bytes, notes), and after a run "paths" and "passed" (docs/reference/schema.md,
 *   baselines: "scopes[]").
 *   Paths are named "current" (mode faithful or fabricated), "current_tuned" (path.h), "oracle" and
 *   "oracle_general", and the runner adds the measured floor "floor_copy" (mode "floor", floor_path.h); each
 *   carries its check, its per-call time and the kernels CUPTI saw. A failed check is recorded in
 *   the result ("passed": false), not returned as an error; -1/NULL means the run itself broke.
 * - A family declares the modes it runs (modes); `run --mode` is resolved against them once for every
 *   family (ea_repro_modes), so a family only sees the modes it declared.
 * - ea_repro_resolve maps a --scope argument to points: "all", a family's name ("cat": all its
 *   points), an alias derived from the point's occurrences (alias.h: "xlnet"), a point id or a scope id; an unknown name fails naming the families
 *   and `run --list`.
 * - ea_repro_list: every family with its op and points (point, alias, occurrences, scopes, the
 *   suite/mode/model each covers), the listing `run --list` prints (ea_repro_list_print) or emits. */
#ifndef EA_REPRO_H
#define EA_REPRO_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "corpus/alias.h"
#include "target/capture.h"
#include "base/error.h"
#include "corpus/extract.h"

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
    int other_gpu;            /* run --any-gpu: the target is another GPU model's, so its torch timings and
                               * captured times are no fidelity reference (note fidelity_other_gpu) */
} ea_run_opts;

typedef struct ea_repro_family ea_repro_family;
typedef struct ea_run_ctx ea_run_ctx;
typedef struct ea_kit_plan ea_kit_plan;   /* kit.h */
typedef struct ea_kit_state ea_kit_state; /* kit.h */

typedef struct {
    const ea_repro_family *family;
    const cJSON *point; /* inside the context's document (or the caller's) */
    const char *file;   /* the document's path, for messages */
    int index;          /* position in its "points" */
} ea_scope_ref;

#define EA_REPRO_MAX_FAMILIES 32

/* What a run loads once and every family reads. */
struct ea_run_ctx {
    char golden[4096];                   /* the golden folder */
    char target_dir[4096];               /* its target folder, "" when none (a plan without a target) */
    cJSON *docs[EA_AUDIT_OPS];           /* golden/occurrences/<op>.json, ea_occurrences_load order */
    char files[EA_AUDIT_OPS][4200];      /* their paths */
    ea_captures caps;                    /* the target's captures (none without a target) */
    const ea_run_opts *opts;             /* the point's options: the run's in its family's modes */
    struct {
        const ea_repro_family *family;
        cJSON *value;
    } memo[EA_REPRO_MAX_FAMILIES];       /* ea_run_ctx_memo's */
};

/* Loads golden's occurrence documents and, target_dir non-NULL, that target's captures into c (zeroed
 * first, so ea_run_ctx_close frees a half-opened one). */
int ea_run_ctx_open(ea_run_ctx *c, const char *golden, const char *target_dir, ea_error *err);
void ea_run_ctx_close(ea_run_ctx *c);
/* What f derives from its document once per run: make(c, f's document, its path), computed on the first
 * call and kept by c; NULL (err set) when make fails or f's document is not loaded. */
const cJSON *ea_run_ctx_memo(ea_run_ctx *c, const ea_repro_family *f,
                             cJSON *(*make)(const cJSON *doc, const char *file, ea_error *err), ea_error *err);

struct ea_repro_family {
    const char *name; /* "index_add" */
    const char *op;   /* "aten.index_add.default": the golden document it reads */
    const char *alias_stem; /* the scope's name for its aliases ("routing"), NULL: the models' (alias.h) */
    ea_alias_tag_fn alias_tag; /* what tells its points of one model apart (alias.h), NULL: the output shape */
    /* kit.h: the point's configurations and their plans, no GPU; one configuration run on the current device */
    int (*plan)(ea_run_ctx *c, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err);
    cJSON *(*measure)(ea_run_ctx *c, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err);
    int (*claims)(const cJSON *point); /* NULL: every point of the document */
    unsigned modes;                    /* the modes it runs: EA_MODE_FAITHFUL, EA_MODE_FABRICATED */
    const char *description;           /* its scope in a few words, for run --list */
    /* The verdict id a passed result's stored times give, NULL for none: what gate --propose derives again for a
     * result it takes a time into. NULL hook: the family's verdict does not follow its times (or it has none). */
    const char *(*verdict)(const cJSON *result);
};

/* The registered family named name, NULL when none is. */
const ea_repro_family *ea_repro_family_named(const char *name);

/* The registry (repros/registry.c): every family, NULL-terminated. */
extern const ea_repro_family *const ea_repro_families[];

#define EA_MODE_FAITHFUL 1u
#define EA_MODE_FABRICATED 2u

/* The modes of o (run --mode) that f declares: *fo is o with the others off, why names the asked modes
 * f lacks ("" when none). Returns the EA_MODE_* bits f runs; 0: it runs none of them, so the point is an
 * unsupported result (ea_unsupported_result) with why as its reason, never a run in another mode. */
unsigned ea_repro_modes(const ea_repro_family *f, const ea_run_opts *o, ea_run_opts *fo, char *why, size_t n);

/* ref's alias (alias.h) among the points of its family's document in c, the point id when c has none. */
void ea_repro_alias(const ea_run_ctx *c, const ea_scope_ref *ref, char *out, size_t n);

/* A result's identifying part: family, point, alias, occurrences and an empty "scope_ids" array, which
 * *scope_ids receives for the family to fill (a family may time a point's groups apart). */
cJSON *ea_repro_header(const char *family, const char *point, const char *alias, int64_t occurrences,
                       cJSON **scope_ids);

/* Whether a family times path (name, mode) of point cold as well as warm (ea_path_steps.warm_only,
 * EA_REPLAY_WARM otherwise): always without o->cold_from; else when a result of family and point in
 * o->cold_from has that path with "time_cold" (a point's several results share the answer), or when none
 * has that path at all (a new path: gate --propose adds it with both times). */
int ea_run_times_cold(const ea_run_opts *o, const char *family, const char *point, const char *path,
                      const char *mode);

/* docs/files: the golden occurrence documents and their paths (ea_occurrences_load order). Fills up
 * to max refs; *n is how many. */
/* The position in ea_audit_ops (and a context's docs) of the document f reads; -1 when none. */
int ea_repro_doc(const ea_repro_family *f);

int ea_repro_resolve(cJSON *const docs[EA_AUDIT_OPS], const char *const files[EA_AUDIT_OPS], const char *arg,
                     ea_scope_ref *out, int max, int *n, ea_error *err);

cJSON *ea_repro_list(cJSON *const docs[EA_AUDIT_OPS]);
void ea_repro_list_print(const cJSON *list, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
