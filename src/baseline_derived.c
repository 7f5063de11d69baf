/* baseline_derived.c: a baselines result's derived numbers checked against their sources (contract in
 * baseline_derived.h). The rollup and the reports quote speedups and fractions as stored: a hand-edited
 * speedup would otherwise print as measured. */
#include "baseline_derived.h"

#include <stdio.h>

#include "fractions.h"
#include "json.h"
#include "json_diff.h"

int ea_baseline_derived_check(const char *file, const cJSON *doc, ea_error *err)
{
    ej_val root = {file, doc, "$"}, gpu;
    int64_t l2;
    const cJSON *r;
    int i = 0;
    /* the fractions' basis depends on it: a size, not any number */
    if (ej_field(root, "gpu", 1, &gpu, err) || ej_get_int_min(gpu, "l2_bytes", 0, &l2, err))
        return -1;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const cJSON *fl = cJSON_GetObjectItemCaseSensitive(r, "floor");
        char at[64], diff[600];
        snprintf(at, sizeof at, "$.scopes[%d]", i++);
        if (!fl) /* an unsupported point: nothing measured, nothing derived */
            continue;
        cJSON *derived = cJSON_Duplicate(r, 1);
        if (!derived)
            return ea_fail(err, "%s %s: out of memory", file, at);
        ea_result_floor(derived, ej_num(fl, "bytes_per_s"), ej_num(fl, "launch_us"));
        ea_result_fractions(derived, (size_t)l2);
        int differs = ej_first_difference(r, derived, at, diff, sizeof diff);
        cJSON_Delete(derived);
        if (differs)
            return ea_fail(err, "%s %s: expected the floor, speedups and fractions its times and floor give (stored -> derived), %s", file,
                           at, diff);
    }
    return 0;
}
