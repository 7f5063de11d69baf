/* bottom_line.c: the false-extern count and the baselines in one table each (contract in bottom_line.h). */
#include "bottom_line.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "json.h"
#include "path.h"
#include "readfile.h"
#include "replay_file.h"
#include "sanitize_record.h"
#include "target.h"

static void false_externs(const cJSON *classes, FILE *f)
{
    const cJSON *op, *c;
    int64_t total = 0, false_extern = 0, pending = 0, idle = 0; /* counts of a validated summary: 64-bit sums */
    char ops[512] = "";
    size_t k = 0;
    if (!classes) {
        fprintf(f, "\nBottom line: not classified yet (no classification.json): which externs are false is unknown\n");
        return;
    }
    cJSON_ArrayForEach(op, classes) {
        cJSON_ArrayForEach(c, op) {
            int64_t n = (int64_t)c->valuedouble;
            pending += !strcmp(c->string, "not_captured") ? n : 0;
            idle += !strcmp(c->string, "no_device_work") ? n : 0;
            if (strcmp(c->string, "false_extern"))
                total += n;
            else if (n > 0) {
                false_extern += n;
                if (k < sizeof ops)
                    k += (size_t)snprintf(ops + k, sizeof ops - k, "%s%s %" PRId64, k ? ", " : "", op->string, n);
            }
        }
    }
    fprintf(f, "\nBottom line: %" PRId64 " of the %" PRId64
               " occurrences the old rule files under \"extern\" are false externs (Inductor lowers them)%s%s\n",
            false_extern, total, k ? ": " : "", ops);
    if (idle)
        fprintf(f, "  %" PRId64
                   " of them do no device work (views, host SymInt arithmetic): counted as extern, nothing to price\n",
                idle);
    if (pending) /* their class is unknown, so the count above is a lower bound */
        fprintf(f, "  %" PRId64
                   " of them not yet captured on this target (class unknown until STEPS=newops ci/gpu-check)\n",
                pending);
}

/* A cold median as the table prints it: "-" for a path timed before cold timing (or without CUPTI). */
static const char *cold_text(const cJSON *path, char buf[32])
{
    double us = ea_path_median_cold(path);
    if (isnan(us))
        return "-";
    snprintf(buf, 32, "%.2f", us);
    return buf;
}

static void scope_rows(const char *file, const cJSON *doc, FILE *f)
{
    const cJSON *s;
    char cur_cold[32], orc_cold[32];
    fprintf(f, "\n%s (%s; per call, median us; warm, and cold: L2 flushed before each call, - where not timed "
               "cold; floor%% of the oracle's cold time where it has one, its basis named; one row per measured "
               "configuration, run --scope ALIAS for its details):\n", file,
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "name")));
    fprintf(f, "  %-15s %-22s %5s %10s %9s %9s %9s %9s %8s %7s %s\n", "family", "alias", "occ.", "current", "oracle",
            "cur cold", "orc cold", "floor", "speedup", "floor%", "of");
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const cJSON *floor = cJSON_GetObjectItemCaseSensitive(s, "floor");
        if (ej_str(s, "unsupported")) { /* refused by its family: nothing was measured */
            fprintf(f, "  %-15s %-22s %5.0f  UNSUPPORTED: %s\n", ej_str(s, "family"), ej_str(s, "alias"),
                    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "occurrences")), ej_str(s, "unsupported"));
            continue;
        }
        const cJSON *cur = ea_path_named(s, "current", "faithful"), *orc = ea_path_named(s, "oracle", NULL);
        const char *basis = ej_str(s, "fraction_basis");
        fprintf(f, "  %-15s %-22s %5.0f %10.2f %9.2f %9s %9s %9.2f %7.2fx %6.0f%% %s%s\n",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "family")),
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "alias")),
                cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "occurrences")), ea_path_median(cur),
                ea_path_median(orc), cold_text(cur, cur_cold), cold_text(orc, orc_cold),
                cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(floor, "us")),
                cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "speedup")),
                100 * cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "floor_fraction")),
                basis && !strcmp(basis, "time_cold") ? "cold" : "warm",
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "passed")) ? "" : "  FAILED");
    }
}

/* <target>/<name> when there, loaded; show prints a document its validator accepted. */
static int one_json(const ea_target *t, const char *name, int (*validate)(const char *, const cJSON *, ea_error *),
                    void (*show)(const char *, const cJSON *, FILE *), FILE *f, ea_error *err)
{
    char path[4400];
    ej_doc doc;
    snprintf(path, sizeof path, "%s/%s", t->dir, name);
    int present = t->name[0] ? ea_file_present(path, err) : 0;
    if (present <= 0) {
        if (present == 0)
            fprintf(f, "\nNo %s yet (%s): a GPU run records it\n", name, t->name[0] ? path : "no target");
        return present;
    }
    if (ej_load(path, &doc, err))
        return -1;
    int rc = validate(path, doc.root, err);
    if (rc == 0)
        show(path, doc.root, f);
    ej_free(&doc);
    return rc;
}

/* <target>/replay.json: strict, and one row for each of the target's captures, held or inherited. */
static int replay_valid(const char *file, const cJSON *doc, ea_error *err)
{
    char dir[4400];
    ea_captures caps;
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(file, '/') - file), file);
    if (ea_replay_file_validate(file, doc, err) || ea_target_captures_load(dir, &caps, err))
        return -1;
    int rc = ea_replay_file_covers(file, doc, &caps, err);
    ea_captures_free(&caps);
    return rc;
}

static void replay_line(const char *file, const cJSON *doc, FILE *f)
{
    int replayed, ok;
    ea_replay_file_count(doc, &replayed, &ok);
    fprintf(f, "\n%s: %d captured partitions, %d replayed from C, %d of them ok\n", file, cJSON_GetArraySize(doc),
            replayed, ok);
}

int ea_bottom_line(const ea_target *t, const cJSON *classes, FILE *f, ea_error *err)
{
    false_externs(classes, f);
    return one_json(t, "baselines.json", ea_baseline_validate, scope_rows, f, err) ||
                   one_json(t, "replay.json", replay_valid, replay_line, f, err) ||
                   one_json(t, "sanitize.json", ea_sanitize_validate, ea_sanitize_show, f, err)
               ? -1
               : 0;
}
