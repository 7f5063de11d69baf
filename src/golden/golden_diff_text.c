/* golden_diff_text.c: the golden diff report as the terminal table and as the markdown a reviewer
 * reads (contract in golden_diff.h): the summaries first, the changes after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden/golden_diff.h"
#include "base/json.h"
#include "base/text_table.h"

/* ea_golden_diff_kinds, shorter */
static const char *const headers[] = {"class", "added", "removed", "partition", "boundary", "timing", NULL};

static void side_line(const cJSON *side, FILE *f)
{
    const cJSON *scopes = cJSON_GetObjectItemCaseSensitive(side, "scopes");
    fprintf(f, "%s (target %s, %s, torch %s", ej_text(side, "dir"), ej_text(side, "name"), ej_text(side, "gpu_model"),
            ej_text(side, "torch"));
    if (ej_str(side, "lowering"))
        fprintf(f, ", lowering %s", ej_text(side, "lowering"));
    if (cJSON_IsArray(scopes))
        fprintf(f, ", partial stage of %d scope(s)", cJSON_GetArraySize(scopes));
    fprintf(f, ")");
}

/* The terminal's summary table: columns as wide as their contents. */
static void text_table(const cJSON *rows, const char *key, const char *title, FILE *f)
{
    const cJSON *r;
    cJSON *t = cJSON_CreateArray(), *row = ea_text_row(t);
    fprintf(f, "\n%s:\n", title);
    ea_text_cell(row, "%s", key);
    for (int k = 0; headers[k]; k++)
        ea_text_cell(row, "%s", headers[k]);
    cJSON_ArrayForEach(r, rows)
    {
        row = ea_text_row(t);
        ea_text_cell(row, "%s", ej_text(r, key));
        for (int k = 0; ea_golden_diff_kinds[k]; k++)
            ea_text_cell(row, "%d", (int)ej_num(r, ea_golden_diff_kinds[k]));
    }
    ea_text_table_print(f, t, "lrrrrrr", "  ");
    cJSON_Delete(t);
    if (!cJSON_GetArraySize(rows))
        fprintf(f, "  (none)\n");
}

static void table(const cJSON *rows, const char *key, const char *title, int md, FILE *f)
{
    const cJSON *r;
    if (!md)
        return text_table(rows, key, title, f);
    fprintf(f, "\n### %s\n\n| %s |", title, key);
    for (int k = 0; headers[k]; k++)
        fprintf(f, " %s |", headers[k]);
    fprintf(f, "\n| --- |");
    for (int k = 0; headers[k]; k++)
        fprintf(f, " ---: |");
    fprintf(f, "\n");
    cJSON_ArrayForEach(r, rows)
    {
        fprintf(f, "| %s |", ej_text(r, key));
        for (int k = 0; ea_golden_diff_kinds[k]; k++)
            fprintf(f, " %d |", (int)ej_num(r, ea_golden_diff_kinds[k]));
        fprintf(f, "\n");
    }
    if (!cJSON_GetArraySize(rows))
        fprintf(f, "| (none) |\n");
}

static void render(const cJSON *report, int md, FILE *f)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(report, "summary"), *c;
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(s, "not_staged");
    fprintf(f, md ? "## golden diff\n\n- old: " : "golden diff\n  old: ");
    side_line(cJSON_GetObjectItemCaseSensitive(report, "old"), f);
    fprintf(f, md ? "\n- new: " : "\n  new: ");
    side_line(cJSON_GetObjectItemCaseSensitive(report, "new"), f);
    fprintf(f, "\n");
    table(cJSON_GetObjectItemCaseSensitive(s, "by_op"), "op", "Summary by op", md, f);
    table(cJSON_GetObjectItemCaseSensitive(s, "by_model"), "model", "Summary by model", md, f);
    if (ej_num(ns, "occurrences") > 0 || ej_num(ns, "points") > 0)
        fprintf(f, "\nNot staged (outside the stage's scopes, not compared): %d occurrence(s), %d point(s) only in the old target\n",
                (int)ej_num(ns, "occurrences"), (int)ej_num(ns, "points"));
    if (ej_str(report, "timings_note"))
        fprintf(f, "\nTimings not compared: %s\n", ej_text(report, "timings_note"));
    fprintf(f, md ? "\n### Changes\n\n" : "\nChanges:\n");
    cJSON *t = cJSON_CreateArray();
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "changes"))
    {
        const char *what = ej_str(c, "id") ? ej_text(c, "id") : ej_str(c, "scope") ? ej_text(c, "scope") : ej_text(c, "point");
        if (md) {
            fprintf(f, "- **%s** `%s` %s: %s\n", ej_text(c, "kind"), ej_text(c, "op"), what, ej_text(c, "detail"));
            continue;
        }
        cJSON *row = ea_text_row(t);
        ea_text_cell(row, "%s", ej_text(c, "kind"));
        ea_text_cell(row, "%s", ej_text(c, "op"));
        ea_text_cell(row, "%s: %s", what, ej_text(c, "detail"));
    }
    ea_text_table_print(f, t, "lll", "  ");
    cJSON_Delete(t);
    int n = (int)ej_num(s, "changes");
    fprintf(f, md ? "\n%d change(s)\n" : "%d change(s)\n", n);
}

void ea_golden_diff_print(const cJSON *report, FILE *f)
{
    render(report, 0, f);
}

char *ea_golden_diff_markdown(const cJSON *report)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    render(report, 1, f);
    fclose(f);
    return buf;
}
