/* cmd_extract.c: `extern-audit extract`, every audited occurrence of a better-benchmark corpus
 * (extract.h): the summary table or --json, the golden documents written with --out, or compared with
 * --check (exit 1 when they differ). A graph that does not parse is named on stderr and skipped; the
 * others are extracted and written, and the command exits 1. */
#include <stdio.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "corpus/corpus.h"
#include "corpus/extract.h"
#include "base/json.h"
#include "corpus/occurrences.h"

const char ea_usage_extract[] =
    "usage: extern-audit extract [--corpus DIR] [--out DIR | --check DIR] [--json] [--cat-cap N] [--quiet]\n"
    "  --corpus DIR  better-benchmark checkout (default $EXTERN_AUDIT_CORPUS or " EA_CLI_DEFAULT_CORPUS ")\n"
    "  --out DIR     write <op>.json and summary.json there, creating it (golden/occurrences: the golden files)\n"
    "  --check DIR   compare with the documents in DIR; exit 1 when they differ\n"
    "  --json        print the summary as JSON instead of the table\n"
    "  --cat-cap N   cats with more than N inputs are audited (default 8, max_pointwise_cat_inputs)\n"
    "  --quiet       no progress lines on stderr\n"
    "exit 1 when a graph does not parse (it is named and skipped, the others are extracted) or --check differs;\n"
    "2 on any other bad input (nothing is written)\n";

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

/* Each graph that did not parse, and how many: the extraction went on without them. */
static int report_skipped(const ea_extraction *x, int graphs)
{
    const cJSON *s;
    int n = cJSON_GetArraySize(x->skipped);
    cJSON_ArrayForEach(s, x->skipped)
        fprintf(stderr, "extern-audit extract: skipped %s: %s\n", ej_text(s, "graph"), ej_text(s, "error"));
    if (n)
        fprintf(stderr, "extern-audit extract: %d of %d graphs skipped (they do not parse); the other %d are extracted\n",
                n, graphs, graphs - n);
    return n;
}

int ea_cmd_extract(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("extract", "--corpus --out --check --json --cat-cap --quiet", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_extract, stdout), 0);
    ea_error err;
    ea_corpus c;
    ea_extraction x;
    struct stat st; /* before the corpus walk: a mistyped folder is said at once */
    if (o.check && (stat(o.check, &st) || !S_ISDIR(st.st_mode)))
        return fprintf(stderr, "extern-audit extract: --check %s: no such folder (expected the occurrences folder an "
                               "extract --out wrote, e.g. golden/occurrences)\n", o.check), 2;
    if (ea_corpus_open(o.corpus, &c, &err) != 0)
        return ea_cli_fail(&err);
    ea_extract_opts eo = {o.cat_cap, o.quiet ? NULL : stderr};
    rc = ea_extract(&c, &eo, &x, &err);
    int ngraphs = c.ngraphs;
    ea_corpus_free(&c);
    if (rc != 0)
        return ea_cli_fail(&err);
    int skipped = report_skipped(&x, ngraphs);
    if (o.out && ea_extraction_write(&x, o.out, &err) != 0)
        rc = ea_cli_fail(&err);
    else if (o.check && (rc = check_against(&x, o.check, &err)) == 2)
        ea_cli_fail(&err);
    int total = cJSON_GetObjectItemCaseSensitive(x.summary, "occurrences_total")->valueint;
    if (rc != 2 && o.json)
        ea_cli_print_json(x.summary);
    else if (rc != 2 && o.out) /* a folder written or checked: one line, not the tables */
        printf("extract: wrote %s (%d occurrences: one file per audited op and summary.json)\n", o.out, total);
    else if (rc != 2 && o.check)
        printf("extract --check: %s %s the corpus extraction (%d occurrences)%s\n", o.check, rc ? "differs from" : "matches",
               total, rc ? ": what differs is on stderr" : "");
    else if (rc != 2)
        ea_extraction_print(&x, stdout);
    ea_extraction_free(&x);
    return rc ? rc : skipped > 0;
}
