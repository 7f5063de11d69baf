/* golden_target.c: a target folder's target.json, and the files diff compares (contract in golden_target.h). */
#include "golden/golden_target.h"

#include <stdio.h>
#include <string.h>

#include "measure/baseline.h"
#include "target/classify.h"
#include "base/readfile.h"
#include "target/target_layout.h"

static int plain_name(const char *s)
{
    return ea_plain_name(s) && strlen(s) < 128;
}

/* "scopes": the scope ids a partial stage captured. */
static int read_scopes(ej_val v, ea_target_info *t, ea_error *err)
{
    int n;
    if (ej_array(v, &n, err))
        return -1;
    if (n == 0)
        return ea_fail(err, "%s %s: expected the scope ids a partial stage captured (absent when complete), got []",
                       t->file, v.path);
    for (int i = 0; i < n; i++) {
        const char *s;
        ej_val e = ej_index(v, i);
        if (ej_as_string(e, &s, err))
            return -1;
        for (int j = 0; j < i; j++)
            if (!strcmp(s, cJSON_GetArrayItem(v.v, j)->valuestring))
                return ea_fail(err, "%s %s: expected each scope once, got \"%s\" twice", t->file, e.path, s);
    }
    t->scopes = v.v;
    return 0;
}

/* "environment": what the stage ran in, strings by name. */
static int read_environment(ej_val env, ea_error *err)
{
    int n;
    const char *key, *s;
    if (ej_map(env, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (ej_as_string(ej_member(env, i, &key), &s, err))
            return -1;
    return 0;
}

int ea_target_info_load(const char *dir, ea_target_info *t, ea_error *err)
{
    memset(t, 0, sizeof *t);
    if (ea_target_read(dir, &t->target, err))
        return -1;
    ea_tf_path(dir, EA_TF_TARGET, t->file, sizeof t->file);
    if (ej_load(t->file, &t->doc, err))
        return -1;
    ej_val root = ej_root(&t->doc), low, scopes, env;
    if (ej_field(root, "lowering", 0, &low, err) || (low.v && ej_as_string(low, &t->lowering, err)) ||
        ej_field(root, "scopes", 0, &scopes, err) || (scopes.v && read_scopes(scopes, t, err)) ||
        ej_field(root, "environment", 0, &env, err) || (env.v && read_environment(env, err)))
        goto bad;
    if (!plain_name(t->target.name)) {
        char got[300];
        snprintf(got, sizeof got, "\"%.250s\"", t->target.name);
        ej_bad_field(root, "name", "a plain folder name (no '/', not starting with '.')", got, err);
        goto bad;
    }
    return 0;
bad:
    ej_free(&t->doc);
    return -1;
}

void ea_target_info_free(ea_target_info *t)
{
    ej_free(&t->doc);
}

int ea_target_staged(const ea_target_info *t, const char *scope_id)
{
    const cJSON *s;
    if (!t->scopes)
        return 1;
    cJSON_ArrayForEach(s, t->scopes)
        if (!strcmp(s->valuestring, scope_id))
            return 1;
    return 0;
}

int ea_target_baselines_load(const char *dir, ej_doc *doc, ea_error *err)
{
    char path[4200];
    ea_tf_path(dir, EA_TF_BASELINES, path, sizeof path);
    int rc = ej_load(path, doc, err) || ea_baseline_validate(path, doc->root, err) ? -1 : 0;
    if (rc)
        ej_free(doc);
    return rc;
}

int ea_target_base_dir(const char *dir, char *out, size_t n, ea_error *err)
{
    ea_target_info info;
    if (ea_target_info_load(dir, &info, err))
        return -1;
    const char *from = ej_str(cJSON_GetObjectItemCaseSensitive(info.doc.root, "captures_from"), "target");
    int rc = 0;
    if (!info.lowering)
        rc = ea_fail(err, "%s $.lowering: expected a candidate lowering's name, got none: a target of today's code",
                     info.file);
    else if (!from)
        rc = ea_fail(err, "%s $.captures_from.target: expected the base it was accepted beside (golden accept), got "
                     "none", info.file);
    else
        ea_target_sibling(dir, from, out, n);
    ea_target_info_free(&info);
    return rc;
}

int ea_golden_target_load(const char *dir, ea_golden_target *t, ea_error *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    if (ea_target_info_load(dir, &t->info, err))
        return -1;
    int rc = ea_target_captures_load(dir, &t->caps, err);
    if (rc == 0 && (rc = ea_classification_load(dir, &t->classification, err)) == 0 && !t->classification.root)
        rc = ea_fail(err, "%s/" EA_CLASSIFICATION_NAME ": absent (a target needs its classification: extern-audit classify --update)", dir);
    if (rc == 0)
        rc = ea_target_baselines_load(dir, &t->baselines, err);
    if (rc)
        ea_golden_target_free(t);
    return rc;
}

void ea_golden_target_free(ea_golden_target *t)
{
    ea_target_info_free(&t->info);
    ea_captures_free(&t->caps);
    ej_free(&t->classification);
    ej_free(&t->baselines);
}
