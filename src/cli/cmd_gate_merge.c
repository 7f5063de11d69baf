/* cmd_gate_merge.c: extern-audit gate merge REPORT...: the reports of gate --shard I/N joined (gate_merge.h),
 * printed as one gate's, with its markdown, proposal and (--run shards) joined fresh document written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "gate/gate.h"
#include "gate/gate_merge.h"
#include "base/json.h"

/* The reports are the operands; the options and their values go to ea_cli_parse. */
static int split(int argc, char **argv, char **opts, int *nopts, const char **files, int *nfiles)
{
    static const char *const valued[] = {"--baseline", "--markdown", "--junit", "--propose", "--save"};
    *nopts = *nfiles = 0;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) || !strcmp(argv[i], "--")) {
            files[(*nfiles)++] = argv[i];
            continue;
        }
        opts[(*nopts)++] = argv[i];
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            if (!strcmp(argv[i], valued[k]) && i + 1 < argc)
                opts[(*nopts)++] = argv[++i];
    }
    return *nfiles;
}

static int write_merged(const ea_cli_options *c, const ea_gate_merged *m, FILE *said, ea_error *err)
{
    if (ea_gate_cli_texts("gate merge", m->report, c->markdown, c->junit, said, err))
        return -1;
    if (c->save && ea_baseline_record(c->save, m->fresh, err))
        return -1;
    if (c->propose) {
        cJSON *doc = ea_gate_propose(m->stored, m->fresh, m->report);
        int rc = ea_baseline_record(c->propose, doc, err);
        cJSON_Delete(doc);
        return rc;
    }
    return 0;
}

int ea_cmd_gate_merge(int argc, char **argv)
{
    char **opts = calloc((size_t)argc + 1, sizeof *opts);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    ea_cli_options c;
    ea_gate_merged m = {0};
    ea_error err;
    int nopts, nfiles, help = 0, rc, dash = 0;
    if (!opts || !files) {
        free(opts);
        free(files);
        return ea_cli_usage_error("gate merge", "%s", "out of memory");
    }
    split(argc, argv, opts, &nopts, files, &nfiles);
    rc = ea_cli_parse("gate merge", "--baseline --json --markdown --junit --propose --save --quiet", nopts, opts, &c, &help);
    if (!rc && !help)
        rc = ea_cli_stdout_once("gate merge", c.json, (const char *const[]){c.markdown, c.junit, c.propose, c.save}, 4,
                                &dash);
    if (rc || help) {
        if (help)
            fputs(ea_usage_gate, stdout);
    } else if (!nfiles) {
        rc = ea_cli_usage_error("gate merge", "%s", "expected the shard reports (gate --shard I/N --json) to join");
    } else if (ea_gate_merge(files, nfiles, c.baseline, &m, &err) ||
               (c.save && !m.from_runs &&
                ea_fail(&err, "--save: the shards compared a document (--against); there is no fresh run to join"))) {
        fprintf(stderr, "extern-audit gate merge: %s\n", err.msg);
        rc = 2;
    } else {
        if (c.json)
            ea_cli_print_json(m.report);
        else if (!dash) /* "-": stdout carries that output alone */
            ea_gate_print(m.report, stdout);
        rc = ea_gate_exit(m.report);
        if (write_merged(&c, &m, c.json || dash ? stderr : stdout, &err)) {
            fprintf(stderr, "extern-audit gate merge: %s\n", err.msg);
            rc = 2;
        }
    }
    ea_gate_merged_free(&m);
    free(opts);
    free(files);
    return rc;
}
