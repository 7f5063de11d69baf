/* cmd_rollup.c: `extern-audit rollup`, the model rollup (rollup.h) and its reports (report.h).
 * Reads committed data only; writes the terminal tables or --json on stdout, and any of --markdown,
 * --html, --v3 to files (atomically, one line each on stdout; "-" is stdout, which then carries only that).
 * --check makes the seed's completion criterion a gate: exit 1 on any failure listed on stderr, one line on
 * stdout. The tables are printed only when no file and no check was asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "base/json.h"
#include "report/report.h"
#include "report/rollup.h"
#include "target/target_layout.h"

#define TOP_MODELS 10

const char ea_usage_rollup[] =
    "usage: extern-audit rollup [--golden DIR] [--corpus DIR] [--target NAME] [--json] [--markdown FILE]\n"
    "                           [--html FILE] [--v3 FILE] [--check]\n"
    "  --golden DIR     golden folder (default golden): occurrences/, seed_totals.json, targets/\n"
    "  --corpus DIR     better-benchmark checkout for the corpus's model accounting (default\n"
    "                   $EXTERN_AUDIT_CORPUS or build/corpus/better-benchmark; absent: that column says so)\n"
    "  --target NAME    the target whose " EA_CLASSIFICATION_NAME ", " EA_BASELINES_NAME " and " EA_TORCH_OPS_NAME " price\n"
    "                   \"after\" (default: $EXTERN_AUDIT_TARGET, else this GPU model's, else the only one)\n"
    "  --json           print the whole rollup document instead of the tables\n"
    "  --markdown FILE  the tables as markdown (a PR comment, docs/results.md's rollup)\n"
    "  --html FILE      one self-contained page with SVG charts and the tables\n"
    "  --v3 FILE        PyTorch benchmark-database v3 records (the HUD's format)\n"
    "  --check          exit 1 when a lowered occurrence is counted as extern, a fallback lacks its\n"
    "                   label, a scope is unpriced without a stated reason, or an implementation beats\n"
    "                   the oracle beyond noise (warm or cold) where golden/oracle_allowlist.json does\n"
    "                   not list it (known breaches are printed; a listed one gone or worse fails too)\n"
    "FILE - writes to stdout; a file written or --check prints one line instead of the tables.\n"
    "Figures of different GPUs (the seed's B200, the baselines' GPU) are never added.\n";

typedef struct {
    const char *markdown, *html, *v3;
    int check;
} extra;

/* The reports asked for: "-" to stdout, the files written as one set (json.h), so two reports never disagree;
 * said: where the one line each written file gets goes (stderr when stdout carries an output). */
static int outputs(const extra *x, const cJSON *doc, FILE *said, ea_error *err)
{
    static const char *const what[3] = {"markdown", "html", "v3 records"};
    const char *files[3] = {x->markdown, x->html, x->v3}, *paths[3];
    char *texts[3] = {NULL, NULL, NULL};
    const char *to_write[3];
    int n = 0, rc = 0, at[3];
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
            at[n] = i;
            paths[n] = files[i];
            to_write[n++] = texts[i];
        }
    }
    if (rc == 0 && n)
        rc = ea_write_files_atomic(paths, to_write, n, err);
    for (int i = 0; rc == 0 && i < n; i++)
        fprintf(said, "rollup: wrote %s (%s, %zu bytes)\n", paths[i], what[at[i]], strlen(to_write[i]));
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    return rc;
}

/* The oracle's known breaches (oracle_rule.h): reported by --check, failing only when the allowlist does not
 * hold them (then they are in the failures). */
static void print_allowed(const cJSON *rule)
{
    const cJSON *b;
    int n = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(rule, "breaches"))
    {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(b, "allowed");
        if (!a)
            continue;
        n++;
        fprintf(stderr, "rollup --check: oracle beaten, allowed (issue %d): %s %s #%d %s (%s): %s %.3f us, oracle %.3f us: "
                "%.2fx\n", (int)ej_num(a, "issue"), ej_text(b, "family"), ej_text(b, "point"), (int)ej_num(b, "result"),
                ej_text(b, "mode"), ej_text(b, "alias"), ej_text(b, "winner"), ej_num(b, "winner_us"),
                ej_num(b, "oracle_us"), ej_num(b, "ratio"));
    }
    if (rule)
        fprintf(stderr, "rollup --check: oracle rule: %d pairs judged, %d too noisy to judge, %d breaches (%d allowed by "
                "%s)\n", (int)ej_num(rule, "judged"), (int)ej_num(rule, "unjudged"),
                cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rule, "breaches")), n, ej_text(rule, "allowlist"));
}

int ea_cmd_rollup(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("rollup", "--golden --corpus --target --json --markdown --html --v3 --check!", argc,
                                argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_rollup, stdout), 0);
    extra x = {o.markdown, o.html, o.v3, o.check_flag};
    int dash;
    if ((rc = ea_cli_stdout_once("rollup", o.json, (const char *const[]){x.markdown, x.html, x.v3}, 3, &dash)))
        return rc;
    struct stat st;
    if (o.corpus_given && (stat(o.corpus, &st) || !S_ISDIR(st.st_mode)))
        return fprintf(stderr, "extern-audit rollup: --corpus %s: no such folder (expected a better-benchmark "
                               "checkout; leave --corpus out to report without the corpus column)\n", o.corpus), 2;
    ea_rollup_opts ro = {o.golden, o.corpus, o.target};
    ea_error err;
    cJSON *doc;
    if (ea_rollup_run(&ro, &doc, &err))
        return ea_cli_fail(&err);
    FILE *said = dash || o.json ? stderr : stdout;
    if (outputs(&x, doc, said, &err)) {
        cJSON_Delete(doc);
        return ea_cli_fail(&err);
    }
    /* the tables only when nothing else was asked: a file written or a check says so in one line */
    if (o.json)
        ea_cli_print_json(doc);
    else if (!x.markdown && !x.html && !x.v3 && !x.check) {
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
        print_allowed(cJSON_GetObjectItemCaseSensitive(doc, "oracle_rule"));
        fprintf(said, "rollup --check: %d failure%s%s\n", cJSON_GetArraySize(failures),
               cJSON_GetArraySize(failures) == 1 ? "" : "s", cJSON_GetArraySize(failures) ? " (listed on stderr)" : "");
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
