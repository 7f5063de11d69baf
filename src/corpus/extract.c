#include "corpus/extract.h"
#include "base/landing.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus/fxgraph.h"
#include "base/hash.h"
#include "base/json.h"
#include "corpus/meta.h"
#include "corpus/occurrences.h"
#include "base/readfile.h"
#include "corpus/scope.h"
#include "corpus/values.h"

typedef struct {
    cJSON *points;  /* array in the op's document */
    char **keys;    /* signature of each point, parallel to points */
    int npoints, cap;
    int occurrences;
} op_points;

static int audit_op_of(const fx_node *n, int cat_cap)
{
    if (n->kind != FX_CALL)
        return -1;
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        if (strcmp(n->target, ea_audit_ops[i].target) != 0)
            continue;
        if (i == 0) {
            const fx_arg *list = fx_node_arg(n, 0);
            if (!list || list->kind != ARG_LIST || list->nitems <= cat_cap)
                return -1;
        }
        return i;
    }
    return -1;
}

/* The exact descriptor: what a repro must allocate and what an output contract must match. */
static cJSON *tensor_json(const fx_node *n)
{
    cJSON *o = cJSON_CreateObject();
    if (!n->ann_is_tensor) {
        cJSON_AddItemToObject(o, "ann", n->ann_text ? cJSON_CreateString(n->ann_text) : cJSON_CreateNull());
        return o;
    }
    const ea_tensor *t = &n->ann;
    cJSON_AddStringToObject(o, "dtype", ea_dtype_name(t->dtype));
    if (t->symbolic) {
        cJSON_AddStringToObject(o, "ann", n->ann_text);
        cJSON_AddBoolToObject(o, "symbolic", 1);
        return o;
    }
    cJSON_AddItemToObject(o, "sizes", ej_int_array(t->sizes, t->ndim));
    cJSON_AddItemToObject(o, "strides", ej_int_array(t->strides, t->ndim));
    cJSON_AddNumberToObject(o, "offset", (double)t->offset);
    cJSON_AddStringToObject(o, "device", t->device);
    cJSON_AddBoolToObject(o, "contiguous", ea_tensor_is_contiguous(t));
    cJSON_AddBoolToObject(o, "channels_last", ea_tensor_is_channels_last(t));
    return o;
}

static cJSON *tensor_ref(void *ctx, int node)
{
    return tensor_json(&((const fx_graph *)ctx)->nodes[node]);
}

/* The graphs of one suite/mode/model: backward graphs take the forward's saved tensors as inputs. */
typedef struct {
    const ea_graph_ref *refs;
    fx_graph *graphs;
    ea_meta *metas;
    int *have_meta;
    int n;
} model_group;

static int group_index(const model_group *m, const fx_graph *g)
{
    for (int i = 0; i < m->n; i++)
        if (&m->graphs[i] == g)
            return i;
    return -1;
}

/* The corpus records how each graph input was generated and what range it was observed in. A range the
 * corpus declares ("constraint_source": "declared", the corpus tool's: a vocabulary, a position count)
 * is the input's identity; what one random draw of it happened to hold is not, so its "observed" stays
 * out of the signature and dumping the model again gives the same points. Other sources keep it: the
 * better-benchmark corpus's ranges were derived from it, and the committed point ids hash it. */
static cJSON *input_info(void *vctx, const fx_graph *g, const char *name)
{
    const model_group *m = vctx;
    int i = group_index(m, g);
    const ea_meta_tensor *t = i >= 0 && m->have_meta[i] ? ea_meta_input(&m->metas[i], name) : NULL;
    if (!t || (!t->gen && !t->x))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (t->gen)
        cJSON_AddItemToObject(o, "gen", cJSON_Duplicate(t->gen, 1));
    if (t->x) {
        cJSON *x = cJSON_Duplicate(t->x, 1);
        if (!strcmp(ej_text(x, "constraint_source"), "declared"))
            cJSON_DeleteItemFromObjectCaseSensitive(x, "observed");
        cJSON_AddItemToObject(o, "x", x);
    }
    return o;
}

static int is_output(const fx_graph *g, int node)
{
    for (int i = 0; i < g->noutputs; i++)
        if (g->outputs[i] == node)
            return 1;
    return 0;
}

static int saved_by(void *vctx, const fx_graph *g, const char *name, const fx_graph **src, int *node, const char **label)
{
    const model_group *m = vctx;
    for (int i = 0; i < m->n; i++) {
        const fx_graph *o = &m->graphs[i];
        int k = o == g ? -1 : fx_graph_find(o, name);
        if (k >= 0 && o->nodes[k].kind != FX_PLACEHOLDER && is_output(o, k)) {
            *src = o;
            *node = k;
            *label = m->refs[i].graph;
            return 1;
        }
    }
    return 0;
}

static void collect_names(const fx_graph *g, const fx_arg *a, int n, cJSON *out)
{
    for (int i = 0; i < n; i++) {
        if (a[i].kind == ARG_LIST)
            collect_names(g, a[i].items, a[i].nitems, out);
        else if (a[i].kind == ARG_NODE)
            cJSON_AddItemToArray(out, cJSON_CreateString(g->nodes[a[i].node].name));
    }
}

static cJSON *identity_json(const ea_graph_ref *r, const fx_graph *g, const fx_node *n)
{
    char id[1024];
    int k = ea_graph_ref_id(r, id, sizeof id);
    snprintf(id + k, sizeof id - (size_t)k, ":%s", n->name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "suite", r->suite);
    cJSON_AddStringToObject(o, "mode", r->mode);
    cJSON_AddStringToObject(o, "model", r->model);
    cJSON_AddStringToObject(o, "graph", r->graph);
    cJSON_AddStringToObject(o, "node", n->name);
    cJSON_AddNumberToObject(o, "line", n->line);
    collect_names(g, n->args, n->nargs, cJSON_AddArrayToObject(o, "arg_nodes"));
    if (n->source >= 0) {
        const fx_source *s = &g->sources[n->source];
        cJSON *src = cJSON_AddObjectToObject(o, "source");
        cJSON_AddStringToObject(src, "file", s->file);
        cJSON_AddNumberToObject(src, "line", s->line);
        cJSON_AddStringToObject(src, "func", s->func);
        cJSON_AddStringToObject(src, "code", s->code);
    } else {
        cJSON_AddNullToObject(o, "source");
    }
    return o;
}

/* Everything that makes two occurrences the same timed workload (a point); node names excluded. */
static cJSON *signature_json(const fx_graph *g, const fx_node *n, const ea_value_env *env, ea_error *err)
{
    cJSON *sig = cJSON_CreateObject();
    cJSON_AddStringToObject(sig, "op", n->target);
    cJSON_AddItemToObject(sig, "output", tensor_json(n));
    ea_node_args_json(n, sig, 1, tensor_ref, (void *)g);
    cJSON *values = cJSON_AddArrayToObject(sig, "value_properties");
    for (int i = 0; i < n->nargs; i++) {
        const fx_arg *a = &n->args[i];
        if (a->kind != ARG_NODE)
            continue;
        cJSON *vp = ea_value_props(g, a->node, env, err);
        if (!vp) {
            cJSON_Delete(sig);
            return NULL;
        }
        cJSON_AddItemToObjectCS(vp, "arg", a->key ? cJSON_CreateString(a->key) : cJSON_CreateNumber(i));
        cJSON_AddItemToArray(values, vp);
    }
    return sig;
}

static char *hex_id(const char *prefix, const char *key)
{
    char *id = malloc(64);
    if (id)
        snprintf(id, 64, "%s-%012" PRIx64, prefix, ea_fnv1a64(EA_FNV1A64_INIT, key, strlen(key)) >> 16);
    return id;
}

/* Within a point, occurrences group again by scope: the same op call can sit in different
 * producer/consumer neighbourhoods, and the scope decides what a full-scope oracle must compute. */
static void add_to_scope(cJSON *scopes, cJSON *scope, const char *prefix, cJSON *ident)
{
    char *key = cJSON_PrintUnformatted(scope);
    cJSON *s;
    cJSON_ArrayForEach(s, scopes)
    {
        char *other = cJSON_PrintUnformatted(cJSON_GetObjectItem(s, "scope"));
        int same = other && key && strcmp(other, key) == 0;
        free(other);
        if (same) {
            cJSON_SetNumberValue(cJSON_GetObjectItem(s, "count"), cJSON_GetObjectItem(s, "count")->valuedouble + 1);
            cJSON_AddItemToArray(cJSON_GetObjectItem(s, "occurrences"), ident);
            cJSON_Delete(scope);
            free(key);
            return;
        }
    }
    char *id = hex_id(prefix, key ? key : "");
    s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "scope_id", id ? id : "?");
    cJSON_AddNumberToObject(s, "count", 1);
    cJSON_AddItemToObject(s, "scope", scope);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "occurrences"), ident);
    cJSON_AddItemToArray(scopes, s);
    free(id);
    free(key);
}

static int add_occurrence(op_points *p, int op, cJSON *sig, cJSON *scope, cJSON *ident, ea_error *err)
{
    char *key = cJSON_PrintUnformatted(sig);
    if (!key)
        return ea_fail(err, "out of memory printing a signature");
    p->occurrences++;
    for (int i = 0; i < p->npoints; i++) {
        if (strcmp(p->keys[i], key) != 0)
            continue;
        cJSON *pt = cJSON_GetArrayItem(p->points, i);
        cJSON_SetNumberValue(cJSON_GetObjectItem(pt, "count"), cJSON_GetObjectItem(pt, "count")->valuedouble + 1);
        add_to_scope(cJSON_GetObjectItem(pt, "scopes"), scope, cJSON_GetObjectItem(pt, "point")->valuestring, ident);
        cJSON_Delete(sig);
        free(key);
        return 0;
    }
    if (p->npoints == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        char **keys = realloc(p->keys, sizeof *keys * (size_t)cap);
        if (!keys) {
            free(key);
            return ea_fail(err, "out of memory grouping points");
        }
        p->keys = keys;
        p->cap = cap;
    }
    p->keys[p->npoints++] = key;
    char *id = hex_id(ea_audit_ops[op].short_name, key);
    cJSON *pt = cJSON_CreateObject();
    cJSON_AddStringToObject(pt, "point", id ? id : "?");
    cJSON_AddNumberToObject(pt, "count", 1);
    cJSON_AddItemToObject(pt, "signature", sig);
    add_to_scope(cJSON_AddArrayToObject(pt, "scopes"), scope, id ? id : "?", ident);
    cJSON_AddItemToArray(p->points, pt);
    free(id);
    return 0;
}

static int graph_has_audit_op(const fx_graph *g, int cat_cap)
{
    for (int i = 0; i < g->nnodes; i++)
        if (audit_op_of(&g->nodes[i], cat_cap) >= 0)
            return 1;
    return 0;
}

static int extract_occurrences(const model_group *m, int gi, const ea_extract_opts *o, op_points *pts, ea_error *err)
{
    const fx_graph *g = &m->graphs[gi];
    ea_value_env env = {input_info, saved_by, (void *)m};
    for (int i = 0; i < g->nnodes; i++) {
        const fx_node *n = &g->nodes[i];
        int op = audit_op_of(n, o->cat_input_cap);
        if (op < 0)
            continue;
        cJSON *sig = signature_json(g, n, &env, err);
        if (!sig)
            return -1;
        cJSON *scope = ea_scope(g, i);
        if (!scope) {
            cJSON_Delete(sig);
            return ea_fail(err, "%s:%d: out of memory computing the scope of %s", g->path, n->line, n->name);
        }
        if (add_occurrence(&pts[op], op, sig, scope, identity_json(&m->refs[gi], g, n), err) != 0)
            return -1;
    }
    return 0;
}

/* refs[0..n) share suite/mode/model. Every graph is parsed; one that does not parse is listed in skipped
 * and left empty (no nodes), so its model's other graphs still count. Metas are read only where an
 * audited op needs them, and not for a skipped graph. */
static int extract_group(const ea_graph_ref *refs, int n, const ea_extract_opts *o, op_points *pts, cJSON *skipped,
                         ea_error *err)
{
    model_group m = {refs, calloc((size_t)n, sizeof(fx_graph)), calloc((size_t)n, sizeof(ea_meta)),
                     calloc((size_t)n, sizeof(int)), 0};
    int rc = (m.graphs && m.metas && m.have_meta) ? 0 : ea_fail(err, "out of memory");
    int any = 0;
    for (; rc == 0 && m.n < n; m.n++) {
        if (fx_graph_parse_file(refs[m.n].path, &m.graphs[m.n], err) != 0) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "graph", refs[m.n].path);
            cJSON_AddStringToObject(s, "error", err->msg);
            cJSON_AddItemToArray(skipped, s);
            continue;
        }
        any |= graph_has_audit_op(&m.graphs[m.n], o->cat_input_cap);
    }
    for (int i = 0; rc == 0 && any && i < n; i++) {
        if (!m.graphs[i].arena) /* skipped: its meta would describe nodes nobody reads */
            continue;
        rc = ea_meta_load(refs[i].meta_path, &m.metas[i], err);
        m.have_meta[i] = rc == 0;
    }
    for (int i = 0; rc == 0 && any && i < n; i++)
        rc = extract_occurrences(&m, i, o, pts, err);
    for (int i = 0; i < n; i++) {
        if (i < m.n)
            fx_graph_free(&m.graphs[i]);
        if (m.have_meta && m.have_meta[i])
            ea_meta_free(&m.metas[i]);
    }
    free(m.graphs);
    free(m.metas);
    free(m.have_meta);
    return rc;
}

static int same_model(const ea_graph_ref *a, const ea_graph_ref *b)
{
    return !strcmp(a->suite, b->suite) && !strcmp(a->mode, b->mode) && !strcmp(a->model, b->model);
}

static cJSON *op_document(int op, const op_points *p, const ea_corpus *c, uint64_t digest, int cap)
{
    char dig[32];
    snprintf(dig, sizeof dig, "fnv1a64:%016" PRIx64, digest);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", EA_OCCURRENCES_SCHEMA);
    cJSON_AddNumberToObject(d, "schema_version", EA_OCCURRENCES_VERSION);
    cJSON_AddStringToObject(d, "op", ea_audit_ops[op].target);
    cJSON_AddStringToObject(d, "extracted_by", "extern-audit extract");
    cJSON_AddNumberToObject(d, "cat_input_cap", cap);
    cJSON *corpus = cJSON_AddObjectToObject(d, "corpus");
    cJSON_AddNumberToObject(corpus, "graphs", c->ngraphs);
    cJSON_AddStringToObject(corpus, "digest", dig);
    cJSON_AddNumberToObject(d, "occurrences", p->occurrences);
    cJSON_AddItemToObject(d, "points", p->points);
    return d;
}

int ea_extract(const ea_corpus *c, const ea_extract_opts *o, ea_extraction *out, ea_error *err)
{
    memset(out, 0, sizeof *out);
    out->skipped = cJSON_CreateArray();
    op_points pts[EA_AUDIT_OPS] = {{0}};
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        pts[i].points = cJSON_CreateArray();
    int rc = 0;
    for (int i = 0, next; rc == 0 && i < c->ngraphs; i = next) {
        for (next = i + 1; next < c->ngraphs && same_model(&c->graphs[i], &c->graphs[next]); next++)
            ;
        if (o->progress && (i / 64 != next / 64 || next == c->ngraphs))
            fprintf(o->progress, "extract: graph %d/%d %s/%s/%s\n", next, c->ngraphs, c->graphs[i].suite,
                    c->graphs[i].mode, c->graphs[i].model);
        rc = extract_group(&c->graphs[i], next - i, o, pts, out->skipped, err);
    }
    uint64_t digest = 0;
    if (rc == 0)
        rc = ea_corpus_digest(c, &digest, err);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        for (int k = 0; k < pts[i].npoints; k++)
            free(pts[i].keys[k]);
        free(pts[i].keys);
        if (rc == 0)
            out->docs[i] = op_document(i, &pts[i], c, digest, o->cat_input_cap);
        else
            cJSON_Delete(pts[i].points);
    }
    if (rc == 0) {
        out->summary = ea_occurrences_summary(out->docs);
        if (cJSON_GetArraySize(out->skipped)) /* absent when none, so a whole corpus's summary is unchanged */
            cJSON_AddItemToObject(out->summary, "graphs_skipped", cJSON_Duplicate(out->skipped, 1));
    } else {
        cJSON_Delete(out->skipped);
        out->skipped = NULL;
    }
    return rc;
}

/* What dir may hold besides the set: the debris of older writers (X.staged, X.previous, X.tmp.<pid>), which the
 * swap removes with the old folder; anything else would be lost with it, so it is refused. */
static int set_member(const char *name)
{
    char json[64];
    for (int i = 0; i <= EA_AUDIT_OPS; i++) {
        snprintf(json, sizeof json, "%s.json", i < EA_AUDIT_OPS ? ea_audit_ops[i].short_name : "summary");
        size_t k = strlen(json);
        if (!strncmp(name, json, k) && (!name[k] || !strcmp(name + k, ".staged") || !strcmp(name + k, ".previous") ||
                                        !strncmp(name + k, ".tmp.", 5) || !strncmp(name + k, ".staged.tmp.", 12)))
            return 1;
    }
    return 0;
}

static int only_the_set(const char *dir, ea_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return errno == ENOENT ? 0 : ea_fail(err, "%s: cannot read the folder: %s", dir, strerror(errno));
    while (rc == 0 && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !set_member(e->d_name))
            rc = ea_fail(err, "%s: holds %s, which is no part of an extraction: extract --out replaces the whole "
                              "folder; move it away or write elsewhere (nothing was written)", dir, e->d_name);
    closedir(d);
    return rc;
}

/* The ten documents are one set: written into a work folder beside dir, then swapped in with one rename under
 * the lock of dir's parent (landing.h), so a reader sees the old set or the new one, never a mix. */
int ea_extraction_write(const ea_extraction *x, const char *dir, ea_error *err)
{
    char parent[4096], name[256], work[4400], path[4700];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        slash = dir[i] == '/' ? dir + i : slash;
    snprintf(name, sizeof name, "%.*s", (int)(len - (slash ? (size_t)(slash + 1 - dir) : 0)), slash ? slash + 1 : dir);
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - dir) + (slash == dir) : 1, slash ? dir : ".");
    if (!ea_plain_name(name) || len >= sizeof parent)
        return ea_fail(err, "%s: expected a folder to write the set into, named plainly (not . or .., not hidden)",
                       dir);
    ea_lock lock = {.fd = -1};
    int rc = ea_make_dirs(parent, err) || ea_landing_lock(parent, name, &lock, err) ? -1 : 0;
    snprintf(path, sizeof path, "%s/%s", parent, name);
    if (rc == 0 && (rc = only_the_set(path, err)) == 0 &&
        (rc = ea_landing_work(parent, name, "extract", work, sizeof work, err)) == 0) {
        for (int i = 0; rc == 0 && i <= EA_AUDIT_OPS; i++) {
            char file[4800];
            snprintf(file, sizeof file, "%s/%s.json", work, i < EA_AUDIT_OPS ? ea_audit_ops[i].short_name : "summary");
            rc = ej_write_atomic(file, i < EA_AUDIT_OPS ? x->docs[i] : x->summary, err);
        }
        rc = rc ? (ea_remove_tree(work), -1) : ea_landing_swap(work, path, err);
    }
    ea_landing_unlock(&lock);
    return rc;
}

void ea_extraction_print(const ea_extraction *x, FILE *f)
{
    ea_occurrences_print(x->summary, f);
}

void ea_extraction_free(ea_extraction *x)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(x->docs[i]);
    cJSON_Delete(x->summary);
    cJSON_Delete(x->skipped);
    memset(x, 0, sizeof *x);
}
