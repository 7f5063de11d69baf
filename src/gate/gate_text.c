/* gate_text.c: a gate report as the terminal table, the markdown a CI job posts and JUnit XML (contract in gate.h). */
#include "gate/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* Entries neither SAME nor holding the gate: the measured floor's moves (gate.h). */
static int ungated(const cJSON *report)
{
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        n += strcmp(ej_text(e, "status"), "SAME") && !ea_gate_entry_holds(e);
    return n;
}

static void summary_line(const cJSON *report, char *buf, size_t n)
{
    const cJSON *c;
    size_t k = 0;
    int floor_moves = ungated(report);
    buf[0] = '\0';
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "summary"))
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s %d", k ? ", " : "", c->string, (int)c->valuedouble);
    if (floor_moves && k < n)
        snprintf(buf + k, n - k, "; not gated: %d entr%s of the measured floor", floor_moves,
                 floor_moves == 1 ? "y" : "ies");
    if (!k)
        snprintf(buf, n, "nothing compared");
}

/* "shard 1/2: 40 points, predicted 20.5 s (estimated)" or "merged from 2 shards", when the report is either. */
static void shard_line(const cJSON *report, FILE *f, const char *before, const char *after)
{
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(report, "shard"), *m = cJSON_GetObjectItemCaseSensitive(report, "merged");
    if (sh)
        fprintf(f, "%sshard %d/%d: %d points, predicted %.1f s from %s per-point times%s", before, (int)ej_num(sh, "index"),
                (int)ej_num(sh, "count"), cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sh, "points")),
                ej_num(sh, "predicted_s"), ej_text(cJSON_GetObjectItemCaseSensitive(sh, "plan"), "basis"), after);
    else if (m)
        fprintf(f, "%smerged from %d shard reports (per-point times %s)%s", before, (int)ej_num(m, "count"),
                ej_text(m, "basis"), after);
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
    shard_line(report, f, "", "\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (strcmp(ej_text(e, "status"), "SAME"))
            fprintf(f, "  %-8s %s %s #%d %s %s: %s (%s)\n", ej_text(e, "status"), ej_text(e, "family"), ej_text(e, "point"),
                    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "result")), ej_text(e, "path"),
                    ej_text(e, "mode"), ej_text(e, "detail"), ej_text(e, "where"));
    summary_line(report, sum, sizeof sum);
    fprintf(f, "%s\n", sum);
    const cJSON *again = cJSON_GetObjectItemCaseSensitive(report, "remeasurements");
    if (cJSON_IsNumber(again) && again->valuedouble > 0)
        fprintf(f, "the points of NOISY, SLOWER or FASTER paths were measured again %d time(s); the statuses above are the last measurement's\n",
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
    shard_line(report, f, "", "\n\n");
    fprintf(f, "| status | family | point | result | path | mode | detail |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (strcmp(ej_text(e, "status"), "SAME"))
            fprintf(f, "| %s | %s | %s | %d | %s | %s | %s |\n", ej_text(e, "status"), ej_text(e, "family"), ej_text(e, "point"),
                    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "result")), ej_text(e, "path"),
                    ej_text(e, "mode"), ej_text(e, "detail"));
    if (ea_gate_exit(report) == 0)
        fprintf(f, "| SAME | every %s%s | | | | | %s |\n", ungated(report) ? "gated " : "",
                cJSON_HasObjectItem(report, "rule") ? "path" : "result",
                cJSON_HasObjectItem(report, "rule") ? "within its tolerance" : "as recorded");
    fclose(f);
    return buf;
}

/* XML text: the five characters XML reserves escaped. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
}

/* What CI test views read. */
char *ea_gate_junit(const cJSON *report)
{
    const cJSON *e;
    char *buf = NULL;
    size_t len = 0;
    int n = 0, failed = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        n++;
        failed += ea_gate_entry_holds(e);
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"extern-audit gate ");
    xml_text(f, ej_text(report, "gpu_model"));
    fprintf(f, "\" tests=\"%d\" failures=\"%d\">\n", n, failed);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        char name[700];
        snprintf(name, sizeof name, "%s #%d %s %s", ej_text(e, "point"), (int)ej_num(e, "result"), ej_text(e, "path"),
                 ej_text(e, "mode"));
        fputs("<testcase classname=\"", f);
        xml_text(f, ej_text(e, "family"));
        fputs("\" name=\"", f);
        xml_text(f, name);
        fputs("\"", f);
        if (!strcmp(ej_text(e, "status"), "SAME")) {
            fputs("/>\n", f);
            continue;
        }
        if (!ea_gate_entry_holds(e)) { /* the measured floor's move: said, not failed */
            fputs("><system-out>", f);
            xml_text(f, ej_text(e, "status"));
            fputs(": ", f);
            xml_text(f, ej_text(e, "detail"));
            fputs("</system-out></testcase>\n", f);
            continue;
        }
        fputs("><failure message=\"", f);
        xml_text(f, ej_text(e, "status"));
        fputs("\">", f);
        xml_text(f, ej_text(e, "detail"));
        fputs(" (", f);
        xml_text(f, ej_text(e, "where"));
        fputs(")</failure></testcase>\n", f);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    fclose(f);
    return buf;
}
