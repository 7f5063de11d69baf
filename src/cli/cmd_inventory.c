/* cmd_inventory.c: `extern-audit inventory`, every node the old rule (is_fusible_node) calls
 * non-fusible (inventory.h), cross-checked with each graph's meta.json: exit 1 on a mismatch. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "corpus/corpus.h"
#include "corpus/inventory.h"
#include "corpus/oldrule.h"

const char ea_usage_inventory[] =
    "usage: extern-audit inventory [--corpus DIR] [--rule FILE] [--json] [--quiet]\n"
    "  --corpus DIR  better-benchmark checkout (default $EXTERN_AUDIT_CORPUS or " EA_CLI_DEFAULT_CORPUS ")\n"
    "  --rule FILE   old-rule data (default " EA_CLI_DEFAULT_GOLDEN "/old_rule.json)\n"
    "  --json        print JSON instead of the table\n"
    "  --quiet       no progress lines on stderr\n"
    "exit 1 when a graph's counts disagree with its meta.json\n";

int ea_cmd_inventory(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("inventory", "--corpus --rule --json --quiet", argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_inventory, stdout), 0);
    ea_error err;
    ea_old_rule rule;
    ea_corpus c;
    cJSON *inv;
    if (ea_old_rule_load(o.rule ? o.rule : EA_CLI_DEFAULT_GOLDEN "/old_rule.json", &rule, &err) != 0)
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
