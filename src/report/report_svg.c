/* report_svg.c: legends, log axes and labelled bars for the rollup page (report_svg.h). */
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name, *color, *key; /* key: the class or bucket name in the rollup document */
} series[S_COUNT] = {
    [S_LOWERED] = {"lowered (false extern)", "#4c9f70", "lowered"},
    [S_CONDITIONAL_FALLBACK] = {"conditional fallback", "#e0a030", "conditional_fallback"},
    [S_TRUE_FALLBACK] = {"true fallback", "#c8553d", "true_fallback"},
    [S_LIBRARY_EXTERN] = {"library extern", "#8e6bb8", "library_extern"},
    [S_NO_DEVICE_WORK] = {"no device work", "#b8b8b8", "no_device_work"},
    [S_OTHER_CLASS] = {"unclassified or other", "#6d6d6d", NULL},
    [S_SEED] = {"seed (before GPU)", "#8a8a8a", NULL},
    [S_PIPELINE] = {"pipeline price", "#4a4a4a", NULL},
    [S_FABRICATED] = {"fabricated index, in scope", "#a0826d", NULL},
    [S_ORACLE] = {"oracle", "#3a6ea5", NULL},
    [S_HEADROOM] = {"oracle headroom", "#8fb8e0", NULL},
};

const char *ea_svg_color(ea_series s)
{
    return series[s].color;
}

ea_series ea_svg_class_series(const char *cls)
{
    if (cls && !strcmp(cls, "conditional_lowered"))
        return S_LOWERED;
    for (int s = 0; cls && s < S_COUNT; s++)
        if (series[s].key && !strcmp(series[s].key, cls))
            return (ea_series)s;
    return S_OTHER_CLASS;
}

void ea_svg_esc(FILE *f, const char *s)
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

int ea_svg_legend(FILE *f, int x, int y, int width, const ea_series *list, int n)
{
    int cx = x, cy = y;
    fputs("<g class=\"legend\">", f);
    for (int i = 0; i < n; i++) {
        int w = 24 + 7 * (int)strlen(series[list[i]].name);
        if (cx > x && cx + w > x + width) {
            cx = x;
            cy += 18;
        }
        fprintf(f, "<g class=\"key\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text></g>",
                cx, cy, series[list[i]].color, cx + 16, cy + 10, series[list[i]].name);
        cx += w;
    }
    fputs("</g>", f);
    return cy - y + 18;
}

ea_log_axis ea_svg_log_axis(double min, double max, int x0, int span)
{
    ea_log_axis a = {1, 10, x0, span};
    if (isfinite(min) && min > 0)
        a.lo = pow(10, floor(log10(min)));
    if (isfinite(max) && max > 0)
        a.hi = pow(10, ceil(log10(max)));
    if (a.hi < a.lo * 100) /* two decades at least: three ticks to read a value against */
        a.hi = a.lo * 100;
    return a;
}

/* Where us sits on the axis (clamped to it). */
static double ea_svg_x(const ea_log_axis *a, double us)
{
    double t = (log10(us) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    return a->x0 + fmax(0, fmin(1, t)) * a->span;
}

/* "100 us", "1 ms", "10 s": a decade in the unit that keeps it short. */
static void decade_label(char *b, size_t n, double us)
{
    if (us >= 1e6)
        snprintf(b, n, "%g s", us / 1e6);
    else if (us >= 1e3)
        snprintf(b, n, "%g ms", us / 1e3);
    else
        snprintf(b, n, "%g us", us);
}

void ea_svg_axis(FILE *f, const ea_log_axis *a, int top, int bottom)
{
    fprintf(f, "<g class=\"axis\" data-scale=\"log\" data-unit=\"us\">");
    for (double d = a->lo; d <= a->hi * 1.0001; d *= 10) {
        char label[32];
        double x = ea_svg_x(a, d);
        decade_label(label, sizeof label, d);
        fprintf(f, "<g class=\"tick\"><line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\"/>"
                   "<text x=\"%.1f\" y=\"%d\" class=\"s\" text-anchor=\"middle\">%s</text></g>",
                x, top, x, bottom - 14, x, bottom - 2, label);
        for (int m = 2; m <= 5 && d < a->hi; m += 3) {
            double xm = ea_svg_x(a, d * m);
            fprintf(f, "<line class=\"minor\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e6e6e6\"/>", xm, top,
                    xm, bottom - 14);
        }
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", a->x0, bottom - 14, a->x0 + a->span,
            bottom - 14);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">microseconds, log scale</text></g>",
            a->x0 + a->span, bottom + 12);
}

void ea_svg_bar(FILE *f, const ea_log_axis *a, int y, int h, ea_series s, double us, const char *why)
{
    if (!isfinite(us)) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s absent\" data-why=\"%s\" font-style=\"italic\">%s</text>", a->x0 + 4,
                y + h - 1, why, why);
        return;
    }
    if (!(us > 0)) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s zero\">0 us</text>", a->x0 + 4, y + h - 1);
        return;
    }
    double w = fmax(ea_svg_x(a, us) - a->x0, 1);
    fprintf(f, "<rect class=\"bar\" data-us=\"%.3f\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", us, a->x0,
            y, w, h, series[s].color);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"s\">%.1f us</text>", a->x0 + w + 4, y + h - 1, us);
}
