/* bottom_line.c: the false-extern count and the baselines in one table each (contract in bottom_line.h). */
#include "report/bottom_line.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "measure/baseline_derived.h"
#include "measure/repro.h"
#include "report/baseline_table.h"
#include "base/json.h"
#include "base/readfile.h"
#include "target/replay_file.h"
#include "target/sanitize_record.h"
#include "target/target.h"
#include "target/target_layout.h"

static void false_externs(const cJSON *classes, FILE *f)
{
    const cJSON *op, *c;
    int64_t total = 0, false_extern = 0, pending = 0, idle = 0; /* counts of a validated summary: 64-bit sums */
    char ops[512] = "";
    size_t k = 0;
    if (!classes) {
        fprintf(f, "\nBottom line: not classified yet (no " EA_CLASSIFICATION_NAME "): which externs are false is unknown\n");
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
        fprintf(f, "  besides them, %" PRId64 " do no device work (views, host SymInt arithmetic): counted as extern, "
                   "nothing to price\n", idle);
    if (pending) /* their class is unknown, so the count above is a lower bound */
        fprintf(f, "  %" PRId64 " more not yet captured on this target (class unknown until STEPS=newops ci/gpu-check)\n",
                pending);
}

static void scope_rows(const char *file, const cJSON *doc, FILE *f)
{
    fprintf(f, "\n%s (%s; per call, median us; warm, and cold: L2 flushed before each call, - where not timed "
               "cold; floor%% of the oracle's cold time where it has one, its basis named; one row per measured "
               "configuration, mode and variant saying how rows of one alias differ; a context row, another form or "
               "distribution of a priced scope, counts no occurrence; run --plan --scope ALIAS shows a row's plan, "
               "no GPU needed):\n", file,
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "name")));
    cJSON *rows = ea_baseline_table(file, doc);
    ea_baseline_table_print(rows, f);
    cJSON_Delete(rows);
}

/* <target>/<name> when there, loaded; show prints a document its validator accepted. */
static int one_json(const ea_target *t, ea_target_file name, int (*validate)(const char *, const cJSON *, ea_error *),
                    void (*show)(const char *, const cJSON *, FILE *), FILE *f, ea_error *err)
{
    char path[4400];
    ej_doc doc;
    ea_tf_path(t->dir, name, path, sizeof path);
    int present = t->name[0] ? ea_file_present(path, err) : 0;
    if (present <= 0) {
        if (present == 0)
            fprintf(f, "\nNo %s yet (%s): a GPU run records it\n", ea_tf_name(name), t->name[0] ? path : "no target");
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

/* The record, then the registry's families its scopes do not cover whole ("all" or the family's name; an alias or a
 * point runs part of one): a clean verdict says nothing of them. */
static void sanitize_lines(const char *file, const cJSON *doc, FILE *f)
{
    char missing[512] = "";
    size_t k = 0;
    ea_sanitize_show(file, doc, f);
    for (const ea_repro_family *const *fam = ea_repro_families; *fam; fam++) {
        const cJSON *s;
        int named = 0;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
            named |= !strcmp(s->valuestring, (*fam)->name) || !strcmp(s->valuestring, "all");
        if (!named && k < sizeof missing)
            k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%s", k ? " " : "", (*fam)->name);
    }
    if (k)
        fprintf(f, "  not under the sanitizer as whole families: %s (its scopes name neither all nor them; "
                   "ci/gpu-sanitize on a GPU runs every family)\n", missing);
}

int ea_bottom_line(const ea_target *t, const cJSON *classes, FILE *f, ea_error *err)
{
    false_externs(classes, f);
    return one_json(t, EA_TF_BASELINES, ea_baseline_golden_validate, scope_rows, f, err) ||
                   one_json(t, EA_TF_REPLAY, replay_valid, replay_line, f, err) ||
                   one_json(t, EA_TF_SANITIZE, ea_sanitize_validate, sanitize_lines, f, err)
               ? -1
               : 0;
}
