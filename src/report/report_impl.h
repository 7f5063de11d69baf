/* report_impl.h: the frame every renderer of report.h shares: a head, the tables one by one, a tail. */
#ifndef EA_REPORT_IMPL_H
#define EA_REPORT_IMPL_H

#include <stdio.h>

#include <cjson/cJSON.h>

typedef struct {
    void (*head)(FILE *f, const cJSON *doc);
    void (*table)(FILE *f, const cJSON *table); /* one of ea_report_tables' */
    void (*tail)(FILE *f, const cJSON *doc);    /* or NULL */
} ea_report_style;

/* The text style draws: malloc'd, NULL when out of memory. */
char *ea_report_render(const cJSON *doc, int top, const ea_report_style *style);

/* The document's models, most after time first (ties by name); malloc'd, *n of them. */
const cJSON **ea_report_models(const cJSON *doc, int *n);

#endif
