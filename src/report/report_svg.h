/* report_svg.h: the drawing vocabulary of the rollup page (report_html.c): one colour per class and per
 * measure, legends, a log axis in microseconds with ticks and gridlines, bars labelled with their value,
 * and the mark of a figure that is absent (unpriced, not measured), which is never a bar.
 * Contract: every function writes SVG elements to f; the classes and data- attributes it writes are what the
 * browser test reads: <g class="legend"> holding one <g class="key"> per entry, <g class="axis" data-scale="log">
 * holding <g class="tick"> (a gridline and a label each), <rect class="bar" data-us="V"> for a drawn figure
 * (V > 0 always), <text class="absent" data-why="unpriced|not measured"> for one that is not drawn. */
#ifndef EA_REPORT_SVG_H
#define EA_REPORT_SVG_H

#include <stdio.h>

/* The series a chart draws, each with one colour on every chart of the page. */
typedef enum {
    S_LOWERED,
    S_CONDITIONAL_FALLBACK,
    S_TRUE_FALLBACK,
    S_LIBRARY_EXTERN,
    S_NO_DEVICE_WORK,
    S_OTHER_CLASS,
    S_SEED,
    S_PIPELINE,
    S_FABRICATED,
    S_ORACLE,
    S_HEADROOM,
    S_COUNT
} ea_series;

const char *ea_svg_color(ea_series s);
/* The series of a class or bucket name ("true_fallback"); S_OTHER_CLASS for one it does not know. */
ea_series ea_svg_class_series(const char *cls);

void ea_svg_esc(FILE *f, const char *s);
/* A legend row at (x, y) of the n series listed, wrapping at width. Returns the height it took. */
int ea_svg_legend(FILE *f, int x, int y, int width, const ea_series *series, int n);

/* A log axis of microseconds over [lo, hi] (powers of ten, lo < hi), drawn from x0 to x0 + span. */
typedef struct {
    double lo, hi;
    int x0, span;
} ea_log_axis;

/* The decades that hold every positive value in [min, max] (at least two: 1 us to 100 us when none). */
ea_log_axis ea_svg_log_axis(double min, double max, int x0, int span);
/* Ticks at every decade (label "1 us", "10 ms"...), a gridline each from top to bottom, minor gridlines at 2
 * and 5, the unit written under the labels at y = bottom. */
void ea_svg_axis(FILE *f, const ea_log_axis *a, int top, int bottom);

/* A figure's bar at row y of height h in the series' colour, with its value written after it; a figure that
 * is not finite is written as why (never a bar), one of 0 as "0 us" with no bar. */
void ea_svg_bar(FILE *f, const ea_log_axis *a, int y, int h, ea_series s, double us, const char *why);

#endif
