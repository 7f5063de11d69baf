#include "corpus/oldrule.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int load_entries(ea_old_rule *r, ej_val list, ea_error *err)
{
    static const char *const keys[] = {"op", "reason", NULL};
    int n;
    if (ej_array(list, &n, err) != 0)
        return -1;
    r->entries = calloc((size_t)(n ? n : 1), sizeof *r->entries);
    if (!r->entries)
        return ea_fail(err, "%s: out of memory", list.file);
    for (int i = 0; i < n; i++) {
        ej_val e = ej_index(list, i);
        ea_old_rule_entry *x = &r->entries[i];
        if (ej_object(e, keys, err) || ej_get_string(e, "op", &x->op, err) || ej_get_string(e, "reason", &x->reason, err))
            return -1;
        for (int k = 0; k < i; k++)
            if (strcmp(r->entries[k].op, x->op) == 0)
                return ea_fail(err, "%s %s.op: expected each op once, got '%s' again", e.file, e.path, x->op);
        r->nentries++;
    }
    return 0;
}

int ea_old_rule_load(const char *path, ea_old_rule *r, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "rule", "recorded_for", "note",
                                       "max_pointwise_cat_inputs", "non_fusible", NULL};
    memset(r, 0, sizeof *r);
    if (ej_load(path, &r->doc, err) != 0)
        return -1;
    ej_val root = ej_root(&r->doc), list;
    const char *s;
    int64_t cap;
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_OLD_RULE_SCHEMA, EA_OLD_RULE_VERSION, err) ||
        ej_get_string(root, "rule", &s, err) || ej_get_string(root, "recorded_for", &r->recorded_for, err) ||
        ej_get_int(root, "max_pointwise_cat_inputs", &cap, err) || ej_field(root, "non_fusible", 1, &list, err))
        goto fail;
    if (cap < 0 || cap > 1000000) {
        ea_fail(err, "%s $.max_pointwise_cat_inputs: expected 0..1000000, got %" PRId64, path, cap);
        goto fail;
    }
    r->cat_cap = (int)cap;
    if (load_entries(r, list, err) != 0)
        goto fail;
    return 0;
fail:
    ea_old_rule_free(r);
    return -1;
}

void ea_old_rule_free(ea_old_rule *r)
{
    free(r->entries);
    ej_free(&r->doc);
    memset(r, 0, sizeof *r);
}

const char *ea_old_rule_verdict_op(const ea_old_rule *r, const char *target, int list_inputs)
{
    if (strcmp(target, "aten.cat.default") == 0)
        return list_inputs > r->cat_cap ? "cat_over_cap" : NULL;
    for (int i = 0; i < r->nentries; i++)
        if (strcmp(r->entries[i].op, target) == 0)
            return r->entries[i].reason;
    return NULL;
}

const char *ea_old_rule_verdict(const ea_old_rule *r, const fx_node *n)
{
    if (n->kind != FX_CALL)
        return NULL;
    const fx_arg *list = fx_node_arg(n, 0);
    return ea_old_rule_verdict_op(r, n->target, list && list->kind == ARG_LIST ? list->nitems : 0);
}
