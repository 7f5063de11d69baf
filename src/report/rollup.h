/* rollup.h: the model rollup: every golden occurrence accounted before and after, per scope row,
 * per op, per model and in total (docs/reference/schema.md, "extern-audit/rollup" v1), from committed data only.
 * Contract:
 * - ea_rollup_load reads the inputs: golden/occurrences (required), the target's (ea_target_find:
 *   --target, else the one this machine resolves to; none at all: "no baselines") classification.json,
 *   baselines.json and torch_ops.json, seed_totals.json, and with corpus set the corpus's model accounting. Each
 *   optional input absent becomes a stated note in the document, never a number; a file present but
 *   malformed fails with its path and JSON path. The target's committed candidate-lowering targets
 *   (candidate.h) price the column "after candidate lowering"; an oracle slower than a candidate is
 *   a check failure. A candidate target's rollup prices the scopes its lowering recaptured at its own golden
 *   price against its base (rows' priced_by_lowering); a base that cannot be read is a note, and those rows
 *   keep the target's own baselines.
 * - ea_rollup_run turns them into the document. Figures of different GPUs are kept apart: "before"
 *   (the seed's and the corpus's, B200) beside "after" (the baselines' GPU); sums and ratios only
 *   within one. A scope shared by occurrences of several ops in one graph (one capture covers them,
 *   e.g. gpt-oss sort -> histc -> cumsum) is priced once, under the op that falls back.
 * - The document's "check" lists what breaks the seed's completion criterion: a lowered occurrence counted
 *   as extern, a fallback without its label, a row unpriced without a reason. */
#ifndef EA_ROLLUP_H
#define EA_ROLLUP_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/extract.h"
#include "base/json.h"
#include "report/seed_totals.h"
#include "target/torch_ops.h"

#define EA_ROLLUP_SCHEMA "extern-audit/rollup"
#define EA_ROLLUP_VERSION 1

typedef struct {
    const char *golden;
    const char *corpus; /* NULL: the corpus "before" column is unavailable */
    const char *target; /* golden/targets/<target> priced "after" (target.h); NULL: ea_target_find's */
} ea_rollup_opts;

typedef struct {
    ea_rollup_opts o;
    cJSON *docs[EA_AUDIT_OPS];
    cJSON *classification;                 /* NULL when absent */
    char classification_file[4352];        /* its path: the target's */
    cJSON *baselines;                      /* NULL when absent */
    char baselines_file[4096], gpu_model[64];
    ea_torch_ops ops;                      /* loaded 0 when absent */
    cJSON *candidates;                     /* candidate.h's ea_candidates_staged; NULL without baselines */
    cJSON *own_price;                      /* a candidate-lowering target's golden price against its base
                                            * (candidate.h), which prices the scopes it recaptured; else NULL */
    char own_price_base[4400];             /* that base's baselines file, "" when none was read */
    char note_own_price[4608];             /* why a candidate target has no such price (its base unreadable) */
    cJSON *oracle_rule, *oracle_allowed;   /* oracle_rule.h's breaches (NULL without baselines), its allowlist */
    cJSON *compiled;                       /* capture folder -> [default_us, tuned_us]: torch.compile's own medians of
                                            * its default and coordinate-descent runs, where it timed both */
    char target_name[128], oracle_allowlist[4352];
    ea_seed_totals seed;
    int have_seed;
    char seed_file[4096], note_baselines[4352], note_corpus[4352];
    int have_corpus;
} ea_rollup_inputs;

int ea_rollup_load(const ea_rollup_opts *o, ea_rollup_inputs *in, ea_error *err);
void ea_rollup_free(ea_rollup_inputs *in);
/* Load, build, free: the document from o's files; -1 on a bad input file or out of memory. A
 * malformed corpus accounting file does not stop the others: its message is in the document's
 * "input_errors" (the CLI prints them and exits 2). */
int ea_rollup_run(const ea_rollup_opts *o, cJSON **doc, ea_error *err);

#endif
