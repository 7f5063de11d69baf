/* scope.h: the optimization boundary around one occurrence.
 * Contract: the scope is the op plus the producers and consumers Inductor could fuse with it: walk
 * producers back through views, pointwise ops and generators, consumers forward through views,
 * pointwise ops, reductions and scans, and the side inputs of those consumers; stop at boundaries
 * (library calls, fallbacks, indirect loads). The gpt-oss routing chain is one scope: a cumsum fed by
 * histc, and a histc fed by sort, absorb their producer. Output JSON names no nodes (so equal scopes
 * compare equal): entries in graph order, args as {"ref": k} into that list. */
#ifndef EA_SCOPE_H
#define EA_SCOPE_H

#include <cjson/cJSON.h>

#include "corpus/fxgraph.h"

/* {"nodes":[{"role","op","ann","args","kwargs","escapes"}...], "boundary_consumers":[...],
 *  "truncated":bool}. role: "input" (outside the scope, feeds it), "producer", "op", "consumer". */
cJSON *ea_scope(const fx_graph *g, int node);

#endif
