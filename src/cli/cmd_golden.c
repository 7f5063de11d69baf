/* cmd_golden.c: extern-audit golden diff (what a staged target changes, for review), golden accept
 * (install a complete stage as golden/targets/<name> in one step), golden price (a candidate
 * lowering's stage against its base target, candidate.h), golden migrate (older baselines schemas) and golden
 * rebase (a candidate's kept entries following its base, golden_rebase.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "golden/baseline_migrate.h"
#include "golden/candidate.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "golden/golden_accept.h"
#include "base/readfile.h"
#include "golden/golden_diff.h"
#include "golden/golden_install.h"
#include "golden/golden_rebase.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "target/target.h"
#include "target/target_layout.h"

const char ea_usage_golden[] =
    "usage: extern-audit golden diff OLD NEW [--golden DIR] [--json] [--markdown FILE]\n"
    "       extern-audit golden accept STAGED [--golden DIR] [--json]\n"
    "       extern-audit golden price STAGED [--golden DIR] [--target NAME] [--json]\n"
    "       extern-audit golden migrate [--golden DIR] [FILE]\n"
    "       extern-audit golden rebase [--golden DIR] [--check] [CANDIDATE]\n"
    "  diff OLD NEW     compare two target folders (golden/targets/<target>, or a stage of that layout):\n"
    "                   class transitions with the old rule's verdict and the false-extern flag, points\n"
    "                   added and removed, partitions whose kernels or launch shapes changed, capture\n"
    "                   boundaries that moved, and timings moved by the gate's drift rule; summaries by op\n"
    "                   and by model first. A partial stage (" EA_TARGET_NAME " \"scopes\") is compared only on its\n"
    "                   scopes: the rest is \"not staged\", never \"removed\"\n"
    "  accept STAGED    install a complete staged target as <golden>/targets/<name> (copy beside it, then one\n"
    "                   rename; the old folder goes only once the new one is in place). Refused, with every\n"
    "                   reason listed, when an occurrence has no capture (but a view's or host arithmetic's,\n"
    "                   and in a candidate's stage one of an op added since its base: not_captured), a point no\n"
    "                   baseline, a capture, baseline or torch_ops file is of another GPU model than " EA_TARGET_NAME ",\n"
    "                   the classification\n"
    "                   is unreadable or not what the captures give, " EA_REPLAY_NAME " or " EA_TORCH_OPS_NAME " is absent,\n"
    "                   or the stage is partial. Logs and step markers stay in the stage\n"
    "  price STAGED     a candidate lowering's stage (ci/golden-stage --lowering NAME) priced per scope it\n"
    "                   re-captured: ATen today (faithful, fabricated), the candidate (today's path less the\n"
    "                   partition's saving, both partitions timed in one torch process), the oracle, the\n"
    "                   floor, and the share of the oracle's headroom recovered (under 25%: \"measured, not\n"
    "                   profitable\"); every oracle must be no slower than the candidate of its scope\n"
    "  migrate          rewrite every target's " EA_BASELINES_NAME " of an older schema as today's (docs/reference/schema.md:\n"
    "                   its sentences become the ids and numbers they are rendered from; no number changes);\n"
    "                   a file already of today's schema is left as it is. FILE: that baselines file alone (a\n"
    "                   stage's, a gate --save, a test fixture)\n"
    "  rebase           a candidate's " EA_BASELINES_NAME " (every candidate target of golden, or CANDIDATE) made its\n"
    "                   base's as it is today (run figures and launch floor too) for every point it kept,\n"
    "                   its own for every point it recaptured under the lowering (and for a point the base\n"
    "                   measured after the candidate was staged, which the candidate cannot plan). Run it\n"
    "                   after the base's " EA_BASELINES_NAME " moves (gate --propose); the files change together or\n"
    "                   not at all, and one already today's keeps its bytes. --check: write nothing, exit 1\n"
    "                   naming each file that is not today's (ci/check-golden)\n"
    "  --target NAME    price: the base target (default: as rollup picks it; never a candidate's)\n"
    "  --golden DIR     golden folder: shared occurrences and old rule, targets/ (default golden)\n"
    "  --json           print the report (diff: extern-audit/golden-diff; accept: the problems) as JSON\n"
    "  --markdown FILE  diff: write the report as markdown (what a reviewer reads in a pull request; - :\n"
    "                   standard output, instead of the table)\n"
    "exit status: diff: 0 nothing differs, 1 something does, 2 bad usage or bad input (file and JSON path\n"
    "named); accept: 0 installed, 1 refused (incomplete or inconsistent stage), 2 bad usage, a stage file\n"
    "that does not read, or the install failed (the old target is then left as it was); price: 0 every scope\n"
    "priced and no oracle slower than its candidate, 1 otherwise (each named), 2 bad usage or bad input; migrate:\n"
    "0 every file of today's schema, 2 a file that does not migrate (file and JSON path named; none is written then);\n"
    "rebase: 0 every file today's (written where it was not), 1 --check found one that is not, 2 bad usage or a\n"
    "file that does not read (named; none is written then)\n";

typedef struct {
    const char *golden, *markdown, *target, *args[2];
    int json, nargs;
} golden_options;

static int parse(const char *sub, int want, int argc, char **argv, golden_options *o, int *help)
{
    ea_cli_options c;
    int rc = ea_cli_parse("golden", want == 2 ? "ARGS --golden --json --markdown"
                                    : !strcmp(sub, "price") ? "ARGS --golden --json --target"
                                                            : "ARGS --golden --json",
                          argc, argv, &c, help);
    if (rc || *help)
        return rc;
    *o = (golden_options){.golden = c.golden, .markdown = c.markdown, .target = c.target, .json = c.json,
                          .nargs = c.nargs, .args = {c.args[0], c.args[1]}};
    int dash;
    if ((rc = ea_cli_stdout_once("golden", o->json, &o->markdown, 1, &dash)))
        return rc;
    if (o->nargs != want)
        return ea_cli_usage_error("golden", want == 2 ? "%s needs OLD and NEW target folders" : "%s needs the STAGED folder", sub);
    struct stat st; /* named as given, before any file in them is read */
    for (int i = 0; i < o->nargs; i++)
        if (stat(o->args[i], &st) || !S_ISDIR(st.st_mode))
            return ea_cli_usage_error("golden", "%s: not a folder (expected a target folder, golden/targets/<target> or a "
                                                "stage, holding " EA_TARGET_NAME ")", o->args[i]);
    return 0;
}

static int cmd_diff(int argc, char **argv)
{
    golden_options o;
    int help, rc = parse("diff", 2, argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_golden, stdout), 0);
    char dir[4200];
    cJSON *docs[EA_AUDIT_OPS];
    ea_golden_target t[2];
    ea_error err;
    snprintf(dir, sizeof dir, "%s/occurrences", o.golden);
    if (ea_occurrences_load(dir, docs, &err))
        return ea_cli_fail(&err);
    int loaded = 0;
    while (loaded < 2 && ea_golden_target_load(o.args[loaded], &t[loaded], &err) == 0)
        loaded++;
    if (loaded == 2) {
        ea_drift_rule rule = ea_drift_default_rule(0);
        cJSON *report = ea_golden_diff(docs, &t[0], &t[1], &rule);
        if (o.json)
            ea_cli_print_json(report);
        else if (!o.markdown || strcmp(o.markdown, "-")) /* "-": stdout carries the markdown alone */
            ea_golden_diff_print(report, stdout);
        rc = ea_golden_diff_exit(report);
        char *md = o.markdown ? ea_golden_diff_markdown(report) : NULL;
        FILE *said = o.json ? stderr : stdout; /* the one line a file written gets: not inside the JSON */
        if (o.markdown && ea_cli_write_output("golden diff", "markdown", o.markdown, md, said, &err))
            rc = ea_cli_fail(&err);
        free(md);
        cJSON_Delete(report);
    } else {
        rc = ea_cli_fail(&err);
    }
    for (int i = 0; i < loaded; i++)
        ea_golden_target_free(&t[i]);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return rc;
}

static int cmd_accept(int argc, char **argv)
{
    golden_options o;
    int help, bad = 0, rc = parse("accept", 1, argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_golden, stdout), 0);
    ea_target_info info = {0};
    ea_error err;
    fprintf(stderr, "golden accept: checking %s\n", o.args[0]);
    cJSON *problems = ea_golden_accept_check(o.golden, o.args[0], &info, &bad, &err);
    if (!problems)
        return ea_cli_fail(&err);
    int n = cJSON_GetArraySize(problems);
    char dest[4400] = "";
    if (!n) {
        /* a candidate's base, "<gpu_model>-torch<torch>" (target.h's name rule), when golden has it: the candidate
         * then inherits the captures it did not recapture instead of holding a copy */
        char base[200], base_json[4600];
        snprintf(base, sizeof base, "%s-torch%s", info.target.gpu_model, info.target.torch);
        snprintf(dest, sizeof dest, "%s/targets/%s", o.golden, base);
        ea_tf_path(dest, EA_TF_TARGET, base_json, sizeof base_json);
        int has_base = info.lowering && ea_file_present(base_json, &err) > 0;
        snprintf(dest, sizeof dest, "%s/targets/%s", o.golden, info.target.name);
        fprintf(stderr, "golden accept: complete; installing as %s%s%s\n", dest,
                has_base ? ", inheriting the captures it shares byte for byte with " : "", has_base ? base : "");
        rc = ea_golden_install(o.args[0], o.golden, info.target.name, has_base ? base : NULL, &err) ? ea_cli_fail(&err)
                                                                                                   : 0;
    } else {
        rc = bad ? 2 : 1;
    }
    if (o.json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "staged", o.args[0]);
        cJSON_AddItemToObject(j, "installed", rc == 0 ? cJSON_CreateString(dest) : cJSON_CreateNull());
        cJSON_AddItemToObject(j, "problems", problems);
        ea_cli_print_json(j);
        cJSON_Delete(j);
    } else {
        const cJSON *p;
        cJSON_ArrayForEach(p, problems)
            fprintf(stderr, "extern-audit golden accept: %s\n", p->valuestring);
        if (n)
            fprintf(stderr, "extern-audit golden accept: refused: %d problem(s) in %s; golden is unchanged\n", n, o.args[0]);
        else if (rc == 0)
            printf("installed %s as %s\n", o.args[0], dest);
        cJSON_Delete(problems);
    }
    ea_target_info_free(&info);
    return rc;
}

static void cell(const cJSON *o, const char *key, int width)
{
    double v = ej_num(o, key);
    if (isfinite(v))
        printf(" %*.2f", width, v);
    else
        printf(" %*s", width, "-");
}

static void price_print(const cJSON *doc)
{
    const cJSON *e, *f;
    printf("candidate %s (%s) against %s\n  stands for: %s\n", ej_str(doc, "lowering"), ej_str(doc, "target"),
           ej_str(doc, "base"), ej_str(doc, "stands_for") ? ej_str(doc, "stands_for") : "-");
    printf("  per call, median us; candidate = ATen path less the partition's saving (torch.compile, one process)\n"
           "  +- the candidate's half-width: the notches (1.57 IQR / sqrt(n)) of its three medians summed\n");
    printf("  %-38s %-14s %4s %10s %10s %10s %8s %10s %10s %10s  %s\n", "scope", "alias", "occ.", "ATen", "ATen fab.",
           "candidate", "+-", "oracle", "floor", "recovered", "label");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
    {
        printf("  %-38s %-14s %4d", ej_str(e, "scope"), ej_str(e, "alias"), (int)ej_num(e, "occurrences"));
        cell(e, "aten_us", 10);
        cell(e, "aten_fabricated_us", 10);
        cell(e, "candidate_us", 10);
        cell(e, "candidate_pm_us", 8);
        cell(e, "oracle_us", 10);
        cell(e, "floor_us", 10);
        double r = ej_num(e, "recovered");
        if (isfinite(r))
            printf(" %9.0f%%", 100 * r);
        else
            printf(" %10s", "-");
        printf("  %s%s%s\n", ej_str(e, "label"), ej_str(e, "unpriced") ? ": " : "",
               ej_text(e, "unpriced"));
    }
    printf("  fabricated (the pipeline's randint index, derived as above) and the partition's worst relative L2 error\n"
           "  against the scope in float64: eager (ATen), today's compiled code, the candidate's\n");
    printf("  %-38s %-14s %10s %10s %8s %10s %10s %10s  %s\n", "scope", "alias", "ATen fab.", "cand. fab.", "+-",
           "fp64 eager", "today", "candidate", "notes");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
    {
        const cJSON *fp = cJSON_GetObjectItemCaseSensitive(e, "fp64");
        printf("  %-38s %-14s", ej_str(e, "scope"), ej_str(e, "alias"));
        cell(e, "aten_fabricated_us", 10);
        cell(e, "candidate_fabricated_us", 10);
        cell(e, "candidate_fabricated_pm_us", 8);
        static const char *const errs[] = {"eager", "without_lowering", "candidate"};
        for (int i = 0; i < 3; i++) {
            double v = ej_num(fp, errs[i]);
            if (isfinite(v))
                printf(" %10.2e", v);
            else
                printf(" %10s", "-");
        }
        const char *fab = ej_str(e, "fabricated_note"), *f64 = ej_str(e, "fp64_note");
        printf("  %s%s%s\n", fab ? fab : "", fab && f64 ? "; " : "", f64 ? f64 : "");
    }
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "failures"))
        fprintf(stderr, "extern-audit golden price: %s\n", f->valuestring);
}

static int cmd_price(int argc, char **argv)
{
    golden_options o;
    int help, rc = parse("price", 1, argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_golden, stdout), 0);
    ea_target base;
    ej_doc baselines;
    ea_error err;
    cJSON *doc;
    if (ea_target_find(o.golden, o.target, &base, &err) ||
        (!base.name[0] && ea_fail(&err, "%s/targets: expected a base target to price the candidate against, got none",
                                  o.golden)) ||
        ea_target_baselines_load(base.dir, &baselines, &err))
        return ea_cli_fail(&err);
    fprintf(stderr, "golden price: %s against %s\n", o.args[0], base.name);
    rc = ea_candidate_price(o.args[0], &base, baselines.root, &doc, &err);
    ej_free(&baselines);
    if (rc)
        return ea_cli_fail(&err);
    if (o.json)
        ea_cli_print_json(doc);
    else
        price_print(doc);
    const cJSON *e;
    rc = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "failures")) ? 1 : 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        if (ej_str(e, "unpriced")) {
            fprintf(stderr, "extern-audit golden price: %s: unpriced: %s\n", ej_str(e, "scope"), ej_str(e, "unpriced"));
            rc = 1;
        }
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "scopes"))) {
        fprintf(stderr, "extern-audit golden price: %s: no scope was captured under the lowering \"%s\": nothing to "
                        "price\n", o.args[0], ej_str(doc, "lowering") ? ej_str(doc, "lowering") : "?");
        rc = 1;
    }
    cJSON_Delete(doc);
    return rc;
}

/* One baselines file migrated, against the torch-ops file of its folder (what its fidelity copied). */
static int migrate_one(const char *file, cJSON *doc, ea_error *err)
{
    char dir[4200];
    const char *slash = strrchr(file, '/');
    ea_torch_ops ops = {0};
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    int rc = ea_torch_ops_load_dir(dir, ej_str(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "model"), &ops, err)
                 ? -1
                 : ea_baseline_migrate(file, doc, &ops, err);
    ea_torch_ops_free(&ops);
    return rc;
}

/* Every target's baselines file read and migrated, then the migrated ones written as one set (ej_write_files_atomic):
 * one that does not migrate, or a write that fails, leaves every file as it was. */
static int cmd_migrate(int argc, char **argv)
{
    ea_cli_options c;
    int help, rc = ea_cli_parse("golden", "ARGS --golden", argc, argv, &c, &help), n = 1, k = 0;
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_golden, stdout), 0);
    if (c.nargs > 1)
        return ea_cli_usage_error("golden", "migrate takes at most one FILE, got a second: %s", c.args[1]);
    ea_target *t = NULL;
    ea_error err;
    if (c.nargs == 0 && ea_targets_list(c.golden, &t, &n, &err))
        return ea_cli_fail(&err);
    char (*paths)[4200] = calloc((size_t)n + 1, sizeof *paths);
    const char **names = calloc((size_t)n + 1, sizeof *names);
    char **texts = calloc((size_t)n + 1, sizeof *texts);
    if (!paths || !names || !texts)
        rc = (fprintf(stderr, "golden migrate: out of memory\n"), 2);
    for (int i = 0; rc == 0 && i < n; i++) {
        ej_doc doc = {0};
        if (t)
            snprintf(paths[k], sizeof paths[k], "%s/" EA_BASELINES_NAME, t[i].dir);
        else
            snprintf(paths[k], sizeof paths[k], "%s", c.args[0]);
        int m = t && access(paths[k], F_OK) ? 1 : ej_load(paths[k], &doc, &err) ? -1 : migrate_one(paths[k], doc.root, &err);
        char *text = m == 0 ? ej_print_layered(doc.root, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER) : NULL;
        size_t len = text ? strlen(text) : 0;
        if (m < 0 || (m == 0 && !text))
            rc = m < 0 ? ea_cli_fail(&err) : (fprintf(stderr, "golden migrate: out of memory\n"), 2);
        else if (m == 0 && (texts[k] = realloc(text, len + 2))) {
            memcpy(texts[k] + len, "\n", 2);
            names[k] = paths[k];
            k++;
        } else {
            free(text);
            fprintf(stderr, "golden migrate: %s: %s\n", paths[k], m == 1 ? "already of today's schema, or absent: kept"
                                                                        : "out of memory");
            rc = m == 1 ? 0 : 2;
        }
        ej_free(&doc);
    }
    if (rc == 0 && ea_write_files_atomic(names, (const char *const *)texts, k, &err))
        rc = ea_cli_fail(&err);
    for (int i = 0; rc == 0 && i < k; i++)
        fprintf(stderr, "golden migrate: %s: migrated to schema %d\n", names[i], EA_BASELINES_VERSION);
    for (int i = 0; texts && i < k; i++)
        free(texts[i]);
    free(texts);
    free(names);
    free(paths);
    free(t);
    return rc;
}

/* Every candidate target of golden (or the one named) rebased on its base; written as one set, or checked. */
static int cmd_rebase(int argc, char **argv)
{
    ea_cli_options c;
    int help, rc = ea_cli_parse("golden", "ARGS --golden --check!", argc, argv, &c, &help), n = 1;
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_golden, stdout), 0);
    if (c.nargs > 1)
        return ea_cli_usage_error("golden", "rebase takes at most one CANDIDATE folder, got a second: %s", c.args[1]);
    ea_target *t = NULL;
    ea_error err;
    cJSON *docs[EA_AUDIT_OPS] = {0};
    char occ[4200];
    snprintf(occ, sizeof occ, "%s/occurrences", c.golden);
    if (ea_occurrences_load(occ, docs, &err) || (c.nargs == 0 && ea_targets_list(c.golden, &t, &n, &err))) {
        for (int i = 0; i < EA_AUDIT_OPS; i++)
            cJSON_Delete(docs[i]);
        return ea_cli_fail(&err);
    }
    ea_rebase *r = calloc((size_t)n + 1, sizeof *r);
    const char **names = calloc((size_t)n + 1, sizeof *names), **texts = calloc((size_t)n + 1, sizeof *texts);
    int k = 0, stale = 0, done = 0;
    if (!r || !names || !texts)
        rc = (fprintf(stderr, "golden rebase: out of memory\n"), 2);
    for (int i = 0; rc == 0 && i < n; i++) {
        if (t && !t[i].lowering[0])
            continue;
        if (ea_golden_rebase(docs, t ? t[i].dir : c.args[0], &r[done], &err)) {
            rc = ea_cli_fail(&err);
            break;
        }
        ea_rebase *x = &r[done++];
        char what[700];
        snprintf(what, sizeof what, "%d of today's entries taken, %d of its own dropped%s%s", x->taken, x->dropped,
                 x->taken || x->dropped ? "; the first: " : " (its header or its entries' order moved)", x->first);
        if (x->same) {
            fprintf(stderr, "golden rebase: %s: today's (%s's entries where it kept them)\n", x->file, x->base);
        } else if (c.check_flag) {
            fprintf(stderr, "golden rebase: %s is not what its base %s gives today: %s; run extern-audit golden "
                            "rebase\n", x->file, x->base, what);
            stale++;
        } else {
            fprintf(stderr, "golden rebase: %s: %s\n", x->file, what);
            names[k] = x->file;
            texts[k++] = x->text;
        }
    }
    if (rc == 0 && k && ea_write_files_atomic(names, texts, k, &err))
        rc = ea_cli_fail(&err);
    else if (rc == 0 && k)
        fprintf(stderr, "golden rebase: %d file%s written\n", k, k == 1 ? "" : "s");
    if (rc == 0 && !done)
        fprintf(stderr, "golden rebase: no candidate target under %s/targets\n", c.golden);
    for (int i = 0; r && i < done; i++)
        ea_rebase_free(&r[i]);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    free(r);
    free(names);
    free(texts);
    free(t);
    return rc ? rc : stale ? 1 : 0;
}

int ea_cmd_golden(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "rebase"))
        return cmd_rebase(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "migrate"))
        return cmd_migrate(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "price"))
        return cmd_price(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "diff"))
        return cmd_diff(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "accept"))
        return cmd_accept(argc - 1, argv + 1);
    if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")))
        return fputs(ea_usage_golden, stdout), 0;
    return ea_cli_usage_error("golden", "expected a subcommand, diff, accept, price, migrate or rebase, got '%s'", argc ? argv[0] : "");
}
