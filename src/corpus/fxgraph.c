/* fxgraph.c: users[] linking and the public calls, over the graph's memory (fxgraph_arena.c: one arena,
 * one name index). The dump grammar itself lives in fxgraph_lines.c and fxgraph_scan.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/fxgraph_impl.h"
#include "base/readfile.h"

/* ---- users ---- */

/* Records `user` once per referenced node: counting users when fill is 0, storing them when 1.
 * last_user[] dedups a node referenced twice by the same user. */
static void note_refs(fx_graph *g, const fx_arg *args, int nargs, int user, int *last_user, int fill)
{
    for (int i = 0; i < nargs; i++) {
        const fx_arg *a = &args[i];
        if (a->kind == ARG_LIST)
            note_refs(g, a->items, a->nitems, user, last_user, fill);
        if (a->kind != ARG_NODE || last_user[a->node] == user)
            continue;
        last_user[a->node] = user;
        fx_node *used = &g->nodes[a->node];
        if (fill)
            used->users[used->nusers] = user;
        used->nusers++;
    }
}

static void note_all_refs(fx_graph *g, int *last_user, int fill)
{
    for (int i = 0; i < g->nnodes; i++)
        last_user[i] = -1;
    for (int i = 0; i < g->nnodes; i++)
        note_refs(g, g->nodes[i].args, g->nodes[i].nargs, i, last_user, fill);
}

static int link_users(fx_graph *g, ea_error *err)
{
    int *last_user = malloc(((size_t)g->nnodes + 1) * sizeof *last_user);
    if (!last_user)
        return ea_fail(err, "%s: out of memory", g->path);
    note_all_refs(g, last_user, 0);
    size_t total = 0;
    for (int i = 0; i < g->nnodes; i++)
        total += (size_t)g->nodes[i].nusers;
    int *block = total ? fx_arena_alloc(g->arena, total * sizeof *block, _Alignof(int)) : NULL;
    if (total && !block) {
        free(last_user);
        return ea_fail(err, "%s: out of memory", g->path);
    }
    for (int i = 0; i < g->nnodes; i++) {
        if (g->nodes[i].nusers) {
            g->nodes[i].users = block;
            block += g->nodes[i].nusers;
        }
        g->nodes[i].nusers = 0;
    }
    note_all_refs(g, last_user, 1);
    free(last_user);
    return 0;
}

/* ---- public calls ---- */

int fx_graph_parse_text(const char *label, const char *text, size_t len, fx_graph *g, ea_error *err)
{
    memset(g, 0, sizeof *g);
    fx_parser ps = {.g = g, .err = err, .label = label};
    g->arena = fx_arena_new();
    if (!g->arena)
        return ea_fail(err, "%s: out of memory", label);
    g->path = fxp_strndup(&ps, label, strlen(label));
    int rc = g->path ? fxp_parse_lines(&ps, text, len) : -1;
    free(ps.stack);
    if (rc == 0)
        rc = link_users(g, err);
    if (rc)
        fx_graph_free(g);
    return rc;
}

int fx_graph_parse_file(const char *path, fx_graph *g, ea_error *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(g, 0, sizeof *g);
    if (ea_read_file(path, &text, &len, err))
        return -1;
    int rc = fx_graph_parse_text(path, text, len, g, err);
    free(text);
    return rc;
}

void fx_graph_free(fx_graph *g)
{
    fx_arena_free(g->arena);
    memset(g, 0, sizeof *g);
}

int fx_graph_find(const fx_graph *g, const char *name)
{
    return fx_index_find(g, name, strlen(name));
}

const fx_arg *fx_node_arg(const fx_node *n, int i)
{
    if (i < 0 || i >= n->nargs || n->args[i].key)
        return NULL;
    return &n->args[i];
}

const fx_arg *fx_node_kwarg(const fx_node *n, const char *key)
{
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].key && strcmp(n->args[i].key, key) == 0)
            return &n->args[i];
    return NULL;
}

int fx_node_is(const fx_node *n, const char *t)
{
    return n->target && strcmp(n->target, t) == 0;
}
