/* target.h: the golden targets, golden/targets/<name>/, one per (GPU model, torch build): the files
 * whose values depend on both (captures, classification.json, torch_ops.json, replay.json,
 * baselines.json); occurrences/, old_rule.json and seed_totals.json stay shared in the golden folder.
 * Contract:
 * - ea_target_read reads <dir>/target.json strictly (docs/reference/schema.md, extern-audit/target v1): name
 *   "<gpu_model>-torch<torch>" (with "-<lowering>" when a stage's "lowering" is there), capability
 *   "<major>.<minor>"; a stage's optional keys are golden_target.h's to read. ea_target_load adds that
 *   name is the folder's name (a target under golden/targets).
 * - ea_targets_list: every folder under <golden>/targets, loaded, sorted by name; no targets folder:
 *   zero targets. A folder without target.json, or a bad one, is an error naming it.
 * - ea_target_select picks the target a command uses: name (--target), else env
 *   (EXTERN_AUDIT_TARGET), else the one target of gpu_model (this machine's GPU), else, with no GPU
 *   (gpu_model NULL) or without check_gpu and no target of gpu_model (a command that reads files: its
 *   numbers name their GPU), the only target. Refused, naming what was asked and the targets there: an
 *   unknown name; with check_gpu, a named target of another GPU model than gpu_model (both named);
 *   two targets of gpu_model (torch's version is unknown to C: --target decides); with check_gpu, none
 *   for gpu_model; no GPU (or none of gpu_model without check_gpu) and several targets; no target at
 *   all. A candidate-lowering target (a "lowering" in target.json) is used only when named: it prices a
 *   lowering, not today's code.
 * - ea_target_resolve: ea_target_select with $EXTERN_AUDIT_TARGET and this machine's GPU model. A
 *   command that measures on the GPU passes check_gpu 1; one that only reads files passes 0.
 * - ea_target_find: ea_target_resolve without the GPU check for commands that report what is missing
 *   (audit, rollup): no name asked and no target at all gives 0 with out->name "".
 * - ea_target_captures_load: the captures of the target in dir, what every command that reads a target's
 *   captures calls: its own captures/ and, when target.json has "captures_from" (a candidate target that golden
 *   accept installed beside its base: docs/reference/schema.md), the captures it inherits from that sibling
 *   folder, each checked against the digest recorded when it was accepted (a base recaptured since is an
 *   error naming both files). No target.json (a bare captures folder's parent): its own captures alone.
 * - ea_capture_digest: fnv1a64 of a file's bytes as 16 lowercase hex digits, the digest "captures_from" records.
 * - ea_target_sibling: the folder named base beside dir (golden/targets/<base> beside golden/targets/<this>), said
 *   as plainly as dir allows: "a/X/" and "a/X" give "a/<base>", "X" gives "<base>", "." and ".." go up a level.
 * ea_target_load and ea_target_select are test-only entry points (target_impl.h). */
#ifndef EA_TARGET_H
#define EA_TARGET_H

#include <stddef.h>

#include "target/capture.h"
#include "base/error.h"

#define EA_TARGET_SCHEMA "extern-audit/target"
#define EA_TARGET_VERSION 1
#define EA_TARGET_ENV "EXTERN_AUDIT_TARGET"

typedef struct {
    char name[128], dir[4096];
    char gpu_model[64], torch[64], capability[16], note[1024];
    char lowering[128]; /* a staged candidate lowering's name, "" for a target of today's code */
} ea_target;

int ea_target_read(const char *dir, ea_target *t, ea_error *err);
int ea_target_resolve(const char *golden, const char *name, int check_gpu, ea_target *out, ea_error *err);
int ea_target_find(const char *golden, const char *name, ea_target *out, ea_error *err);

#define EA_DIGEST_LEN 17 /* 16 hex digits and the NUL */
int ea_target_captures_load(const char *dir, ea_captures *out, ea_error *err);
int ea_capture_digest(const char *capture_json, char out[EA_DIGEST_LEN], ea_error *err);
void ea_target_sibling(const char *dir, const char *base, char *out, size_t n);

/* *out, free()d, holds *n targets (the candidate pricing walks them). */
int ea_targets_list(const char *golden, ea_target **out, int *n, ea_error *err);

#endif
