/* text_table.h: a terminal table whose column widths come from its contents, so a long name never pushes
 * its row out of line (audit, extract, classify, run --list, golden diff, the rollup).
 * Contract: a table is a cJSON array of rows, each an array of strings (the first row the header, when
 * there is one); ea_text_cell appends one printf-formatted cell to a row; ea_text_table_print writes every
 * row after indent, each column as wide as its widest cell, 'l' columns padded on the right and 'r' ones on
 * the left as align says (a column past align's end is 'l'); a last 'l' column is not padded, so no line ends
 * in blanks. */
#ifndef EA_TEXT_TABLE_H
#define EA_TEXT_TABLE_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* A new row appended to table; returns it. */
cJSON *ea_text_row(cJSON *table);
void ea_text_cell(cJSON *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ea_text_table_print(FILE *f, const cJSON *table, const char *align, const char *indent);

#endif
