/* family.c: the gpt-oss routing scope as extern-audit run sees it (repro.h). Two registry entries read
 * the two golden points of the one scope: the histc point (histc.json, every point of it) and the
 * cumsum point whose scope holds the sort and the histc (cumsum.json, picked by rt_claims). Each point
 * gives four result objects: {whole, narrow} x {uniform, skewed} (plan.h). */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "repro.h"
#include "run.h"

static const char *const aliases[][2] = {
    {"routing", "histc-5eac6acf8c20"},
    {"routing-cumsum", "cumsum-bbbc239b67b8"},
};

static const char *alias_of(const char *point)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(point, aliases[i][1]))
            return aliases[i][0];
    return NULL;
}

static const char *point_of(const char *alias)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(alias, aliases[i][0]))
            return aliases[i][1];
    return NULL;
}

static cJSON *each_config(const cJSON *point, const char *file, int index, const ea_run_opts *o, int measure,
                          const char *family, ea_error *err)
{
    rt_scope s;
    rt_capture c;
    if (rt_scope_parse(point, file, index, &s, err) || rt_plan_check(&s, err))
        return NULL;
    snprintf(s.alias, sizeof s.alias, "%.31s", alias_of(s.point) ? alias_of(s.point) : s.point);
    if (rt_scope_capture(&s, &c, err))
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    if (measure && !o->faithful && o->log) /* the ids have no fabricated form: nothing to run */
        fprintf(o->log, "routing %s: measured in faithful mode only\n", s.alias);
    for (int f = RT_WHOLE; f <= RT_NARROW; f++)
        for (int d = RT_UNIFORM; d <= RT_SKEWED && (!measure || o->faithful); d++) {
            cJSON *r;
            if (measure) {
                r = rt_measure(&s, &c, (rt_form)f, (rt_dist)d, family, o, err);
            } else {
                r = rt_header(&s, family);
                cJSON_AddItemToObject(r, "config", rt_config_json(&s, &c, (rt_form)f, (rt_dist)d));
            }
            if (!r) {
                cJSON_Delete(arr);
                rt_capture_free(&c);
                return NULL;
            }
            cJSON_AddItemToArray(arr, r);
        }
    rt_capture_free(&c);
    return arr;
}

static cJSON *plan_histc(const cJSON *point, const char *file, int index, const ea_run_opts *o, ea_error *err)
{
    return each_config(point, file, index, o, 0, "routing_histc", err);
}

static cJSON *run_histc(const cJSON *point, const char *file, int index, const ea_run_opts *o, ea_error *err)
{
    return each_config(point, file, index, o, 1, "routing_histc", err);
}

static cJSON *plan_cumsum(const cJSON *point, const char *file, int index, const ea_run_opts *o, ea_error *err)
{
    return each_config(point, file, index, o, 0, "routing_cumsum", err);
}

static cJSON *run_cumsum(const cJSON *point, const char *file, int index, const ea_run_opts *o, ea_error *err)
{
    return each_config(point, file, index, o, 1, "routing_cumsum", err);
}

const ea_repro_family ea_family_routing_histc = {
    "routing_histc", "aten.histc.default", alias_of, point_of, plan_histc, run_histc, NULL,
};

const ea_repro_family ea_family_routing_cumsum = {
    "routing_cumsum", "aten.cumsum.default", alias_of, point_of, plan_cumsum, run_cumsum, rt_claims,
};
