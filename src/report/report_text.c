/* report_text.c: the rollup's tables as a terminal page and as markdown (report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_impl.h"
#include "base/text_table.h"

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

static void text_table(FILE *f, const cJSON *t)
{
    const cJSON *r, *n;
    cJSON *all = cJSON_CreateArray(); /* the header row, then the rows */
    cJSON_AddItemToArray(all, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "columns"), 1));
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows"))
        cJSON_AddItemToArray(all, cJSON_Duplicate(r, 1));
    fprintf(f, "\n%s\n", cJSON_GetObjectItemCaseSensitive(t, "title")->valuestring);
    ea_text_table_print(f, all, cJSON_GetObjectItemCaseSensitive(t, "align")->valuestring, "  ");
    cJSON_Delete(all);
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
