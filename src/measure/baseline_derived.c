/* baseline_derived.c: a golden baselines document's derived numbers checked against their sources (contract in
 * baseline_derived.h). The drift rule judges the stored IQR: a hand-edited one would otherwise judge as measured. */
#include "measure/baseline_derived.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/baseline.h"
#include "base/json.h"

/* Every path's time and time_cold: iqr_us is what its quartiles give. */
static int iqrs(const char *file, const cJSON *r, const char *at, ea_error *err)
{
    const cJSON *p;
    int j = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths")) {
        for (int cold = 0; cold < 2; cold++) {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, cold ? "time_cold" : "time");
            double q1 = ej_num(t, "q1_us"), q3 = ej_num(t, "q3_us"), iqr = ej_num(t, "iqr_us");
            if (t && !(fabs(iqr - (q3 - q1)) <= 1e-12 * q3))
                return ea_fail(err, "%s %s.paths[%d].%s.iqr_us: expected q3_us - q1_us = %.17g, got %.17g", file, at, j,
                               cold ? "time_cold" : "time", q3 - q1, iqr);
        }
        j++;
    }
    return 0;
}

int ea_baseline_golden_validate(const char *file, const cJSON *doc, ea_error *err)
{
    ej_val root = {file, doc, "$"}, gpu;
    int64_t l2;
    const cJSON *r;
    int i = 0;
    /* a size the header states beside the times: an integer, not any number */
    if (ea_baseline_validate(file, doc, err) || ej_field(root, "gpu", 1, &gpu, err) ||
        ej_get_int_min(gpu, "l2_bytes", 0, &l2, err))
        return -1;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        char at[64];
        snprintf(at, sizeof at, "$.scopes[%d]", i++);
        if (iqrs(file, r, at, err))
            return -1;
    }
    return 0;
}

/* The golden count of scope_id under point, summed into *sum; 0 when the point or scope is not golden. */
static int scope_count(cJSON *const docs[EA_AUDIT_OPS], const char *point, const char *scope_id, int64_t *sum)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        const cJSON *p, *sc;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[i], "points")) {
            if (strcmp(ej_text(p, "point"), point))
                continue;
            cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
                if (!strcmp(ej_text(sc, "scope_id"), scope_id)) {
                    *sum += (int64_t)ej_num(sc, "count");
                    return 1;
                }
        }
    }
    return 0;
}

int ea_baseline_occurrences_check(const char *file, const cJSON *doc, cJSON *const docs[EA_AUDIT_OPS], ea_error *err)
{
    const cJSON *r, *id;
    int i = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "occurrences");
        int64_t sum = 0;
        int j = 0;
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(r, "scope_ids")) {
            if (!scope_count(docs, ej_text(r, "point"), cJSON_GetStringValue(id), &sum))
                return ea_fail(err, "%s $.scopes[%d].scope_ids[%d]: expected a scope of golden point %s, got \"%s\"", file,
                               i, j, ej_text(r, "point"), cJSON_GetStringValue(id));
            j++;
        }
        if (cJSON_IsNumber(n) && (int64_t)n->valuedouble != sum)
            return ea_fail(err, "%s $.scopes[%d].occurrences: expected the golden count of its scope_ids (%" PRId64
                           "), got %" PRId64, file, i, sum, (int64_t)n->valuedouble);
        i++;
    }
    return 0;
}
