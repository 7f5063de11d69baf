/* seed_totals.h: golden/seed_totals.json, the seed issue's per-op direct-op totals (B200, PyTorch
 * fef6016c), the "before" figures the rollup sets beside the corpus accounting and our own GPU's.
 * Contract: ea_seed_totals_load accepts exactly the schema in docs/reference/schema.md (extern-audit/seed-totals
 * v1): audit ops at most once (an op the seed did not price is absent: occurrences 0), positive totals and counts, parts that name a suite/mode/model and whose
 * occurrences and totals do not exceed the op's; an op without a total (null) must be covered by its
 * parts' occurrences, and its total is then their sum. Anything else fails with the file and JSON path.
 * Strings point into the loaded document. */
#ifndef EA_SEED_TOTALS_H
#define EA_SEED_TOTALS_H

#include <stdint.h>

#include "base/error.h"
#include "corpus/extract.h"
#include "base/json.h"

#define EA_SEED_TOTALS_SCHEMA "extern-audit/seed-totals"
#define EA_SEED_TOTALS_VERSION 1
#define EA_SEED_MAX_PARTS 8

typedef struct {
    const char *label, *suite, *mode, *model;
    int64_t occurrences;
    double total_us;
} ea_seed_part;

typedef struct {
    int64_t occurrences;
    double total_us;   /* the seed's figure, or the sum of its parts when the seed gives only those */
    int summed;        /* 1: total_us is the parts' sum */
    ea_seed_part parts[EA_SEED_MAX_PARTS];
    int nparts;
} ea_seed_op;

typedef struct {
    const char *source, *gpu, *pytorch_commit, *method;
    ea_seed_op ops[EA_AUDIT_OPS]; /* in ea_audit_ops order */
    ej_doc doc;
} ea_seed_totals;

int ea_seed_totals_load(const char *path, ea_seed_totals *s, ea_error *err);
void ea_seed_totals_free(ea_seed_totals *s);

#endif
