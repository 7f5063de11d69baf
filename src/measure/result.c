/* result.c: what a baselines document says about one scope (result.h). */
#include "measure/result.h"

#include <math.h>
#include <string.h>

#include "base/json.h"
#include "measure/path.h"

int ea_result_order(const cJSON *results, const cJSON *r)
{
    const cJSON *o;
    int n = 0;
    cJSON_ArrayForEach(o, results) {
        if (o == r)
            break;
        n += !strcmp(ej_text(o, "family"), ej_text(r, "family")) && !strcmp(ej_text(o, "point"), ej_text(r, "point"));
    }
    return n;
}

/* The baselines result that prices scope: the measurement of the captured workload (a configuration
 * not marked capture_comparable false), preferring one that passed. */
const cJSON *ea_result_for(const cJSON *baselines, const char *scope)
{
    const cJSON *r, *best = NULL, *id;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(baselines, "scopes"))
    {
        const cJSON *cc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "config"),
                                                           "capture_comparable");
        if (cJSON_IsFalse(cc))
            continue;
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(r, "scope_ids"))
            if (cJSON_IsString(id) && !strcmp(id->valuestring, scope) &&
                (!best || (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed")) &&
                           !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(best, "passed")))))
                best = r;
    }
    return best;
}

/* The fastest faithful oracle that passed, NaN when none did. */
double ea_result_oracle_us(const cJSON *r)
{
    double best = NAN;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths"))
    {
        const char *name = ej_str(p, "name"), *mode = ej_str(p, "mode");
        double t = ea_path_median(p);
        if (name && !strncmp(name, "oracle", 6) && mode && !strcmp(mode, "faithful") &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "passed")) && (isnan(best) || t < best))
            best = t;
    }
    return best;
}
