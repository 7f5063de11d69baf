/* The family kit (kit.h): the runner builds each configuration's result from the plan (header, then
 * "config"), a point this target cannot run is one unsupported result decided before any device call, a run
 * appends measure's fields after the plan and the measured floor after the family's paths, and a path runs under
 * the runner's policy (label, check-only, cold timing) whatever the family's steps say. */
#include <criterion/criterion.h>
#include <string.h>

#include "gpu/device.h"
#include "base/json.h"
#include "measure/kit.h"
#include "measure/kit_impl.h"
#include "measure/path.h"
#include "measure/unsupported.h"

static const char point_json[] =
    "{\"point\": \"fake-1\", \"count\": 5, \"scopes\": [{\"scope_id\": \"s0\"}, {\"scope_id\": \"s1\"}]}";

typedef struct {
    int unsupported, plan_fails, no_split, measured[4], nmeasured;
} fake_behaviour;

static fake_behaviour fake;

/* Two configurations, numbered 7 and 3 (a family's own numbers), one scope group each. */
static int fake_plan(ea_run_ctx *c, const ea_scope_ref *r, ea_kit_plan *p, ea_error *err)
{
    static const char *const ids[] = {"s0", "s1"};
    if (fake.plan_fails)
        return ea_fail(err, "fake: the point does not parse");
    for (int k = 0; k < 2; k++) {
        cJSON *config = cJSON_CreateObject();
        cJSON_AddNumberToObject(config, "sm_count", p->sm_count);
        cJSON_AddStringToObject(config, "alias", p->alias);
        cJSON_AddNumberToObject(config, "floor_bytes", 4096 * (k + 1)); /* the measured floor's bytes (floor_path.h) */
        if (!fake.no_split)
            cJSON_AddNumberToObject(config, "floor_written_bytes", 1024);
        ea_kit_add(p, &(ea_kit_config){.index = k ? 3 : 7, .occurrences = 2 + k, .scope_ids = &ids[k],
                                       .nscope_ids = 1, .config = config});
    }
    if (fake.unsupported)
        ea_kit_unsupported(p, "fake: no capture covers it");
    return 0;
}

static cJSON *fake_measure(ea_run_ctx *c, const ea_scope_ref *r, const ea_kit_state *st, ea_error *err)
{
    fake.measured[fake.nmeasured++] = st->index;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddArrayToObject(m, "paths");
    cJSON_AddBoolToObject(m, "passed", 1);
    return m;
}

static const ea_repro_family fake_family = {
    .name = "fake", .op = "fake.op", .plan = fake_plan, .measure = fake_measure, .modes = EA_MODE_FAITHFUL};

static ea_run_ctx run_ctx; /* large: not on the stack */

static cJSON *points(int measure, const ea_run_opts *o, ea_error *err)
{
    cJSON *point = cJSON_Parse(point_json);
    const ea_scope_ref ref = {.family = &fake_family, .point = point, .file = "fake.json"};
    memset(&run_ctx, 0, sizeof run_ctx);
    run_ctx.opts = o;
    cJSON *arr = ea_repro_points(&run_ctx, &ref, measure, err);
    cJSON_Delete(point);
    return arr;
}

/* The key order of a result object, "a,b,c". */
static void keys_of(const cJSON *o, char *buf, size_t n)
{
    buf[0] = '\0';
    for (const cJSON *k = o->child; k; k = k->next)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "", k->string);
}

Test(kit, a_plan_is_one_result_per_configuration_header_then_config)
{
    const ea_run_opts o = {.faithful = 1, .sm_count = 132};
    ea_error err = {{0}};
    char keys[256];
    memset(&fake, 0, sizeof fake);
    cJSON *arr = points(0, &o, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 2);
    for (int k = 0; k < 2; k++) {
        const cJSON *r = cJSON_GetArrayItem(arr, k), *cfg = cJSON_GetObjectItem(r, "config");
        keys_of(r, keys, sizeof keys);
        cr_assert_str_eq(keys, "family,point,alias,occurrences,scope_ids,config");
        cr_assert_str_eq(ej_text(r, "family"), "fake");
        cr_assert_str_eq(ej_text(r, "point"), "fake-1");
        cr_assert_str_eq(ej_text(r, "alias"), "fake-1", "no document: the point id");
        cr_assert_eq(cJSON_GetObjectItem(r, "occurrences")->valueint, 2 + k);
        cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "scope_ids"), 0)->valuestring, k ? "s1" : "s0");
        cr_assert_eq(cJSON_GetObjectItem(cfg, "sm_count")->valueint, 132, "the run's count sizes a plan");
        cr_assert_str_eq(ej_text(cfg, "alias"), "fake-1");
    }
    cr_assert_eq(fake.nmeasured, 0, "a plan measures nothing");
    cJSON_Delete(arr);
}

Test(kit, a_plan_the_family_refuses_is_an_error_with_its_reason)
{
    const ea_run_opts o = {.faithful = 1, .sm_count = 132};
    ea_error err = {{0}};
    memset(&fake, 0, sizeof fake);
    fake.plan_fails = 1;
    cr_assert_null(points(0, &o, &err));
    cr_assert_str_eq(err.msg, "fake: the point does not parse");
    cr_assert_null(points(1, &o, &err));
    cr_assert_eq(fake.nmeasured, 0);
}

Test(kit, an_unsupported_point_plans_but_its_run_is_one_unsupported_result_without_a_device)
{
    const ea_run_opts o = {.faithful = 1}; /* no sm_count: the plan of a run sizes for 1 until the device is asked */
    ea_error err = {{0}};
    memset(&fake, 0, sizeof fake);
    fake.unsupported = 1;
    cJSON *arr = points(0, &(ea_run_opts){.faithful = 1, .sm_count = 132}, &err);
    cr_assert_eq(cJSON_GetArraySize(arr), 2, "planned");
    cr_assert_null(ea_unsupported_reason(cJSON_GetArrayItem(arr, 0)));
    cJSON_Delete(arr);
    arr = points(1, &o, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    cr_assert_str_eq(ea_unsupported_reason(cJSON_GetArrayItem(arr, 0)), "fake: no capture covers it");
    cr_assert_eq(fake.nmeasured, 0);
    cJSON_Delete(arr);
}

Test(kit, a_run_without_a_device_is_refused_before_measure)
{
    ea_device_info info;
    if (ea_device_probe(&info))
        cr_skip_test("a CUDA device is here: kit_gpu runs the measurement instead");
    const ea_run_opts o = {.faithful = 1, .sm_count = 132};
    ea_error err = {{0}};
    memset(&fake, 0, sizeof fake);
    cr_assert_null(points(1, &o, &err));
    cr_assert_str_eq(err.msg, "fake: cannot read the multiprocessor count");
    cr_assert_eq(fake.nmeasured, 0);
}

Test(kit_gpu, a_run_appends_each_configurations_measurement_after_its_plan)
{
    ea_device_info info;
    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    const ea_run_opts o = {.faithful = 1, .sm_count = 1}; /* planned again for the device's count */
    ea_error err = {{0}};
    char keys[256];
    memset(&fake, 0, sizeof fake);
    cJSON *arr = points(1, &o, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(fake.nmeasured, 2);
    cr_assert(fake.measured[0] == 7 && fake.measured[1] == 3, "the plan's numbers, in its order");
    for (int k = 0; k < 2; k++) {
        const cJSON *r = cJSON_GetArrayItem(arr, k);
        keys_of(r, keys, sizeof keys);
        cr_assert_str_eq(keys, "family,point,alias,occurrences,scope_ids,config,paths,passed");
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "config"), "sm_count")->valueint, info.sm_count);
        const cJSON *paths = cJSON_GetObjectItem(r, "paths"), *fl = cJSON_GetArrayItem(paths, 0);
        cr_assert_eq(cJSON_GetArraySize(paths), 1, "the family's none, then the floor");
        cr_assert_str_eq(cJSON_GetObjectItem(fl, "name")->valuestring, EA_PATH_FLOOR);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(fl, "passed")) && cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")),
                  "%s", cJSON_PrintUnformatted(r));
    }
    cJSON_Delete(arr);
}

/* A plan without the written part of its bytes cannot give its floor: the run breaks naming the key and the
 * configuration, rather than leave the floor out unsaid. */
Test(kit_gpu, a_plan_without_its_written_bytes_breaks_the_run_naming_the_key)
{
    ea_device_info info;
    if (!ea_device_probe(&info))
        cr_skip_test("no CUDA device: %s", info.reason);
    ea_error err = {{0}};
    memset(&fake, 0, sizeof fake);
    fake.no_split = 1;
    cr_assert_null(points(1, &(ea_run_opts){.faithful = 1}, &err));
    cr_assert_str_eq(err.msg, "fake fake-1 #0 floor_copy config.floor_written_bytes: expected integer, got nothing "
                              "(missing key)");
}

static int no_poison(void *ctx, ea_error *err)
{
    return 0;
}

Test(kit, a_path_runs_under_the_runners_policy)
{
    static const char stored[] =
        "{\"scopes\": [{\"family\": \"fake\", \"point\": \"fake-1\", \"paths\": ["
        "{\"name\": \"current\", \"mode\": \"faithful\", \"time_cold\": {}},"
        "{\"name\": \"oracle\", \"mode\": \"faithful\"}]}]}";
    cJSON *doc = cJSON_Parse(stored);
    ea_run_opts o = {.faithful = 1, .check_only = 1};
    ea_kit_state st = {.index = 0, .alias = "xlnet", .opts = &o, .family = "fake", .point = "fake-1"};
    /* the family's own check_only and warm_only are overridden; its label kept when it gives one */
    const ea_path_steps mine = {.ctx = &st, .poison = no_poison, .check_only = 0, .warm_only = 1};
    char label[128];
    ea_path_steps s = ea_kit_steps(&st, &mine, "current", "faithful", label, sizeof label);
    cr_assert_str_eq(s.label, "fake xlnet current");
    cr_assert(s.check_only && !s.warm_only, "check-only as the run asks; run times every path cold");
    cr_assert(s.ctx == &st && s.poison == no_poison);
    o = (ea_run_opts){.faithful = 1, .cold_from = doc}; /* gate --run: cold where the stored result is */
    s = ea_kit_steps(&st, &mine, "current", "faithful", label, sizeof label);
    cr_assert(!s.check_only && !s.warm_only);
    s = ea_kit_steps(&st, &mine, "oracle", "faithful", label, sizeof label);
    cr_assert(s.warm_only, "the stored oracle has no cold time");
    s = ea_kit_steps(&st, &(ea_path_steps){.label = "fake xlnet oracle unroll 2"}, "oracle", "faithful", label,
                     sizeof label);
    cr_assert_str_eq(s.label, "fake xlnet oracle unroll 2");
    cJSON_Delete(doc);
}
