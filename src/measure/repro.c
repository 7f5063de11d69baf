/* repro.c: the family registry and --scope resolution (contract in repro.h). */
#include "base/json.h"
#include "measure/repro.h"

#include <stdio.h>
#include <string.h>

#include "measure/path.h"
#include "base/text_table.h"

/* point's alias among the points of doc that f claims. */
static void alias_in(const ea_repro_family *f, const cJSON *doc, const cJSON *point, char *out, size_t n)
{
    ea_alias_make(doc, point, f->claims, f->alias_stem, f->alias_tag, out, n);
}

void ea_repro_alias(const ea_run_ctx *c, const ea_scope_ref *ref, char *out, size_t n)
{
    int d = ea_repro_doc(ref->family);
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref->point, "point"));
    if (d >= 0 && c->docs[d])
        alias_in(ref->family, c->docs[d], ref->point, out, n);
    else
        snprintf(out, n, "%s", id ? id : "");
}

cJSON *ea_repro_header(const char *family, const char *point, const char *alias, int64_t occurrences,
                       cJSON **scope_ids)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", family);
    cJSON_AddStringToObject(o, "point", point);
    cJSON_AddStringToObject(o, "alias", alias);
    cJSON_AddNumberToObject(o, "occurrences", (double)occurrences);
    *scope_ids = cJSON_AddArrayToObject(o, "scope_ids");
    return o;
}

int ea_run_times_cold(const ea_run_opts *o, const char *family, const char *point, const char *path,
                      const char *mode)
{
    if (!o->cold_from)
        return 1;
    const cJSON *r;
    int stored = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(o->cold_from, "scopes")) {
        const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "family"));
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "point"));
        const cJSON *sp = f && p && !strcmp(f, family) && !strcmp(p, point) ? ea_path_named(r, path, mode) : NULL;
        if (cJSON_HasObjectItem(sp, "time_cold"))
            return 1;
        stored |= sp != NULL;
    }
    return !stored; /* a path the document never stored is new: its first entry has both times */
}

unsigned ea_repro_modes(const ea_repro_family *f, const ea_run_opts *o, ea_run_opts *fo, char *why, size_t n)
{
    static const char *const names[] = {"faithful", "fabricated"};
    const unsigned asked = (o->faithful ? EA_MODE_FAITHFUL : 0) | (o->fabricated ? EA_MODE_FABRICATED : 0);
    const unsigned runs = asked & f->modes, lacks = asked & ~f->modes;
    char declared[32] = "";
    *fo = *o;
    fo->faithful = (runs & EA_MODE_FAITHFUL) != 0;
    fo->fabricated = (runs & EA_MODE_FABRICATED) != 0;
    for (int m = 0; m < 2; m++)
        if (f->modes & 1u << m)
            snprintf(declared + strlen(declared), sizeof declared - strlen(declared), "%s%s", declared[0] ? ", " : "",
                     names[m]);
    snprintf(why, n, "%s", "");
    if (lacks)
        snprintf(why, n, "family %s has no %s mode (it declares: %s)%s", f->name,
                 lacks == (EA_MODE_FAITHFUL | EA_MODE_FABRICATED) ? "faithful or fabricated"
                                                                  : names[lacks == EA_MODE_FABRICATED],
                 declared[0] ? declared : "none", runs ? "" : ": not run");
    return runs;
}

/* Does point (of doc) match arg by alias, point id or one of its scope ids? */
/* 1: arg names the point (all, its family, its id or a scope id); 2: arg is its alias; 0: neither. */
static int matches(const ea_repro_family *f, const cJSON *doc, const cJSON *point, const char *arg)
{
    const char *id = ej_text(point, "point");
    char alias[256];
    alias_in(f, doc, point, alias, sizeof alias);
    if (!strcmp(arg, "all") || !strcmp(arg, f->name) || !strcmp(arg, id))
        return 1;
    if (!strcmp(arg, alias))
        return 2;
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes"))
        if (!strcmp(arg, ej_text(g, "scope_id")))
            return 1;
    return 0;
}

int ea_repro_doc(const ea_repro_family *f)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, f->op))
            return i;
    return -1;
}

const ea_repro_family *ea_repro_family_named(const char *name)
{
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++)
        if (!strcmp((*f)->name, name))
            return *f;
    return NULL;
}

/* "index_add, routing_histc, ..." */
static void family_names(char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (const ea_repro_family *const *f = ea_repro_families; *f && k < n; f++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", (*f)->name);
}

int ea_repro_resolve(cJSON *const docs[EA_AUDIT_OPS], const char *const files[EA_AUDIT_OPS], const char *arg,
                     ea_scope_ref *out, int max, int *n, ea_error *err)
{
    *n = 0;
    const ea_repro_family *by_alias = NULL; /* aliases are derived per family: one naming two families' points
                                             * is ambiguous, not a wider selection */
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++) {
        int d = ea_repro_doc(*f);
        if (d < 0 || !docs[d])
            continue;
        const cJSON *p;
        int i = 0;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[d], "points")) {
            int how = (!(*f)->claims || (*f)->claims(p)) ? matches(*f, docs[d], p, arg) : 0;
            if (how == 2 && by_alias && by_alias != *f)
                return ea_fail(err, "--scope %s: an alias of points of two families (%s and %s): name the point id or "
                                    "the scope id; extern-audit run --list lists them",
                               arg, by_alias->name, (*f)->name);
            if (how == 2)
                by_alias = *f;
            if (how) {
                if (*n >= max)
                    return ea_fail(err, "--scope %s: more than %d points", arg, max);
                out[(*n)++] = (ea_scope_ref){*f, p, files[d], i};
            }
            i++;
        }
    }
    if (*n == 0) {
        char families[256];
        family_names(families, sizeof families);
        return ea_fail(err, "--scope %s: expected all, a family (%s), an alias, a point id or a scope id; "
                            "extern-audit run --list lists the aliases and points",
                       arg, families);
    }
    return 0;
}

/* "hf/infer/AllenaiLongformerBase" for each distinct model the point's occurrences come from. */
static void add_models(cJSON *models, const cJSON *point)
{
    const cJSON *g, *o, *m;
    char id[512];
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes"))
        cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences")) {
            int seen = 0;
            snprintf(id, sizeof id, "%s/%s/%s", ej_text(o, "suite"), ej_text(o, "mode"), ej_text(o, "model"));
            cJSON_ArrayForEach(m, models)
                seen |= !strcmp(m->valuestring, id);
            if (!seen)
                cJSON_AddItemToArray(models, cJSON_CreateString(id));
        }
}

cJSON *ea_repro_list(cJSON *const docs[EA_AUDIT_OPS])
{
    cJSON *list = cJSON_CreateArray();
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++) {
        int d = ea_repro_doc(*f);
        cJSON *fam = cJSON_CreateObject(), *points;
        cJSON_AddStringToObject(fam, "family", (*f)->name);
        cJSON_AddStringToObject(fam, "op", (*f)->op);
        cJSON_AddStringToObject(fam, "description", (*f)->description ? (*f)->description : "");
        points = cJSON_AddArrayToObject(fam, "points");
        cJSON_AddItemToArray(list, fam);
        const cJSON *p, *all = d < 0 ? NULL : cJSON_GetObjectItemCaseSensitive(docs[d], "points");
        cJSON_ArrayForEach(p, all) {
            if ((*f)->claims && !(*f)->claims(p))
                continue;
            char alias[256];
            alias_in(*f, docs[d], p, alias, sizeof alias);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "point", ej_text(p, "point"));
            cJSON_AddStringToObject(e, "alias", alias);
            cJSON_AddNumberToObject(e, "occurrences", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "count")));
            cJSON_AddNumberToObject(e, "scopes", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "scopes")));
            add_models(cJSON_AddArrayToObject(e, "models"), p);
            cJSON_AddItemToArray(points, e);
        }
    }
    return list;
}

void ea_repro_list_print(const cJSON *list, FILE *f)
{
    const cJSON *fam, *p, *m;
    fprintf(f, "run --scope takes all, a family, an alias, a point id or a scope id:\n");
    cJSON_ArrayForEach(fam, list) {
        const cJSON *points = cJSON_GetObjectItemCaseSensitive(fam, "points");
        int np = cJSON_GetArraySize(points);
        fprintf(f, "\n%s (%s, %d point%s): %s\n", ej_text(fam, "family"), ej_text(fam, "op"), np, np == 1 ? "" : "s",
                ej_text(fam, "description"));
        cJSON *t = cJSON_CreateArray(), *r = ea_text_row(t);
        for (const char *const *h = (const char *const[]){"alias", "point", "occ.", "scopes", "models", NULL}; *h; h++)
            ea_text_cell(r, "%s", *h);
        cJSON_ArrayForEach(p, points) {
            const cJSON *alias = cJSON_GetObjectItemCaseSensitive(p, "alias"), *models = cJSON_GetObjectItemCaseSensitive(p, "models");
            int shown = 0, total = cJSON_GetArraySize(models);
            char names[512] = "";
            r = ea_text_row(t);
            ea_text_cell(r, "%s", cJSON_IsString(alias) ? alias->valuestring : "-");
            ea_text_cell(r, "%s", ej_text(p, "point"));
            ea_text_cell(r, "%d", cJSON_GetObjectItemCaseSensitive(p, "occurrences")->valueint);
            ea_text_cell(r, "%d", cJSON_GetObjectItemCaseSensitive(p, "scopes")->valueint);
            cJSON_ArrayForEach(m, models) {
                size_t k = strlen(names);
                if (shown == 2) {
                    snprintf(names + k, sizeof names - k, ", and %d more", total - shown);
                    break;
                }
                snprintf(names + k, sizeof names - k, "%s%s", shown++ ? ", " : "", m->valuestring);
            }
            ea_text_cell(r, "%s", names);
        }
        ea_text_table_print(f, t, "llrrl", "  ");
        cJSON_Delete(t);
    }
}
