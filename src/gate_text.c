/* gate_text.c: a gate report as the terminal table and as the markdown a CI job posts (contract in gate.h). */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void summary_line(const cJSON *report, char *buf, size_t n)
{
    const cJSON *c;
    size_t k = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "summary"))
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s %d", k ? ", " : "", c->string, (int)c->valuedouble);
    if (!k)
        snprintf(buf, n, "nothing compared");
}

void ea_gate_print(const cJSON *report, FILE *f)
{
    const cJSON *e, *rule = cJSON_GetObjectItemCaseSensitive(report, "rule");
    char sum[512];
    if (rule)
        fprintf(f, "gate: %s against %s (GPU model %s; margin %.1f%%, noise: median notches %.2f x IQR / sqrt(n) + clock step, limit %.1f%%)\n",
                ej_text(report, "new"), ej_text(report, "stored"), ej_text(report, "gpu_model"),
                100 * cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rule, "margin")),
                cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rule, "notch_k")),
                100 * cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rule, "limit")));
    else /* gate --plan judges no time */
        fprintf(f, "gate: %s against %s (GPU model %s; plans and fidelity, no time judged)\n", ej_text(report, "new"),
                ej_text(report, "stored"), ej_text(report, "gpu_model"));
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (strcmp(ej_text(e, "status"), "SAME"))
            fprintf(f, "  %-8s %s %s #%d %s %s: %s (%s)\n", ej_text(e, "status"), ej_text(e, "family"), ej_text(e, "point"),
                    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "result")), ej_text(e, "path"),
                    ej_text(e, "mode"), ej_text(e, "detail"), ej_text(e, "where"));
    summary_line(report, sum, sizeof sum);
    fprintf(f, "%s\n", sum);
    const cJSON *again = cJSON_GetObjectItemCaseSensitive(report, "remeasurements");
    if (cJSON_IsNumber(again) && again->valuedouble > 0)
        fprintf(f, "the points of NOISY paths were measured again %d time(s); NOISY above is what the last left\n",
                (int)again->valuedouble);
}

char *ea_gate_markdown(const cJSON *report)
{
    const cJSON *e;
    char sum[512], *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    summary_line(report, sum, sizeof sum);
    fprintf(f, "### extern-audit gate: %s\n\n`%s` against `%s`, GPU model %s\n\n", sum, ej_text(report, "new"),
            ej_text(report, "stored"), ej_text(report, "gpu_model"));
    fprintf(f, "| status | family | point | result | path | mode | detail |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (strcmp(ej_text(e, "status"), "SAME"))
            fprintf(f, "| %s | %s | %s | %d | %s | %s | %s |\n", ej_text(e, "status"), ej_text(e, "family"), ej_text(e, "point"),
                    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "result")), ej_text(e, "path"),
                    ej_text(e, "mode"), ej_text(e, "detail"));
    if (ea_gate_exit(report) == 0)
        fprintf(f, "| SAME | every %s | | | | | %s |\n", cJSON_HasObjectItem(report, "rule") ? "path" : "result",
                cJSON_HasObjectItem(report, "rule") ? "within its tolerance" : "as recorded");
    fclose(f);
    return buf;
}
