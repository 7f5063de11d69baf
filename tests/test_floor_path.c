/* The measured floor (floor_path.h): the configuration's bytes as words, the source pattern, the word-for-word
 * check, the fractions and the table column it gives; on a GPU the kernel itself, read-heavy, write-heavy and
 * write-only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "gpu/pattern.h"
#include "helpers.h"
#include "measure/floor_path_impl.h"
#include "measure/fractions.h"
#include "report/baseline_table.h"

static int words(const char *config, size_t *read, size_t *written, ea_error *err)
{
    cJSON *c = cJSON_Parse(config);
    cr_assert_not_null(c, "%s", config);
    int rc = ea_floor_path_words(c, "cat densenet floor_copy", read, written, err);
    cJSON_Delete(c);
    return rc;
}

Test(floor_path, the_bytes_read_and_written_round_up_to_whole_words)
{
    size_t r, w;
    ea_error err;
    cr_assert_eq(words("{\"floor_bytes\": 100, \"floor_written_bytes\": 40}", &r, &w, &err), 0, "%s", err.msg);
    cr_assert(r == 4 && w == 3, "60 bytes read in 4 words, 40 written in 3: %zu, %zu", r, w);
    cr_assert_eq(words("{\"floor_bytes\": 32, \"floor_written_bytes\": 32}", &r, &w, &err), 0, "%s", err.msg);
    cr_assert(r == 0 && w == 2, "a scope that reads nothing (a constant's cumsum)");
}

Test(floor_path, a_configuration_without_its_split_is_refused_naming_the_key)
{
    static const struct {
        const char *config, *want;
    } rows[] = {
        {"{\"floor_bytes\": 100}",
         "cat densenet floor_copy config.floor_written_bytes: expected integer, got nothing (missing key)"},
        {"{\"floor_written_bytes\": 4}", "config.floor_bytes: expected integer, got nothing"},
        {"{\"floor_bytes\": 100, \"floor_written_bytes\": 2.5}",
         "config.floor_written_bytes: expected integer, got number 2.5"},
        {"{\"floor_bytes\": 1e16, \"floor_written_bytes\": 4}",
         "config.floor_bytes: expected integer of magnitude below 2^53"},
        {"{\"floor_bytes\": -16, \"floor_written_bytes\": 4}", "config.floor_bytes: expected an integer >= 0, got -16"},
        {"{\"floor_bytes\": 100, \"floor_written_bytes\": 0}", "config.floor_written_bytes: expected 1 to floor_bytes "
                                                               "(100), got 0"},
        {"{\"floor_bytes\": 100, \"floor_written_bytes\": 101}", "expected 1 to floor_bytes (100), got 101"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t r, w;
        ea_error err = {0};
        cr_assert_eq(words(rows[i].config, &r, &w, &err), -1, "%s accepted", rows[i].config);
        cr_assert(strstr(err.msg, rows[i].want), "%s: %s", rows[i].config, err.msg);
    }
}

/* The kernel keeps a read beyond the written words only by testing it against the zero word, and the check tells the
 * poison apart: the pattern holds neither. */
Test(floor_path, the_source_pattern_has_no_zero_and_no_poison_word)
{
    for (size_t i = 0; i < (1u << 22); i++) {
        uint32_t w[4];
        ea_pattern_word(i, w);
        cr_assert((w[0] | w[1] | w[2] | w[3]) != 0, "word %zu is zero", i);
        cr_assert((w[0] & w[1] & w[2] & w[3]) != 0xFFFFFFFFu, "word %zu is the poison", i);
    }
}

Test(floor_path, the_check_counts_unwritten_and_mismatched_words)
{
    enum { R = 3, W = 5 };
    uint32_t src[4 * R], dst[4 * W];
    for (size_t i = 0; i < R; i++)
        ea_pattern_word(i, src + 4 * i);
    memcpy(dst, src, sizeof src);
    memset(dst + 4 * R, 0, sizeof dst - sizeof src); /* words past the source: zero */
    ea_check c;
    ea_floor_path_expect(dst, src, R, W, &c);
    cr_assert(c.n == W && c.mismatched == 0 && c.unwritten == 0);
    memset(dst + 4, 0xFF, 16); /* word 1 left holding the poison */
    dst[4 * 4 + 2] = 7;        /* word 4 written, but not zero */
    ea_floor_path_expect(dst, src, R, W, &c);
    cr_assert(c.unwritten == 1 && c.mismatched == 1, "%lld unwritten, %lld mismatched", (long long)c.unwritten,
              (long long)c.mismatched);
    /* read-heavy: the written words are the source's first ones */
    ea_floor_path_expect(src, src, R, 2, &c);
    cr_assert(c.n == 2 && c.mismatched == 0 && c.unwritten == 0);
}

/* A result with the measured floor (16 us cold, 8 warm) and an oracle (20 us cold, 10 warm). */
static cJSON *measured_result(void)
{
    cJSON *r = cJSON_Parse("{\"family\": \"cat\", \"alias\": \"a\", \"config\": {\"floor_bytes\": 4e7}, "
                           "\"floor\": {\"bytes_per_s\": 4e12, \"launch_us\": 0}, \"passed\": true, \"paths\": ["
                           "{\"name\": \"current\", \"mode\": \"faithful\", \"time\": {\"median_us\": 30}, "
                           "\"time_cold\": {\"median_us\": 40}},"
                           "{\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {\"median_us\": 10}, "
                           "\"time_cold\": {\"median_us\": 20}},"
                           "{\"name\": \"floor_copy\", \"mode\": \"floor\", \"passed\": true, \"time\": {\"median_us\": 8}, "
                           "\"time_cold\": {\"median_us\": 16}}]}");
    cr_assert_not_null(r);
    return r;
}

Test(floor_path, the_measured_fraction_is_on_the_oracles_basis)
{
    cJSON *r = measured_result();
    ea_figures x;
    ea_result_figures(r, &x);
    cr_assert(x.basis_cold && x.measured_us == 8 && x.measured_cold_us == 16);
    cr_assert_float_eq(x.measured_fraction, 0.8, 1e-12, "cold against cold");
    cr_assert_float_eq(x.speedup, 3.0, 1e-12, "the floor is no current path");
    /* a copy that failed its check measures nothing */
    cJSON *fl = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "paths"), 2);
    cJSON_ReplaceItemInObject(fl, "passed", cJSON_CreateFalse());
    ea_result_figures(r, &x);
    cr_assert(isnan(x.measured_us) && isnan(x.measured_fraction));
    cJSON_ReplaceItemInObject(fl, "passed", cJSON_CreateTrue());
    /* without the floor's cold time there is no fraction on the cold basis, rather than a warm one beside it */
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "paths"), 2), "time_cold");
    ea_result_figures(r, &x);
    cr_assert(isnan(x.measured_fraction));
    /* warm basis: the oracle has no cold time either */
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "paths"), 1), "time_cold");
    ea_result_figures(r, &x);
    cr_assert_float_eq(x.measured_fraction, 0.8, 1e-12, "warm against warm");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "paths"), 2);
    ea_result_figures(r, &x);
    cr_assert(isnan(x.measured_us) && isnan(x.measured_fraction), "no floor path: none");
    cJSON_Delete(r);
}

static char *table_text(const cJSON *doc)
{
    cJSON *rows = ea_baseline_table("/nonexistent/baselines.json", doc);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ea_baseline_table_print(rows, f);
    fclose(f);
    cJSON_Delete(rows);
    return buf;
}

Test(floor_path, the_table_shows_the_measured_column_once_a_row_has_it)
{
    cJSON *doc = cJSON_CreateObject(), *scopes = cJSON_AddArrayToObject(doc, "scopes"), *r = measured_result();
    cJSON_AddItemToArray(scopes, r);
    cJSON *rows = ea_baseline_table("/nonexistent/baselines.json", doc);
    cr_assert_float_eq(ej_num(cJSON_GetArrayItem(rows, 0), "floor_measured_fraction"), 0.8, 1e-12);
    cJSON_Delete(rows);
    char *t = table_text(doc);
    cr_assert(strstr(t, "meas%") && strstr(t, "80%"), "%s", t);
    free(t);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "paths"), 2);
    t = table_text(doc);
    cr_assert_null(strstr(t, "meas%"), "no measured floor in any row: no column\n%s", t);
    free(t);
    cJSON_Delete(doc);
}

/* On a GPU: the kernel writes what the check expects, read-heavy, write-heavy and write-only, timed warm and cold. */
Test(floor_path_gpu, the_kernel_moves_the_bytes_it_is_given, .timeout = 120)
{
    test_skip_without_gpu();
    static const char *const configs[] = {
        "{\"floor_bytes\": 3000016, \"floor_written_bytes\": 1000000}", /* reads twice what it writes, odd sizes */
        "{\"floor_bytes\": 96128, \"floor_written_bytes\": 64128}",     /* routing's whole form */
        "{\"floor_bytes\": 73728, \"floor_written_bytes\": 73728}",     /* writes alone */
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        cJSON *c = cJSON_Parse(configs[i]);
        ea_floor_path f;
        ea_path_outcome out;
        ea_error err;
        cr_assert_eq(ea_floor_path_open(c, "floor test", &f, &err), 0, "%s", err.msg);
        ea_path_steps s = ea_floor_path_steps(&f);
        s.label = "floor test";
        cr_assert_eq(ea_path_run(&s, EA_PATH_FLOOR, EA_PATH_FLOOR_MODE, &out, &err), 0, "%s", err.msg);
        ea_floor_path_close(&f);
        cr_assert(ea_path_judge_outcome(&out, -1, 1, 1), "%s: %s", configs[i], cJSON_PrintUnformatted(out.json));
        cr_assert(out.median_us > 0 && ea_path_median_cold(out.json) > 0, "%s: timed warm and cold", configs[i]);
        cr_log_info("%s: %.2f us warm, %.2f us cold", configs[i], out.median_us, ea_path_median_cold(out.json));
        cJSON_Delete(out.json);
        cJSON_Delete(c);
    }
}
