/* repro.c: the family registry and --scope resolution (contract in repro.h). */
#include "repro.h"

#include <stdio.h>
#include <string.h>

/* One line per family: repros/<name>/ defines it. */
extern const ea_repro_family ea_family_index_add;
extern const ea_repro_family ea_family_routing_histc, ea_family_routing_cumsum;
extern const ea_repro_family ea_family_cumsum;
extern const ea_repro_family ea_family_cat;

const ea_repro_family *const ea_repro_families[] = {
    &ea_family_index_add,
    &ea_family_routing_histc,
    &ea_family_routing_cumsum,
    &ea_family_cumsum,
    &ea_family_cat,
    NULL,
};

const char *ea_alias_of(const ea_alias *table, int n, const char *point)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(point, table[i].point))
            return table[i].alias;
    return NULL;
}

const char *ea_point_of(const ea_alias *table, int n, const char *alias)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(alias, table[i].alias))
            return table[i].point;
    return NULL;
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

void ea_repro_append(cJSON *into, cJSON *from)
{
    cJSON *item = from->child;
    while (item) {
        cJSON *next = item->next;
        cJSON_AddItemToObject(into, item->string, cJSON_DetachItemViaPointer(from, item));
        item = next;
    }
    cJSON_Delete(from);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Does point match arg by alias, point id or one of its scope ids? */
static int matches(const ea_repro_family *f, const cJSON *point, const char *arg)
{
    const char *id = str(point, "point"), *alias = ea_alias_of(f->aliases, f->naliases, id);
    if (!strcmp(arg, "all") || !strcmp(arg, f->name) || !strcmp(arg, id) || (alias && !strcmp(arg, alias)))
        return 1;
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes"))
        if (!strcmp(arg, str(g, "scope_id")))
            return 1;
    return 0;
}

static int doc_of(const ea_repro_family *f)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, f->op))
            return i;
    return -1;
}

int ea_repro_resolve(cJSON *const docs[EA_AUDIT_OPS], const char *const files[EA_AUDIT_OPS], const char *arg,
                     ea_scope_ref *out, int max, int *n, ea_error *err)
{
    char known[768] = "all, a family name";
    size_t k = strlen(known);
    *n = 0;
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++) {
        int d = doc_of(*f);
        if (d < 0 || !docs[d])
            continue;
        const cJSON *p;
        int i = 0;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[d], "points")) {
            if ((*f)->claims && !(*f)->claims(p)) {
                i++;
                continue;
            }
            const char *alias = ea_alias_of((*f)->aliases, (*f)->naliases, str(p, "point"));
            if (k < sizeof known)
                k += (size_t)snprintf(known + k, sizeof known - k, ", %s", alias ? alias : str(p, "point"));
            if (matches(*f, p, arg)) {
                if (*n >= max)
                    return ea_fail(err, "--scope %s: more than %d points", arg, max);
                out[(*n)++] = (ea_scope_ref){*f, p, files[d], i};
            }
            i++;
        }
    }
    if (*n == 0)
        return ea_fail(err, "--scope %s: expected one of %s, a point id or a scope id of a family's golden points",
                       arg, known);
    return 0;
}
