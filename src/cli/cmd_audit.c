/* cmd_audit.c: `extern-audit audit`, the committed golden occurrences by op and model, the target's
 * stored classes, what still needs a GPU (no classification, unmeasured points) and the bottom line
 * (bottom_line.h); --json for the same as one document. Bad golden files exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "measure/baseline_derived.h"
#include "measure/prose.h"
#include "report/baseline_table.h"
#include "report/bottom_line.h"
#include "target/classify.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "gpu/device.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "base/readfile.h"
#include "target/target.h"
#include "target/target_layout.h"
#include "base/text_table.h"

const char ea_usage_audit[] =
    "usage: extern-audit audit [--golden DIR] [--target NAME] [--json]\n"
    "  --golden DIR   golden folder (default " EA_CLI_DEFAULT_GOLDEN ")\n"
    "  --target NAME  the target whose classification, baselines and replay are reported (default:\n"
    "                 $EXTERN_AUDIT_TARGET, else this GPU model's, else the only one)\n"
    "  --json        print JSON instead of the tables\n";

/* Every point the target's baselines.json measured, and {point: reason} of those it lists unmeasured by design (a
 * reason awaiting a GPU run leaves its point out, pending); -1 on a
 * bad baselines file (its occurrence counts against docs too). */
static int measured_points(const ea_target *t, cJSON *const docs[EA_AUDIT_OPS], cJSON *points, cJSON *unmeasured,
                           ea_error *err)
{
    char path[4400];
    ej_doc doc;
    ea_tf_path(t->dir, EA_TF_BASELINES, path, sizeof path);
    int rc = t->name[0] ? ea_file_present(path, err) : 0;
    if (rc <= 0)
        return rc;
    if (ej_load(path, &doc, err) != 0)
        return -1;
    const cJSON *sc;
    if ((rc = ea_baseline_golden_validate(path, doc.root, err) || ea_baseline_occurrences_check(path, doc.root, docs, err)) == 0)
        cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc.root, "scopes"))
            cJSON_AddItemToArray(points, cJSON_CreateString(cJSON_GetObjectItem(sc, "point")->valuestring));
    if (rc == 0)
        cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc.root, "unmeasured")) {
            const char *point = cJSON_GetObjectItem(sc, "point")->valuestring;
            /* a reason that awaits a GPU run is no reason by design: the point is pending like any unmeasured one */
            if (!ea_unmeasured_awaits_gpu(ej_str(sc, "reason")))
                cJSON_AddStringToObject(unmeasured, point, ea_baseline_unmeasured_reason(doc.root, point));
        }
    ej_free(&doc);
    return rc;
}

static int listed(const cJSON *arr, const char *s)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
        if (!strcmp(it->valuestring, s))
            return 1;
    return 0;
}

static void need(cJSON *list, const char *missing, const char *what)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "missing", missing);
    if (what)
        cJSON_AddStringToObject(p, "needs", what);
    cJSON_AddItemToArray(list, p);
}

/* The stored classification's summary ({op: {class: n, "false_extern": n}}), NULL when the file is
 * absent; -1 (as a pointer) when it is there but bad. */
static cJSON *classification_summary(const ea_target *t, ea_error *err)
{
    char path[4400];
    ea_tf_path(t->dir, EA_TF_CLASSIFICATION, path, sizeof path);
    if (!t->name[0])
        return NULL;
    int present = ea_file_present(path, err);
    if (present <= 0)
        return present < 0 ? (cJSON *)-1 : NULL;
    ej_doc doc;
    if (ej_load(path, &doc, err) != 0)
        return (cJSON *)-1;
    cJSON *s = ea_classification_validate(path, doc.root, err) ? (cJSON *)-1
                                                                : cJSON_Duplicate(cJSON_GetObjectItem(doc.root, "summary"), 1);
    ej_free(&doc);
    return s;
}

static void print_classes(const cJSON *classes)
{
    const cJSON *op, *c;
    cJSON *t = cJSON_CreateArray();
    printf("\nClasses (" EA_CLASSIFICATION_NAME ", from the captured compile behaviour):\n");
    cJSON_ArrayForEach(op, classes)
    {
        cJSON *r = ea_text_row(t);
        char b[512] = "";
        ea_text_cell(r, "%s", op->string);
        cJSON_ArrayForEach(c, op)
            snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s %d", b[0] ? " " : "", c->string, c->valueint);
        ea_text_cell(r, "%s", b);
    }
    ea_text_table_print(stdout, t, "ll", "  ");
    cJSON_Delete(t);
}

/* What the golden folder does not hold yet: the classification, and timings for every point; points the
 * baselines say are never timed, and why, go to not_timed instead (no GPU run would add them). */
static cJSON *pending_gpu_work(const char *golden, const ea_target *t, cJSON *const docs[EA_AUDIT_OPS], cJSON *not_timed,
                               ea_error *err)
{
    cJSON *list = cJSON_CreateArray(), *measured = cJSON_CreateArray(), *unmeasured = cJSON_CreateObject();
    char path[4400];
    if (t->name[0])
        ea_tf_path(t->dir, EA_TF_CLASSIFICATION, path, sizeof path);
    else
        snprintf(path, sizeof path, "%s/targets/<gpu model>-torch<version>/" EA_CLASSIFICATION_NAME, golden);
    if (!t->name[0] || ea_file_present(path, err) == 0) /* a broken link is refused by classification_summary */
        need(list, path, "classification from actual compile behaviour (tools/capture on a GPU with torch)");
    if (measured_points(t, docs, measured, unmeasured, err) != 0) {
        cJSON_Delete(list);
        cJSON_Delete(measured);
        cJSON_Delete(unmeasured);
        return NULL;
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        int total = 0, missing = 0, by_design = 0;
        const cJSON *p;
        const char *reason = NULL; /* the file's reason for a point never timed */
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(docs[i], "points"))
        {
            const char *id = cJSON_GetObjectItem(p, "point")->valuestring, *why;
            total++;
            if (listed(measured, id))
                continue;
            if ((why = cJSON_GetStringValue(cJSON_GetObjectItem(unmeasured, id))))
                by_design++, reason = reason ? reason : why;
            else
                missing++;
        }
        if (missing) {
            snprintf(path, sizeof path, "%s/" EA_BASELINES_NAME ": %d of %d %s points unmeasured",
                     t->name[0] ? t->dir : "(no target)", missing, total, ea_audit_ops[i].short_name);
            need(list, path, "current / oracle / floor timings (a repro family and extern-audit run on a GPU)");
        }
        if (by_design) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "op", ea_audit_ops[i].target);
            cJSON_AddNumberToObject(e, "points", by_design);
            cJSON_AddNumberToObject(e, "of", total);
            cJSON_AddStringToObject(e, "reason", reason);
            cJSON_AddItemToArray(not_timed, e);
        }
    }
    cJSON_Delete(measured);
    cJSON_Delete(unmeasured);
    return list;
}

/* The bottom line as the text says it, line by line, under "bottom_line"; -1 on a bad target file. */
static int bottom_line_json(cJSON *j, const ea_target *t, const cJSON *classes, ea_error *err)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return ea_fail(err, "audit: out of memory");
    int rc = ea_bottom_line(t, classes, f, err);
    fclose(f);
    cJSON *lines = cJSON_AddArrayToObject(j, "bottom_line");
    for (char *line = text, *end; !rc && line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (*line)
            cJSON_AddItemToArray(lines, cJSON_CreateString(line));
    }
    free(text);
    return rc;
}

/* The baselines' rows (baseline_table.h) under "baselines", {"file", "rows"}; null without a baselines file. */
static int baselines_json(cJSON *j, const ea_target *t, ea_error *err)
{
    char path[4400];
    ej_doc doc;
    ea_tf_path(t->dir, EA_TF_BASELINES, path, sizeof path);
    int present = t->name[0] ? ea_file_present(path, err) : 0;
    if (present <= 0) {
        cJSON_AddNullToObject(j, "baselines");
        return present;
    }
    if (ej_load(path, &doc, err))
        return -1;
    cJSON *b = cJSON_AddObjectToObject(j, "baselines");
    cJSON_AddStringToObject(b, "file", path);
    cJSON_AddItemToObject(b, "rows", ea_baseline_table(path, doc.root));
    ej_free(&doc);
    return 0;
}

int ea_cmd_audit(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("audit", "--golden --target --json", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_audit, stdout), 0);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/occurrences", o.golden);
    ea_error err;
    ea_target t;
    cJSON *docs[EA_AUDIT_OPS];
    if (ea_target_find(o.golden, o.target, &t, &err) || ea_occurrences_load(dir, docs, &err) != 0)
        return ea_cli_fail(&err);
    if (t.name[0] && ea_target_captures_check(t.dir, docs, &err)) {
        for (int i = 0; i < EA_AUDIT_OPS; i++)
            cJSON_Delete(docs[i]);
        return ea_cli_fail(&err);
    }
    cJSON *summary = ea_occurrences_summary(docs), *not_timed = cJSON_CreateArray();
    cJSON *pending = pending_gpu_work(o.golden, &t, docs, not_timed, &err);
    cJSON *classes = pending ? classification_summary(&t, &err) : NULL;
    if (!pending || classes == (cJSON *)-1) {
        cJSON_Delete(pending);
        cJSON_Delete(not_timed);
        cJSON_Delete(summary);
        for (int i = 0; i < EA_AUDIT_OPS; i++)
            cJSON_Delete(docs[i]);
        return ea_cli_fail(&err);
    }
    ea_device_info dev;
    int have_gpu = ea_device_probe(&dev);
    if (o.json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToObject(j, "target", t.name[0] ? cJSON_CreateString(t.name) : cJSON_CreateNull());
        cJSON_AddItemToObject(j, "occurrences", summary);
        cJSON_AddItemToObject(j, "classes", classes ? classes : cJSON_CreateNull());
        cJSON_AddItemToObject(j, "needs_gpu", pending);
        cJSON_AddItemToObject(j, "not_timed", not_timed);
        cJSON *d = cJSON_AddObjectToObject(j, "device");
        cJSON_AddBoolToObject(d, "present", have_gpu);
        cJSON_AddStringToObject(d, "detail", have_gpu ? dev.name : dev.reason);
        if (bottom_line_json(j, &t, classes, &err) || baselines_json(j, &t, &err))
            rc = ea_cli_fail(&err);
        else
            ea_cli_print_json(j);
        cJSON_Delete(j);
    } else {
        printf("Golden occurrences (%s)\n\n", dir);
        ea_occurrences_print(summary, stdout);
        if (classes)
            print_classes(classes);
        printf("\nNeeds a GPU:\n");
        const cJSON *p;
        cJSON_ArrayForEach(p, pending)
            printf("  %s\n      %s %s\n", cJSON_GetObjectItem(p, "missing")->valuestring,
                   cJSON_HasObjectItem(p, "reason") ? "unmeasured:" : "needs",
                   cJSON_GetStringValue(cJSON_GetObjectItem(p, cJSON_HasObjectItem(p, "reason") ? "reason" : "needs")));
        if (!cJSON_GetArraySize(pending))
            printf("  nothing: the classification is present and every point is timed or not timed by design\n");
        if (cJSON_GetArraySize(not_timed))
            printf("\nNot timed, by design (" EA_BASELINES_NAME " says why; no GPU run adds them):\n");
        cJSON_ArrayForEach(p, not_timed)
            printf("  %s: %d of %d points: %.*s\n", ej_text(p, "op"), (int)ej_num(p, "points"), (int)ej_num(p, "of"),
                   (int)strcspn(ej_text(p, "reason"), ";"), ej_text(p, "reason"));
        printf("This machine: %s\n", have_gpu ? dev.name : dev.reason);
        if (ea_bottom_line(&t, classes, stdout, &err) != 0)
            rc = ea_cli_fail(&err);
        cJSON_Delete(summary);
        cJSON_Delete(pending);
        cJSON_Delete(not_timed);
        cJSON_Delete(classes);
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return rc;
}
