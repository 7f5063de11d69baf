/* What a result derives from its times (fractions.h), with values worked out by hand. */
#include <criterion/criterion.h>

#include "measure/fractions.h"
#include <math.h>
#include <string.h>

#include "base/json.h"
#include "measure/prose.h"

/* A result: floor of 40 MB at 4e12 B/s plus a 0 us launch (10 us), current 100 us, oracle 20 us; cold times when
 * asked. */
static cJSON *result(int cold)
{
    const char *text = cold ? "{\"config\": {\"floor_bytes\": 4e7}, \"floor\": {\"bytes_per_s\": 4e12, \"launch_us\": 0},"
                              " \"paths\": [{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 100},"
                              " \"time_cold\": {\"median_us\": 120}},"
                              " {\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 20},"
                              " \"time_cold\": {\"median_us\": 25}}]}"
                            : "{\"config\": {\"floor_bytes\": 4e7}, \"floor\": {\"bytes_per_s\": 4e12, \"launch_us\": 0},"
                              " \"paths\": [{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 100}},"
                              " {\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 20}}]}";
    cJSON *r = cJSON_Parse(text);
    cr_assert_not_null(r);
    return r;
}

Test(fractions, warm_then_cold_then_without_an_oracle)
{
    cJSON *r = result(0);
    ea_figures x;
    ea_result_figures(r, &x); /* 40 MB fit in a 60 MiB L2 */
    cr_assert_float_eq(x.floor_us, 10.0, 1e-12);
    cr_assert_float_eq(x.speedup, 5.0, 1e-12);
    cr_assert_float_eq(x.floor_fraction, 0.5, 1e-12);
    cr_assert_float_eq(x.bandwidth_fraction, 0.5, 1e-12); /* 40 MB in 20 us = 2e12 of 4e12 B/s */
    cr_assert_eq(x.basis_cold, 0);
    cr_assert(isnan(x.speedup_cold));
    cJSON_Delete(r);

    r = result(1);
    ea_result_figures(r, &x);
    cr_assert_float_eq(x.speedup, 5.0, 1e-12);
    cr_assert_float_eq(x.speedup_cold, 4.8, 1e-12);
    cr_assert_float_eq(x.floor_fraction, 0.4, 1e-12);
    cr_assert_eq(x.basis_cold, 1);

    /* the oracle gone: what rested on it goes too */
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "paths"), 1);
    ea_result_figures(r, &x);
    cr_assert(isnan(x.speedup) && isnan(x.speedup_cold) && isnan(x.floor_fraction) && isnan(x.bandwidth_fraction));
    cr_assert_float_eq(x.floor_us, 10.0, 1e-12, "the floor rests on the plan and the run's rate alone");
    cJSON_Delete(r);
}

/* The floor follows the plan's bytes and the rate the result's run measured; nothing derived is stored. */
Test(fractions, the_floor_follows_the_plan_bytes_and_the_run_rate)
{
    cJSON *r = result(0);
    ea_result_floor(r, 2e12, 0.5);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "floor")), 2, "bytes_per_s and launch_us only");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItem(r, "config"), "floor_bytes", cJSON_CreateNumber(8e7));
    ea_figures x;
    ea_result_figures(r, &x);
    cr_assert_float_eq(x.bytes, 8e7, 1e-6);
    cr_assert_float_eq(x.floor_us, 40.5, 1e-12);
    cJSON_DeleteItemFromObjectCaseSensitive(r, "floor");
    ea_result_figures(r, &x);
    cr_assert(isnan(x.floor_us) && isnan(x.floor_fraction), "no floor: none derived");
    cr_assert_float_eq(x.speedup, 5.0, 1e-12);
    cJSON_Delete(r);
}

/* A verdict is an id: a moved time (gate --propose) leaves it as it is, and the sentence it renders quotes the
 * speedup the times give now (prose.h); no code edits a stored sentence. */
Test(fractions, a_verdict_id_stays_and_its_sentence_quotes_the_new_speedup)
{
    cJSON *r = result(0);
    cJSON_AddStringToObject(r, "verdict", "headroom");
    char text[128];
    ea_verdict_text(r, text, sizeof text);
    cr_assert_str_eq(text, "headroom: 5.00x");
    cJSON *t = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "paths"), 1), "time");
    cJSON_SetNumberValue(cJSON_GetObjectItem(t, "median_us"), 40);
    ea_verdict_text(r, text, sizeof text);
    cr_assert_str_eq(ej_str(r, "verdict"), "headroom");
    cr_assert_str_eq(text, "headroom: 2.50x");
    cJSON_Delete(r);
}
