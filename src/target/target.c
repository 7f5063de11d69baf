/* target.c: golden targets listed, read strictly and selected (contract in target.h). */
#include "target/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/device.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "base/readfile.h"
#include "target/target_impl.h"
#include "target/target_layout.h"

/* ej_bad_field with the string value quoted. */
static int bad_string(ej_val root, const char *key, const char *what, const char *got, ea_error *err)
{
    char q[300];
    snprintf(q, sizeof q, "\"%.280s\"", got);
    return ej_bad_field(root, key, what, q, err);
}

static int copy_field(ej_val root, const char *key, char *buf, size_t n, ea_error *err)
{
    const char *s;
    if (ej_get_string(root, key, &s, err))
        return -1;
    if (!*s || strlen(s) >= n)
        return bad_string(root, key, "a non-empty string that fits the reader's buffer", s, err);
    snprintf(buf, n, "%s", s);
    return 0;
}

static int capability_ok(const char *c)
{
    int major, minor, used = 0;
    return sscanf(c, "%d.%d%n", &major, &minor, &used) == 2 && c[used] == '\0' && major > 0 && minor >= 0;
}

int ea_target_read(const char *dir, ea_target *t, ea_error *err)
{
    /* lowering, scopes and environment: a stage's (golden_target.h reads them); captures_from: an accepted
     * candidate's (ea_target_captures_load reads it) */
    static const char *const keys[] = {"schema", "schema_version", "name", "gpu_model", "torch", "capability", "note",
                                       "lowering", "scopes", "environment", "captures_from", NULL};
    char path[4200], want[256], lowered[512];
    const char *lowering = NULL;
    ej_val low;
    ej_doc doc;
    memset(t, 0, sizeof *t);
    if ((size_t)snprintf(t->dir, sizeof t->dir, "%s", dir) >= sizeof t->dir)
        return ea_fail(err, "%.200s...: expected a target folder path under %zu bytes", dir, sizeof t->dir);
    ea_tf_path(dir, EA_TF_TARGET, path, sizeof path);
    if (ej_load(path, &doc, err))
        return -1;
    ej_val root = ej_root(&doc);
    int rc = ej_object(root, keys, err) || ej_expect_schema(root, EA_TARGET_SCHEMA, EA_TARGET_VERSION, err) ||
             copy_field(root, "name", t->name, sizeof t->name, err) ||
             copy_field(root, "gpu_model", t->gpu_model, sizeof t->gpu_model, err) ||
             copy_field(root, "torch", t->torch, sizeof t->torch, err) ||
             copy_field(root, "capability", t->capability, sizeof t->capability, err) ||
             copy_field(root, "note", t->note, sizeof t->note, err) || ej_field(root, "lowering", 0, &low, err) ||
             (low.v && ej_as_string(low, &lowering, err));
    snprintf(want, sizeof want, "%s-torch%s", t->gpu_model, t->torch);
    snprintf(lowered, sizeof lowered, "%s-%s", want, lowering ? lowering : "");
    if (!rc && !capability_ok(t->capability))
        rc = bad_string(root, "capability", "\"<major>.<minor>\" (e.g. \"9.0\")", t->capability, err);
    else if (!rc && strcmp(t->name, lowering ? lowered : want))
        rc = bad_string(root, "name",
                        lowering ? "\"<gpu_model>-torch<torch>-<lowering>\" from the same file"
                                 : "\"<gpu_model>-torch<torch>\" from the same file",
                        t->name, err);
    if (!rc && lowering) /* shorter than the name, which fits */
        snprintf(t->lowering, sizeof t->lowering, "%s", lowering);
    ej_free(&doc);
    return rc ? -1 : 0;
}

int ea_target_load(const char *dir, ea_target *t, ea_error *err)
{
    if (ea_target_read(dir, t, err))
        return -1;
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    if (strcmp(t->name, base))
        return ea_fail(err, "%s/" EA_TARGET_NAME " $.name: expected the target's folder name \"%s\", got \"%s\"", dir, base,
                       t->name);
    return 0;
}

int ea_targets_list(const char *golden, ea_target **out, int *n, ea_error *err)
{
    char root[4096], dir[4096 + 260], **names;
    int count, rc = 0;
    *out = NULL;
    *n = 0;
    snprintf(root, sizeof root, "%s/targets", golden);
    if (ea_list_folder(root, &names, &count, err))
        return -1;
    if (count && !(*out = calloc((size_t)count, sizeof **out)))
        rc = ea_fail(err, "%s: out of memory", root);
    for (int i = 0; rc == 0 && i < count; i++) {
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        if ((rc = ea_target_load(dir, &(*out)[i], err)) == 0)
            (*n)++;
    }
    ea_list_folder_free(names, count);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* "A, B, C" (or "none") into buf. */
static void names_of(const ea_target *ts, int n, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "%s", n ? "" : "none");
    for (int i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", ts[i].name);
}

/* The targets of today's code (no lowering) of gpu_model (NULL: any), the first into *first. */
static int count(const ea_target *ts, int n, const char *gpu_model, int *first)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!ts[i].lowering[0] && (!gpu_model || !strcmp(ts[i].gpu_model, gpu_model))) {
            *first = *first < 0 ? i : *first;
            k++;
        }
    return k;
}

static int pick(const char *golden, const char *name, const char *from, const char *gpu_model, int check_gpu,
                const ea_target *ts, int n, ea_target *out, ea_error *err)
{
    char all[600];
    names_of(ts, n, all, sizeof all);
    if (name) {
        for (int i = 0; i < n; i++)
            if (!strcmp(ts[i].name, name)) {
                if (check_gpu && gpu_model && strcmp(ts[i].gpu_model, gpu_model))
                    return ea_fail(err, "target %s (%s) is for the %s, but this machine's GPU is the %s: run it there, or "
                                        "pick (or stage) a target of %s",
                                   name, from, ts[i].gpu_model, gpu_model, gpu_model);
                *out = ts[i];
                return 0;
            }
        return ea_fail(err, "unknown target '%s' (%s): expected one of %s/targets: %s", name, from, golden, all);
    }
    int found = -1, matches = count(ts, n, gpu_model, &found), mine = matches;
    /* reading files measures nothing: with no target of this machine's GPU, the targets read as on a machine
     * without one (a B200 user's audit reads the H200's numbers, which say they are the H200's) */
    if (!mine && gpu_model && !check_gpu)
        matches = count(ts, n, NULL, &found);
    if (matches == 1) {
        *out = ts[found];
        return 0;
    }
    if (!n)
        return ea_fail(err, "%s/targets: expected a target folder (<gpu model>-torch<version>/" EA_TARGET_NAME "), got none",
                       golden);
    if (!gpu_model)
        return ea_fail(err, "no GPU here and %d targets in %s/targets (%s): name one with --target NAME or %s", n, golden,
                       all, EA_TARGET_ENV);
    if (mine)
        return ea_fail(err, "%d targets of this machine's %s in %s/targets (%s): the torch version decides, name one "
                            "with --target NAME or %s",
                       matches, gpu_model, golden, all, EA_TARGET_ENV);
    if (matches)
        return ea_fail(err, "no target for this machine's %s and %d targets of other GPUs in %s/targets (%s): name one "
                            "with --target NAME or %s",
                       gpu_model, matches, golden, all, EA_TARGET_ENV);
    return ea_fail(err, "no target for this machine's %s in %s/targets (%s): name one with --target NAME, or stage "
                        "one for %s",
                   gpu_model, golden, all, gpu_model);
}

int ea_target_select(const char *golden, const char *name, const char *env, const char *gpu_model, int check_gpu,
                     ea_target *out, ea_error *err)
{
    ea_target *ts;
    int n;
    if (ea_targets_list(golden, &ts, &n, err))
        return -1;
    const char *from = name ? "--target" : EA_TARGET_ENV;
    int rc = pick(golden, name ? name : (env && *env ? env : NULL), from, gpu_model, check_gpu, ts, n, out, err);
    free(ts);
    return rc;
}

int ea_target_resolve(const char *golden, const char *name, int check_gpu, ea_target *out, ea_error *err)
{
    ea_device_info dev;
    char model[64];
    int gpu = ea_device_probe(&dev);
    if (gpu)
        ea_gpu_model(dev.name, model, sizeof model);
    return ea_target_select(golden, name, getenv(EA_TARGET_ENV), gpu ? model : NULL, check_gpu, out, err);
}

int ea_target_find(const char *golden, const char *name, ea_target *out, ea_error *err)
{
    ea_target *ts;
    int n;
    memset(out, 0, sizeof *out);
    if (ea_targets_list(golden, &ts, &n, err))
        return -1;
    free(ts);
    const char *env = getenv(EA_TARGET_ENV);
    return !n && !name && !(env && *env) ? 0 : ea_target_resolve(golden, name, 0, out, err);
}
