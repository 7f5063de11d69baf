/* golden_target.h: one target folder (golden/targets/<name>, or a staged one of the same layout) read
 * for `golden diff` and `golden accept`.
 * Contract:
 * - ea_target_info_load reads <dir>/target.json strictly: what every target has (keys, schema, name,
 *   GPU model, torch, capability, note, lowering's type) by target.h's ea_target_read, the name also
 *   a plain folder name, then a stage's optional "scopes" (the scope ids a partial stage captured,
 *   non-empty, each once) and "environment" (what ci/golden-stage ran in: strings).
 * - ea_golden_target_load adds what diff compares, each through its own strict reader: captures/ (capture.h),
 *   classification.json (classify.h) and baselines.json (baseline.h), all required; the first bad or
 *   absent one fails naming the file (and JSON path).
 * - ea_target_staged: whether a scope id is in the stage (always, for a complete target).
 * - ea_target_base_dir: the folder of the base a candidate-lowering target was accepted beside (target.json's
 *   "captures_from": {"target"}, ea_target_sibling); a target of today's code, or one without captures_from,
 *   fails naming the file and JSON path. */
#ifndef EA_GOLDEN_TARGET_H
#define EA_GOLDEN_TARGET_H

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "base/json.h"
#include "target/target.h"


typedef struct {
    ea_target target;     /* what every target.json has, as ea_target_read read it */
    const char *lowering; /* NULL: no candidate lowering */
    const cJSON *scopes;  /* NULL: a complete target */
    ej_doc doc;
    char file[4200];
} ea_target_info;

typedef struct {
    char dir[4096];
    ea_target_info info;
    ea_captures caps;
    ej_doc classification, baselines;
} ea_golden_target;

int ea_target_info_load(const char *dir, ea_target_info *t, ea_error *err);
void ea_target_info_free(ea_target_info *t);
int ea_golden_target_load(const char *dir, ea_golden_target *t, ea_error *err);
void ea_golden_target_free(ea_golden_target *t);
int ea_target_staged(const ea_target_info *t, const char *scope_id);
/* <dir>/baselines.json, validated (ea_baseline_validate); on failure doc is left empty. */
int ea_target_baselines_load(const char *dir, ej_doc *doc, ea_error *err);
int ea_target_base_dir(const char *dir, char *out, size_t n, ea_error *err);

#endif
