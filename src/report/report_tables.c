/* report_tables.c: the rollup's tables and one-screen answers, shared by every renderer (report.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"
#include "report/report_impl.h"

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

/* An after-GPU figure of an aggregate: "unpriced" where no row of it has an after price (a library extern,
 * no device work, no baselines: the notes say which), never 0.0; "-" where a priced aggregate lacks it. */
static int all_unpriced(const cJSON *agg)
{
    return ej_num(agg, "unpriced") > 0 && ej_num(agg, "unpriced") >= ej_num(agg, "occurrences");
}

static void after_us(cJSON *row, double v, const cJSON *agg)
{
    if (all_unpriced(agg)) /* even a bucket of no occurrence: with nothing priced, its 0 says nothing */
        cell(row, "unpriced");
    else
        us(row, v);
}

/* "12.3 us" into b, or "unpriced" where v is absent or nothing of the aggregate is priced. */
static const char *us_text(char *b, size_t n, double v, const cJSON *agg)
{
    if (!isfinite(v) || all_unpriced(agg))
        snprintf(b, n, "unpriced");
    else
        snprintf(b, n, "%.1f us", v);
    return b;
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

/* "unpriced: OP (reason), ...": each op none of whose occurrences has an after price, with its rows' reason
 * up to its first colon (the rows carry it whole). */
static void unpriced_note(cJSON *t, const cJSON *doc)
{
    char b[2048] = "";
    size_t k = 0;
    const cJSON *o, *r;
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        if (!(ej_num(o, "unpriced") > 0 && ej_num(o, "unpriced") >= ej_num(o, "occurrences")))
            continue;
        const char *why = "no after price";
        cJSON_ArrayForEach(r, obj(doc, "rows"))
            if (!strcmp(ej_str(r, "op"), ej_str(o, "op")) && ej_str(r, "unpriced")) {
                why = ej_str(r, "unpriced");
                break;
            }
        if (k < sizeof b)
            k += (size_t)snprintf(b + k, sizeof b - k, "%s%s (%.*s)", k ? "; " : "unpriced, not 0 us: ", ej_str(o, "op"),
                                  (int)strcspn(why, ":"), why);
    }
    if (k)
        note(t, b);
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
        after_us(r, ej_num(u, "after"), o);
        after_us(r, ej_num(u, "oracle"), o);
        after_us(r, ej_num(u, "headroom"), o);
        if (staged)
            after_us(r, ej_num(u, "after_candidate"), o);
    }
    unpriced_note(t, doc);
    note(t, "seed: the seed issue's direct-op totals (golden/seed_totals.json); never added to the other GPU's columns");
    if (staged)
        note(t, "after candidate lowering: faithful, with each scope a committed candidate-lowering target re-captured at "
                "its best candidate's price (today's path less the partition's saving, golden price), where that is faster");
    note(t, ej_str(obj(doc, "gpus"), "pipeline_note"));
    note(t, "faithful: lowered scopes at Inductor's captured partition, fallbacks at the faithful current path, "
            "times occurrences; a scope shared by several ops is counted once, under the op that falls back");
    note(t, "fabricated: the in-scope current path on the pipeline's randint(0, 100) index, where the family measures one");
    const cJSON *row;
    const char *lowering = NULL;
    cJSON_ArrayForEach(row, obj(doc, "rows"))
        lowering = lowering ? lowering : ej_str(row, "priced_by_lowering");
    if (lowering) {
        char b[512];
        snprintf(b, sizeof b, "a candidate target: the scopes its lowering %s recaptured are priced, faithful and "
                 "fabricated, at the candidate's price against its base (golden price: the base's path less the "
                 "partition's saving), not from its own baselines (the ATen path the lowering replaces, or recaptured "
                 "steps its family cannot run)", lowering);
        note(t, b);
    }
    const char *unread = ej_str(obj(doc, "sources"), "lowering_base_note");
    if (unread) {
        char b[5000];
        snprintf(b, sizeof b, "a candidate target priced from its own baselines: its base could not be read (%s)",
                 unread);
        note(t, b);
    }
}

/* Most after time first, unpriced last; ties by name, so the order never depends on qsort. */
static int by_after(const void *a, const void *b)
{
    const cJSON *m = *(const cJSON *const *)a, *n = *(const cJSON *const *)b;
    double x = ej_num(obj(m, "us"), "after"), y = ej_num(obj(n, "us"), "after");
    if (isfinite(x) != isfinite(y)) /* an unpriced model after every priced one */
        return isfinite(y) - isfinite(x);
    if (isfinite(x) && x != y)
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
        after_us(r, ej_num(u, "lowered"), v[i]);
        after_us(r, ej_num(u, "conditional_fallback"), v[i]);
        after_us(r, ej_num(u, "true_fallback"), v[i]);
        after_us(r, ej_num(u, "headroom"), v[i]);
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
                 "scope %.1f%s", after, ej_num(gap, "pipeline"), ej_num(u, "after"), ej_num(gap, "lone_op_launch"),
                 ej_num(gap, "fabricated_contention"), ej_num(gap, "scope"),
                 ej_num(gap, "lone_op_launch") < 0 || ej_num(gap, "fabricated_contention") < 0 || ej_num(gap, "scope") < 0
                     ? " (a term below zero: the gap table's notes say why)" : "");
    else if (isfinite(ej_num(u, "fabricated_over_faithful")))
        snprintf(a, sizeof a, "%s: fabricated index over faithful, in scope: %.1f us; %s", after,
                 ej_num(u, "fabricated_over_faithful"), ej_text(g, "pipeline_note"));
    else
        snprintf(a, sizeof a, "%s: not measured; %s", after, ej_text(g, "pipeline_note"));
    answer(tab, "artificial (fabricated over faithful)", a);
    char x[3][48];
    if (isfinite(ej_num(b, "seed_false_extern_us")))
        snprintf(x[1], sizeof x[1], "%.1f us", ej_num(b, "seed_false_extern_us"));
    else
        snprintf(x[1], sizeof x[1], "no figure (no seed totals)");
    snprintf(a, sizeof a, "%.0f false externs; %s: %s in Inductor's own kernels; %s: the seed attributed %s to ops "
             "lowered in every occurrence", ej_num(t, "false_extern"), after, us_text(x[0], 48, ej_num(u, "lowered"), t),
             ej_str(b, "gpu"), x[1]);
    answer(tab, "leaves the extern bucket", a);
    snprintf(a, sizeof a, "%s: true fallback %s, conditional fallback %s", after,
             us_text(x[0], 48, ej_num(u, "true_fallback"), t), us_text(x[1], 48, ej_num(u, "conditional_fallback"), t));
    answer(tab, "true or conditional fallback", a);
    if (ej_num(u, "after") > 0 && isfinite(ej_num(u, "headroom")))
        snprintf(a, sizeof a, "%s: oracle headroom %.1f us of %.1f us (%.0f%%)", after, ej_num(u, "headroom"),
                 ej_num(u, "after"), 100 * ej_num(u, "headroom") / ej_num(u, "after"));
    else
        snprintf(a, sizeof a, "%s: unpriced", after);
    answer(tab, "recoverable", a);
    if (ej_num(t, "tuned_both") > 0)
        snprintf(a, sizeof a, "Inductor's default config (the captured default run, replayed); its coordinate-descent "
                 "tuned run, replayed beside it over %.0f occurrences, costs %.2fx of it: the oracle's speedup there is "
                 "%.2fx over the default and %.2fx over the tuned config (the table of the two configs)",
                 ej_num(t, "tuned_both"), ej_num(u, "current_tuned") / ej_num(u, "current_paired"),
                 ej_num(u, "current_paired") / ej_num(u, "oracle_paired"),
                 ej_num(u, "current_tuned") / ej_num(u, "oracle_paired"));
    else if (ej_num(t, "compiled_both") > 0)
        snprintf(a, sizeof a, "Inductor's default config (the captured default run); torch.compile timed the "
                 "coordinate-descent tuned run at %.2fx of it over %.0f occurrences (the table of the two configs)",
                 ej_num(u, "compiled_tuned") / ej_num(u, "compiled_default"), ej_num(t, "compiled_both"));
    else
        snprintf(a, sizeof a, "Inductor's default config (the captured default run); no priced scope's capture timed "
                 "both configs");
    answer(tab, "current", a);
    const cJSON *line;
    cJSON_ArrayForEach(line, obj(obj(doc, "candidates"), "lines"))
        answer(tab, "staged candidate", line->valuestring);
    if (!cJSON_GetArraySize(obj(obj(doc, "candidates"), "lines")))
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

/* A term below zero is no error but reads as one: each says why, with the op's figure. */
static void negative_notes(cJSON *t, const cJSON *doc)
{
    static const struct {
        const char *term, *why;
    } terms[] = {
        {"lone_op_launch", "lone-op launch below zero: back to back, the op ran slower than one call alone (a long op "
                           "hides its launch and consecutive calls contend), so the pipeline's one-call minimum is "
                           "under the steady price"},
        {"fabricated_contention", "fabricated contention below zero: the op ran faster on the pipeline's fabricated "
                                  "inputs than on faithful ones"},
        {"scope", "scope below zero: the faithful scope does more than the op the pipeline timed alone (it holds "
                  "producers or consumers that are fallbacks too, e.g. the routing scope's sort and cumsum around "
                  "histc), so the scope costs more than the op"},
    };
    const cJSON *o;
    char b[1024];
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        size_t k = 0;
        cJSON_ArrayForEach(o, obj(doc, "ops"))
            if (ej_num(obj(o, "gap"), terms[i].term) < 0 && k < sizeof b)
                k += (size_t)snprintf(b + k, sizeof b - k, "%s%s %.1f us", k ? ", " : "", ej_str(o, "op"),
                                      ej_num(obj(o, "gap"), terms[i].term));
        if (k < sizeof b)
            snprintf(b + k, sizeof b - k, ": %s", terms[i].why);
        if (k)
            note(t, b);
    }
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
    char untimed[1024] = "";
    size_t k = 0;
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        const cJSON *gap = obj(o, "gap");
        if (!isfinite(ej_num(gap, "pipeline"))) { /* a row of dashes says nothing: the op is named in a note */
            if (k < sizeof untimed)
                k += (size_t)snprintf(untimed + k, sizeof untimed - k, "%s%s", k ? ", " : "", ej_str(o, "op"));
            continue;
        }
        cJSON *r = row_of(t);
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
    negative_notes(t, doc);
    if (k) {
        char b[1200];
        snprintf(b, sizeof b, "no pipeline timing, so no gap: %s", untimed);
        note(t, b);
    }
}

/* A fraction as a percentage, "-" when absent. */
static void percent(cJSON *row, double v)
{
    figure(row, "%.0f%%", 100 * v);
}

/* The launch-bound scopes against bytes + launches (measure/launch_floor.h); only once a run recorded the chains. */
static void launch_table(cJSON *tables, const cJSON *doc)
{
    static const char *const cols[] = {"family", "alias", "mode", "variant", "kernels", "transfer", "floor", "oracle",
                                       "floor%",
                                       "floor cold", "oracle cold", "floor% cold", "current cold", "cur. floor% cold",
                                       "copy floor%", "copy floor% cold", NULL};
    const cJSON *s, *scopes = obj(obj(doc, "launch_floor"), "scopes");
    if (!cJSON_GetArraySize(scopes))
        return;
    cJSON *t = table(tables, "Launch-bound scopes: the oracle against bytes + launches (us per call)", "llllrrrrrrrrrrrr",
                     cols);
    cJSON_ArrayForEach(s, scopes) {
        const cJSON *o = obj(s, "oracle"), *c = obj(s, "current"), *m = obj(s, "floor_copy");
        char k[32];
        snprintf(k, sizeof k, "%.0f / %.0f", ej_num(o, "kernels"), c ? ej_num(c, "kernels") : NAN);
        cJSON *r = row_of(t);
        cell(r, ej_text(s, "family"));
        cell(r, ej_text(s, "alias"));
        cell(r, ej_text(s, "mode"));
        cell(r, *ej_text(s, "variant") ? ej_text(s, "variant") : "-");
        cell(r, k);
        figure(r, "%.2f", ej_num(s, "transfer_us"));
        figure(r, "%.2f", ej_num(o, "floor_us"));
        figure(r, "%.2f", ej_num(o, "us"));
        percent(r, ej_num(o, "fraction"));
        figure(r, "%.2f", ej_num(o, "floor_cold_us"));
        figure(r, "%.2f", ej_num(o, "cold_us"));
        percent(r, ej_num(o, "fraction_cold"));
        figure(r, "%.2f", ej_num(c, "cold_us"));
        percent(r, ej_num(c, "fraction_cold"));
        percent(r, ej_num(m, "fraction"));
        percent(r, ej_num(m, "fraction_cold"));
    }
    note(t, "kernels: the oracle's / the current path's operations per call (CUPTI); floor = transfer (the bytes at "
            "copy bandwidth) + a chain of that many empty kernels as CUDA-graph nodes, warm or cold (run's launch "
            "floor); floor% = floor / time; listed where the oracle's launches cost at least its transfer");
    note(t, "copy floor%: the same fraction for the measured floor (floor_copy: one kernel that copies the scope's "
            "bytes and does nothing else, floor = transfer + its launches): what moving the bytes alone reaches");
}

/* The lowest and highest per_call num / den over op's rows (NULL: all) whose "us" has key: "-" when none. */
static void ratio_range(const cJSON *doc, const char *op, const char *key, const char *num, const char *den, char *out,
                        size_t n)
{
    const cJSON *r;
    double lo = INFINITY, hi = -INFINITY;
    cJSON_ArrayForEach(r, obj(doc, "rows"))
        if ((!op || !strcmp(ej_str(r, "op"), op)) && isfinite(ej_num(obj(r, "us"), key))) {
            double x = ej_num(obj(r, "per_call"), num) / ej_num(obj(r, "per_call"), den);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
    if (isfinite(lo))
        snprintf(out, n, "%.2f - %.2f", lo, hi);
    else
        snprintf(out, n, "-");
}

static void tuned_row(cJSON *t, const cJSON *doc, const char *label, const char *op, const cJSON *agg)
{
    const cJSON *u = obj(agg, "us");
    char range[2][64];
    ratio_range(doc, op, "current_tuned", "current_tuned_us", "current_us", range[0], sizeof range[0]);
    ratio_range(doc, op, "compiled_tuned", "compiled_tuned_us", "compiled_default_us", range[1], sizeof range[1]);
    cJSON *r = row_of(t);
    cell(r, label);
    count(r, ej_num(agg, "tuned_both"));
    us(r, ej_num(u, "current_paired"));
    us(r, ej_num(u, "current_tuned"));
    figure(r, "%.2f", ej_num(u, "current_tuned") / ej_num(u, "current_paired"));
    cell(r, range[0]);
    figure(r, "%.2fx", ej_num(u, "current_paired") / ej_num(u, "oracle_paired"));
    figure(r, "%.2fx", ej_num(u, "current_tuned") / ej_num(u, "oracle_paired"));
    count(r, ej_num(agg, "compiled_both"));
    figure(r, "%.2f", ej_num(u, "compiled_tuned") / ej_num(u, "compiled_default"));
    cell(r, range[1]);
}

/* Which Inductor "current" the figures price, what the other captured config costs replayed beside it, and the
 * same two configs by torch.compile's own timing at capture. */
static void tuned_table(cJSON *tables, const cJSON *doc)
{
    static const char *const what[] = {"default", "tuned"};
    const cJSON *o, *tot = obj(doc, "totals");
    char c[2][96];
    if (!(ej_num(tot, "compiled_both") > 0) && !(ej_num(tot, "tuned_both") > 0))
        return;
    gpu_titles(doc, what, 2, 0, c);
    const char *const cols[] = {"op", "occ.", c[0], c[1], "tuned / default", "per scope", "oracle speedup (default)",
                                "oracle speedup (tuned)", "compiled occ.", "compiled tuned / default", "per scope",
                                NULL};
    cJSON *t = table(tables, "Inductor's default config against its coordinate-descent tuned one (both captured runs "
                             "replayed from C; torch.compile's timing at capture beside)", "lrrrrlrrrrl", cols);
    cJSON_ArrayForEach(o, obj(doc, "ops"))
        if (ej_num(o, "compiled_both") > 0 || ej_num(o, "tuned_both") > 0)
            tuned_row(t, doc, ej_str(o, "op"), ej_str(o, "op"), o);
    tuned_row(t, doc, "all", NULL, tot);
    note(t, "current: every faithful, headroom and speedup figure outside this table prices Inductor's default config, "
            "each capture's \"default\" run replayed from C (path current)");
    note(t, "default, tuned: the replayed default and coordinate_descent runs (paths current and current_tuned as the "
            "baselines store them: a run times both side by side, and a gate keeps the stored time of a path it judged "
            "SAME), times the occurrences, over the priced scopes "
            "whose family replays the tuned run (cat and cumsum where it is Triton launches only, the routing scope); "
            "oracle speedup: that sum over the oracle's on the "
            "same scopes; per scope: the lowest and highest tuned / default ratio");
    note(t, "compiled: torch.compile's own per-call medians of the two runs in the capture process, over the priced "
            "scopes whose capture timed both (fallbacks too: a capture's partition is its whole scope, producers "
            "included, so compare its ratio, not its sums, with the faithful column)");
}

static cJSON *ea_report_tables(const cJSON *doc, int top)
{
    cJSON *tables = cJSON_CreateArray();
    totals_table(tables, doc);
    op_table(tables, doc);
    tuned_table(tables, doc);
    gap_table(tables, doc);
    launch_table(tables, doc);
    model_table(tables, doc, top);
    return tables;
}
