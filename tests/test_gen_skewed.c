/* topk_ids_skewed (docs/reference/schema.md): the test vectors shared with tools/capture/gen.py, and the
 * distribution the routing scope's skewed golden input relies on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/gen.h"

static int64_t *skewed(int seed, int64_t experts, int64_t tokens, int64_t k)
{
    char json[128];
    snprintf(json, sizeof json, "{\"generator\": \"topk_ids_skewed\", \"seed\": %d, \"experts\": %lld, \"k\": %lld}",
             seed, (long long)experts, (long long)k);
    ea_tensor t = {.dtype = EA_I64, .ndim = 2, .sizes = {tokens, k}, .strides = {k, 1}};
    int64_t *v = malloc(sizeof *v * (size_t)(tokens * k));
    cJSON *g = cJSON_Parse(json);
    ea_error err;
    cr_assert_eq(ea_gen_fill(g, &t, v, "test", &err), 0, "%s", err.msg);
    cJSON_Delete(g);
    return v;
}

Test(gen_skewed, vectors)
{
    int64_t *v = skewed(1, 32, 3, 4);
    const int64_t want[] = {23, 5, 25, 4, 14, 9, 23, 25, 4, 23, 13, 7};
    cr_assert_arr_eq(v, want, sizeof want);
    free(v);
    v = skewed(5, 8, 3, 2);
    const int64_t small[] = {4, 0, 0, 1, 7, 4};
    cr_assert_arr_eq(v, small, sizeof small);
    free(v);
}

Test(gen_skewed, largest_expert_near_20_percent_some_empty)
{
    for (int seed = 0; seed < 4; seed++) {
        const int64_t T = 1000, k = 4, E = 32;
        int64_t *v = skewed(seed, E, T, k), count[32] = {0}, top = 0, empty = 0;
        for (int64_t t = 0; t < T; t++)
            for (int64_t j = 0; j < k; j++) {
                int64_t e = v[t * k + j];
                cr_assert(e >= 0 && e < E, "seed %d token %lld id %lld", seed, (long long)t, (long long)e);
                for (int64_t i = 0; i < j; i++)
                    cr_assert_neq(v[t * k + i], e, "seed %d token %lld repeats %lld", seed, (long long)t, (long long)e);
                count[e]++;
            }
        for (int64_t e = 0; e < E; e++) {
            top = count[e] > top ? count[e] : top;
            empty += count[e] == 0;
        }
        cr_assert(top * 100 >= 17 * T * k && top * 100 <= 23 * T * k, "seed %d: largest expert %lld of %lld", seed,
                  (long long)top, (long long)(T * k));
        cr_assert_geq(empty, 1, "seed %d", seed);
        free(v);
    }
}

Test(gen_skewed, strided_storage_and_refusals)
{
    /* a transposed [3, 2] view gets the same logical values as the contiguous one */
    int64_t *c = skewed(5, 8, 3, 2), v[6];
    ea_tensor t = {.dtype = EA_I64, .ndim = 2, .sizes = {3, 2}, .strides = {1, 3}};
    cJSON *g = cJSON_Parse("{\"generator\": \"topk_ids_skewed\", \"seed\": 5, \"experts\": 8, \"k\": 2}");
    ea_error err = {{0}};
    cr_assert_eq(ea_gen_fill(g, &t, v, "test", &err), 0, "%s", err.msg);
    for (int tok = 0; tok < 3; tok++)
        for (int j = 0; j < 2; j++)
            cr_assert_eq(v[tok + 3 * j], c[tok * 2 + j]);
    free(c);
    cJSON_Delete(g);
    /* k = 8 > 8 - 8 / 8: only 7 experts carry weight */
    int64_t big[16];
    ea_tensor t8 = {.dtype = EA_I64, .ndim = 2, .sizes = {2, 8}, .strides = {8, 1}};
    g = cJSON_Parse("{\"generator\": \"topk_ids_skewed\", \"seed\": 1, \"experts\": 8, \"k\": 8}");
    cr_assert_eq(ea_gen_fill(g, &t8, big, "capture.json $.inputs[0]", &err), -1);
    cr_assert(strstr(err.msg, "capture.json $.inputs[0]") && strstr(err.msg, "experts - experts / 8"), "%s", err.msg);
    cJSON_Delete(g);
    g = cJSON_Parse("{\"generator\": \"topk_ids_skewed\", \"experts\": 8}");
    cr_assert_eq(ea_gen_fill(g, &t8, big, "test", &err), -1);
    cr_assert(strstr(err.msg, "\"seed\""), "%s", err.msg);
    cJSON_Delete(g);
}
