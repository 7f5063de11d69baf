/* report_tables.c: the rollup's tables and one-screen answers, shared by every renderer (report.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "report_impl.h"

static const cJSON *obj(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void cell(cJSON *row, const char *s)
{
    cJSON_AddItemToArray(row, cJSON_CreateString(s));
}

/* A figure printed with fmt, "-" when absent. */
static void figure(cJSON *row, const char *fmt, double v)
{
    char b[64];
    if (!isfinite(v))
        snprintf(b, sizeof b, "-");
    else
        snprintf(b, sizeof b, fmt, v);
    cell(row, b);
}

static void us(cJSON *row, double v)
{
    figure(row, "%.1f", v); /* microseconds to one decimal */
}

static void count(cJSON *row, double v)
{
    figure(row, "%.0f", v);
}

static cJSON *table(cJSON *tables, const char *title, const char *align, const char *const *cols)
{
    cJSON *t = cJSON_CreateObject(), *c = cJSON_AddArrayToObject(t, "columns");
    cJSON_AddStringToObject(t, "title", title);
    for (; *cols; cols++)
        cJSON_AddItemToArray(c, cJSON_CreateString(*cols));
    cJSON_AddStringToObject(t, "align", align);
    cJSON_AddArrayToObject(t, "rows");
    cJSON_AddArrayToObject(t, "notes");
    cJSON_AddItemToArray(tables, t);
    return t;
}

static cJSON *row_of(cJSON *t)
{
    cJSON *r = cJSON_CreateArray();
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(t, "rows"), r);
    return r;
}

static void note(cJSON *t, const char *s)
{
    if (s)
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(t, "notes"), cJSON_CreateString(s));
}

/* "lowered 62" or "true_fallback 24, ..." from an aggregate's classes. */
static void classes(cJSON *row, const cJSON *agg)
{
    char b[256] = "";
    const cJSON *c;
    cJSON_ArrayForEach(c, obj(agg, "classes"))
        snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s %.0f", b[0] ? ", " : "", c->string, c->valuedouble);
    cell(row, b);
}

/* A GPU's short label in a column title: "NVIDIA H200" -> "H200". */
static const char *short_gpu(const char *name)
{
    return name && !strncmp(name, "NVIDIA ", 7) ? name + 7 : name ? name : "?";
}

/* Column titles "<what> <GPU> us": the first nbefore on the before GPU, the rest on the after GPU. */
static void gpu_titles(const cJSON *doc, const char *const *what, int n, int nbefore, char (*c)[96])
{
    const cJSON *g = obj(doc, "gpus");
    for (int i = 0; i < n; i++)
        snprintf(c[i], sizeof c[i], "%s %s us", what[i], short_gpu(ej_str(g, i < nbefore ? "before" : "after")));
}

static void op_table(cJSON *tables, const cJSON *doc)
{
    static const char *const what[] = {"seed", "pipeline", "fabricated", "faithful", "oracle", "headroom",
                                        "after candidate lowering"};
    const cJSON *o;
    char c[7][96];
    /* the candidate column only once a candidate-lowering target is committed */
    int staged = cJSON_GetArraySize(obj(obj(doc, "candidates"), "staged")) > 0;
    gpu_titles(doc, what, 7, 1, c);
    const char *const cols[] = {"op", "occ.", "false extern", "classes", c[0], c[1], c[2], c[3], c[4], c[5],
                                staged ? c[6] : NULL, NULL};
    cJSON *t = table(tables, "Per op: before (seed) and after (faithful scope, oracle)", staged ? "lrrlrrrrrrr" : "lrrlrrrrrr",
                     cols);
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        cJSON *r = row_of(t);
        const cJSON *u = obj(o, "us"), *gap = obj(o, "gap");
        cell(r, ej_str(o, "op"));
        count(r, ej_num(o, "occurrences"));
        count(r, ej_num(o, "false_extern"));
        classes(r, o);
        us(r, ej_num(obj(o, "seed"), "total_us"));
        us(r, ej_num(gap, "pipeline"));
        us(r, ej_num(u, "fabricated") > 0 ? ej_num(u, "fabricated") : NAN);
        us(r, ej_num(u, "after"));
        us(r, ej_num(u, "oracle"));
        us(r, ej_num(u, "headroom"));
        if (staged)
            us(r, ej_num(u, "after_candidate"));
    }
    note(t, "seed: the seed issue's direct-op totals (golden/seed_totals.json); never added to the other GPU's columns");
    if (staged)
        note(t, "after candidate lowering: faithful, with each scope a committed candidate-lowering target re-captured at "
                "its best candidate's price (today's path less the partition's saving, golden price), where that is faster");
    note(t, ej_str(obj(doc, "gpus"), "pipeline_note"));
    note(t, "faithful: lowered scopes at Inductor's captured partition, fallbacks at the faithful current path, "
            "times occurrences; a scope shared by several ops is counted once, under the op that falls back");
    note(t, "fabricated: the in-scope current path on the pipeline's randint(0, 100) index, where the family measures one");
}

/* Most after time first; ties by name, so the order never depends on qsort. */
static int by_after(const void *a, const void *b)
{
    const cJSON *m = *(const cJSON *const *)a, *n = *(const cJSON *const *)b;
    double x = ej_num(obj(m, "us"), "after"), y = ej_num(obj(n, "us"), "after");
    if (x != y)
        return (y > x) - (y < x);
    for (const char *const *k = (const char *const[]){"suite", "mode", "model", NULL}; *k; k++) {
        int c = strcmp(ej_str(m, *k), ej_str(n, *k));
        if (c)
            return c;
    }
    return 0;
}

const cJSON **ea_report_models(const cJSON *doc, int *n)
{
    const cJSON *m, *models = obj(doc, "models");
    const cJSON **v = malloc(sizeof *v * (size_t)(cJSON_GetArraySize(models) + 1));
    *n = 0;
    cJSON_ArrayForEach(m, models)
        v[(*n)++] = m;
    qsort(v, (size_t)*n, sizeof *v, by_after);
    return v;
}

static void model_table(cJSON *tables, const cJSON *doc, int top)
{
    static const char *const what[] = {"corpus extern", "seed", "lowered", "cond. fallback", "true fallback",
                                       "headroom"};
    char occ[96];
    const cJSON *models = obj(doc, "models");
    char c[6][96], title[128];
    int n = cJSON_GetArraySize(models), shown = top > 0 && top < n ? top : n;
    gpu_titles(doc, what, 6, 2, c);
    snprintf(occ, sizeof occ, "corpus extern occ. %s", short_gpu(ej_str(obj(doc, "gpus"), "before")));
    const char *const cols[] = {"model", "occ.", "false extern", occ, c[0], c[1], c[2], c[3], c[4], c[5], NULL};
    if (shown < n)
        snprintf(title, sizeof title, "Per model: the top %d of %d by after time", shown, n);
    else
        snprintf(title, sizeof title, "Per model (%d), by after time", n);
    cJSON *t = table(tables, title, "lrrrrrrrrr", cols);
    const cJSON **v = ea_report_models(doc, &n);
    for (int i = 0; i < shown; i++) {
        cJSON *r = row_of(t);
        const cJSON *u = obj(v[i], "us"), *s;
        char name[512];
        double seed = 0;
        snprintf(name, sizeof name, "%s/%s/%s", ej_str(v[i], "suite"), ej_str(v[i], "mode"), ej_str(v[i], "model"));
        cell(r, name);
        count(r, ej_num(v[i], "occurrences"));
        count(r, ej_num(v[i], "false_extern"));
        const cJSON *corpus = obj(v[i], "corpus");
        count(r, ej_num(corpus, "extern_occurrences"));
        us(r, ej_num(corpus, "extern_total_us"));
        cJSON_ArrayForEach(s, obj(v[i], "seed"))
            seed += ej_num(s, "total_us");
        us(r, cJSON_GetArraySize(obj(v[i], "seed")) ? seed : NAN);
        us(r, ej_num(u, "lowered"));
        us(r, ej_num(u, "conditional_fallback"));
        us(r, ej_num(u, "true_fallback"));
        us(r, ej_num(u, "headroom"));
    }
    free(v);
    note(t, "corpus extern: the corpus's model accounting, extern_total_us over all of the model's externs (mm, conv, ... "
            "included), not only the audited ops");
    note(t, ej_str(obj(doc, "sources"), "corpus_note"));
}

static void answer(cJSON *t, const char *q, const char *a)
{
    cJSON *r = row_of(t);
    cell(r, q);
    cell(r, a);
}

static void totals_table(cJSON *tables, const cJSON *doc)
{
    const cJSON *t = obj(doc, "totals"), *u = obj(t, "us"), *b = obj(t, "before"), *g = obj(doc, "gpus"), *gap = obj(t, "gap");
    const char *after = ej_str(g, "after") ? ej_str(g, "after") : "no GPU baselines";
    char a[512];
    const char *const cols[] = {"question", "answer", NULL};
    cJSON *tab = table(tables, "Totals", "ll", cols);
    snprintf(a, sizeof a, "%.0f in %d models; the old rule counts %.0f as extern", ej_num(t, "occurrences"),
             cJSON_GetArraySize(obj(doc, "models")), ej_num(t, "old_rule_extern"));
    answer(tab, "occurrences", a);
    char corpus[256] = "corpus accounting unavailable";
    if (isfinite(ej_num(b, "corpus_extern_total_us")))
        snprintf(corpus, sizeof corpus, "corpus extern_total_us of %.0f audited models %.1f us (all their externs)",
                 ej_num(b, "corpus_models"), ej_num(b, "corpus_extern_total_us"));
    if (isfinite(ej_num(b, "seed_total_us")))
        snprintf(a, sizeof a, "%s: seed %.1f us over the four ops; %s", ej_str(b, "gpu"), ej_num(b, "seed_total_us"), corpus);
    else
        snprintf(a, sizeof a, "%s: no seed totals; %s", ej_str(b, "gpu"), corpus);
    answer(tab, "before", a);
    if (isfinite(ej_num(gap, "pipeline")))
        snprintf(a, sizeof a, "%s: pipeline price %.1f us, faithful %.1f us: lone-op launch %.1f, fabricated contention %.1f, "
                 "scope %.1f", after, ej_num(gap, "pipeline"), ej_num(u, "after"), ej_num(gap, "lone_op_launch"),
                 ej_num(gap, "fabricated_contention"), ej_num(gap, "scope"));
    else
        snprintf(a, sizeof a, "%s: fabricated index over faithful, in scope: %.1f us; %s", after,
                 ej_num(u, "fabricated_over_faithful"), ej_text(g, "pipeline_note"));
    answer(tab, "artificial (fabricated over faithful)", a);
    snprintf(a, sizeof a, "%.0f false externs; %s: %.1f us in Inductor's own kernels; %s: the seed attributed %.1f us "
             "to ops lowered in every occurrence", ej_num(t, "false_extern"), after, ej_num(u, "lowered"), ej_str(b, "gpu"),
             ej_num(b, "seed_false_extern_us"));
    answer(tab, "leaves the extern bucket", a);
    snprintf(a, sizeof a, "%s: true fallback %.1f us, conditional fallback %.1f us", after, ej_num(u, "true_fallback"),
             ej_num(u, "conditional_fallback"));
    answer(tab, "true or conditional fallback", a);
    snprintf(a, sizeof a, "%s: oracle headroom %.1f us of %.1f us (%.0f%%)", after, ej_num(u, "headroom"), ej_num(u, "after"),
             ej_num(u, "after") > 0 ? 100 * ej_num(u, "headroom") / ej_num(u, "after") : 0);
    answer(tab, "recoverable", a);
    answer(tab, "staged candidates", ej_str(obj(doc, "candidates"), "note"));
    snprintf(a, sizeof a, "%.0f occurrences unpriced, %d check failures", ej_num(t, "unpriced"),
             cJSON_GetArraySize(obj(doc, "check")));
    answer(tab, "gaps", a);
    note(tab, ej_str(g, "cache_policy"));
    note(tab, ej_str(obj(doc, "sources"), "baselines_note"));
}

static cJSON *ea_report_tables(const cJSON *doc, int top);

char *ea_report_render(const cJSON *doc, int top, const ea_report_style *style)
{
    char *s = NULL;
    size_t len;
    FILE *f = open_memstream(&s, &len);
    if (!f)
        return NULL;
    cJSON *tables = ea_report_tables(doc, top);
    const cJSON *t;
    style->head(f, doc);
    cJSON_ArrayForEach(t, tables)
        style->table(f, t);
    if (style->tail)
        style->tail(f, doc);
    cJSON_Delete(tables);
    fclose(f);
    return s;
}

/* The pipeline's price against the faithful one, term by term; only once the pipeline was measured. */
static void gap_table(cJSON *tables, const cJSON *doc)
{
    static const char *const what[] = {"pipeline", "lone-op launch", "fabricated contention", "scope", "faithful"};
    const cJSON *o;
    char c[5][96];
    if (!cJSON_IsNumber(obj(obj(obj(doc, "totals"), "gap"), "pipeline")))
        return;
    gpu_titles(doc, what, 5, 0, c);
    const char *const cols[] = {"op", c[0], c[1], c[2], c[3], c[4], NULL};
    cJSON *t = table(tables, "Gap: the pipeline's price down to the faithful in-scope price", "lrrrrr", cols);
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        cJSON *r = row_of(t);
        const cJSON *gap = obj(o, "gap");
        cell(r, ej_str(o, "op"));
        us(r, ej_num(gap, "pipeline"));
        us(r, ej_num(gap, "lone_op_launch"));
        us(r, ej_num(gap, "fabricated_contention"));
        us(r, ej_num(gap, "scope"));
        us(r, ej_num(obj(o, "us"), "after"));
    }
    note(t, "pipeline = lone-op launch (one call per replay, minimum, against 20 to a replay) + fabricated contention "
            "(the op alone on fabricated against faithful inputs, where a faithful op timing exists; else inside scope) "
            "+ scope (the op alone against its whole scope, fused or shared) + faithful");
}

static cJSON *ea_report_tables(const cJSON *doc, int top)
{
    cJSON *tables = cJSON_CreateArray();
    totals_table(tables, doc);
    op_table(tables, doc);
    gap_table(tables, doc);
    model_table(tables, doc, top);
    return tables;
}
