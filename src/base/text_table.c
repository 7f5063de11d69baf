/* text_table.c: column widths from the contents (text_table.h). */
#include "base/text_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

cJSON *ea_text_row(cJSON *table)
{
    cJSON *r = cJSON_CreateArray();
    cJSON_AddItemToArray(table, r);
    return r;
}

void ea_text_cell(cJSON *row, const char *fmt, ...)
{
    char b[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(row, cJSON_CreateString(b));
}

static const char *cell_text(const cJSON *row, int i)
{
    const cJSON *c = cJSON_GetArrayItem(row, i);
    return cJSON_IsString(c) ? c->valuestring : "";
}

/* Display width of UTF-8 text: its code points (the tables hold no double-width characters). */
static int width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

void ea_text_table_print(FILE *f, const cJSON *table, const char *align, const char *indent)
{
    const cJSON *r, *c;
    int cols = 0;
    cJSON_ArrayForEach(r, table)
        cols = cJSON_GetArraySize(r) > cols ? cJSON_GetArraySize(r) : cols;
    int *w = calloc((size_t)cols + 1, sizeof *w);
    if (!w)
        return;
    cJSON_ArrayForEach(r, table)
    {
        int i = 0;
        cJSON_ArrayForEach(c, r)
        {
            int n = width(cJSON_IsString(c) ? c->valuestring : "");
            w[i] = n > w[i] ? n : w[i];
            i++;
        }
    }
    size_t nalign = strlen(align);
    cJSON_ArrayForEach(r, table)
    {
        int i = 0, n = cJSON_GetArraySize(r);
        while (n > 0 && !*cell_text(r, n - 1)) /* empty cells at the end would leave blanks there */
            n--;
        fputs(indent, f);
        cJSON_ArrayForEach(c, r)
        {
            if (i == n)
                break;
            const char *s = cJSON_IsString(c) ? c->valuestring : "";
            int right = (size_t)i < nalign && align[i] == 'r', pad = w[i] - width(s);
            if (i)
                fputs("  ", f);
            for (int k = 0; right && k < pad; k++)
                fputc(' ', f);
            fputs(s, f);
            for (int k = 0; !right && i + 1 < n && k < pad; k++)
                fputc(' ', f);
            i++;
        }
        fputc('\n', f);
    }
    free(w);
}
