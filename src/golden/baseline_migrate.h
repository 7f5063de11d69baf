/* baseline_migrate.h: a baselines document of schema 1 rewritten as schema 2 (docs/reference/schema.md), the numbers untouched.
 * Contract: ea_baseline_migrate(file, doc) turns doc, read from file, into schema 2 in place: each config note
 * sentence into its note id (the routing histc citation dropped: docs/evidence/routing_sort.md holds it), each verdict into its
 * id, a routing configuration's permutation_order and oracle kind sentences into ids, each time's cache_policy sentence into the numbers it quoted (a cold time's "operations", the header's
 * "warmup_ms"), the fidelity's notes into note ids, the floor's note dropped; each sentence is removed only when prose.c renders it back from the new
 * document byte for byte, else -1 naming the file, the JSON path and both texts, and doc is then partly rewritten
 * (the caller drops it). Returns 1 and leaves doc alone when it is already schema 2; 0 when migrated, the result
 * checked by ea_baseline_validate. */
#ifndef EA_BASELINE_MIGRATE_H
#define EA_BASELINE_MIGRATE_H

#include <cjson/cJSON.h>

#include "base/error.h"

int ea_baseline_migrate(const char *file, cJSON *doc, ea_error *err);

#endif
