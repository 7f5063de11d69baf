/* cmd_classify.c: `extern-audit classify`, the classification gate.
 * Classifies every golden occurrence from the target's captures (classify.h, target.h), prints the
 * table by op and class and the findings, then either checks the result against the target's
 * classification.json (exit 1
 * on a changed class, an unclassified occurrence or disagreeing configs) or, with --update, writes
 * it (an occurrence no capture covers recorded not_captured, exit 1). Bad input (a corrupt capture, occurrence, rule or stored classification) exits 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/capture.h"
#include "target/classify.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/cmds_impl.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "corpus/oldrule.h"
#include "base/readfile.h"
#include "target/target.h"
#include "target/target_layout.h"
#include "base/text_table.h"

const char ea_usage_classify[] =
    "usage: extern-audit classify [--golden DIR] [--target NAME] [--json] [--update]\n"
    "  --golden DIR   golden folder: occurrences/, old_rule.json, targets/ (default golden)\n"
    "  --target NAME  DIR/targets/NAME: its " EA_CAPTURES_NAME "/ and " EA_CLASSIFICATION_NAME " (default: $EXTERN_AUDIT_TARGET,\n"
    "                 else the target of this machine's GPU model, else with no GPU the only one)\n"
    "  --json         print the classification document instead of the table\n"
    "  --update       write the target's " EA_CLASSIFICATION_NAME " (an occurrence no capture covers: not_captured)\n"
    "exit 1 when a class differs from the target's " EA_CLASSIFICATION_NAME ", an occurrence is unclassified (with\n"
    "--update: recorded not_captured, the others written) or the coordinate_descent run disagrees with the\n"
    "default run; 2 on a corrupt capture or golden file\n";

int ea_classify_golden(const char *golden, const char *target_dir, cJSON **doc, ea_error *err)
{
    char path[4096];
    cJSON *docs[EA_AUDIT_OPS];
    ea_old_rule rule;
    ea_captures caps;
    int rc;
    snprintf(path, sizeof path, "%s/occurrences", golden);
    if (ea_occurrences_load(path, docs, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/old_rule.json", golden);
    if ((rc = ea_old_rule_load(path, &rule, err)) == 0) {
        if ((rc = ea_target_captures_load(target_dir, &caps, err)) == 0) {
            rc = ea_classify(docs, &caps, &rule, doc, err);
            ea_captures_free(&caps);
        }
        ea_old_rule_free(&rule);
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return rc;
}

static int class_index(const char *name)
{
    int k = 0;
    while (k < EA_CLASSES - 1 && strcmp(ea_class_names[k], name))
        k++;
    return k;
}

/* One row per op and class present: occurrences, false externs, the reason of the first
 * occurrence (entries are sorted by op then id). */
static void print_table(const cJSON *doc, FILE *f)
{
    int count[EA_AUDIT_OPS][EA_CLASSES] = {{0}}, fe[EA_AUDIT_OPS][EA_CLASSES] = {{0}}, total = 0, total_fe = 0;
    const cJSON *example[EA_AUDIT_OPS][EA_CLASSES] = {{0}}, *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "occurrences")) {
        int op = 0, k = class_index(ej_text(e, "class"));
        while (op < EA_AUDIT_OPS - 1 && strcmp(ea_audit_ops[op].target, ej_text(e, "op")))
            op++;
        int is_fe = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "false_extern"));
        count[op][k]++;
        fe[op][k] += is_fe;
        total++;
        total_fe += is_fe;
        if (!example[op][k])
            example[op][k] = e;
    }
    cJSON *t = cJSON_CreateArray(), *r = ea_text_row(t);
    for (const char *const *h = (const char *const[]){"op", "class", "occurrences", "false externs", "example reason", NULL};
         *h; h++)
        ea_text_cell(r, "%s", *h);
    for (int op = 0; op < EA_AUDIT_OPS; op++)
        for (int k = 0; k < EA_CLASSES; k++)
            if (count[op][k]) {
                r = ea_text_row(t);
                ea_text_cell(r, "%s", ea_audit_ops[op].target);
                ea_text_cell(r, "%s", ea_class_names[k]);
                ea_text_cell(r, "%d", count[op][k]);
                ea_text_cell(r, "%d", fe[op][k]);
                ea_text_cell(r, "%s", ej_text(example[op][k], "reason"));
            }
    r = ea_text_row(t);
    ea_text_cell(r, "total");
    ea_text_cell(r, "%s", "");
    ea_text_cell(r, "%d", total);
    ea_text_cell(r, "%d", total_fe);
    ea_text_table_print(f, t, "llrrl", "");
    cJSON_Delete(t);
    fputc('\n', f);
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings"), *x, *s;
    if (!cJSON_GetArraySize(findings)) {
        fprintf(f, "findings: none (no other ATen fallback in the audited scopes)\n");
        return;
    }
    fprintf(f, "findings (ATen fallbacks inside audited scopes, outside the audit set):\n");
    t = cJSON_CreateArray();
    r = ea_text_row(t);
    for (const char *const *h = (const char *const[]){"call", "scopes", "occurrences", "capture scopes", NULL}; *h; h++)
        ea_text_cell(r, "%s", *h);
    cJSON_ArrayForEach(x, findings) {
        const cJSON *scopes = cJSON_GetObjectItemCaseSensitive(x, "scopes");
        char names[1024] = "";
        r = ea_text_row(t);
        ea_text_cell(r, "%s", ej_text(x, "call"));
        ea_text_cell(r, "%d", cJSON_GetArraySize(scopes));
        ea_text_cell(r, "%d", cJSON_GetObjectItemCaseSensitive(x, "occurrences")->valueint);
        cJSON_ArrayForEach(s, scopes)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? " " : "", s->valuestring);
        ea_text_cell(r, "%s", names);
    }
    ea_text_table_print(f, t, "lrrl", "");
    cJSON_Delete(t);
}

static const cJSON *entry_by_id(const cJSON *doc, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "occurrences"))
        if (!strcmp(ej_text(e, "id"), id))
            return e;
    return NULL;
}

/* "id: before -> after" for every occurrence whose class changed, appeared or vanished. */
static int class_changes(const cJSON *stored, const cJSON *now, const char *path)
{
    int changes = 0;
    const cJSON *e;
    for (int side = 0; side < 2; side++)
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(side ? stored : now, "occurrences")) {
            const cJSON *other = entry_by_id(side ? now : stored, ej_text(e, "id"));
            const char *before = side ? ej_text(e, "class") : other ? ej_text(other, "class") : "absent";
            const char *after = side ? "absent" : ej_text(e, "class");
            if ((side && other) || !strcmp(before, after))
                continue;
            if (!changes++)
                fprintf(stderr, "extern-audit classify: classes differ from %s:\n", path);
            fprintf(stderr, "  %s: %s -> %s\n", ej_text(e, "id"), before, after);
        }
    return changes;
}

/* Unclassified occurrences and coordinate_descent disagreements: counted, and listed on stderr. */
static void report_open(const cJSON *doc, int *unclassified_out, int *disagree_out)
{
    int unclassified = 0, disagree = 0, pending = 0;
    const cJSON *e, *first = NULL, *first_pending = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "occurrences")) {
        if (!strcmp(ej_text(e, "class"), "unclassified") && !unclassified++)
            first = e;
        if (!strcmp(ej_text(e, "class"), "not_captured") && !pending++)
            first_pending = e;
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "configs_agree"))) {
            if (!disagree++)
                fprintf(stderr, "extern-audit classify: coordinate_descent and default disagree on:\n");
            fprintf(stderr, "  %s: %s\n", ej_text(e, "id"), ej_text(e, "reason"));
        }
    }
    if (unclassified)
        fprintf(stderr,
                "extern-audit classify: %d occurrence%s unclassified (no capture covers them, e.g. %s); "
                "capture them with tools/capture on a GPU\n",
                unclassified, unclassified == 1 ? "" : "s", ej_text(first, "id"));
    if (pending) /* said, not failed: the capture of an op added to the audit set is GPU work still to do */
        fprintf(stderr,
                "extern-audit classify: note: %d occurrence%s not yet captured (e.g. %s: %s)\n", pending,
                pending == 1 ? "" : "s", ej_text(first_pending, "id"), ej_text(first_pending, "reason"));
    *unclassified_out = unclassified;
    *disagree_out = disagree;
}

/* The stored classification, read and validated before anything is printed: a corrupt file fails
 * the command at once, not after the whole table. 0 with stored->root NULL: the file is absent. */
/* --update: write it, an unclassified occurrence recorded not_captured (exit 1). Otherwise check against
 * the stored file. */
static int gate(cJSON *doc, const char *golden, const ea_target *t, int update, const cJSON *stored)
{
    char path[4352];
    ea_error err;
    int unclassified, disagree;
    report_open(doc, &unclassified, &disagree);
    ea_tf_path(t->dir, EA_TF_CLASSIFICATION, path, sizeof path);
    if (update) {
        /* the classes the captures give are written; the uncaptured ones are recorded as such, and the exit
         * still says the target has a gap */
        if (ea_classification_record_uncaptured(doc))
            fprintf(stderr, "extern-audit classify: %d occurrence%s recorded not_captured in %s; the others are "
                            "classified\n", unclassified, unclassified == 1 ? "" : "s", path);
        if (ej_write_atomic(path, doc, &err) != 0)
            return ea_cli_fail(&err);
        printf("classify: wrote %s\n", path);
        return unclassified ? 1 : 0;
    }
    if (!stored) {
        fprintf(stderr,
                "extern-audit classify: %s not found; create it with: extern-audit classify --golden %s --target %s "
                "--update\n",
                path, golden, t->name);
        return 1;
    }
    int changes = class_changes(stored, doc, path);
    if (!changes && !cJSON_Compare(stored, doc, 1))
        fprintf(stderr,
                "extern-audit classify: note: %s differs in reasons, old-rule verdicts, findings or "
                "environment, not in classes; --update records them\n",
                path);
    return changes || unclassified || disagree ? 1 : 0;
}

int ea_cmd_classify(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("classify", "--golden --target --json --update", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_classify, stdout), 0);
    ea_error err;
    ej_doc stored = {0};
    ea_target t;
    cJSON *doc;
    if (ea_target_resolve(o.golden, o.target, 0, &t, &err) ||
        (!o.update && ea_classification_load(t.dir, &stored, &err) != 0) ||
        ea_classify_golden(o.golden, t.dir, &doc, &err) != 0) {
        ej_free(&stored);
        return ea_cli_fail(&err);
    }
    if (o.json) {
        ea_cli_print_json(doc);
    } else if (!o.update) { /* --update writes a file: its one line says so */
        print_table(doc, stdout);
    }
    rc = gate(doc, o.golden, &t, o.update, stored.root);
    ej_free(&stored);
    cJSON_Delete(doc);
    return rc;
}
