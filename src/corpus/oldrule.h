/* oldrule.h: the attribution pipeline's extern test (is_fusible_node), emulated from data.
 * Contract: golden/old_rule.json lists the non-fusible ops with a reason each and the cat input cap;
 * a node is non-fusible when its target is listed, or it is aten.cat.default with more inputs than
 * the cap. The file is validated strictly; ea_old_rule_verdict returns the reason or NULL. */
#ifndef EA_OLDRULE_H
#define EA_OLDRULE_H

#include "base/error.h"
#include "corpus/fxgraph.h"
#include "base/json.h"

#define EA_OLD_RULE_SCHEMA "extern-audit/old-rule"
#define EA_OLD_RULE_VERSION 1

typedef struct {
    const char *op;
    const char *reason;
} ea_old_rule_entry;

typedef struct {
    const char *recorded_for;
    int cat_cap;
    ea_old_rule_entry *entries;
    int nentries;
    ej_doc doc; /* strings point into it */
} ea_old_rule;

int ea_old_rule_load(const char *path, ea_old_rule *r, ea_error *err);
void ea_old_rule_free(ea_old_rule *r);
/* "flop_counted", "fallbacks_set", "cat_over_cap", ... or NULL when the rule calls the node fusible. */
const char *ea_old_rule_verdict(const ea_old_rule *r, const fx_node *n);
/* The same verdict from the target alone; list_inputs: for aten.cat.default the number of tensors in
 * args[0] (ignored for other ops). Golden occurrences carry the signature, not the node. */
const char *ea_old_rule_verdict_op(const ea_old_rule *r, const char *target, int list_inputs);

#endif
