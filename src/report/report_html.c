/* report_html.c: the rollup as one self-contained page (report.h): inline CSS and SVG, no script, no
 * external fetch. First the three answers (false externs, fallbacks, recoverable headroom), each a number
 * and a share bar; then per model, a bar per class and the headroom, and per op, before -> after bars, both
 * on log axes with ticks (report_svg.h: one colour per class on every chart, a legend on each, an absent
 * figure written, never drawn as zero). The tables beneath are ea_report_tables', as in the terminal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"
#include "report/report_impl.h"
#include "report/report_svg.h"

#define WIDTH 900
#define LABEL 300 /* the left column for names */
#define VALUE 90  /* right of the axis: room for the last bar's value */

#define esc ea_svg_esc

static const cJSON *obj(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *const bucket_keys[] = {"lowered", "conditional_fallback", "true_fallback"};

/* One headline: a title, the number large, a sentence, and the share it is of a whole drawn as one bar of
 * segments (value, series), with its legend. */
typedef struct {
    ea_series s;
    double v;
} segment;

/* unit: what the segments count, "us" or "count" (each bar's data-us or data-count) */
static void card(FILE *f, const char *title, const char *big, const char *caption, const char *unit, const segment *seg,
                 int n)
{
    double total = 0, x = 0;
    ea_series keys[8];
    int nk = 0;
    for (int i = 0; i < n; i++)
        total += isfinite(seg[i].v) && seg[i].v > 0 ? seg[i].v : 0;
    fputs("<div class=\"card\"><div class=\"t\">", f);
    esc(f, title);
    fputs("</div><div class=\"big\">", f);
    esc(f, big);
    fputs("</div><div class=\"c\">", f);
    esc(f, caption);
    /* room for the legend: a key a row at most, one row per two keys at best */
    fprintf(f, "</div><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"280\" height=\"%d\" role=\"img\" class=\"share\">",
            30 + 18 * n);
    for (int i = 0; i < n && total > 0; i++) {
        if (!(isfinite(seg[i].v) && seg[i].v > 0))
            continue;
        double w = seg[i].v / total * 276;
        fprintf(f, "<rect class=\"bar\" data-%s=\"%.3f\" x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>",
                unit, seg[i].v, 2 + x, fmax(w, 1), ea_svg_color(seg[i].s));
        x += w;
    }
    for (int i = 0; i < n; i++) { /* the legend names what the bar draws, or would draw once priced */
        int seen = 0;
        for (int k = 0; k < nk; k++)
            seen |= keys[k] == seg[i].s;
        if (!seen && nk < 8)
            keys[nk++] = seg[i].s;
    }
    if (!(total > 0))
        fputs("<text x=\"4\" y=\"14\" class=\"s absent\" data-why=\"unpriced\" font-style=\"italic\">unpriced</text>", f);
    ea_svg_legend(f, 2, 26, 276, keys, nk);
    fputs("</svg></div>\n", f);
}

/* The three answers first: the false externs, the fallbacks, the recoverable headroom. */
/* "123.4 us", or "unpriced" for a figure no row gives. */
static const char *us_text(char *b, size_t n, double v)
{
    if (isfinite(v))
        snprintf(b, n, "%.1f us", v);
    else
        snprintf(b, n, "unpriced");
    return b;
}

static void headline(FILE *f, const cJSON *doc)
{
    const cJSON *t = obj(doc, "totals"), *u = obj(t, "us"), *cls = obj(t, "classes"), *b = obj(t, "before"), *c;
    const char *gpu = ej_str(obj(doc, "gpus"), "after") ? ej_str(obj(doc, "gpus"), "after") : "no GPU (no baselines)";
    char big[128], cap[640], x[3][48];
    segment occ[8];
    int n = 0;
    cJSON_ArrayForEach(c, cls) /* every class the occurrences have, unclassified included */
        if (n < 8 && c->valuedouble > 0)
            occ[n++] = (segment){ea_svg_class_series(c->string), c->valuedouble};
    fputs("<div class=\"cards\">\n", f);
    snprintf(big, sizeof big, "%.0f of %.0f", ej_num(t, "false_extern"), ej_num(t, "occurrences"));
    double seed = ej_num(b, "seed_false_extern_us");
    if (isfinite(seed))
        snprintf(x[1], sizeof x[1], "%.1f us", seed);
    else
        snprintf(x[1], sizeof x[1], "no figure (no seed totals)");
    snprintf(cap, sizeof cap, "occurrences the old rule calls extern are lowered by Inductor: %s in its own kernels on "
             "%s (the seed put %s on %s on them). The bar: every occurrence by class.",
             us_text(x[0], 48, isfinite(ej_num(u, "after")) ? ej_num(u, "lowered") : NAN), gpu, x[1], ej_str(b, "gpu"));
    card(f, "False externs", big, cap, "count", occ, n);
    double tf = ej_num(u, "true_fallback"), cf = ej_num(u, "conditional_fallback"), after = ej_num(u, "after");
    /* nothing priced at all (no baselines): the fallbacks are unpriced, not 0 us */
    us_text(big, sizeof big, isfinite(after) ? tf + cf : NAN);
    snprintf(cap, sizeof cap, "true fallback %s (%.0f occurrences), conditional fallback %s (%.0f) on %s. The bar: the "
             "faithful time by class.", us_text(x[0], 48, isfinite(after) ? tf : NAN), fmax(0, ej_num(cls, "true_fallback")),
             us_text(x[1], 48, isfinite(after) ? cf : NAN), fmax(0, ej_num(cls, "conditional_fallback")), gpu);
    card(f, "True and conditional fallbacks", big, cap, "us",
         (segment[]){{S_TRUE_FALLBACK, tf}, {S_CONDITIONAL_FALLBACK, cf}, {S_LOWERED, ej_num(u, "lowered")}}, 3);
    double h = ej_num(u, "headroom");
    if (isfinite(h) && after > 0)
        snprintf(big, sizeof big, "%.1f us (%.0f%%)", h, 100 * h / after);
    else
        snprintf(big, sizeof big, "unpriced");
    snprintf(cap, sizeof cap, "the oracle's headroom of %s faithful on %s: what the fastest faithful implementation of "
             "each scope saves. The bar: oracle time and headroom.", us_text(x[2], 48, after), gpu);
    card(f, "Recoverable", big, cap, "us", (segment[]){{S_ORACLE, after - h}, {S_HEADROOM, h}}, 2);
    fputs("</div>\n", f);
}

static void model_name(FILE *f, const cJSON *m)
{
    esc(f, ej_str(m, "suite"));
    fputc('/', f);
    esc(f, ej_str(m, "mode"));
    fputc('/', f);
    esc(f, ej_str(m, "model"));
}

/* Why a model or op has no after price, in one or two words. */
static const char *absent_why(const cJSON *agg)
{
    return ej_num(agg, "unpriced") > 0 ? "unpriced" : "not measured";
}

/* Per model: one bar per class bucket that holds occurrences, and the headroom, on one log axis. */
static void model_chart(FILE *f, const cJSON *doc)
{
    const char *gpu = ej_str(obj(doc, "gpus"), "after");
    int n, y, height = 0;
    const cJSON **models = ea_report_models(doc, &n);
    double min = INFINITY, max = 0;
    for (int k = 0; k < n; k++) {
        const cJSON *u = obj(models[k], "us");
        int bars = 0;
        for (int i = 0; i < 3; i++) {
            double v = ej_num(u, bucket_keys[i]);
            bars += ej_num(obj(models[k], "buckets"), bucket_keys[i]) > 0;
            if (v > 0)
                min = fmin(min, v), max = fmax(max, v);
        }
        if (ej_num(u, "headroom") > 0)
            min = fmin(min, ej_num(u, "headroom"));
        height += 8 + 13 * (bars ? bars + 1 : 1);
    }
    ea_log_axis a = ea_svg_log_axis(min, max, LABEL, WIDTH - LABEL - VALUE);
    static const ea_series legend[] = {S_LOWERED, S_CONDITIONAL_FALLBACK, S_TRUE_FALLBACK, S_HEADROOM};
    fprintf(f, "<h2>Per model: faithful time on %s by class, and the oracle headroom</h2>\n", gpu ? gpu : "(no baselines)");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" class=\"chart\">", WIDTH,
            height + 80);
    y = 4 + ea_svg_legend(f, LABEL, 4, WIDTH - LABEL, legend, 4);
    ea_svg_axis(f, &a, y, y + height + 34);
    for (int k = 0; k < n; k++) {
        const cJSON *m = models[k], *u = obj(m, "us");
        int bars = 0;
        fprintf(f, "<g class=\"row\"><text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">", LABEL - 6, y + 11);
        model_name(f, m);
        fputs("</text>", f);
        for (int i = 0; i < 3; i++)
            if (ej_num(obj(m, "buckets"), bucket_keys[i]) > 0) {
                double v = ej_num(u, bucket_keys[i]);
                /* a bucket whose scopes another op's rows price (the routing scope's cumsum under histc) */
                int shared = v == 0 && ej_num(m, "shared") > 0;
                ea_svg_bar(f, &a, y + 13 * bars++, 11, ea_svg_class_series(bucket_keys[i]), shared ? NAN : v,
                           shared ? "in a shared scope, priced under its fallback" : absent_why(m));
            }
        if (bars) {
            ea_svg_bar(f, &a, y + 13 * bars++, 9, S_HEADROOM, ej_num(u, "headroom"), absent_why(m));
        } else { /* no occurrence in a priced class: say which classes it holds */
            char what[256] = "";
            const cJSON *c;
            cJSON_ArrayForEach(c, obj(m, "classes"))
                snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s %.0f", what[0] ? ", " : "", c->string,
                         c->valuedouble);
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s absent\" data-why=\"unpriced\" font-style=\"italic\">unpriced: ",
                    LABEL + 4, y + 10);
            esc(f, what);
            fputs("</text>", f);
            bars = 1;
        }
        fputs("</g>", f);
        y += 8 + 13 * bars;
    }
    fputs("</svg>\n", f);
    free(models);
}

/* The class an op's faithful bar is drawn in: the bucket of most of its occurrences. */
static ea_series op_series(const cJSON *o)
{
    const cJSON *c;
    const char *best = NULL;
    double most = 0;
    cJSON_ArrayForEach(c, obj(o, "classes"))
        if (c->valuedouble > most)
            most = c->valuedouble, best = c->string;
    return ea_svg_class_series(best);
}

/* Per op: the seed's price (before GPU), then the pipeline's, fabricated, faithful and the oracle (after GPU),
 * on one log axis; the faithful bar in the op's class colour. */
static void op_chart(FILE *f, const cJSON *doc)
{
    const cJSON *o, *g = obj(doc, "gpus");
    const char *before = ej_str(g, "before"), *after = ej_str(g, "after") ? ej_str(g, "after") : "(no baselines)";
    double min = INFINITY, max = 0;
    int ops = cJSON_GetArraySize(obj(doc, "ops")), y;
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        double v[] = {ej_num(obj(o, "seed"), "total_us"), ej_num(obj(o, "gap"), "pipeline"), ej_num(obj(o, "us"), "fabricated"),
                      ej_num(obj(o, "us"), "after"), ej_num(obj(o, "us"), "oracle")};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            if (v[i] > 0)
                min = fmin(min, v[i]), max = fmax(max, v[i]);
    }
    ea_log_axis a = ea_svg_log_axis(min, max, LABEL, WIDTH - LABEL - VALUE);
    static const ea_series legend[] = {S_SEED,          S_PIPELINE,      S_FABRICATED,     S_LOWERED, S_CONDITIONAL_FALLBACK,
                                       S_TRUE_FALLBACK, S_LIBRARY_EXTERN, S_NO_DEVICE_WORK, S_ORACLE};
    fputs("<h2>Per op: the seed's price, the pipeline's, and the faithful one (each bar names its GPU; faithful in the "
          "op's class colour)</h2>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" class=\"chart\">", WIDTH,
            ops * 98 + 110);
    y = 4 + ea_svg_legend(f, 4, 4, WIDTH - 8, legend, (int)(sizeof legend / sizeof legend[0]));
    ea_svg_axis(f, &a, y, y + ops * 98 + 34);
    cJSON_ArrayForEach(o, obj(doc, "ops"))
    {
        const cJSON *u = obj(o, "us");
        double fab = ej_num(u, "fabricated");
        const char *why = absent_why(o);
        struct {
            const char *what, *gpu, *absent;
            ea_series s;
            double v;
        } bars[] = {{"seed, direct op", before, "not measured", S_SEED, ej_num(obj(o, "seed"), "total_us")},
                    {"pipeline method", after, "not measured", S_PIPELINE, ej_num(obj(o, "gap"), "pipeline")},
                    {"fabricated, in scope", after, "not measured", S_FABRICATED, fab > 0 ? fab : NAN},
                    {"faithful, in scope", after, why, op_series(o), ej_num(u, "after")},
                    {"oracle", after, why, S_ORACLE, ej_num(u, "oracle")}};
        fprintf(f, "<g class=\"op\" data-op=\"");
        esc(f, ej_str(o, "op"));
        fprintf(f, "\"><text x=\"4\" y=\"%d\" class=\"b\">", y + 11);
        esc(f, ej_str(o, "op"));
        fputs("</text>", f);
        y += 14;
        for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++, y += 16) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">%s, ", LABEL - 6, y + 11, bars[i].what);
            esc(f, bars[i].gpu);
            fputs("</text>", f);
            ea_svg_bar(f, &a, y, 12, bars[i].s, bars[i].v, bars[i].absent);
        }
        fputs("</g>", f);
        y += 4;
    }
    fputs("</svg>\n", f);
}

/* One table row: header cells, or data cells right-aligned where align says 'r'. */
static void html_row(FILE *f, const cJSON *cells, const char *align)
{
    const cJSON *c;
    int i = 0;
    fputs("<tr>", f);
    cJSON_ArrayForEach(c, cells)
    {
        fputs(!align ? "<th>" : align[i] == 'r' ? "<td class=\"r\">" : "<td>", f);
        esc(f, c->valuestring);
        fputs(!align ? "</th>" : "</td>", f);
        i++;
    }
    fputs("</tr>\n", f);
}

static void html_table(FILE *f, const cJSON *t)
{
    const cJSON *r, *n;
    fputs("<h2>", f);
    esc(f, ej_str(t, "title"));
    fputs("</h2>\n<table>", f);
    html_row(f, cJSON_GetObjectItemCaseSensitive(t, "columns"), NULL);
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows"))
        html_row(f, r, ej_str(t, "align"));
    fputs("</table>\n<ul>", f);
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(t, "notes"))
    {
        fputs("<li>", f);
        esc(f, n->valuestring);
        fputs("</li>", f);
    }
    fputs("</ul>\n", f);
}

/* The page's head, its sentence on the GPUs, and the charts; the tables follow. */
static void html_head(FILE *f, const cJSON *doc)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpus");
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>extern-audit rollup</title>\n"
          "<style>body{font:14px sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}"
          "td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px}td.r{text-align:right}th{background:#eee}"
          "svg text.s{font:11px sans-serif}svg text.b{font:bold 12px sans-serif}"
          ".cards{display:flex;gap:12px;margin:12px 0}.card{border:1px solid #ccc;border-radius:6px;padding:10px;"
          "width:290px}.card .t{font-weight:bold}.card .big{font-size:26px;margin:4px 0}.card .c{font-size:12px;"
          "color:#444;min-height:64px}</style></head><body>\n"
          "<h1>extern-audit rollup</h1>\n<p>Before on ", f);
    esc(f, ej_str(g, "before"));
    fputs(" (the seed, the corpus); after on ", f);
    esc(f, ej_str(g, "after") ? ej_str(g, "after") : "no GPU (no baselines)");
    fputs(". Figures of different GPUs are never added.</p>\n", f);
    headline(f, doc);
    model_chart(f, doc);
    op_chart(f, doc);
}

static void html_tail(FILE *f, const cJSON *doc)
{
    fputs("</body></html>\n", f);
}

char *ea_report_html(const cJSON *doc)
{
    static const ea_report_style style = {html_head, html_table, html_tail};
    return ea_report_render(doc, 0, &style);
}
