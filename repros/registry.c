/* registry.c: the audited ops and the families that measure their points: what the CLI lists (run
 * --list, run --scope, extract's documents) comes from these two tables. Adding a family is a folder
 * repros/<name>/ whose family.c defines ea_family_<name> (.name, .op, .plan, .measure, .modes,
 * .description: kit.h, docs/reference/families.md) and one line below; a new op is also one line of ea_audit_ops
 * (EA_AUDIT_OPS in extract.h counts them) and its golden document golden/occurrences/<short name>.json
 * (extern-audit extract writes it). */
#include "corpus/extract.h"
#include "measure/repro.h"

/* One line per audited op: its golden document is golden/occurrences/<short name>.json. */
const ea_audit_op ea_audit_ops[EA_AUDIT_OPS] = {
    {"aten.cat.default", "cat", 0},
    {"aten.cumsum.default", "cumsum", 0},
    {"aten.histc.default", "histc", 0},
    {"aten.index_add.default", "index_add", 0},
    {"aten._fft_c2c.default", "fft_c2c", 1},
    {"aten.view_as_real.default", "view_as_real", 1},
    {"aten.view_as_complex.default", "view_as_complex", 1},
    {"_operator.mul", "operator_mul", 1},
    {"aten._adaptive_avg_pool2d_backward.default", "adaptive_avg_pool2d_backward", 1},
};

/* One line per family: repros/<name>/family.c defines it. */
extern const ea_repro_family ea_family_index_add;
extern const ea_repro_family ea_family_routing_histc, ea_family_routing_cumsum;
extern const ea_repro_family ea_family_cumsum;
extern const ea_repro_family ea_family_cat;
extern const ea_repro_family ea_family_avgpool_backward;

const ea_repro_family *const ea_repro_families[] = {
    &ea_family_index_add,
    &ea_family_routing_histc,
    &ea_family_routing_cumsum,
    &ea_family_cumsum,
    &ea_family_cat,
    &ea_family_avgpool_backward,
    NULL,
};
