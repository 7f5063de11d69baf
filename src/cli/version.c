/* version.c: what `extern-audit --version` prints: the program's version, the git commit it was built
 * from (EA_GIT_COMMIT, a -D the Makefile passes from `git describe`; "unknown" outside a checkout) and
 * the schema version of every document it reads or writes, so a report can say which code made it. */
#include "cli/version.h"

#include "measure/baseline.h"
#include "target/capture.h"
#include "target/classify.h"
#include "corpus/extract.h"
#include "corpus/inventory.h"
#include "corpus/oldrule.h"
#include "gate/gate.h"
#include "gate/shard.h"
#include "golden/golden_diff.h"
#include "report/oracle_rule.h"
#include "report/rollup.h"
#include "report/seed_totals.h"
#include "target/sanitize_record.h"
#include "target/target.h"
#include "target/torch_ops.h"

#ifndef EA_GIT_COMMIT
#define EA_GIT_COMMIT "unknown"
#endif

void ea_version_print(FILE *f)
{
    static const struct {
        const char *schema;
        int version;
    } schemas[] = {
        {EA_OCCURRENCES_SCHEMA, EA_OCCURRENCES_VERSION},
        {EA_OCCURRENCE_SUMMARY_SCHEMA, EA_OCCURRENCES_VERSION},
        {EA_INVENTORY_SCHEMA, EA_INVENTORY_VERSION},
        {EA_OLD_RULE_SCHEMA, EA_OLD_RULE_VERSION},
        {EA_CLASSIFICATION_SCHEMA, EA_CLASSIFICATION_VERSION},
        {EA_CAPTURE_SCHEMA, EA_CAPTURE_VERSION},
        {EA_BASELINES_SCHEMA, EA_BASELINES_VERSION},
        {EA_TORCH_OPS_SCHEMA, EA_TORCH_OPS_VERSION},
        {EA_TARGET_SCHEMA, EA_TARGET_VERSION},
        {EA_SEED_TOTALS_SCHEMA, EA_SEED_TOTALS_VERSION},
        {EA_GATE_SCHEMA, EA_GATE_VERSION},
        {EA_SHARD_PLAN_SCHEMA, EA_SHARD_PLAN_VERSION},
        {EA_GOLDEN_DIFF_SCHEMA, EA_GOLDEN_DIFF_VERSION},
        {EA_ROLLUP_SCHEMA, EA_ROLLUP_VERSION},
        {EA_ORACLE_ALLOWLIST_SCHEMA, EA_ORACLE_ALLOWLIST_VERSION},
        {EA_SANITIZE_SCHEMA, EA_SANITIZE_VERSION},
    };
    fprintf(f, "extern-audit %s (git %s)\nschemas:", EA_VERSION, EA_GIT_COMMIT);
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
        fprintf(f, " %s v%d%s", schemas[i].schema, schemas[i].version,
                i + 1 < sizeof schemas / sizeof schemas[0] ? "," : "\n");
}
