/* report.h: the rollup document (rollup.h) as something people read.
 * Contract:
 * - The renderers turn the document into the same tables (report_tables.c): {"title", "columns": [...], "align": "lrr..",
 *   "rows": [[cells as strings]], "notes": [...]}; every renderer draws the same tables, so the terminal,
 *   markdown and HTML say the same numbers. top limits the per-model table (0: every model).
 *   A figure that is absent (not measured, unpriced) prints as "-" and a note says why.
 * - ea_report_text / ea_report_markdown return malloc'd text; ea_report_html a self-contained page
 *   (inline SVG charts, no script, no network); ea_report_v3 PyTorch benchmark-database v3 records. */
#ifndef EA_REPORT_H
#define EA_REPORT_H

#include <cjson/cJSON.h>

char *ea_report_text(const cJSON *doc, int top);
char *ea_report_markdown(const cJSON *doc);
char *ea_report_html(const cJSON *doc);
cJSON *ea_report_v3(const cJSON *doc);

#endif
