/* baseline_migrate.h: a baselines document of schema 1 or 2 rewritten as schema 3 (docs/reference/schema.md), every time
 * untouched.
 * Contract: ea_baseline_migrate(file, doc, ops) turns doc, read from file, into schema 3 in place. Schema 1 -> 2: each config note
 * sentence into its note id (the routing histc citation dropped: docs/evidence/routing_sort.md holds it), each verdict into its
 * id, a routing configuration's permutation_order and oracle kind sentences into ids, each time's cache_policy sentence into the numbers it quoted (a cold time's "operations", the header's
 * "warmup_ms"), the fidelity's notes into note ids, the floor's note dropped; each sentence is removed only when prose.c renders it back from the new
 * document byte for byte, else -1 naming the file, the JSON path and both texts. Schema 2 -> 3: a result's floor keeps
 * its run's bytes_per_s and launch_us, its other numbers and the speedups and fractions are dropped, each only when it
 * is what fractions.h derives (else -1 naming the file, the JSON path and both numbers); fidelity.torch_op's copies
 * of the torch-ops file (each mode's torch_us, torch_q1_us, torch_q3_us, and kernels) are dropped, checked against
 * ops, the target's file, when loaded; a path's check_after_timing equal to its check becomes "same"; the header's
 * cache_policy becomes the calls_per_replay and replays it quotes, each "unmeasured" reason the id whose text it is
 * (or an earlier wording of it was), each only when prose.h renders it back (else -1 naming the file, the JSON path
 * and both texts). Every member
 * it does not name (times, point_wall_s, a family's config and view) is kept as read. On -1 doc is partly rewritten
 * (the caller drops it). Returns 1 and leaves doc alone when it is already schema 3; 0 when migrated, the result
 * checked by ea_baseline_validate. */
#ifndef EA_BASELINE_MIGRATE_H
#define EA_BASELINE_MIGRATE_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "target/torch_ops.h"

int ea_baseline_migrate(const char *file, cJSON *doc, const ea_torch_ops *ops, ea_error *err);

#endif
