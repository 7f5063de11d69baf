/* audit_ops.h: the audit set, the ops whose every occurrence extern-audit follows from the corpus to the rollup.
 * Contract: ea_audit_ops lists EA_AUDIT_OPS ops, each with its ATen target, the short name of its golden
 * document (golden/occurrences/<short>.json) and whether it joined after the H200 target was captured;
 * repros/registry.c defines it beside the families. */
#ifndef EA_AUDIT_OPS_H
#define EA_AUDIT_OPS_H

#define EA_AUDIT_OPS 9

typedef struct {
    const char *target; /* "aten.cat.default" */
    const char *short_name; /* "cat": file golden/occurrences/cat.json */
    int added;              /* 1: joined the audit set after the H200 target was captured: a target none of
                             * whose captures covers the op reports it not_captured, not unclassified */
} ea_audit_op;

extern const ea_audit_op ea_audit_ops[EA_AUDIT_OPS]; /* repros/registry.c, beside the families */

#endif
