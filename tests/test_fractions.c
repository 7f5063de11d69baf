/* What a result derives from its times (fractions.h), with values worked out by hand. */
#include <criterion/criterion.h>

#include "measure/fractions.h"
#include <string.h>

#include "base/json.h"
#include "measure/prose.h"

/* A result: floor 10 us of 40 MB at 4e12 B/s, current 100 us, oracle 20 us; cold times when asked. */
static cJSON *result(int cold)
{
    const char *text = cold ? "{\"floor\": {\"bytes\": 4e7, \"bytes_per_s\": 4e12, \"us\": 10},"
                              " \"paths\": [{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 100},"
                              " \"time_cold\": {\"median_us\": 120}},"
                              " {\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 20},"
                              " \"time_cold\": {\"median_us\": 25}}]}"
                            : "{\"floor\": {\"bytes\": 4e7, \"bytes_per_s\": 4e12, \"us\": 10},"
                              " \"paths\": [{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 100}},"
                              " {\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 20}}]}";
    cJSON *r = cJSON_Parse(text);
    cr_assert_not_null(r);
    return r;
}

Test(fractions, warm_then_cold_then_without_an_oracle)
{
    cJSON *r = result(0);
    ea_result_fractions(r); /* 40 MB fit in a 60 MiB L2 */
    cr_assert_float_eq(ej_num(r, "speedup"), 5.0, 1e-12);
    cr_assert_float_eq(ej_num(r, "floor_fraction"), 0.5, 1e-12);
    cr_assert_float_eq(ej_num(r, "bandwidth_fraction"), 0.5, 1e-12); /* 40 MB in 20 us = 2e12 of 4e12 B/s */
    cr_assert_str_eq(ej_str(r, "fraction_basis"), "time");
    cr_assert_null(cJSON_GetObjectItem(r, "speedup_cold"));
    cr_assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "floor"), "note"), "rendered when printed (prose.h)");
    cJSON_Delete(r);

    r = result(1);
    cJSON_AddNumberToObject(r, "speedup", 99); /* stale: replaced in place */
    ea_result_fractions(r);
    cr_assert_float_eq(ej_num(r, "speedup"), 5.0, 1e-12);
    cr_assert_float_eq(ej_num(r, "speedup_cold"), 4.8, 1e-12);
    cr_assert_float_eq(ej_num(r, "floor_fraction"), 0.4, 1e-12);
    cr_assert_str_eq(ej_str(r, "fraction_basis"), "time_cold");
    cr_assert_str_eq(cJSON_GetArrayItem(r, 0)->string, "floor", "keys keep their places");

    /* the oracle gone: what rested on it goes too */
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "paths"), 1);
    ea_result_fractions(r);
    const char *gone[] = {"speedup", "speedup_cold", "floor_fraction", "bandwidth_fraction", "fraction_basis"};
    for (int i = 0; i < 5; i++)
        cr_assert_null(cJSON_GetObjectItem(r, gone[i]), "%s stayed", gone[i]);
    cJSON_Delete(r);
}

/* A verdict is an id: a re-derived speedup (gate --propose moving a time) leaves it as it is, and the sentence it
 * renders quotes the new speedup (prose.h); no code edits a stored sentence. */
Test(fractions, a_verdict_id_stays_and_its_sentence_quotes_the_new_speedup)
{
    cJSON *r = result(0);
    cJSON_AddNumberToObject(r, "speedup", 2.5); /* the oracle was 40 us when the verdict was given */
    cJSON_AddStringToObject(r, "verdict", "headroom");
    char text[128];
    ea_verdict_text(r, text, sizeof text);
    cr_assert_str_eq(text, "headroom: 2.50x");
    ea_result_fractions(r);
    cr_assert_str_eq(ej_str(r, "verdict"), "headroom");
    ea_verdict_text(r, text, sizeof text);
    cr_assert_str_eq(text, "headroom: 5.00x");
    cJSON_Delete(r);
}
