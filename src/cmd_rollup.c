/* cmd_rollup.c: `extern-audit rollup`, the model rollup (rollup.h) and its reports (report.h).
 * Reads committed data only; writes the terminal table or --json on stdout, and any of --markdown,
 * --html, --v3 to files (atomically; "-" is stdout, which then carries only that). --check makes the
 * seed's completion criterion a gate: exit 1 on any failure listed on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "report.h"
#include "rollup.h"

#define TOP_MODELS 10

const char ea_usage_rollup[] =
    "usage: extern-audit rollup [--golden DIR] [--corpus DIR] [--target NAME] [--json] [--markdown FILE]\n"
    "                           [--html FILE] [--v3 FILE] [--check]\n"
    "  --golden DIR     golden folder (default golden): occurrences/, seed_totals.json, targets/\n"
    "  --corpus DIR     better-benchmark checkout for the corpus's model accounting (default\n"
    "                   $EXTERN_AUDIT_CORPUS or build/corpus/better-benchmark; absent: that column says so)\n"
    "  --target NAME    the target whose classification.json, baselines.json and torch_ops.json price\n"
    "                   \"after\" (default: $EXTERN_AUDIT_TARGET, else this GPU model's, else the only one)\n"
    "  --json           print the whole rollup document instead of the tables\n"
    "  --markdown FILE  the tables as markdown (a PR comment, the README's results section)\n"
    "  --html FILE      one self-contained page with SVG charts and the tables\n"
    "  --v3 FILE        PyTorch benchmark-database v3 records (the HUD's format)\n"
    "  --check          exit 1 when a lowered occurrence is counted as extern, a fallback lacks its\n"
    "                   label, or a scope is unpriced without a stated reason\n"
    "FILE - writes to stdout. Figures of different GPUs (the seed's B200, the baselines' GPU) are never added.\n";

typedef struct {
    const char *markdown, *html, *v3;
    int check;
} extra;

/* Takes rollup's own options out of argv (the shared parser knows the rest); 2 on a missing value. */
static int take_extra(int *argc, char **argv, extra *x)
{
    const struct {
        const char *name;
        const char **value;
    } opts[] = {{"--markdown", &x->markdown}, {"--html", &x->html}, {"--v3", &x->v3}};
    int k = 0;
    memset(x, 0, sizeof *x);
    for (int i = 0; i < *argc; i++) {
        int taken = 0;
        if (!strcmp(argv[i], "--check"))
            taken = x->check = 1;
        for (size_t o = 0; o < sizeof opts / sizeof opts[0] && !taken; o++)
            if (!strcmp(argv[i], opts[o].name)) {
                if (i + 1 >= *argc)
                    return ea_cli_usage_error("rollup", "option '%s' needs a value", argv[i]);
                *opts[o].value = argv[++i];
                taken = 1;
            }
        if (!taken)
            argv[k++] = argv[i];
    }
    *argc = k;
    return 0;
}

/* The reports asked for: "-" to stdout, the files written as one set (json.h), so two reports never disagree. */
static int outputs(const extra *x, const cJSON *doc, ea_error *err)
{
    const char *files[3] = {x->markdown, x->html, x->v3}, *paths[3];
    char *texts[3] = {NULL, NULL, NULL};
    const char *to_write[3];
    int n = 0, rc = 0;
    if (x->markdown)
        texts[0] = ea_report_markdown(doc);
    if (x->html)
        texts[1] = ea_report_html(doc);
    if (x->v3) {
        cJSON *v3 = ea_report_v3(doc);
        texts[2] = cJSON_Print(v3);
        cJSON_Delete(v3);
    }
    for (int i = 0; i < 3 && rc == 0; i++) {
        if (files[i] && !texts[i])
            rc = ea_fail(err, "rollup: out of memory");
        else if (files[i] && !strcmp(files[i], "-"))
            fputs(texts[i], stdout);
        else if (files[i]) {
            paths[n] = files[i];
            to_write[n++] = texts[i];
        }
    }
    if (rc == 0 && n)
        rc = ea_write_files_atomic(paths, to_write, n, err);
    for (int i = 0; rc == 0 && i < n; i++)
        fprintf(stderr, "rollup: wrote %s\n", paths[i]);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    return rc;
}

static int to_stdout(const extra *x)
{
    return (x->markdown && !strcmp(x->markdown, "-")) || (x->html && !strcmp(x->html, "-")) ||
           (x->v3 && !strcmp(x->v3, "-"));
}

int ea_cmd_rollup(int argc, char **argv)
{
    extra x;
    ea_cli_options o;
    int help, rc = take_extra(&argc, argv, &x);
    if (rc || (rc = ea_cli_parse("rollup", "--golden --corpus --target --json", argc, argv, &o, &help)) || help)
        return rc ? rc : (fputs(ea_usage_rollup, stdout), 0);
    ea_rollup_opts ro = {o.golden, o.corpus, o.target};
    ea_error err;
    cJSON *doc;
    if (ea_rollup_run(&ro, &doc, &err))
        return ea_cli_fail(&err);
    if (outputs(&x, doc, &err)) {
        cJSON_Delete(doc);
        return ea_cli_fail(&err);
    }
    if (o.json && !to_stdout(&x))
        ea_cli_print_json(doc);
    else if (!to_stdout(&x)) {
        char *s = ea_report_text(doc, TOP_MODELS);
        fputs(s ? s : "", stdout);
        free(s);
    }
    const cJSON *f, *failures = cJSON_GetObjectItemCaseSensitive(doc, "check");
    if (x.check) {
        cJSON_ArrayForEach(f, failures)
            fprintf(stderr, "rollup --check: %s: %s: %s\n", cJSON_GetObjectItemCaseSensitive(f, "kind")->valuestring,
                    cJSON_GetObjectItemCaseSensitive(f, "row")->valuestring,
                    cJSON_GetObjectItemCaseSensitive(f, "why")->valuestring);
        fprintf(stderr, "rollup --check: %d failure%s\n", cJSON_GetArraySize(failures),
                cJSON_GetArraySize(failures) == 1 ? "" : "s");
    }
    rc = x.check && cJSON_GetArraySize(failures) ? 1 : 0;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "input_errors"))
    {
        fprintf(stderr, "extern-audit: %s\n", f->valuestring);
        rc = 2; /* bad input, reported after every other model was accounted */
    }
    cJSON_Delete(doc);
    return rc;
}
