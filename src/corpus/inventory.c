#include "corpus/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "corpus/meta.h"

typedef struct {
    const char *op;
    const char *reason;
    int64_t emulated;
} op_tally;

static cJSON *find_by(cJSON *arr, const char *k1, const char *v1, const char *k2, const char *v2,
                      const char *k3, const char *v3)
{
    cJSON *e;
    cJSON_ArrayForEach(e, arr)
        if (!strcmp(cJSON_GetObjectItem(e, k1)->valuestring, v1) &&
            (!k2 || !strcmp(cJSON_GetObjectItem(e, k2)->valuestring, v2)) &&
            (!k3 || !strcmp(cJSON_GetObjectItem(e, k3)->valuestring, v3)))
            return e;
    return NULL;
}

static void add_count(cJSON *o, const char *key, double n)
{
    cJSON *v = cJSON_GetObjectItem(o, key);
    cJSON_SetNumberValue(v, v->valuedouble + n);
}

static void record(cJSON *by_op, const ea_graph_ref *r, const char *op, const char *reason, int64_t n)
{
    cJSON *e = find_by(by_op, "op", op, NULL, NULL, NULL, NULL);
    if (!e) {
        e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "op", op);
        cJSON_AddStringToObject(e, "reason", reason);
        cJSON_AddNumberToObject(e, "count", 0);
        cJSON_AddArrayToObject(e, "by_model");
        cJSON_AddItemToArray(by_op, e);
    }
    add_count(e, "count", (double)n);
    cJSON *models = cJSON_GetObjectItem(e, "by_model");
    cJSON *m = find_by(models, "suite", r->suite, "mode", r->mode, "model", r->model);
    if (!m) {
        m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "suite", r->suite);
        cJSON_AddStringToObject(m, "mode", r->mode);
        cJSON_AddStringToObject(m, "model", r->model);
        cJSON_AddNumberToObject(m, "count", 0);
        cJSON_AddItemToArray(models, m);
    }
    add_count(m, "count", (double)n);
}

static void mismatch(cJSON *list, const ea_graph_ref *r, const char *what, int64_t emulated, int64_t recorded)
{
    char id[1024];
    ea_graph_ref_id(r, id, sizeof id);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "graph", id);
    cJSON_AddStringToObject(m, "what", what);
    cJSON_AddNumberToObject(m, "emulated", (double)emulated);
    cJSON_AddNumberToObject(m, "recorded", (double)recorded);
    cJSON_AddItemToArray(list, m);
}

static int tally_index(op_tally *t, int n, const char *op)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].op, op) == 0)
            return i;
    return -1;
}

static int inventory_graph(const ea_graph_ref *r, const ea_old_rule *rule, cJSON *inv, ea_error *err)
{
    fx_graph g;
    ea_meta meta;
    if (fx_graph_parse_file(r->path, &g, err) != 0)
        return -1;
    if (ea_meta_load(r->meta_path, &meta, err) != 0) {
        fx_graph_free(&g);
        return -1;
    }
    op_tally *t = calloc((size_t)g.nnodes + 1, sizeof *t);
    if (!t) {
        fx_graph_free(&g);
        ea_meta_free(&meta);
        return ea_fail(err, "out of memory");
    }
    int nt = 0;
    int64_t calls = 0;
    for (int i = 0; i < g.nnodes; i++) {
        const fx_node *n = &g.nodes[i];
        calls += n->kind == FX_CALL;
        const char *reason = ea_old_rule_verdict(rule, n);
        if (!reason)
            continue;
        int k = tally_index(t, nt, n->target);
        if (k < 0)
            t[k = nt++] = (op_tally){n->target, reason, 0};
        t[k].emulated++;
    }
    cJSON *mism = cJSON_GetObjectItem(inv, "mismatches");
    char what[512];
    if (calls != meta.total_call_functions)
        mismatch(mism, r, "call_functions", calls, meta.total_call_functions);
    for (int k = 0; k < nt; k++) {
        record(cJSON_GetObjectItem(inv, "by_op"), r, t[k].op, t[k].reason, t[k].emulated);
        add_count(inv, "non_fusible_total", (double)t[k].emulated);
        int64_t rec = ea_meta_op_count(&meta, EA_META_NON_FUSIBLE, t[k].op);
        if (rec != t[k].emulated) {
            snprintf(what, sizeof what, "non_fusible %s", t[k].op);
            mismatch(mism, r, what, t[k].emulated, rec);
        }
    }
    /* ops the recording calls non-fusible that the emulation does not */
    for (int k = 0; k < meta.nops[EA_META_NON_FUSIBLE]; k++) {
        const ea_meta_op *op = &meta.ops[EA_META_NON_FUSIBLE][k];
        if (tally_index(t, nt, op->name) < 0 && op->count) {
            snprintf(what, sizeof what, "non_fusible %s", op->name);
            mismatch(mism, r, what, 0, op->count);
        }
    }
    add_count(inv, "call_functions", (double)calls);
    free(t);
    ea_meta_free(&meta);
    fx_graph_free(&g);
    return 0;
}

static int by_count_desc(const cJSON *x, const cJSON *y)
{
    double d = cJSON_GetObjectItem(y, "count")->valuedouble - cJSON_GetObjectItem(x, "count")->valuedouble;
    return d > 0 ? 1 : d < 0 ? -1 : strcmp(cJSON_GetObjectItem(x, "op")->valuestring, cJSON_GetObjectItem(y, "op")->valuestring);
}

int ea_inventory(const ea_corpus *c, const ea_old_rule *rule, FILE *progress, cJSON **out, ea_error *err)
{
    cJSON *inv = cJSON_CreateObject();
    cJSON_AddStringToObject(inv, "schema", EA_INVENTORY_SCHEMA);
    cJSON_AddNumberToObject(inv, "schema_version", EA_INVENTORY_VERSION);
    cJSON_AddStringToObject(inv, "rule_recorded_for", rule->recorded_for);
    cJSON_AddNumberToObject(inv, "graphs", c->ngraphs);
    cJSON_AddNumberToObject(inv, "call_functions", 0);
    cJSON_AddNumberToObject(inv, "non_fusible_total", 0);
    cJSON_AddArrayToObject(inv, "by_op");
    cJSON_AddArrayToObject(inv, "mismatches");
    for (int i = 0; i < c->ngraphs; i++) {
        if (progress && (i % 64 == 0 || i == c->ngraphs - 1))
            fprintf(progress, "inventory: graph %d/%d %s/%s/%s\n", i + 1, c->ngraphs, c->graphs[i].suite,
                    c->graphs[i].mode, c->graphs[i].model);
        if (inventory_graph(&c->graphs[i], rule, inv, err) != 0) {
            cJSON_Delete(inv);
            return -1;
        }
    }
    ej_sort(cJSON_GetObjectItem(inv, "by_op"), by_count_desc);
    *out = inv;
    return 0;
}

void ea_inventory_print(const cJSON *inv, FILE *f)
{
    const cJSON *e, *m;
    fprintf(f, "Old rule (is_fusible_node) non-fusible nodes, %d graphs, %d call_functions\n",
            cJSON_GetObjectItem(inv, "graphs")->valueint, cJSON_GetObjectItem(inv, "call_functions")->valueint);
    fprintf(f, "%-62s %-14s %7s %7s\n", "op", "reason", "nodes", "models");
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(inv, "by_op"))
        fprintf(f, "%-62s %-14s %7d %7d\n", cJSON_GetObjectItem(e, "op")->valuestring,
                cJSON_GetObjectItem(e, "reason")->valuestring, cJSON_GetObjectItem(e, "count")->valueint,
                cJSON_GetArraySize(cJSON_GetObjectItem(e, "by_model")));
    fprintf(f, "%-62s %-14s %7d\n", "total", "", cJSON_GetObjectItem(inv, "non_fusible_total")->valueint);
    const cJSON *mism = cJSON_GetObjectItem(inv, "mismatches");
    if (!cJSON_GetArraySize(mism)) {
        fprintf(f, "cross-check: every graph's non_fusible op counts and call_function count match its meta.json\n");
        return;
    }
    fprintf(f, "cross-check: %d MISMATCHES against meta.json\n", cJSON_GetArraySize(mism));
    cJSON_ArrayForEach(m, mism)
        fprintf(f, "  %s: %s: emulated %d, recorded %d\n", cJSON_GetObjectItem(m, "graph")->valuestring,
                cJSON_GetObjectItem(m, "what")->valuestring, cJSON_GetObjectItem(m, "emulated")->valueint,
                cJSON_GetObjectItem(m, "recorded")->valueint);
}
