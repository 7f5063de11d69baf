/* What a result derives from its times (fractions.h), with values worked out by hand. */
#include <criterion/criterion.h>

#include "measure/fractions.h"
#include <string.h>

#include "base/json.h"

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
    ea_result_fractions(r, (size_t)60 << 20); /* 40 MB fit in a 60 MiB L2 */
    cr_assert_float_eq(ej_num(r, "speedup"), 5.0, 1e-12);
    cr_assert_float_eq(ej_num(r, "floor_fraction"), 0.5, 1e-12);
    cr_assert_float_eq(ej_num(r, "bandwidth_fraction"), 0.5, 1e-12); /* 40 MB in 20 us = 2e12 of 4e12 B/s */
    cr_assert_str_eq(ej_str(r, "fraction_basis"), "time");
    cr_assert_null(cJSON_GetObjectItem(r, "speedup_cold"));
    cr_assert(strstr(ej_str(cJSON_GetObjectItem(r, "floor"), "note"), "replays are warm"));
    cJSON_Delete(r);

    r = result(1);
    cJSON_AddNumberToObject(r, "speedup", 99); /* stale: replaced in place */
    ea_result_fractions(r, (size_t)60 << 20);
    cr_assert_float_eq(ej_num(r, "speedup"), 5.0, 1e-12);
    cr_assert_float_eq(ej_num(r, "speedup_cold"), 4.8, 1e-12);
    cr_assert_float_eq(ej_num(r, "floor_fraction"), 0.4, 1e-12);
    cr_assert_str_eq(ej_str(r, "fraction_basis"), "time_cold");
    cr_assert(strstr(ej_str(cJSON_GetObjectItem(r, "floor"), "note"), "taken against the cold time"));
    cr_assert_str_eq(cJSON_GetArrayItem(r, 0)->string, "floor", "keys keep their places");

    /* the oracle gone: what rested on it goes too; an L2 too small for the bytes: no note */
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "paths"), 1);
    ea_result_fractions(r, 1 << 20);
    const char *gone[] = {"speedup", "speedup_cold", "floor_fraction", "bandwidth_fraction", "fraction_basis"};
    for (int i = 0; i < 5; i++)
        cr_assert_null(cJSON_GetObjectItem(r, gone[i]), "%s stayed", gone[i]);
    cr_assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "floor"), "note"));
    cJSON_Delete(r);
}

/* The verdict's quoted speedup follows a re-derived one (gate --propose moving a time): cat's and cumsum's
 * forms; a number that only ends like the old one, or a sentence quoting none, is kept. */
Test(fractions, a_verdict_quoting_the_speedup_follows_it)
{
    const char *const cases[][2] = {
        {"speedup 2.50x over the current path (2 Inductor launches -> 1 fused kernel); y bit-identical to torch's",
         "speedup 5.00x over the current path (2 Inductor launches -> 1 fused kernel); y bit-identical to torch's"},
        {"headroom: 2.50x", "headroom: 5.00x"},
        {"measured, no material headroom", "measured, no material headroom"},
        {"12.50x elsewhere, then 2.50x", "12.50x elsewhere, then 5.00x"},
        {"only 12.50x", "only 12.50x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *r = result(0);
        cJSON_AddNumberToObject(r, "speedup", 2.5); /* the oracle was 40 us when the sentence was written */
        cJSON_AddStringToObject(r, "verdict", cases[i][0]);
        ea_result_fractions(r, 0);
        cr_assert_str_eq(ej_str(r, "verdict"), cases[i][1], "case %zu", i);
        cJSON_Delete(r);
    }
    /* a first derivation (no speedup yet) leaves the family's own sentence alone */
    cJSON *r = result(0);
    cJSON_AddStringToObject(r, "verdict", "headroom: 9.99x");
    ea_result_fractions(r, 0);
    cr_assert_str_eq(ej_str(r, "verdict"), "headroom: 9.99x");
    cJSON_Delete(r);
}
