/* report_text.c: the rollup's tables as a terminal page and as markdown (report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_impl.h"

#define MAX_COLS 16

static const char *cell(const cJSON *row, int i)
{
    const cJSON *c = cJSON_GetArrayItem(row, i);
    return cJSON_IsString(c) ? c->valuestring : "";
}

static void head_line(FILE *f, const char *doc_title, const cJSON *doc)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpus");
    const cJSON *before = cJSON_GetObjectItemCaseSensitive(g, "before"), *after = cJSON_GetObjectItemCaseSensitive(g, "after");
    fprintf(f, "%s on %s (seed, corpus), after on %s; figures of different GPUs are never added\n", doc_title,
            cJSON_IsString(before) ? before->valuestring : "?",
            cJSON_IsString(after) ? after->valuestring : "no GPU (no baselines)");
}

static void text_line(FILE *f, const cJSON *line, int nc, const int *w, const char *align)
{
    for (int i = 0; i < nc && i < MAX_COLS; i++) /* a last left column unpadded: no trailing blanks */
        fprintf(f, "  %*s", align[i] == 'l' ? (i + 1 < nc ? -w[i] : 0) : w[i], cell(line, i));
    fprintf(f, "\n");
}

static void text_table(FILE *f, const cJSON *t)
{
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(t, "columns"), *rows = cJSON_GetObjectItemCaseSensitive(t, "rows"),
                *r, *n;
    const char *align = cJSON_GetObjectItemCaseSensitive(t, "align")->valuestring;
    int nc = cJSON_GetArraySize(cols), w[MAX_COLS] = {0};
    for (int i = 0; i < nc && i < MAX_COLS; i++)
        w[i] = (int)strlen(cell(cols, i));
    cJSON_ArrayForEach(r, rows)
        for (int i = 0; i < nc && i < MAX_COLS; i++)
            if ((int)strlen(cell(r, i)) > w[i])
                w[i] = (int)strlen(cell(r, i));
    fprintf(f, "\n%s\n", cJSON_GetObjectItemCaseSensitive(t, "title")->valuestring);
    text_line(f, cols, nc, w, align);
    cJSON_ArrayForEach(r, rows)
        text_line(f, r, nc, w, align);
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(t, "notes"))
        fprintf(f, "  note: %s\n", n->valuestring);
}

static void text_head(FILE *f, const cJSON *doc)
{
    head_line(f, "Extern rollup: before", doc);
}

static void md_head(FILE *f, const cJSON *doc)
{
    head_line(f, "Before", doc);
}

char *ea_report_text(const cJSON *doc, int top)
{
    static const ea_report_style style = {text_head, text_table, NULL};
    return ea_report_render(doc, top, &style);
}

/* A cell as markdown: a pipe would end the cell. */
static void md_cell(FILE *f, const char *s)
{
    fputs(" ", f);
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : (char[]){*s, 0}, f);
    fputs(" |", f);
}

static void md_table(FILE *f, const cJSON *t)
{
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(t, "columns"), *r, *n;
    const char *align = cJSON_GetObjectItemCaseSensitive(t, "align")->valuestring;
    int nc = cJSON_GetArraySize(cols);
    fprintf(f, "\n**%s**\n\n|", cJSON_GetObjectItemCaseSensitive(t, "title")->valuestring);
    for (int i = 0; i < nc; i++)
        md_cell(f, cell(cols, i));
    fprintf(f, "\n|");
    for (int i = 0; i < nc; i++)
        fputs(align[i] == 'l' ? " --- |" : " ---: |", f);
    fprintf(f, "\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows"))
    {
        fprintf(f, "|");
        for (int i = 0; i < nc; i++)
            md_cell(f, cell(r, i));
        fprintf(f, "\n");
    }
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "notes")))
        fprintf(f, "\n");
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(t, "notes"))
        fprintf(f, "- %s\n", n->valuestring);
}

char *ea_report_markdown(const cJSON *doc)
{
    static const ea_report_style style = {md_head, md_table, NULL};
    return ea_report_render(doc, 0, &style);
}
