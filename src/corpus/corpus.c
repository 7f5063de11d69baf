#include "corpus/corpus.h"
#include "base/hash.h"
#include "base/readfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    ea_graph_ref *v;
    int n, cap;
} ref_list;

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* full_graph_<digits>.py */
static int graph_name_len(const char *name)
{
    const char *p = name + strlen("full_graph_");
    if (strncmp(name, "full_graph_", 11) != 0 || !*p)
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return (p > name + 11 && strcmp(p, ".py") == 0) ? (int)(p - name) : 0;
}

static int add_ref(ref_list *l, const char *models, const char *path, int stem_len, ea_error *err)
{
    /* relative: suite/mode/model.../full_graph_NNN.py */
    const char *rel = path + strlen(models) + 1;
    const char *s1 = strchr(rel, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    const char *last = strrchr(rel, '/');
    if (!s1 || !s2 || last <= s2)
        return ea_fail(err, "%s: expected <suite>/<mode>/<model>/full_graph_NNN.py under %s", path, models);
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 512;
        ea_graph_ref *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return ea_fail(err, "out of memory listing %s", models);
        l->v = v;
        l->cap = cap;
    }
    ea_graph_ref *r = &l->v[l->n++];
    memset(r, 0, sizeof *r);
    r->path = strdup(path);
    r->suite = strndup(rel, (size_t)(s1 - rel));
    r->mode = strndup(s1 + 1, (size_t)(s2 - s1 - 1));
    r->model = strndup(s2 + 1, (size_t)(last - s2 - 1));
    r->graph = strndup(last + 1, (size_t)stem_len);
    size_t mn = strlen(path) + 8;
    r->meta_path = malloc(mn);
    if (r->meta_path)
        snprintf(r->meta_path, mn, "%.*s.meta.json", (int)(strlen(path) - 3), path);
    if (!r->path || !r->suite || !r->mode || !r->model || !r->graph || !r->meta_path)
        return ea_fail(err, "out of memory listing %s", models);
    return 0;
}

/* The folders listed so far, by identity: a link back up (ln -s . loop) or a second path to a folder
 * would count its graphs again, and two such links make the walk exponential. */
typedef struct {
    struct {
        dev_t dev;
        ino_t ino;
    } *v;
    int n, cap;
} dir_set;

static int visit(dir_set *seen, const char *dir, const struct stat *st, ea_error *err)
{
    for (int i = 0; i < seen->n; i++)
        if (seen->v[i].dev == st->st_dev && seen->v[i].ino == st->st_ino)
            return ea_fail(err, "%s: a folder reached twice (a link cycle or a second link to it); "
                                "the corpus walk refuses to count its graphs again", dir);
    if (seen->n == seen->cap) {
        int cap = seen->cap ? 2 * seen->cap : 64;
        void *v = realloc(seen->v, sizeof *seen->v * (size_t)cap);
        if (!v)
            return ea_fail(err, "out of memory listing %s", dir);
        seen->v = v;
        seen->cap = cap;
    }
    seen->v[seen->n].dev = st->st_dev;
    seen->v[seen->n++].ino = st->st_ino;
    return 0;
}

/* full_graph_NNN.meta.json whose full_graph_NNN.py is missing or not a regular file: an extraction
 * from what is left would be silently smaller. */
static int check_meta_graph(const char *meta, ea_error *err)
{
    size_t n = strlen(meta) - strlen(".meta.json");
    char *py = malloc(n + 4);
    struct stat st;
    if (!py)
        return ea_fail(err, "out of memory checking %s", meta);
    snprintf(py, n + 4, "%.*s.py", (int)n, meta);
    int rc = 0;
    if (stat(py, &st) != 0)
        rc = ea_fail(err, "%s: its graph %s cannot be read: %s", meta, py, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = ea_fail(err, "%s: its graph %s is not a regular file", meta, py);
    free(py);
    return rc;
}

static int is_meta_name(const char *name)
{
    size_t n = strlen(name), m = strlen(".meta.json");
    return n > m && !strcmp(name + n - m, ".meta.json") && !strncmp(name, "full_graph_", 11);
}

static int scan(ref_list *l, dir_set *seen, const char *models, const char *dir, ea_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return ea_fail(err, "%s: cannot read folder: %s", dir, strerror(errno));
    if (visit(seen, dir, &st, err))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return ea_fail(err, "%s: cannot read folder: %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = join(dir, e->d_name);
        if (!p) {
            rc = ea_fail(err, "out of memory listing %s", dir);
            break;
        }
        int len = graph_name_len(e->d_name), there = stat(p, &st) == 0;
        if (len && !(there && S_ISREG(st.st_mode)))
            rc = ea_fail(err, "%s: a graph file that is %s", p, there ? "not a regular file" : "a dangling link");
        else if (len)
            rc = add_ref(l, models, p, len, err);
        else if (is_meta_name(e->d_name))
            rc = check_meta_graph(p, err);
        else if (there && S_ISDIR(st.st_mode))
            rc = scan(l, seen, models, p, err);
        free(p);
    }
    closedir(d);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const ea_graph_ref *)a)->path, ((const ea_graph_ref *)b)->path);
}

int ea_corpus_open(const char *dir, ea_corpus *c, ea_error *err)
{
    memset(c, 0, sizeof *c);
    if (!is_dir(dir))
        return ea_fail(err, "%s: corpus folder not found (expected a better-benchmark checkout holding repros/models)", dir);
    char *models = join(dir, "repros/models");
    if (models && !is_dir(models)) {
        free(models);
        models = strdup(dir);
    }
    if (!models)
        return ea_fail(err, "out of memory");
    c->models_dir = models;
    ref_list l = {0};
    dir_set seen = {0};
    int bad = scan(&l, &seen, models, models, err);
    free(seen.v);
    if (bad) {
        c->graphs = l.v;
        c->ngraphs = l.n;
        ea_corpus_free(c);
        return -1;
    }
    c->graphs = l.v;
    c->ngraphs = l.n;
    if (l.n == 0) {
        ea_corpus_free(c);
        return ea_fail(err, "%s: empty corpus: no full_graph_NNN.py below it", dir);
    }
    qsort(c->graphs, (size_t)c->ngraphs, sizeof *c->graphs, by_path);
    return 0;
}

void ea_corpus_free(ea_corpus *c)
{
    for (int i = 0; i < c->ngraphs; i++) {
        ea_graph_ref *r = &c->graphs[i];
        free(r->path);
        free(r->meta_path);
        free(r->suite);
        free(r->mode);
        free(r->model);
        free(r->graph);
    }
    free(c->graphs);
    free(c->models_dir);
    memset(c, 0, sizeof *c);
}

int ea_corpus_digest(const ea_corpus *c, uint64_t *digest, ea_error *err)
{
    uint64_t h = EA_FNV1A64_INIT;
    for (int i = 0; i < c->ngraphs; i++) {
        const char *rel = c->graphs[i].path + strlen(c->models_dir) + 1;
        h = ea_fnv1a64(h, rel, strlen(rel) + 1);
        char *text;
        size_t len;
        if (ea_read_file(c->graphs[i].path, &text, &len, err))
            return -1;
        h = ea_fnv1a64(h, text, len);
        free(text);
    }
    *digest = h;
    return 0;
}

int ea_graph_ref_id(const ea_graph_ref *r, char *buf, size_t n)
{
    return snprintf(buf, n, "%s/%s/%s/%s", r->suite, r->mode, r->model, r->graph);
}
