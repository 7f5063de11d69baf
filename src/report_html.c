/* report_html.c: the rollup as one self-contained page (report.h): inline CSS and SVG, no script, no
 * external fetch. Charts: per model, stacked bars of the after GPU's time by class with the oracle
 * headroom beneath; per op, before -> after bars on a log axis, each labelled with its GPU. The tables
 * beneath are ea_report_tables', as in the terminal and markdown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "report_impl.h"

#define WIDTH 900
#define LABEL 330 /* the left column for names */

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static const char *const bucket_keys[] = {"lowered", "conditional_fallback", "true_fallback"};
static const char *const bucket_names[] = {"lowered", "conditional fallback", "true fallback"};
static const char *const bucket_colors[] = {"#4c9f70", "#e0a030", "#c8553d"};
#define HEADROOM_COLOR "#3a6ea5"

static void legend(FILE *f, int y)
{
    for (int i = 0; i < 4; i++) {
        int x = LABEL + i * 140;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y, i < 3 ? bucket_colors[i] : HEADROOM_COLOR);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text>", x + 16, y + 10, i < 3 ? bucket_names[i] : "oracle headroom");
    }
}

static void model_chart(FILE *f, const cJSON *doc)
{
    const char *gpu = ej_str(cJSON_GetObjectItemCaseSensitive(doc, "gpus"), "after");
    int n, row = 26, y = 30;
    const cJSON **models = ea_report_models(doc, &n);
    double max = n ? ej_num(cJSON_GetObjectItemCaseSensitive(models[0], "us"), "after") : 0;
    max = isfinite(max) ? max : 0; /* no baselines: nothing priced, nothing drawn */
    fprintf(f, "<h2>Per model: time on %s by class, oracle headroom beneath</h2>\n", gpu ? gpu : "(no baselines)");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">", WIDTH, 40 + n * row);
    legend(f, 6);
    double scale = max > 0 ? (WIDTH - LABEL - 90) / max : 0;
    for (int k = 0; k < n; k++) {
        const cJSON *m = models[k], *u = cJSON_GetObjectItemCaseSensitive(m, "us");
        double x = LABEL, total = 0;
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">", LABEL - 6, y + 12);
        esc(f, ej_str(m, "suite"));
        fputc('/', f);
        esc(f, ej_str(m, "mode"));
        fputc('/', f);
        esc(f, ej_str(m, "model"));
        fputs("</text>", f);
        for (int i = 0; i < 3; i++) {
            double v = ej_num(u, bucket_keys[i]);
            if (!(v > 0))
                continue;
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\"/>", x, y + 2,
                    fmax(v * scale, 1), bucket_colors[i]);
            x += fmax(v * scale, 1);
            total += v;
        }
        double h = ej_num(u, "headroom");
        if (h > 0)
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"6\" fill=\"%s\"/>", LABEL, y + 15,
                    fmax(h * scale, 1), HEADROOM_COLOR);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"s\">%.1f us</text>", x + 4, y + 12, total);
        y += row;
    }
    fputs("</svg>\n", f);
    free(models);
}

/* One op's bars on a log axis from 1 us: seed (before GPU) and the after GPU's pipeline, fabricated,
 * faithful and oracle totals, each bar named with its GPU; an absent figure is written, not drawn. */
static void op_chart(FILE *f, const cJSON *doc)
{
    const cJSON *o, *g = cJSON_GetObjectItemCaseSensitive(doc, "gpus");
    const char *before = ej_str(g, "before"), *after = ej_str(g, "after") ? ej_str(g, "after") : "(no baselines)";
    double max = 10;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
        max = fmax(max, fmax(ej_num(cJSON_GetObjectItemCaseSensitive(o, "seed"), "total_us"),
                             fmax(ej_num(cJSON_GetObjectItemCaseSensitive(o, "gap"), "pipeline"),
                                  ej_num(cJSON_GetObjectItemCaseSensitive(o, "us"), "fabricated"))));
    double decades = ceil(log10(max)), span = WIDTH - LABEL - 110;
    int ops = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "ops")), y = 10;
    fputs("<h2>Per op: before -> after (log axis, microseconds; each bar names its GPU)</h2>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">", WIDTH, 20 + ops * 118);
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
    {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "us");
        struct {
            const char *what, *gpu;
            double v;
        } bars[] = {{"seed, direct op", before, ej_num(cJSON_GetObjectItemCaseSensitive(o, "seed"), "total_us")},
                    {"pipeline method", after, ej_num(cJSON_GetObjectItemCaseSensitive(o, "gap"), "pipeline")},
                    {"fabricated, in scope", after, ej_num(u, "fabricated") > 0 ? ej_num(u, "fabricated") : NAN},
                    {"faithful, in scope", after, ej_num(u, "after")},
                    {"oracle", after, ej_num(u, "oracle")}};
        fprintf(f, "<text x=\"4\" y=\"%d\" class=\"b\">", y + 12);
        esc(f, ej_str(o, "op"));
        fputs("</text>", f);
        y += 16;
        for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++, y += 19) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">%s, ", LABEL - 6, y + 12, bars[i].what);
            esc(f, bars[i].gpu);
            fputs("</text>", f);
            if (!isfinite(bars[i].v)) {
                fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">not measured</text>", LABEL + 4, y + 12);
                continue;
            }
            double w = bars[i].v > 1 ? log10(bars[i].v) / decades * span : 1;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", LABEL, y + 1, fmax(w, 1),
                    i == 0 ? "#888888" : i == 4 ? HEADROOM_COLOR : "#4c9f70");
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"s\">%.1f us</text>", LABEL + fmax(w, 1) + 4, y + 12, bars[i].v);
        }
        y += 7;
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
          "td,th{border:1px solid #ccc;padding:3px 6px}td.r{text-align:right}th{background:#eee}"
          "svg text.s{font:11px sans-serif}svg text.b{font:bold 12px sans-serif}</style></head><body>\n"
          "<h1>extern-audit rollup</h1>\n<p>Before on ", f);
    esc(f, ej_str(g, "before"));
    fputs(" (the seed, the corpus); after on ", f);
    esc(f, ej_str(g, "after") ? ej_str(g, "after") : "no GPU (no baselines)");
    fputs(". Figures of different GPUs are never added.</p>\n", f);
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
