/* baseline_migrate3.h: the schema 2 -> 3 step of ea_baseline_migrate (baseline_migrate.h), for baseline_migrate.c
 * alone: the module's one entry point runs every step, so this one has no caller outside it.
 * ea_baseline_migrate_v3(file, doc, ops, err): a schema-2 document made schema 3 in place (contract in
 * baseline_migrate.h); ops: the target's torch timings the fidelity copied (NULL or not loaded: the copies are
 * dropped unchecked, said on stderr). 0, or -1 naming the file, the JSON path and both values. */
#ifndef EA_BASELINE_MIGRATE3_H
#define EA_BASELINE_MIGRATE3_H

#include <cjson/cJSON.h>

#include "base/error.h"
#include "target/torch_ops.h"

int ea_baseline_migrate_v3(const char *file, cJSON *doc, const ea_torch_ops *ops, ea_error *err);

#endif
