/* golden_accept.c: every reason a stage is not yet a target (contract in golden_accept.h). */
#include "base/json.h"
#include "golden/golden_accept.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "measure/baseline.h"
#include "target/classify.h"
#include "gpu/device.h"
#include "gate/gate.h"
#include "corpus/occurrences.h"
#include "corpus/oldrule.h"
#include "base/readfile.h"
#include "target/replay_file.h"
#include "target/target_layout.h"
#include "target/torch_ops.h"

typedef struct {
    cJSON *problems;
    int *bad_input;
} checker;

static void problem(checker *c, int bad_input, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(checker *c, int bad_input, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(c->problems, cJSON_CreateString(msg));
    *c->bad_input |= bad_input;
}

/* What the stage's captures give, as classify computes it (NULL, with the problem listed, when they cannot be
 * classified). */
static cJSON *fresh_classes(checker *c, const char *golden, cJSON *const docs[EA_AUDIT_OPS], const ea_captures *caps)
{
    char path[4200];
    ea_old_rule rule;
    ea_error err;
    cJSON *fresh = NULL;
    snprintf(path, sizeof path, "%s/old_rule.json", golden);
    if (ea_old_rule_load(path, &rule, &err)) {
        problem(c, 1, "%s", err.msg);
        return NULL;
    }
    if (ea_classify(docs, caps, &rule, &fresh, &err))
        problem(c, 0, "the stage's captures cannot be classified: %s", err.msg);
    ea_old_rule_free(&rule);
    return fresh;
}

static const char *fresh_class(const cJSON *fresh, const char *id)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(fresh, "occurrences"))
        if (!strcmp(ej_text(f, "id"), id))
            return ej_text(f, "class");
    return NULL;
}

/* Every golden occurrence is covered, but those whose class needs no capture (fresh: no_device_work) and, in a
 * candidate lowering's stage (candidate), those not_captured (an op added to the audit set after the base the
 * candidate was staged from: the candidate keeps the base's state; a target of today's code must capture them);
 * every capture was made on the target's GPU model. */
static void check_captures(checker *c, cJSON *const docs[EA_AUDIT_OPS], const ea_captures *caps, const char *model,
                           const cJSON *fresh, int candidate)
{
    const cJSON *p, *g, *o;
    for (int i = 0; i < caps->n; i++) {
        char got[64];
        const char *gpu = ej_text(caps->items[i].environment, "gpu");
        ea_gpu_model(gpu, got, sizeof got);
        if (strcmp(got, model))
            problem(c, 0, "%s $.environment.gpu: \"%s\" (model %s), " EA_TARGET_NAME "'s gpu_model is %s", caps->items[i].file,
                    gpu, got, model);
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[i], "points"))
            cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
                cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences"))
                {
                    int covered = 0;
                    const char *cls = fresh_class(fresh, ej_text(o, "id"));
                    for (int k = 0; k < caps->n && !covered; k++)
                        for (int j = 0; j < caps->items[k].ncovers && !covered; j++)
                            covered = !strcmp(caps->items[k].covers[j], ej_text(o, "id"));
                    if (!covered && !(cls && (!strcmp(cls, ea_class_names[EA_CLASS_NO_DEVICE_WORK]) ||
                                              (candidate && !strcmp(cls, ea_class_names[EA_CLASS_NOT_CAPTURED])))))
                        problem(c, 0, "occurrence %s (scope %s) has no capture: no " EA_CAPTURES_NAME "/*/" EA_CAPTURE_NAME " covers it",
                                ej_text(o, "id"), ej_text(g, "scope_id"));
                }
}

/* The stored classes against what the captures give (fresh; NULL: not compared). */
static void check_classification(checker *c, const char *staged, const cJSON *fresh)
{
    ej_doc stored;
    ea_error err;
    int rc = ea_classification_load(staged, &stored, &err);
    if (rc || !stored.root) {
        if (rc)
            problem(c, 1, "unreadable classification: %s", err.msg);
        else
            problem(c, 0, "%s/" EA_CLASSIFICATION_NAME ": absent (extern-audit classify --update on the stage)", staged);
        return;
    }
    const cJSON *e, *f;
    int i = 0;
    /* every occurrence the captures classify has its stored entry */
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(fresh, "occurrences"))
    {
        int found = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(stored.root, "occurrences"))
            found |= !strcmp(ej_text(e, "id"), ej_text(f, "id"));
        if (!found)
            problem(c, 0, "%s/" EA_CLASSIFICATION_NAME " $.occurrences: no entry for occurrence %s, which the stage's captures "
                    "give \"%s\" (extern-audit classify --update on the stage)", staged, ej_text(f, "id"),
                    ej_text(f, "class"));
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(stored.root, "occurrences"))
    {
        const char *want = fresh_class(fresh, ej_text(e, "id"));
        if (fresh && (!want || strcmp(want, ej_text(e, "class"))))
            problem(c, 0, "%s/" EA_CLASSIFICATION_NAME " $.occurrences[%d].class: \"%s\", the stage's captures give %s%s%s "
                    "(extern-audit classify --update on the stage)", staged, i, ej_text(e, "class"), want ? "\"" : "",
                    want ? want : "no entry", want ? "\"" : "");
        i++;
    }
    ej_free(&stored);
}

static void check_baselines(checker *c, const char *staged, cJSON *const docs[EA_AUDIT_OPS], const char *model)
{
    char path[4200];
    ej_doc doc;
    ea_error err;
    ea_tf_path(staged, EA_TF_BASELINES, path, sizeof path);
    if (ea_target_baselines_load(staged, &doc, &err)) {
        problem(c, 1, "%s", err.msg);
        return;
    }
    const char *got = ej_text(cJSON_GetObjectItemCaseSensitive(doc.root, "gpu"), "model");
    if (strcmp(got, model))
        problem(c, 0, "%s $.gpu.model: \"%s\", " EA_TARGET_NAME "'s gpu_model is %s: baselines of another GPU", path, got, model);
    cJSON *missing = ea_gate_uncovered(docs, doc.root);
    const cJSON *p;
    cJSON_ArrayForEach(p, missing)
        problem(c, 0, "point %s has no baseline: %s neither measures it nor lists it unmeasured with a reason",
                p->valuestring, path);
    cJSON_Delete(missing);
    ej_free(&doc);
}

/* Whether the stage's file at path is there: absent is an incomplete stage (a refusal, exit 1), a path that
 * cannot be resolved is bad input. */
static int stage_has(checker *c, const char *path, const char *what)
{
    ea_error err;
    int here = ea_file_present(path, &err);
    if (here < 0)
        problem(c, 1, "%s", err.msg);
    else if (!here)
        problem(c, 0, "%s: absent: an incomplete stage (%s)", path, what);
    return here > 0;
}

/* caps: the stage's captures, held or inherited (NULL: they could not be loaded, a problem already listed; the
 * replay rows are then not compared with them). */
static void check_timings_and_replay(checker *c, const char *staged, const char *model, const ea_captures *caps)
{
    char path[4200];
    ea_torch_ops ops;
    ej_doc doc;
    ea_error err;
    ea_tf_path(staged, EA_TF_TORCH_OPS, path, sizeof path);
    if (stage_has(c, path, "ci/golden-stage's torch op timings")) {
        if (ea_torch_ops_load(path, NULL, &ops, &err)) {
            problem(c, 1, "%s", err.msg);
        } else {
            char got[64];
            ea_gpu_model(ops.gpu, got, sizeof got);
            if (strcmp(got, model))
                problem(c, 0, "%s $.environment.gpu: \"%s\" (model %s), " EA_TARGET_NAME "'s gpu_model is %s: torch op "
                        "timings of another GPU", path, ops.gpu, got, model);
            ea_torch_ops_free(&ops);
        }
    }
    ea_tf_path(staged, EA_TF_REPLAY, path, sizeof path);
    if (!stage_has(c, path, "ci/golden-stage's replay of the captures"))
        return;
    if (ej_load(path, &doc, &err) || ea_replay_file_validate(path, doc.root, &err))
        problem(c, 1, "%s", err.msg);
    else if (caps && ea_replay_file_covers(path, doc.root, caps, &err)) /* a capture unreplayed, or a stale row */
        problem(c, 0, "%s", err.msg);
    ej_free(&doc);
}

cJSON *ea_golden_accept_check(const char *golden, const char *staged, ea_target_info *info, int *bad_input,
                              ea_error *err)
{
    char dir[4200];
    cJSON *docs[EA_AUDIT_OPS];
    snprintf(dir, sizeof dir, "%s/occurrences", golden);
    if (ea_occurrences_load(dir, docs, err))
        return NULL;
    checker c = {cJSON_CreateArray(), bad_input};
    *bad_input = 0;
    ea_error e;
    if (ea_target_info_load(staged, info, &e)) {
        problem(&c, 1, "%s", e.msg);
    } else {
        ea_captures caps;
        int have_caps = ea_target_captures_load(staged, &caps, &e) == 0;
        if (info->scopes)
            problem(&c, 0, "%s $.scopes: a partial stage (%d scope(s)); accept installs only a complete target: "
                    "stage every scope (ci/golden-stage without --scope)", info->file, cJSON_GetArraySize(info->scopes));
        cJSON *fresh = have_caps ? fresh_classes(&c, golden, docs, &caps) : NULL;
        if (!have_caps)
            problem(&c, 1, "%s", e.msg);
        else
            check_captures(&c, docs, &caps, info->target.gpu_model, fresh, info->lowering != NULL);
        check_classification(&c, staged, fresh);
        cJSON_Delete(fresh);
        check_baselines(&c, staged, docs, info->target.gpu_model);
        check_timings_and_replay(&c, staged, info->target.gpu_model, have_caps ? &caps : NULL);
        if (have_caps)
            ea_captures_free(&caps);
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return c.problems;
}
