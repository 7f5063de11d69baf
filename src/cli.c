#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "bottom_line.h"
#include "classify.h"
#include "corpus.h"
#include "device.h"
#include "extract.h"
#include "inventory.h"
#include "json.h"
#include "occurrences.h"
#include "oldrule.h"
#include "readfile.h"
#include "target.h"

#define DEFAULT_CORPUS "build/corpus/better-benchmark"
#define DEFAULT_GOLDEN "golden"

static const char usage_main[] =
    "usage: extern-audit <command> [options]\n"
    "\n"
    "Audits what TorchInductor's model-attribution pipeline files under \"extern\".\n"
    "\n"
    "commands:\n"
    "  extract     find every audited occurrence in a better-benchmark corpus\n"
    "  inventory   every node the old rule (is_fusible_node) calls non-fusible, cross-checked with meta.json\n"
    "  audit       the committed golden occurrences, and what still needs a GPU\n"
    "  classify    each occurrence's class from the captured compile behaviour, checked against the golden file\n"
    "  replay      run each captured Inductor partition from C: outputs checked, time against torch's\n"
    "  run         repro scopes on a GPU: fabricated / faithful current / oracle / floor, checked and timed\n"
    "  gate        baselines against baselines or a fresh run: SAME, SLOWER, FASTER, NOISY per path\n"
    "  rollup      before and after accounting per model and per op, from the committed data\n"
    "  golden      diff a staged target against a golden one; accept a complete stage into golden/targets\n"
    "  help CMD    options of one command\n"
    "\n"
    "exit status: 0 ok, 1 a check found a difference, 2 bad usage or bad input\n";

static const char usage_extract[] =
    "usage: extern-audit extract [--corpus DIR] [--out DIR | --check DIR] [--json] [--cat-cap N] [--quiet]\n"
    "  --corpus DIR  better-benchmark checkout (default $EXTERN_AUDIT_CORPUS or " DEFAULT_CORPUS ")\n"
    "  --out DIR     write <op>.json and summary.json there, creating it (golden/occurrences: the golden files)\n"
    "  --check DIR   compare with the documents in DIR; exit 1 when they differ\n"
    "  --json        print the summary as JSON instead of the table\n"
    "  --cat-cap N   cats with more than N inputs are audited (default 8, max_pointwise_cat_inputs)\n"
    "  --quiet       no progress lines on stderr\n";

static const char usage_inventory[] =
    "usage: extern-audit inventory [--corpus DIR] [--rule FILE] [--json] [--quiet]\n"
    "  --corpus DIR  better-benchmark checkout (default $EXTERN_AUDIT_CORPUS or " DEFAULT_CORPUS ")\n"
    "  --rule FILE   old-rule data (default " DEFAULT_GOLDEN "/old_rule.json)\n"
    "  --json        print JSON instead of the table\n"
    "  --quiet       no progress lines on stderr\n"
    "exit 1 when a graph's counts disagree with its meta.json\n";

static const char usage_audit[] =
    "usage: extern-audit audit [--golden DIR] [--target NAME] [--json]\n"
    "  --golden DIR   golden folder (default " DEFAULT_GOLDEN ")\n"
    "  --target NAME  the target whose classification, baselines and replay are reported (default:\n"
    "                 $EXTERN_AUDIT_TARGET, else this GPU model's, else the only one)\n"
    "  --json        print JSON instead of the tables\n";

typedef ea_cli_options options;

int ea_cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "extern-audit %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see extern-audit help %s)\n", cmd);
    return 2;
}

/* Accepts only the options named in `allowed` (space-separated, e.g. "--corpus --json"). */
int ea_cli_parse(const char *cmd, const char *allowed, int argc, char **argv, options *o, int *help)
{
    const char *env = getenv("EXTERN_AUDIT_CORPUS");
    *o = (options){.corpus = env && *env ? env : DEFAULT_CORPUS, .golden = DEFAULT_GOLDEN, .cat_cap = 8};
    const struct {
        const char *name;
        const char **value;
    } strings[] = {{"--corpus", &o->corpus}, {"--out", &o->out},       {"--check", &o->check},
                   {"--rule", &o->rule},     {"--golden", &o->golden}, {"--scope", &o->scope},
                   {"--record", &o->record}, {"--mode", &o->mode}};
    const struct {
        const char *name;
        const char **value;
    } more[] = {{"--target", &o->target}};
    const struct {
        const char *name;
        int *flag;
    } flags[] = {{"--json", &o->json}, {"--quiet", &o->quiet}, {"--update", &o->update}, {"--plan", &o->plan},
                 {"--check-only", &o->check_only}};
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *inline_value = NULL;
        char name[32];
        /* --golden=DIR as well as --golden DIR */
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            inline_value = eq + 1;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            return 0;
        }
        const char *hit = strstr(allowed, a);
        size_t n = strlen(a);
        if (strncmp(a, "--", 2) || !hit || (hit[n] != ' ' && hit[n] != '\0'))
            return ea_cli_usage_error(cmd, "unknown option '%s'", a);
        int known = 0;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(a, flags[k].name))
                known = *flags[k].flag = 1;
        if (known && inline_value)
            return ea_cli_usage_error(cmd, "option '%s' takes no value", a);
        if (known)
            continue;
        if (!inline_value && i + 1 >= argc)
            return ea_cli_usage_error(cmd, "option '%s' needs a value", a);
        const char *v = inline_value ? inline_value : argv[++i];
        if (!*v) /* --golden '' would read /occurrences */
            return ea_cli_usage_error(cmd, "option '%s' needs a non-empty value", a);
        for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++)
            if (!strcmp(a, strings[k].name)) {
                *strings[k].value = v;
                known = 1;
            }
        for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
            if (!strcmp(a, more[k].name)) {
                *more[k].value = v;
                known = 1;
            }
        if (known)
            continue;
        char *end;
        long cap = strtol(v, &end, 10);
        if (*end || end == v || cap < 0 || cap > 100000)
            return ea_cli_usage_error(cmd, "--cat-cap expects an integer 0..100000, got '%s'", v);
        o->cat_cap = (int)cap;
    }
    if (o->out && o->check)
        return ea_cli_usage_error(cmd, "%s", "--out and --check exclude each other");
    return 0;
}

int ea_cli_fail(const ea_error *err)
{
    fprintf(stderr, "extern-audit: %s\n", err->msg);
    return 2;
}

void ea_cli_print_json(const cJSON *j)
{
    char *s = cJSON_Print(j);
    if (s)
        printf("%s\n", s);
    free(s);
}

/* 0 when every document in dir equals the extracted one, 1 otherwise (differences on stderr). */
static int check_against(const ea_extraction *x, const char *dir, ea_error *err)
{
    cJSON *golden[EA_AUDIT_OPS];
    if (ea_occurrences_load(dir, golden, err) != 0)
        return 2;
    int differ = 0;
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        if (!cJSON_Compare(golden[i], x->docs[i], 1)) {
            fprintf(stderr, "extern-audit: %s/%s.json differs from the corpus extraction; "
                            "regenerate with: extern-audit extract --out %s\n",
                    dir, ea_audit_ops[i].short_name, dir);
            differ = 1;
        }
        cJSON_Delete(golden[i]);
    }
    /* summary.json as well: nothing else reads it back, so a tampered one would pass unseen */
    char path[4096];
    ej_doc summary;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (ej_load(path, &summary, err) != 0)
        return 2;
    if (!cJSON_Compare(summary.root, x->summary, 1)) {
        fprintf(stderr, "extern-audit: %s differs from the corpus extraction; regenerate with: extern-audit extract --out %s\n",
                path, dir);
        differ = 1;
    }
    ej_free(&summary);
    return differ;
}

static int cmd_extract(int argc, char **argv)
{
    options o;
    int help, rc = ea_cli_parse("extract", "--corpus --out --check --json --cat-cap --quiet", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(usage_extract, stdout), 0);
    ea_error err;
    ea_corpus c;
    ea_extraction x;
    if (ea_corpus_open(o.corpus, &c, &err) != 0)
        return ea_cli_fail(&err);
    ea_extract_opts eo = {o.cat_cap, o.quiet ? NULL : stderr};
    rc = ea_extract(&c, &eo, &x, &err);
    ea_corpus_free(&c);
    if (rc != 0)
        return ea_cli_fail(&err);
    if (o.out && ea_extraction_write(&x, o.out, &err) != 0)
        rc = ea_cli_fail(&err);
    else if (o.check && (rc = check_against(&x, o.check, &err)) == 2)
        ea_cli_fail(&err);
    if (rc != 2) {
        if (o.json)
            ea_cli_print_json(x.summary);
        else
            ea_extraction_print(&x, stdout);
    }
    ea_extraction_free(&x);
    return rc;
}

static int cmd_inventory(int argc, char **argv)
{
    options o;
    int help, rc = ea_cli_parse("inventory", "--corpus --rule --json --quiet", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(usage_inventory, stdout), 0);
    ea_error err;
    ea_old_rule rule;
    ea_corpus c;
    cJSON *inv;
    if (ea_old_rule_load(o.rule ? o.rule : DEFAULT_GOLDEN "/old_rule.json", &rule, &err) != 0)
        return ea_cli_fail(&err);
    if (ea_corpus_open(o.corpus, &c, &err) != 0) {
        ea_old_rule_free(&rule);
        return ea_cli_fail(&err);
    }
    rc = ea_inventory(&c, &rule, o.quiet ? NULL : stderr, &inv, &err);
    ea_corpus_free(&c);
    ea_old_rule_free(&rule);
    if (rc != 0)
        return ea_cli_fail(&err);
    if (o.json)
        ea_cli_print_json(inv);
    else
        ea_inventory_print(inv, stdout);
    rc = cJSON_GetArraySize(cJSON_GetObjectItem(inv, "mismatches")) ? 1 : 0;
    cJSON_Delete(inv);
    return rc;
}

/* Every point the target's baselines.json measured; -1 on a bad baselines file. */
static int measured_points(const ea_target *t, cJSON *points, ea_error *err)
{
    char path[4400];
    ej_doc doc;
    snprintf(path, sizeof path, "%s/baselines.json", t->dir);
    int rc = t->name[0] ? ea_file_present(path, err) : 0;
    if (rc <= 0)
        return rc;
    if (ej_load(path, &doc, err) != 0)
        return -1;
    const cJSON *sc;
    if ((rc = ea_baseline_validate(path, doc.root, err)) == 0)
        cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc.root, "scopes"))
            cJSON_AddItemToArray(points, cJSON_CreateString(cJSON_GetObjectItem(sc, "point")->valuestring));
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
    cJSON_AddStringToObject(p, "needs", what);
    cJSON_AddItemToArray(list, p);
}

/* The stored classification's summary ({op: {class: n, "false_extern": n}}), NULL when the file is
 * absent; -1 (as a pointer) when it is there but bad. */
static cJSON *classification_summary(const ea_target *t, ea_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/classification.json", t->dir);
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
    printf("\nClasses (classification.json, from the captured compile behaviour):\n");
    cJSON_ArrayForEach(op, classes)
    {
        printf("  %-26s", op->string);
        cJSON_ArrayForEach(c, op)
            printf(" %s %d", c->string, c->valueint);
        printf("\n");
    }
}

/* What the golden folder does not hold yet: the classification, and timings for every point. */
static cJSON *pending_gpu_work(const char *golden, const ea_target *t, cJSON *const docs[EA_AUDIT_OPS], ea_error *err)
{
    cJSON *list = cJSON_CreateArray(), *measured = cJSON_CreateArray();
    char path[4400];
    if (t->name[0])
        snprintf(path, sizeof path, "%s/classification.json", t->dir);
    else
        snprintf(path, sizeof path, "%s/targets/<gpu model>-torch<version>/classification.json", golden);
    if (!t->name[0] || ea_file_present(path, err) == 0) /* a broken link is refused by classification_summary */
        need(list, path, "classification from actual compile behaviour (tools/capture on a GPU with torch)");
    if (measured_points(t, measured, err) != 0) {
        cJSON_Delete(list);
        cJSON_Delete(measured);
        return NULL;
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        int total = 0, missing = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(docs[i], "points"))
        {
            total++;
            missing += !listed(measured, cJSON_GetObjectItem(p, "point")->valuestring);
        }
        if (!missing)
            continue;
        snprintf(path, sizeof path, "%s/baselines.json: %d of %d %s points unmeasured",
                 t->name[0] ? t->dir : "(no target)", missing, total, ea_audit_ops[i].short_name);
        need(list, path, "current / oracle / floor timings (a repro family and extern-audit run on a GPU)");
    }
    cJSON_Delete(measured);
    return list;
}

static int cmd_audit(int argc, char **argv)
{
    options o;
    int help, rc = ea_cli_parse("audit", "--golden --target --json", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(usage_audit, stdout), 0);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/occurrences", o.golden);
    ea_error err;
    ea_target t;
    cJSON *docs[EA_AUDIT_OPS];
    if (ea_target_find(o.golden, o.target, &t, &err) || ea_occurrences_load(dir, docs, &err) != 0)
        return ea_cli_fail(&err);
    cJSON *summary = ea_occurrences_summary(docs);
    cJSON *pending = pending_gpu_work(o.golden, &t, docs, &err);
    cJSON *classes = pending ? classification_summary(&t, &err) : NULL;
    if (!pending || classes == (cJSON *)-1) {
        cJSON_Delete(pending);
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
        cJSON *d = cJSON_AddObjectToObject(j, "device");
        cJSON_AddBoolToObject(d, "present", have_gpu);
        cJSON_AddStringToObject(d, "detail", have_gpu ? dev.name : dev.reason);
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
            printf("  %s\n      needs %s\n", cJSON_GetObjectItem(p, "missing")->valuestring,
                   cJSON_GetObjectItem(p, "needs")->valuestring);
        if (!cJSON_GetArraySize(pending))
            printf("  nothing: the classification and a baseline for every point are present\n");
        printf("This machine: %s\n", have_gpu ? dev.name : dev.reason);
        if (ea_bottom_line(&t, classes, stdout, &err) != 0)
            rc = ea_cli_fail(&err);
        cJSON_Delete(summary);
        cJSON_Delete(pending);
        cJSON_Delete(classes);
    }
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    return rc;
}

int ea_main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
        const char *usage;
    } cmds[] = {
        {"extract", cmd_extract, usage_extract},
        {"inventory", cmd_inventory, usage_inventory},
        {"audit", cmd_audit, usage_audit},
        {"classify", ea_cmd_classify, ea_usage_classify},
        {"replay", ea_cmd_replay, ea_usage_replay},
        {"run", ea_cmd_run, ea_usage_run},
        {"gate", ea_cmd_gate, ea_usage_gate},
        {"rollup", ea_cmd_rollup, ea_usage_rollup},
        {"golden", ea_cmd_golden, ea_usage_golden},
    };
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        for (size_t i = 0; argc > 2 && i < sizeof cmds / sizeof cmds[0]; i++)
            if (!strcmp(argv[2], cmds[i].name))
                return fputs(cmds[i].usage, stdout), 0;
        if (argc > 2)
            fprintf(stderr, "extern-audit help: unknown command '%s'\n", argv[2]);
        fputs(usage_main, argc > 2 ? stderr : stdout);
        return argc > 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].run(argc - 2, argv + 2);
    fprintf(stderr, "extern-audit: unknown command '%s'\n%s", cmd, usage_main);
    return 2;
}
