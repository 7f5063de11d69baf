/* The command line's manners, the same for every command: --opt VALUE and --opt=VALUE, "-" as standard
 * output, --version, help help, one line (not the report) when a file is written or a check is asked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "helpers.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%.4000s", (needle), (s))

/* Lines of s (a last line without its newline counted too). */
static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n' || (!s[1] && *s != '\n');
    return n;
}

Test(cli_manners, rollup_takes_the_equals_form_and_says_one_line_per_file_written)
{
    const char *dir = test_tmpdir();
    char html[600], md[600], v3[600], arg[3][700];
    snprintf(html, sizeof html, "%s/r.html", dir);
    snprintf(md, sizeof md, "%s/r.md", dir);
    snprintf(v3, sizeof v3, "%s/r.v3.json", dir);
    snprintf(arg[0], sizeof arg[0], "--html=%s", html);
    snprintf(arg[1], sizeof arg[1], "--markdown=%s", md);
    snprintf(arg[2], sizeof arg[2], "--v3=%s", v3);
    cli_run r = test_cli("rollup", arg[0], arg[1], arg[2], NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(lines(r.out), 3, "one line per file, not the tables:\n%s", r.out);
    has(r.out, "rollup: wrote ");
    has(r.out, "(html, ");
    cr_assert_null(strstr(r.out, "Per op"), "the tables are not printed");
    for (const char *const *f = (const char *const[]){html, md, v3, NULL}; *f; f++)
        cr_assert_eq(access(*f, F_OK), 0, "%s written", *f);
    cli_run_free(&r);
}

Test(cli_manners, rollup_check_prints_one_line)
{
    cli_run r = test_cli("rollup", "--check", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "rollup --check: 0 failures\n");
    cli_run_free(&r);
}

Test(cli_manners, a_dash_is_standard_output_for_every_markdown)
{
    cli_run r = test_cli("rollup", "--markdown", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "| op | occ. |");
    cli_run_free(&r);
    char against[600];
    snprintf(against, sizeof against, "--against=golden/targets/%s/baselines.json", TEST_TARGET);
    r = test_cli("gate", against, "--markdown", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(access("-", F_OK), -1, "no file named '-' was written");
    has(r.out, "|");
    cli_run_free(&r);
    r = test_cli("gate", against, "--markdown", "-", "--json", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "one output at most on standard output");
    cli_run_free(&r);
    r = test_cli("rollup", "--html", "-", "--markdown", "-", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "one output at most on standard output");
    cli_run_free(&r);
    /* a document too: the proposal alone on stdout, one that reads back */
    r = test_cli("gate", against, "--propose", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    cr_assert(doc, "stdout is the proposed document alone:\n%.300s", r.out);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, "schema")->valuestring, "extern-audit/baselines");
    cJSON_Delete(doc);
    cli_run_free(&r);
    r = test_cli("gate", against, "--propose", "-", "--markdown", "-", NULL);
    cr_assert_eq(r.status, 2);
    cli_run_free(&r);
    r = test_cli("replay", "--record", "-", "--json", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "one output at most on standard output");
    cli_run_free(&r);
}

Test(cli_manners, version_names_the_commit_and_the_schemas)
{
    cli_run r = test_cli("--version", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "extern-audit ");
    has(r.out, "(git ");
    /* in a checkout the build passes the commit; a copy without .git builds "unknown", said so */
    if (system("git rev-parse HEAD >/dev/null 2>&1") == 0)
        cr_assert_null(strstr(r.out, "(git unknown)"), "the build passes the commit: %s", r.out);
    /* every schema the sources name, read or written */
    FILE *names = popen("grep -rhoE '\"extern-audit/[a-z-]+\"' src | sort -u", "r");
    char line[128];
    int n = 0;
    cr_assert_not_null(names);
    while (fgets(line, sizeof line, names)) {
        char want[128];
        snprintf(want, sizeof want, "%.*s v", (int)strcspn(line + 1, "\""), line + 1);
        has(r.out, want);
        n++;
    }
    pclose(names);
    cr_assert_geq(n, 16, "the sources name %d schemas", n);
    cli_run_free(&r);
}

Test(cli_manners, help_help_and_the_golden_line_lists_price)
{
    cli_run r = test_cli("help", "help", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "usage: extern-audit <command>");
    has(r.out, "price");
    cli_run_free(&r);
}

/* An input the user named and that is missing stops the command, named; a default's absence is a note. */
Test(cli_manners, rollup_corpus_missing_exits_2_naming_it)
{
    cli_run r = test_cli("rollup", "--corpus", "/nonexistent/bb", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--corpus /nonexistent/bb: no such folder");
    cr_assert_str_eq(r.out, "");
    cli_run_free(&r);
}

/* Audit's bottom line reads right: the no-device-work occurrences are not among the false externs; its rows of
 * one alias say how they differ and a context row counts no occurrence; its hint works without a GPU; --json
 * carries the bottom line and the rows. */
Test(cli_manners, audit_says_how_rows_differ_and_json_carries_the_bottom_line)
{
    cli_run r = test_cli("audit", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "are false externs (Inductor lowers them)");
    has(r.out, "\n  besides them, 51 do no device work");
    cr_assert_null(strstr(r.out, "51 of them"), "the 51 are not among the 106");
    has(r.out, "run --plan --scope ALIAS");
    cr_assert_null(strstr(r.out, "run --scope ALIAS"), "run --scope needs a GPU; --plan does not");
    has(r.out, "  routing_histc     routing                      infer  whole scope, topk_ids_skewed (context)     -");
    /* a configuration that takes in its consumer, beside the point's other one */
    has(r.out, "  index_add         longformer-bf16-6291456      train  consumer div by 8                         12");
    has(r.out, "  index_add         longformer-bf16-6291456      train  -                                         12");
    cli_run_free(&r);

    r = test_cli("audit", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *row;
    cr_assert(j, "audit --json parses");
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive(j, "bottom_line");
    cr_assert(cJSON_IsArray(lines) && cJSON_GetArraySize(lines) > 0);
    has(cJSON_GetArrayItem(lines, 0)->valuestring, "Bottom line: 106 of the 279");
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "not_timed")), 0);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "baselines"), "rows");
    cr_assert_gt(cJSON_GetArraySize(rows), 0);
    double occ = 0;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *other;
        occ += cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(row, "occurrences"))
                   ? cJSON_GetObjectItemCaseSensitive(row, "occurrences")->valuedouble : 0;
        /* no two rows read alike: family, alias, mode and variant tell them apart */
        cJSON_ArrayForEach(other, rows)
        {
            if (other == row)
                break;
            int same = 1;
            for (const char *const *k = (const char *const[]){"family", "alias", "mode", "variant", NULL}; *k; k++)
                same &= !strcmp(cJSON_GetObjectItemCaseSensitive(row, *k)->valuestring,
                                cJSON_GetObjectItemCaseSensitive(other, *k)->valuestring);
            cr_assert(!same, "two rows read alike: %s %s", cJSON_GetObjectItemCaseSensitive(row, "alias")->valuestring,
                      cJSON_GetObjectItemCaseSensitive(row, "mode")->valuestring);
        }
    }
    /* the occ. column sums to the timed occurrences: the 279 less the 87 never timed (FFT 36, views 48, mul 3) */
    cr_assert_eq(occ, 192);
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* Arguments are checked before the work: a missing --check folder is said before the corpus walk (which
 * prints its progress), named as the user gave it. */
Test(cli_manners, extract_check_missing_fails_before_walking_the_corpus)
{
    cli_run r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--check", "/nonexistent/occ", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--check /nonexistent/occ: no such folder");
    cr_assert_null(strstr(r.err, "extract: graph"), "no graph was read:\n%s", r.err);
    cli_run_free(&r);
}

/* A --golden that is not a folder is named as given, never by a path built inside ("README.md/targets"). */
Test(cli_manners, a_wrong_golden_is_named_as_given)
{
    for (const char *const *cmd = (const char *const[]){"audit", "rollup", "classify", NULL}; *cmd; cmd++) {
        cli_run r = test_cli(*cmd, "--golden", "README.md", NULL);
        cr_assert_eq(r.status, 2, "%s", *cmd);
        has(r.err, "--golden README.md: not a folder (expected the golden folder");
        cr_assert_null(strstr(r.err, "README.md/"), "%s: an internal path: %s", *cmd, r.err);
        cli_run_free(&r);
    }
    cli_run r = test_cli("gate", "--plan", "--golden=README.md", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden README.md: not a folder");
    cli_run_free(&r);
}
