#include "corpus/scope.h"

#include <stdlib.h>
#include <string.h>

#include "corpus/opclass.h"
#include "corpus/values.h"

/* Caps keep a scope local: DenseNet's BN+ReLU consumer is ~12 hops, the routing chain ~8. */
#define BACK_DEPTH 12
#define FWD_DEPTH 24
#define SIDE_DEPTH 10
#define MAX_MEMBERS 96

enum { NOT_IN, ROLE_INPUT, ROLE_PRODUCER, ROLE_OP, ROLE_CONSUMER };
static const char *const role_names[] = {"", "input", "producer", "op", "consumer"};

typedef struct {
    const fx_graph *g;
    const char *root_target;
    unsigned char *role; /* per graph node */
    int members;
    int truncated;
} walk;

/* Producers that the routing scope keeps even though each is a fallback on its own. */
static int absorbs(const char *root, const char *producer)
{
    static const struct {
        const char *root, *producer;
    } rules[] = {
        {"aten.cumsum.default", "aten.histc.default"},
        {"aten.cumsum.default", "aten.sort.default"},
        {"aten.cumsum.default", "aten.sort.stable"},
        {"aten.histc.default", "aten.sort.default"},
        {"aten.histc.default", "aten.sort.stable"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].root, root) == 0 && strcmp(rules[i].producer, producer) == 0)
            return 1;
    return 0;
}

static int walkable_back(const walk *w, const fx_node *n)
{
    ea_opclass c = ea_node_opclass(n);
    return c == OP_VIEW || c == OP_POINTWISE || c == OP_GENERATOR || (n->kind == FX_CALL && absorbs(w->root_target, n->target));
}

static int walkable_fwd(const fx_node *n)
{
    ea_opclass c = ea_node_opclass(n);
    return c == OP_VIEW || c == OP_POINTWISE || c == OP_REDUCTION || c == OP_SCAN;
}

static int add_member(walk *w, int node, int role)
{
    if (w->members >= MAX_MEMBERS) {
        w->truncated = 1;
        return 0;
    }
    w->role[node] = (unsigned char)role;
    w->members++;
    return 1;
}

static void back(walk *w, int node, int depth);

static void back_args(walk *w, const fx_arg *a, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        if (a[i].kind == ARG_LIST)
            back_args(w, a[i].items, a[i].nitems, depth);
        else if (a[i].kind == ARG_NODE)
            back(w, a[i].node, depth);
    }
}

static void back(walk *w, int node, int depth)
{
    if (w->role[node] != NOT_IN && w->role[node] != ROLE_INPUT)
        return;
    const fx_node *n = &w->g->nodes[node];
    if (depth >= BACK_DEPTH || !walkable_back(w, n)) {
        w->role[node] = ROLE_INPUT;
        if (depth >= BACK_DEPTH && walkable_back(w, n))
            w->truncated = 1;
        return;
    }
    if (!add_member(w, node, ROLE_PRODUCER))
        return;
    back_args(w, n->args, n->nargs, depth + 1);
}

static void fwd(walk *w, int node, int depth)
{
    const fx_node *n = &w->g->nodes[node];
    for (int u = 0; u < n->nusers; u++) {
        int user = n->users[u];
        const fx_node *un = &w->g->nodes[user];
        if ((w->role[user] != NOT_IN && w->role[user] != ROLE_INPUT) || !walkable_fwd(un))
            continue;
        if (depth >= FWD_DEPTH) {
            w->truncated = 1;
            continue;
        }
        if (!add_member(w, user, ROLE_CONSUMER))
            return;
        /* side inputs of a fused consumer (BN scale/shift chains: ~8 hops) belong to the scope too */
        back_args(w, un->args, un->nargs, BACK_DEPTH - SIDE_DEPTH);
        fwd(w, user, depth + 1);
    }
}

static int is_graph_output(const fx_graph *g, int node)
{
    for (int i = 0; i < g->noutputs; i++)
        if (g->outputs[i] == node)
            return 1;
    return 0;
}

typedef struct {
    const walk *w;
    int *slot; /* graph node -> index in the scope list */
} ref_ctx;

static cJSON *ref_node(void *vctx, int node)
{
    const ref_ctx *c = vctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ref", c->slot[node]);
    return o;
}

static void add_unique_string(cJSON *arr, const char *s)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
        if (strcmp(it->valuestring, s) == 0)
            return;
    cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

static cJSON *entry(const walk *w, const ref_ctx *rc, int node, cJSON *boundary)
{
    const fx_graph *g = w->g;
    const fx_node *n = &g->nodes[node];
    int role = w->role[node];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "role", role_names[role]);
    cJSON_AddStringToObject(e, "op", n->kind == FX_PLACEHOLDER ? "input" : n->kind == FX_GET_ATTR ? "get_attr" : n->target);
    if (n->ann_text)
        cJSON_AddStringToObject(e, "ann", n->ann_text);
    if (role == ROLE_INPUT)
        return e;
    ea_node_args_json(n, e, 0, ref_node, (void *)rc);
    /* what leaves the scope: users outside it, and graph outputs (saved for backward, returned) */
    cJSON *esc = cJSON_CreateArray();
    for (int u = 0; u < n->nusers; u++) {
        int user = n->users[u];
        if (w->role[user] == NOT_IN || w->role[user] == ROLE_INPUT) {
            add_unique_string(esc, g->nodes[user].target);
            if (role == ROLE_OP || role == ROLE_CONSUMER)
                add_unique_string(boundary, g->nodes[user].target);
        }
    }
    if (is_graph_output(g, node))
        add_unique_string(esc, "graph_output");
    if (cJSON_GetArraySize(esc))
        cJSON_AddItemToObject(e, "escapes", esc);
    else
        cJSON_Delete(esc);
    return e;
}

cJSON *ea_scope(const fx_graph *g, int node)
{
    walk w = {g, g->nodes[node].target, calloc((size_t)g->nnodes, 1), 0, 0};
    int *slot = malloc(sizeof(int) * (size_t)g->nnodes);
    if (!w.role || !slot) {
        free(w.role);
        free(slot);
        return NULL;
    }
    add_member(&w, node, ROLE_OP);
    back_args(&w, g->nodes[node].args, g->nodes[node].nargs, 0);
    fwd(&w, node, 0);

    int k = 0;
    for (int i = 0; i < g->nnodes; i++)
        slot[i] = w.role[i] ? k++ : -1;
    ref_ctx rc = {&w, slot};
    cJSON *scope = cJSON_CreateObject();
    cJSON *nodes = cJSON_AddArrayToObject(scope, "nodes");
    cJSON *boundary = cJSON_CreateArray();
    for (int i = 0; i < g->nnodes; i++)
        if (w.role[i])
            cJSON_AddItemToArray(nodes, entry(&w, &rc, i, boundary));
    cJSON_AddItemToObject(scope, "boundary_consumers", boundary);
    cJSON_AddBoolToObject(scope, "truncated", w.truncated);
    free(w.role);
    free(slot);
    return scope;
}
