/* Terminal tables (text_table.h) take their widths from their contents: a long name widens its column
 * instead of pushing its row out of line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/text_table.h"

static char *render(const cJSON *t, const char *align)
{
    char *s = NULL;
    size_t n;
    FILE *f = open_memstream(&s, &n);
    ea_text_table_print(f, t, align, "  ");
    fclose(f);
    return s;
}

Test(text_table, a_long_cell_widens_its_column_and_no_line_ends_in_blanks)
{
    cJSON *t = cJSON_CreateArray(), *r = ea_text_row(t);
    ea_text_cell(r, "op");
    ea_text_cell(r, "n");
    ea_text_cell(r, "note");
    r = ea_text_row(t);
    ea_text_cell(r, "aten._adaptive_avg_pool2d_backward.default");
    ea_text_cell(r, "%d", 2);
    ea_text_cell(r, "x");
    r = ea_text_row(t);
    ea_text_cell(r, "cat");
    ea_text_cell(r, "%d", 62);
    ea_text_cell(r, "%s", "");
    char *s = render(t, "lrl");
    cr_assert_str_eq(s, "  op                                           n  note\n"
                        "  aten._adaptive_avg_pool2d_backward.default   2  x\n"
                        "  cat                                         62\n");
    free(s);
    cJSON_Delete(t);
}

/* The first table of audit (and extract): every row as long as the header, whatever the op's name. */
Test(text_table, audit_occurrence_rows_line_up)
{
    cli_run r = test_cli("audit", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *line = strstr(r.out, "\nop "), *end = strstr(r.out, "\ntotal");
    cr_assert(line && end, "%s", r.out);
    size_t width = strcspn(line + 1, "\n");
    for (line = strchr(line + 1, '\n'); line && line < end; line = strchr(line + 1, '\n'))
        cr_assert_eq(strcspn(line + 1, "\n"), width, "out of line: %.*s", (int)strcspn(line + 1, "\n"), line + 1);
    cli_run_free(&r);
}
