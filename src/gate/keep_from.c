/* keep_from.c: a partial run or replay made whole with the base's entries (contract in keep_from.h). */
#include "gate/keep_from.h"

#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "base/json.h"
#include "measure/launch_floor.h"
#include "target/replay_file.h"

static int measured(const cJSON *fresh, const char *point)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(fresh, "scopes"))
        if (!strcmp(ej_text(r, "point"), point))
            return 1;
    return 0;
}

/* How many points a document's results measure (a point's configurations are several results). */
static int distinct_points(const cJSON *doc)
{
    const cJSON *scopes = cJSON_GetObjectItemCaseSensitive(doc, "scopes"), *r, *q;
    int n = 0;
    cJSON_ArrayForEach(r, scopes) {
        for (q = scopes->child; q != r && strcmp(ej_text(q, "point"), ej_text(r, "point")); q = q->next)
            ;
        n += q == r; /* no earlier result of its point */
    }
    return n;
}

/* "<fresh command> (N points; every other result kept from <base_file>: <base command>)" */
static void merged_command(cJSON *out, const char *base_file, const cJSON *base, const cJSON *fresh, int points)
{
    size_t n = strlen(ej_text(fresh, "command")) + strlen(base_file) + strlen(ej_text(base, "command")) + 96;
    char *cmd = malloc(n);
    if (!cmd)
        return;
    snprintf(cmd, n, "%s (%d points" EA_KEPT_FROM_MARK "%s: %s)", ej_text(fresh, "command"), points, base_file,
             ej_text(base, "command"));
    cJSON_ReplaceItemInObjectCaseSensitive(out, "command", cJSON_CreateString(cmd));
    free(cmd);
}

cJSON *ea_baselines_keep_from(const char *base_file, const cJSON *base, const cJSON *fresh,
                              cJSON *const docs[EA_AUDIT_OPS], ea_error *err)
{
    const char *bm = ej_text(cJSON_GetObjectItemCaseSensitive(base, "gpu"), "model"),
               *fm = ej_text(cJSON_GetObjectItemCaseSensitive(fresh, "gpu"), "model");
    if (strcmp(bm, fm)) {
        ea_fail(err, "%s $.gpu.model: expected this run's GPU model %s, got %s: times of two GPU models are never "
                     "one document", base_file, fm, bm);
        return NULL;
    }
    /* DESIGN: numbers compared or merged come from one GPU model, driver, toolkit and torch (a run that measured
     * no point against torch's op timings names no torch: nothing of it depends on one) */
    static const char *const same[] = {"driver", "toolkit", "torch"};
    for (int i = 0; i < 3; i++)
        if ((i < 2 || !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(fresh, "torch"))) &&
            strcmp(ej_text(base, same[i]), ej_text(fresh, same[i]))) {
            ea_fail(err, "%s $.%s: expected this run's %s %s, got %s: a partial run merges only into results of the "
                         "same GPU model, driver, toolkit and torch",
                    base_file, same[i], same[i], ej_text(fresh, same[i]), ej_text(base, same[i]));
            return NULL;
        }
    cJSON *out = cJSON_Duplicate(base, 1), *again = cJSON_Duplicate(fresh, 1), *u, *next, *r;
    int passed = 1;
    ea_gate_splice(out, again);
    cJSON_Delete(again);
    cJSON *unmeasured = cJSON_GetObjectItemCaseSensitive(out, "unmeasured");
    for (u = unmeasured ? unmeasured->child : NULL; u; u = next) {
        next = u->next;
        if (measured(fresh, ej_text(u, "point")))
            cJSON_Delete(cJSON_DetachItemViaPointer(unmeasured, u));
    }
    if (unmeasured && !cJSON_GetArraySize(unmeasured))
        cJSON_DeleteItemFromObjectCaseSensitive(out, "unmeasured");
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "scopes"))
        passed &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed"));
    cJSON_ReplaceItemInObjectCaseSensitive(out, "passed", cJSON_CreateBool(passed));
    ea_launch_floor_carry(out, fresh); /* this run's measurement, as its results are */
    merged_command(out, base_file, base, fresh, distinct_points(fresh));
    cJSON *missing = ea_gate_uncovered(docs, out);
    if (cJSON_GetArraySize(missing)) {
        char *list = cJSON_PrintUnformatted(missing);
        ea_fail(err, "%s $.scopes: expected a result (or an \"unmeasured\" reason) for every golden point this run "
                     "did not measure, got none for %s", base_file, list ? list : "some points");
        free(list);
        cJSON_Delete(out);
        out = NULL;
    }
    cJSON_Delete(missing);
    return out;
}

cJSON *ea_replay_keep_from(const char *base_file, const cJSON *base, const cJSON *fresh, const ea_captures *caps,
                           ea_error *err)
{
    cJSON *out = cJSON_Duplicate(base, 1), *x;
    const cJSON *row;
    cJSON_ArrayForEach(row, fresh) {
        int i = 0;
        cJSON_ArrayForEach(x, out) {
            if (!strcmp(ej_text(x, "scope"), ej_text(row, "scope")))
                break;
            i++;
        }
        if (x)
            cJSON_ReplaceItemInArray(out, i, cJSON_Duplicate(row, 1));
        else
            cJSON_AddItemToArray(out, cJSON_Duplicate(row, 1));
    }
    if (ea_replay_file_covers(base_file, out, caps, err)) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

int ea_keep_from(const char *file, ea_keep_validate *validate, ea_keep_merge *merge, const void *ctx, cJSON **doc,
                 ea_error *err)
{
    ej_doc base;
    if (ej_load(file, &base, err) || validate(file, base.root, err)) {
        ej_free(&base);
        return -1;
    }
    cJSON *whole = merge(file, base.root, *doc, ctx, err);
    ej_free(&base);
    if (!whole)
        return -1;
    cJSON_Delete(*doc);
    *doc = whole;
    return 0;
}
