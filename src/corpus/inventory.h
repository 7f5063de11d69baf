/* inventory.h: the "before" picture: every node the old rule files as non-fusible, by op, model and
 * mode, cross-checked per graph against the counts meta.json recorded when the corpus was captured.
 * Contract: mismatches (per-op non_fusible counts, total call_function count) are listed in the
 * result, never dropped; a graph or meta file that does not parse fails the run. */
#ifndef EA_INVENTORY_H
#define EA_INVENTORY_H

#define EA_INVENTORY_SCHEMA "extern-audit/inventory"
#define EA_INVENTORY_VERSION 1

#include <stdio.h>

#include <cjson/cJSON.h>

#include "corpus/corpus.h"
#include "corpus/oldrule.h"

/* {"schema","schema_version","rule_recorded_for","graphs","call_functions","non_fusible_total",
 *  "by_op":[{"op","reason","count","by_model":[{"suite","mode","model","count"}]}],
 *  "mismatches":[{"graph","what","emulated","recorded"}]} */
int ea_inventory(const ea_corpus *c, const ea_old_rule *rule, FILE *progress, cJSON **out, ea_error *err);
void ea_inventory_print(const cJSON *inv, FILE *f);

#endif
