/* capture_dir.c: a target folder's captures read together, and the one lookup of the capture covering a golden
 * point (contract in capture.h); capture.c reads each capture.json. */
#include "target/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target/capture_impl.h"
#include "base/readfile.h"
#include "target/target_layout.h"

static int load_one(const char *root, const char *name, ea_capture *c, ea_error *err)
{
    char folder[4096 + 260], path[4096 + 280]; /* root, a directory entry name, "/capture.json" */
    struct stat st;
    snprintf(folder, sizeof folder, "%s/%s", root, name);
    snprintf(path, sizeof path, "%s/" EA_CAPTURE_NAME, folder);
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return ea_fail(err, "%s: expected only capture folders under %s, got a file", folder, root);
    int present = ea_file_present(path, err);
    if (present <= 0)
        return present < 0 ? -1 : ea_fail(err, "%s: expected " EA_CAPTURE_NAME " in every capture folder, got none", folder);
    if (ea_capture_load(path, c, err) != 0)
        return -1;
    if (!strcmp(c->scope, name))
        return 0;
    ea_fail(err, "%s $.scope: expected \"%s\" (the capture's folder), got \"%s\"", path, name, c->scope);
    ea_capture_free(c);
    return -1;
}

typedef struct {
    const char *root, *name;
} capture_folder;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const capture_folder *)a)->name, ((const capture_folder *)b)->name);
}

int ea_captures_load_with(const char *dir, const char *base_dir, const char *const *inherit, int ninherit,
                          ea_captures *out, ea_error *err)
{
    char root[4096], base_root[4096], **names;
    int n, rc = 0;
    ea_tf_path(dir, EA_TF_CAPTURES, root, sizeof root);
    ea_tf_path(base_dir ? base_dir : "", EA_TF_CAPTURES, base_root, sizeof base_root);
    out->items = NULL;
    out->n = 0;
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    if (ea_list_folder(root, &names, &n, err) != 0)
        return -1;
    capture_folder *all = calloc((size_t)(n + ninherit) + 1, sizeof *all);
    if (!all || (n + ninherit && !(out->items = calloc((size_t)(n + ninherit), sizeof *out->items))))
        rc = ea_fail(err, "%s: out of memory", root);
    for (int i = 0; rc == 0 && i < n; i++)
        all[i] = (capture_folder){root, names[i]};
    for (int i = 0; rc == 0 && i < ninherit; i++)
        all[n + i] = (capture_folder){base_root, inherit[i]};
    if (rc == 0)
        qsort(all, (size_t)(n + ninherit), sizeof *all, by_name);
    for (int i = 0; rc == 0 && i + 1 < n + ninherit; i++)
        if (!strcmp(all[i].name, all[i + 1].name))
            rc = ea_fail(err, "%s/%s: expected a capture the target holds or inherits from %s, got one it does both",
                         root, all[i].name, base_dir);
    for (int i = 0; rc == 0 && i < n + ninherit; i++)
        if ((rc = load_one(all[i].root, all[i].name, &out->items[i], err)) == 0)
            out->n++;
    free(all);
    ea_list_folder_free(names, n);
    if (rc != 0)
        ea_captures_free(out);
    return rc;
}

int ea_captures_load_dir(const char *dir, ea_captures *out, ea_error *err)
{
    return ea_captures_load_with(dir, NULL, NULL, 0, out, err);
}

void ea_captures_free(ea_captures *cs)
{
    for (int i = 0; i < cs->n; i++)
        ea_capture_free(&cs->items[i]);
    free(cs->items);
    cs->items = NULL;
    cs->n = 0;
}

/* The capture named by ids[0], ids[1], ..., else the first in folder order covering one of occurrences. */
static const ea_capture *find(const ea_captures *caps, const char *const *ids, int nids, const char *const *occurrences,
                              int nocc)
{
    for (int k = 0; caps && k < nids; k++)
        for (int i = 0; i < caps->n; i++)
            if (!strcmp(caps->items[i].scope, ids[k]))
                return &caps->items[i];
    for (int i = 0; caps && i < caps->n; i++)
        for (int j = 0; j < caps->items[i].ncovers; j++)
            for (int k = 0; k < nocc; k++)
                if (!strcmp(caps->items[i].covers[j], occurrences[k]))
                    return &caps->items[i];
    return NULL;
}

#define MAX_LOOKUP 256 /* scope ids or occurrences a lookup compares; a golden point has far fewer */

const ea_capture *ea_capture_of_point(const ea_captures *caps, const cJSON *point, int group, ea_error *err)
{
    const char *ids[MAX_LOOKUP], *occ[MAX_LOOKUP];
    int ni = 0, no = 0, g = 0;
    const cJSON *grp, *o;
    cJSON_ArrayForEach(grp, cJSON_GetObjectItemCaseSensitive(point, "scopes")) {
        if (group < 0 || g++ == group) {
            if (ej_str(grp, "scope_id") && ni < MAX_LOOKUP)
                ids[ni++] = ej_str(grp, "scope_id");
            cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(grp, "occurrences"))
                if (ej_str(o, "id") && no < MAX_LOOKUP)
                    occ[no++] = ej_str(o, "id");
        }
    }
    const ea_capture *c = find(caps, ids, ni, occ, no);
    if (!c && err)
        ea_fail(err, "%s/captures: expected a capture named %s%s%s (tools/capture writes it), found none among %d",
                caps && caps->dir[0] ? caps->dir : "(no target)", ni ? ids[0] : "(no scope id)",
                no ? " or one covering " : "", no ? occ[0] : "", caps ? caps->n : 0);
    return c;
}
