/* The cat scopes on a GPU (skipped without one): golden points through the family's run: the current
 * path replayed against torch's checksums, the oracle's cat bit-exact, its BN outputs within tolerance
 * and no less accurate than the current path, the same after timing, one launch; the infer oracle's
 * share of the copy bandwidth measured in this process. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/cat/cat.h"
#include "../repros/cat/cat_impl.h"
#include "gpu/bandwidth.h"
#include "measure/baseline.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/repro.h"
#include "gpu/timer.h"

#define CAT_FILE "golden/occurrences/cat.json"

static const ea_run_opts faithful = {1, 0, 0, NULL, 0, NULL};

static const ea_repro_family *family(void)
{
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++)
        if (!strcmp((*f)->name, "cat"))
            return *f;
    cr_assert_fail("the cat family is registered");
    return NULL;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItem(o, a);
    return cJSON_GetObjectItem(x, b)->valuedouble;
}

/* An annotation's number, NaN when the annotation has none. */
static double opt(const cJSON *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(r, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The golden point of alias measured and annotated (env NULL: no annotation). */
static cJSON *measure(const char *alias, const ea_run_env *env)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(CAT_FILE, &d, &err), 0, "%s", err.msg);
    const cJSON *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(d.root, "points")) {
        const char *a = test_alias_of("cat", cJSON_GetObjectItem(pt, "point")->valuestring);
        if (a && !strcmp(a, alias))
            break;
        i++;
    }
    cr_assert_not_null(pt, "%s", alias);
    cJSON *arr = test_family_points(family(), pt, CAT_FILE, i, &faithful, 1, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    cJSON *r = cJSON_DetachItemFromArray(arr, 0);
    if (env)
        ea_run_annotate(r, pt, env, NULL, NULL, NULL);
    cJSON_Delete(arr);
    ej_free(&d);
    char *text = cJSON_PrintUnformatted(r);
    cr_log_info("%s", text);
    free(text);
    return r;
}

/* Every rule of the family, read back from the result; non-fatal, so a sweep reports every point. */
static int judged(const cJSON *r, const char *alias)
{
    int ok = cJSON_IsTrue(cJSON_GetObjectItem(r, "passed"));
    cr_expect(ok, "%s: %s", alias,
              cJSON_IsString(cJSON_GetObjectItem(r, "failure")) ? cJSON_GetObjectItem(r, "failure")->valuestring : "");
    const cJSON *cur = test_path(r, "current", NULL), *orc = test_path(r, "oracle", NULL), *c;
    cr_expect_eq(num(cur, "check", "mismatched"), 0, "%s: the replay gives torch's outputs", alias);
    for (int i = 0; i < 2; i++) {
        const char *key = i ? "check_after_timing" : "check";
        int clean = num(orc, key, "unwritten") == 0 && num(orc, key, "nonfinite") == 0 && num(orc, key, "mismatched") == 0;
        cr_expect(clean, "%s %s: every element written, finite, the cat exact, BN within tolerance", alias, key);
        cr_expect_leq(num(orc, key, "rel_l2"), 0x1p-8, "%s: within bf16 rounding", alias);
        ok &= clean && num(orc, key, "rel_l2") <= 0x1p-8;
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(orc, "candidates")) {
        cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")), "%s: every oracle variant passes", alias);
        ok &= cJSON_IsTrue(cJSON_GetObjectItem(c, "passed"));
    }
    const cJSON *v = cJSON_GetObjectItem(r, "view");
    cr_expect_eq(num(v, "launches", "oracle"), 1);
    const cJSON *sums = cJSON_GetObjectItem(v, "oracle_checksums_equal_torch"), *cat = cJSON_GetObjectItem(sums, "cat");
    cr_expect(!cat || cJSON_IsTrue(cat), "%s: the cat is torch's bit for bit", alias);
    ok &= !cat || cJSON_IsTrue(cat);
    return ok;
}

static void env_of(ea_run_env *env)
{
    ea_bandwidth bw;
    ea_timing t;
    ea_error err;
    memset(env, 0, sizeof *env);
    cr_assert_eq(ea_copy_bandwidth(0, NULL, &bw, &err), 0, "%s", err.msg);
    env->kernel_bytes_per_s = bw.kernel_bytes_per_s, env->memcpy_bytes_per_s = bw.memcpy_bytes_per_s;
    ea_bandwidth_free(&bw);
    cr_assert_eq(ea_time_graph(ea_enqueue_empty_kernel, NULL, NULL, &t, &err), 0, "%s", err.msg);
    env->launch_us = t.per_call_us.median;
    ea_timing_free(&t);
    snprintf(env->gpu, sizeof env->gpu, "test");
    snprintf(env->model, sizeof env->model, "test");
}

Test(cat_gpu, infer_k25_at_copy_bandwidth, .timeout = 300)
{
    test_skip_without_gpu();
    ea_run_env env;
    env_of(&env);
    cJSON *r = measure("densenet121-infer-14x14-k25", &env);
    cr_assert(judged(r, "k25"));
    const cJSON *y = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "view"), "oracle_checksums_equal_torch"), "y");
    cr_assert(cJSON_IsTrue(y), "Inductor's arithmetic: y bit-identical to torch's");
    /* judged warm, as this bound was set; the annotation's fraction is the cold one (logged) */
    double warm_us = num(test_path(r, "oracle", NULL), "time", "median_us");
    double bw = fmax(env.kernel_bytes_per_s, env.memcpy_bytes_per_s);
    double frac = num(r, "floor", "bytes") / (warm_us * 1e-6) / bw;
    cr_log_info("k25: oracle %.2f us warm, %.1f%% of copy bandwidth (%.2f TB/s); cold %.1f%% (%s); current %.2f us",
                warm_us, 100 * frac, bw / 1e12, 100 * opt(r, "bandwidth_fraction"),
                cJSON_GetObjectItem(r, "fraction_basis")->valuestring,
                num(test_path(r, "current", NULL), "time", "median_us"));
    cr_assert_geq(frac, 0.85, "oracle at %.1f%% of the copy bandwidth", 100 * frac);
    cJSON_Delete(r);
}

/* Every golden point, each judged (non-fatal: all are reported) and its oracle no slower than the
 * current path, one line each for the log; the results form a baselines document the strict reader
 * accepts. */
Test(cat_gpu, every_golden_point, .timeout = 600)
{
    test_skip_without_gpu();
    ea_run_env env;
    env_of(&env);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(CAT_FILE, &d, &err), 0, "%s", err.msg);
    cJSON *results = cJSON_CreateArray();
    const cJSON *pt;
    int i = 0, ok = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(d.root, "points")) {
        cJSON *arr = test_family_points(family(), pt, CAT_FILE, i++, &faithful, 1, &err);
        cr_expect_not_null(arr, "%s", err.msg);
        if (!arr) {
            fprintf(stderr, "CAT %s ERROR %s\n", cJSON_GetObjectItem(pt, "point")->valuestring, err.msg);
            continue;
        }
        cJSON *r = cJSON_DetachItemFromArray(arr, 0);
        cJSON_Delete(arr);
        ea_run_annotate(r, pt, &env, NULL, NULL, NULL);
        const char *alias = cJSON_GetObjectItem(r, "alias")->valuestring;
        int good = judged(r, alias);
        /* the oracle is the fused design: one launch, and no slower than Inductor's two or three */
        cr_expect_geq(opt(r, "speedup"), 1.0, "%s: oracle slower than the current path", alias);
        good &= opt(r, "speedup") >= 1.0;
        ok += good;
        const cJSON *v = cJSON_GetObjectItem(r, "view");
        fprintf(stderr, "CAT %-30s current %8.2f us (%d launches) oracle %8.2f us (%s u%d) speedup %5.2fx bw %5.1f%% "
                    "y_torch_exact %d emu_exact %d %s\n",
                    alias, num(test_path(r, "current", NULL), "time", "median_us"), (int)num(v, "launches", "current"),
                    num(test_path(r, "oracle", NULL), "time", "median_us"),
                    cJSON_GetObjectItem(test_path(r, "oracle", NULL), "variant")->valuestring,
                    (int)cJSON_GetObjectItem(test_path(r, "oracle", NULL), "unroll")->valuedouble,
                    opt(r, "speedup"), 100 * opt(r, "bandwidth_fraction"),
                    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "oracle_checksums_equal_torch"), "y")),
                    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "current_emulated"), "y_bit_exact_with_torch")),
                    good ? "ok" : "FAILED");
        fflush(stderr);
        cJSON_AddItemToArray(results, r);
    }
    ej_free(&d);
    fprintf(stderr, "CAT %d of %d points passed\n", ok, i);
    cJSON *doc = ea_baseline_doc(results, &env);
    cr_expect_eq(ea_baseline_validate("cat sweep", doc, &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
    cr_assert_eq(ok, 62);
}
