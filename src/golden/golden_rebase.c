/* golden_rebase.c: a candidate target's kept entries taken again from its base (contract in golden_rebase.h). */
#include "golden/golden_rebase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/readfile.h"
#include "gate/keep_from.h"
#include "golden/golden_target.h"
#include "measure/baseline.h"
#include "target/capture.h"
#include "target/target.h"
#include "target/target_layout.h"

typedef struct {
    const char **ids;
    int n;
} point_set;

static int in_set(const point_set *s, const char *id)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->ids[i], id))
            return 1;
    return 0;
}

/* Whether each of the point's scope groups has a capture in the candidate and every one is its base's (inherited,
 * none captured under the lowering): a group without one (captured by the base after the candidate was staged)
 * leaves the point the candidate's. */
static int inherited(const ea_captures *caps, const cJSON *point)
{
    int groups = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(point, "scopes"));
    for (int g = 0; g < groups; g++) {
        const ea_capture *c = ea_capture_of_point(caps, point, g, NULL);
        if (!c || c->lowering)
            return 0;
    }
    return groups > 0;
}

/* The golden points whose captures in the candidate are all its base's. */
static int inherited_points(cJSON *const docs[EA_AUDIT_OPS], const ea_captures *caps, point_set *out, ea_error *err)
{
    const cJSON *p;
    int cap = 0;
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cap += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(docs[i], "points"));
    out->n = 0;
    if (!(out->ids = calloc((size_t)cap + 1, sizeof *out->ids)))
        return ea_fail(err, "golden rebase: out of memory");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[i], "points"))
            if (inherited(caps, p))
                out->ids[out->n++] = ej_text(p, "point");
    return 0;
}

/* Each entry of from (an array of entries with "point") of point, appended to to. */
static void copy_entries(cJSON *to, const cJSON *from, const char *point)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, from)
        if (!strcmp(point, ej_text(e, "point")))
            cJSON_AddItemToArray(to, cJSON_Duplicate(e, 1));
}

/* key's entries: the base's of kept points, in the base's order, the candidate's of every other point where the
 * base has that point's first entry, and the candidate's of points the base lacks after them. */
static cJSON *merged(const cJSON *base, const cJSON *cand, const char *key, const point_set *kept)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(base, key), *c = cJSON_GetObjectItemCaseSensitive(cand, key), *e;
    point_set placed = {calloc((size_t)(cJSON_GetArraySize(b) + cJSON_GetArraySize(c)) + 1, sizeof(char *)), 0};
    cJSON *out = placed.ids ? cJSON_CreateArray() : NULL;
    if (!out)
        return free(placed.ids), NULL;
    cJSON_ArrayForEach(e, b) {
        const char *point = ej_text(e, "point");
        if (in_set(kept, point))
            cJSON_AddItemToArray(out, cJSON_Duplicate(e, 1));
        else if (!in_set(&placed, point)) {
            copy_entries(out, c, point);
            placed.ids[placed.n++] = point;
        }
    }
    cJSON_ArrayForEach(e, c)
        if (!in_set(kept, ej_text(e, "point")) && !in_set(&placed, ej_text(e, "point"))) {
            copy_entries(out, c, ej_text(e, "point"));
            placed.ids[placed.n++] = ej_text(e, "point");
        }
    free(placed.ids);
    return out;
}

/* key set to item in doc, replacing the one there or added. */
static void set_item(cJSON *doc, const char *key, cJSON *item)
{
    if (cJSON_HasObjectItem(doc, key))
        cJSON_ReplaceItemInObjectCaseSensitive(doc, key, item);
    else
        cJSON_AddItemToObject(doc, key, item);
}

/* Where the candidate's base part, starting at from, ends: past the base's command today when it is there (a second
 * rebase reads back exactly what the first wrote), else at the parenthesis that closes "(N points" (the base part
 * then holds an older command, its parentheses balanced as run --keep-from wrote it); NULL when none does. */
static const char *base_part_end(const char *from, const char *base_command)
{
    size_t n = strlen(base_command);
    if (!strncmp(from, base_command, n) && from[n] == ')')
        return from + n;
    for (int depth = 1; *from; from++)
        if ((depth += (*from == '(') - (*from == ')')) == 0)
            return from;
    return NULL;
}

/* The candidate's command with its base part (after EA_KEPT_FROM_MARK and the base's file, up to the parenthesis
 * that closes "(N points") the base's command today; what follows that parenthesis (a gate --propose on the
 * candidate) kept. */
static int rebased_command(cJSON *doc, const char *file, const char *command, const char *base_command, ea_error *err)
{
    const char *mark = strstr(command, EA_KEPT_FROM_MARK), *colon = mark ? strstr(mark, ": ") : NULL;
    const char *close = colon ? base_part_end(colon + 2, base_command) : NULL;
    if (!close)
        return ea_fail(err, "%s $.command: expected what the candidate kept from its base (\"... (N points"
                            EA_KEPT_FROM_MARK "<file>: <command>)\", run --keep-from), got \"%.200s\"",
                       file, command);
    size_t head = (size_t)(colon + 2 - command), n = head + strlen(base_command) + strlen(close) + 1;
    char *s = malloc(n);
    if (!s)
        return ea_fail(err, "golden rebase: out of memory");
    snprintf(s, n, "%.*s%s%s", (int)head, command, base_command, close);
    set_item(doc, "command", cJSON_CreateString(s));
    free(s);
    return 0;
}

/* Entries of a's key that b does not hold, counted into *n; the first of r's named into r->first as whose ("today's",
 * "the file's") place, family, point and alias. */
static void count_missing(const cJSON *a, const cJSON *b, const char *key, const char *whose, int *n, ea_rebase *r)
{
    const cJSON *e, *f;
    int i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(a, key)) {
        int found = 0;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(b, key))
            found |= cJSON_Compare(e, f, 1);
        if (!found && !(*n)++ && !r->first[0])
            snprintf(r->first, sizeof r->first, "%s $.%s[%d] (%s %s%s%s)", whose, key, i,
                     *ej_text(e, "family") ? ej_text(e, "family") : "unmeasured", ej_text(e, "point"),
                     *ej_text(e, "alias") ? " " : "", ej_text(e, "alias"));
        i++;
    }
}

static int build(const char *dir, cJSON *const docs[EA_AUDIT_OPS], ea_rebase *r, ea_error *err)
{
    ea_captures caps = {0};
    ej_doc base = {0}, cand = {0};
    point_set kept = {0};
    char *bytes = NULL;
    size_t len;
    int rc = -1;
    if (ea_target_baselines_load(r->base, &base, err) || ea_target_baselines_load(dir, &cand, err) ||
        ea_read_file(r->file, &bytes, &len, err) || ea_target_captures_load(dir, &caps, err) ||
        inherited_points(docs, &caps, &kept, err))
        goto out;
    static const char *const keys[] = {"scopes", "unmeasured"};
    if (!(r->doc = cJSON_Duplicate(base.root, 1))) {
        ea_fail(err, "golden rebase: out of memory");
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        cJSON *m = merged(base.root, cand.root, keys[k], &kept);
        if (!m) {
            ea_fail(err, "golden rebase: out of memory");
            goto out;
        }
        if (cJSON_HasObjectItem(r->doc, keys[k]))
            cJSON_ReplaceItemInObjectCaseSensitive(r->doc, keys[k], m);
        else if (cJSON_GetArraySize(m))
            cJSON_AddItemToObject(r->doc, keys[k], m);
        else
            cJSON_Delete(m);
    }
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->doc, "unmeasured")))
        cJSON_DeleteItemFromObjectCaseSensitive(r->doc, "unmeasured");
    int passed = 1;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r->doc, "scopes"))
        passed &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "passed"));
    set_item(r->doc, "passed", cJSON_CreateBool(passed));
    if (rebased_command(r->doc, r->file, ej_text(cand.root, "command"), ej_text(base.root, "command"), err) ||
        ea_baseline_validate(r->file, r->doc, err))
        goto out;
    char *text = ej_print_layered(r->doc, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER);
    size_t n = text ? strlen(text) : 0;
    if (!text || !(r->text = realloc(text, n + 2))) {
        free(text);
        ea_fail(err, "golden rebase: out of memory");
        goto out;
    }
    memcpy(r->text + n, "\n", 2);
    r->same = n + 1 == len && !memcmp(r->text, bytes, len);
    for (int k = 0; k < 2; k++) {
        count_missing(r->doc, cand.root, keys[k], "today's", &r->taken, r);
        count_missing(cand.root, r->doc, keys[k], "the file's", &r->dropped, r);
    }
    rc = 0;
out:
    free(kept.ids);
    free(bytes);
    ea_captures_free(&caps);
    ej_free(&base);
    ej_free(&cand);
    return rc;
}

int ea_golden_rebase(cJSON *const docs[EA_AUDIT_OPS], const char *dir, ea_rebase *r, ea_error *err)
{
    memset(r, 0, sizeof *r);
    ea_tf_path(dir, EA_TF_BASELINES, r->file, sizeof r->file);
    int rc = ea_target_base_dir(dir, r->base, sizeof r->base, err) ? -1 : build(dir, docs, r, err);
    if (rc)
        ea_rebase_free(r);
    return rc;
}

void ea_rebase_free(ea_rebase *r)
{
    cJSON_Delete(r->doc);
    free(r->text);
    r->doc = NULL;
    r->text = NULL;
}
