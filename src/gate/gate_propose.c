/* gate_propose.c: the proposed baselines a gate report makes, the stored document with what moved taken from the
 * fresh one (contract in gate.h; gate.c makes the report). */
#include "gate/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "measure/launch_floor.h"
#include "measure/path.h"
#include "measure/repro.h"

static int at(const cJSON *e, const char *side, int i)
{
    return (int)cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, side), i));
}

static cJSON *scope_item(cJSON *doc, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), i);
}

static cJSON *path_item(cJSON *doc, int i, int j)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(scope_item(doc, i), "paths"), j);
}

/* A point's "unmeasured" entry goes once a result for it is taken: its reason no longer holds (the list goes
 * when emptied). */
static void drop_unmeasured(cJSON *doc, const char *point)
{
    cJSON *u = cJSON_GetObjectItemCaseSensitive(doc, "unmeasured"), *x;
    int i = 0;
    cJSON_ArrayForEach(x, u) {
        if (!strcmp(ej_text(x, "point"), point)) {
            cJSON_DeleteItemFromArray(u, i);
            break;
        }
        i++;
    }
    if (u && !cJSON_GetArraySize(u))
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "unmeasured");
}

/* Each of keys as from has it: replaced or added in to, removed where from has none. */
static void take_keys(cJSON *to, const cJSON *from, const char *const keys[])
{
    for (int i = 0; keys[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, keys[i]);
        if (!v)
            cJSON_DeleteItemFromObjectCaseSensitive(to, keys[i]);
        else if (cJSON_HasObjectItem(to, keys[i]))
            cJSON_ReplaceItemInObjectCaseSensitive(to, keys[i], cJSON_Duplicate(v, 1));
        else
            cJSON_AddItemToObject(to, keys[i], cJSON_Duplicate(v, 1));
    }
}

/* from's time of key into to; a warm time kept from a variant table comes with the table that chose it and the
 * variant it kept, its kernels and launches (path.h: the kept variant is the fastest of that run's by
 * ea_path_tune's rule; the stored ones beside a new time would say otherwise, or nothing where the stored path was
 * not tuned); a warm time of a path no longer tuned drops the stored table. */
static void take_time(cJSON *to, const cJSON *from, const char *key)
{
    cJSON_ReplaceItemInObjectCaseSensitive(to, key, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(from, key), 1));
    if (!strcmp(key, "time") && (cJSON_HasObjectItem(from, "candidates") || cJSON_HasObjectItem(to, "candidates")))
        take_keys(to, from, (const char *const[]){"variant", "unroll", "candidates", "kernels", "kernel_launches",
                                                  "kernel_launches_note", NULL});
}

/* One moved entry taken into the copy of the stored document: 0 nothing changed, else 1 or 2 (a time). */
static int take(cJSON *out, const cJSON *fresh, const cJSON *e)
{
    const char *st = ej_text(e, "status");
    int si = at(e, "stored_at", 0), sj = at(e, "stored_at", 1), fi = at(e, "new_at", 0), fj = at(e, "new_at", 1);
    cJSON *fr = scope_item((cJSON *)fresh, fi), *to = path_item(out, si, sj), *from = path_item((cJSON *)fresh, fi, fj);
    const int warm = !strstr(ej_text(e, "mode"), "/cold");
    if (!strcmp(st, "SLOWER") || !strcmp(st, "FASTER")) {
        take_time(to, from, warm ? "time" : "time_cold");
        return 2;
    } else if (!strcmp(st, "UNSUPPORTED")) { /* the whole result: one side has no paths to take */
        cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(out, "scopes"), si, cJSON_Duplicate(fr, 1));
    } else if (!strcmp(st, "FIDELITY")) {
        cJSON_ReplaceItemInObjectCaseSensitive(scope_item(out, si), "fidelity",
                                               cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fr, "fidelity"), 1));
    } else if (!strcmp(st, "CLASS")) {
        cJSON_ReplaceItemInObjectCaseSensitive(scope_item(out, si), "class",
                                               cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fr, "class"), 1));
    } else if (!strcmp(st, "CONFIG")) { /* the floor, the plan's bytes at the stored run's rate, follows (fractions.h) */
        take_keys(scope_item(out, si), fr, (const char *const[]){"config", "scope_ids", "occurrences", NULL});
    } else if (!strcmp(st, "ADDED") && !warm) { /* beside the stored path's time */
        cJSON_DeleteItemFromObjectCaseSensitive(to, "time_cold_note");
        cJSON_AddItemToObject(to, "time_cold", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(from, "time_cold"), 1));
        return 2;
    } else if (!strcmp(st, "ADDED") && si < 0 && !cJSON_HasObjectItem(fr, "paths") && !cJSON_HasObjectItem(fr, "unsupported")) {
        return 0; /* a plan (gate --plan): no measurement to take */
    } else if (!strcmp(st, "ADDED") && si < 0) {
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(out, "scopes"), cJSON_Duplicate(fr, 1));
        drop_unmeasured(out, ej_text(fr, "point"));
    } else if (!strcmp(st, "ADDED")) {
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(scope_item(out, si), "paths"), cJSON_Duplicate(from, 1));
        return 2;
    } else {
        return 0;
    }
    return 1;
}

/* Has the report taken every warm time of stored result si's current path, in each of its modes? */
static int every_current_taken(const cJSON *stored, int si, const cJSON *report, int *fi)
{
    const cJSON *p, *e;
    int paths = 0, taken = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(scope_item((cJSON *)stored, si), "paths"))
        paths += !strcmp(ej_text(p, "name"), "current");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (at(e, "stored_at", 0) == si && !strcmp(ej_text(e, "path"), "current") && !strstr(ej_text(e, "mode"), "/cold") &&
            (!strcmp(ej_text(e, "status"), "SLOWER") || !strcmp(ej_text(e, "status"), "FASTER"))) {
            taken++;
            *fi = at(e, "new_at", 0);
        }
    return paths > 0 && taken == paths;
}

/* A stored result without "point_wall_s" (gate --shard's weight) takes its point's from fresh; a recorded one
 * stays, so a file that has them keeps its bytes run after run; an unsupported one (nothing timed: the schema
 * gives it none) takes none. Returns how many were filled. */
static int fill_point_wall(cJSON *out, const cJSON *fresh)
{
    cJSON *r;
    const cJSON *f;
    int filled = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "scopes")) {
        if (cJSON_HasObjectItem(r, "point_wall_s") || cJSON_HasObjectItem(r, "unsupported"))
            continue;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(fresh, "scopes")) {
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(f, "point_wall_s");
            if (cJSON_IsNumber(w) && !strcmp(ej_text(f, "point"), ej_text(r, "point"))) {
                cJSON_AddNumberToObject(r, "point_wall_s", w->valuedouble);
                filled++;
                break;
            }
        }
    }
    return filled;
}

/* A passed result a time was taken into gets the verdict its family's rule gives from the times it now holds
 * (repro.h's verdict hook): the fresh run's verdict came from fresh times, some of which a SAME entry left out. */
static void follow_verdict(cJSON *result)
{
    const ea_repro_family *f = ea_repro_family_named(ej_text(result, "family"));
    const char *v = f && f->verdict && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "passed"))
                        ? f->verdict(result)
                        : NULL;
    cJSON *id = v ? cJSON_CreateString(v) : NULL;
    if (id && !cJSON_ReplaceItemInObjectCaseSensitive(result, "verdict", id))
        cJSON_AddItemToObject(result, "verdict", id);
}

cJSON *ea_gate_propose(const cJSON *stored, const cJSON *fresh, const cJSON *report)
{
    cJSON *out = cJSON_Duplicate(stored, 1);
    const cJSON *e;
    int moved = 0;
    /* what a result derives from a time or floor taken into it is derived when read (fractions.h), but for a
     * family's verdict, which follows its rule */
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        int took = take(out, fresh, e);
        moved += took > 0;
        if (took == 2) /* a time: taken into a stored result */
            follow_verdict(scope_item(out, at(e, "stored_at", 0)));
    }
    /* the fidelity is the current path's warm times against torch's (a ratio per mode): it follows them when
     * all were taken; with some taken it would quote times the document does not hold */
    int si = 0, fi = -1;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "scopes")) {
        const cJSON *fid = NULL;
        if (cJSON_HasObjectItem(r, "fidelity") && every_current_taken(stored, si, report, &fi) &&
            (fid = cJSON_GetObjectItemCaseSensitive(scope_item((cJSON *)fresh, fi), "fidelity")) != NULL)
            cJSON_ReplaceItemInObjectCaseSensitive(r, "fidelity", cJSON_Duplicate(fid, 1));
        si++;
    }
    int walls = fill_point_wall(out, fresh);
    /* the launch floor is an environment figure no entry judges: the fresh run's when it moved beyond the rule's
     * margin (none with --plan: its fresh document holds no floor), so one measured again keeps its bytes */
    const cJSON *margin = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "rule"), "margin");
    const int floor_taken = ea_launch_floor_moved(stored, fresh, cJSON_IsNumber(margin) ? margin->valuedouble : 0) &&
                            ea_launch_floor_carry(out, fresh);
    if (moved || walls || floor_taken) { /* the header says where the new numbers came from */
        size_t n = strlen(ej_text(stored, "command")) + strlen(ej_text(fresh, "command")) + 96;
        char *cmd = malloc(n);
        char w[48] = "";
        if (walls)
            snprintf(w, sizeof w, " and %d point times", walls);
        if (cmd) {
            snprintf(cmd, n, "%s; gate --propose took %d entries%s%s from: %s", ej_text(stored, "command"), moved, w,
                     floor_taken ? " and the launch floor" : "", ej_text(fresh, "command"));
            cJSON_ReplaceItemInObjectCaseSensitive(out, "command", cJSON_CreateString(cmd));
            free(cmd);
        }
    }
    return out;
}
