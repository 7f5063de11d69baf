/* seed_totals.c: golden/seed_totals.json read strictly (contract in seed_totals.h). */
#include "report/seed_totals.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int positive(ej_val obj, const char *key, double v, ea_error *err)
{
    char got[64];
    snprintf(got, sizeof got, "%g", v);
    return v > 0 ? 0 : ej_bad_field(obj, key, "a positive number", got, err);
}

static int read_part(ej_val p, ea_seed_part *part, ea_error *err)
{
    static const char *const keys[] = {"label", "suite", "mode", "model", "occurrences", "total_us", NULL};
    if (ej_object(p, keys, err) || ej_get_string(p, "label", &part->label, err) ||
        ej_get_string(p, "suite", &part->suite, err) || ej_get_string(p, "mode", &part->mode, err) ||
        ej_get_string(p, "model", &part->model, err) || ej_get_int(p, "occurrences", &part->occurrences, err) ||
        ej_get_number(p, "total_us", &part->total_us, err) || positive(p, "total_us", part->total_us, err))
        return -1;
    return part->occurrences > 0 ? 0 : positive(p, "occurrences", (double)part->occurrences, err);
}

/* The parts must fit inside the op: a part larger than its op is a transcription error. */
static int read_parts(ej_val o, ea_seed_op *op, ea_error *err)
{
    char what[64], got[128];
    ej_val arr;
    int64_t occ = 0;
    double us = 0;
    if (ej_field(o, "parts", 1, &arr, err) || ej_array(arr, &op->nparts, err))
        return -1;
    if (op->nparts > EA_SEED_MAX_PARTS) {
        snprintf(what, sizeof what, "at most %d parts", EA_SEED_MAX_PARTS);
        snprintf(got, sizeof got, "%d", op->nparts);
        return ej_bad_field(o, "parts", what, got, err);
    }
    for (int i = 0; i < op->nparts; i++) {
        if (read_part(ej_index(arr, i), &op->parts[i], err))
            return -1;
        occ += op->parts[i].occurrences;
        us += op->parts[i].total_us;
    }
    if (occ > op->occurrences) {
        snprintf(got, sizeof got, "%" PRId64 " in its parts, %" PRId64 " in the op", occ, op->occurrences);
        return ej_bad_field(o, "parts", "parts with no more occurrences than the op", got, err);
    }
    if (op->summed) {
        if (occ != op->occurrences) {
            snprintf(got, sizeof got, "%" PRId64 " of %" PRId64, occ, op->occurrences);
            return ej_bad_field(o, "total_us", "a number, or null with parts covering every occurrence", got, err);
        }
        op->total_us = us;
    } else if (us > op->total_us * (1 + 1e-9)) {
        snprintf(got, sizeof got, "%.1f in its parts, %.1f in the op", us, op->total_us);
        return ej_bad_field(o, "parts", "parts that add up to no more than total_us", got, err);
    }
    return 0;
}

static int read_op(ej_val o, ea_seed_totals *s, const int seen[EA_AUDIT_OPS], int *which, ea_error *err)
{
    static const char *const keys[] = {"op", "occurrences", "total_us", "parts", NULL};
    const char *name;
    char got[128];
    ej_val total;
    if (ej_object(o, keys, err) || ej_get_string(o, "op", &name, err))
        return -1;
    for (*which = 0; *which < EA_AUDIT_OPS && strcmp(ea_audit_ops[*which].target, name); (*which)++)
        ;
    snprintf(got, sizeof got, "\"%.80s\"", name);
    if (*which == EA_AUDIT_OPS)
        return ej_bad_field(o, "op", "an audited op (aten.cat.default, aten.cumsum.default, ...)", got, err);
    if (seen[*which])
        return ej_bad_field(o, "op", "each op once", got, err);
    ea_seed_op *op = &s->ops[*which];
    if (ej_get_int(o, "occurrences", &op->occurrences, err) ||
        (op->occurrences <= 0 && positive(o, "occurrences", (double)op->occurrences, err)) ||
        ej_field(o, "total_us", 1, &total, err))
        return -1;
    op->summed = cJSON_IsNull(total.v);
    if (!op->summed && (ej_as_number(total, &op->total_us, err) || positive(o, "total_us", op->total_us, err)))
        return -1;
    return read_parts(o, op, err);
}

static int read_doc(ea_seed_totals *s, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "source", "gpu", "pytorch_commit", "method",
                                       "ops", NULL};
    ej_val root = ej_root(&s->doc), ops;
    int n, seen[EA_AUDIT_OPS] = {0};
    if (ej_object(root, keys, err) || ej_expect_schema(root, EA_SEED_TOTALS_SCHEMA, EA_SEED_TOTALS_VERSION, err) ||
        ej_get_string(root, "source", &s->source, err) || ej_get_string(root, "gpu", &s->gpu, err) ||
        ej_get_string(root, "pytorch_commit", &s->pytorch_commit, err) ||
        ej_get_string(root, "method", &s->method, err) || ej_field(root, "ops", 1, &ops, err) ||
        ej_array(ops, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        int which;
        if (read_op(ej_index(ops, i), s, seen, &which, err))
            return -1;
        seen[which] = 1;
    }
    /* the seed issue priced the ops it listed (each must be there); an op audited since may have no "before"
     * figure */
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!seen[i] && !ea_audit_ops[i].added)
            return ej_bad_field(root, "ops", "an entry for every op the seed listed", ea_audit_ops[i].target, err);
    return 0;
}

int ea_seed_totals_load(const char *path, ea_seed_totals *s, ea_error *err)
{
    memset(s, 0, sizeof *s);
    if (ej_load(path, &s->doc, err))
        return -1;
    if (read_doc(s, err)) {
        ej_free(&s->doc);
        return -1;
    }
    return 0;
}

void ea_seed_totals_free(ea_seed_totals *s)
{
    ej_free(&s->doc);
}
