/* The cat scopes on a GPU (skipped without one): the golden points as the run's one measurement holds them
 * (occurrence_cache.h): the current path replayed against torch's checksums, the oracle's cat bit-exact, its
 * BN outputs within tolerance and no less accurate than the current path, the same after timing, one launch;
 * the infer oracle's share of the copy bandwidth measured beside it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/json.h"
#include "measure/fractions.h"
#include "measure/path.h"
#include "occurrence_cache.h"

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItem(o, a);
    return cJSON_GetObjectItem(x, b)->valuedouble;
}

/* What a result derives from its times and floor (schema 3 stores none of it). */
static ea_figures figures(const cJSON *r)
{
    ea_figures x;
    ea_result_figures(r, &x);
    return x;
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
        const cJSON *k = test_check(orc, i);
        double rel = cJSON_GetNumberValue(cJSON_GetObjectItem(k, "rel_l2"));
        int clean = cJSON_GetNumberValue(cJSON_GetObjectItem(k, "unwritten")) == 0 &&
                    cJSON_GetNumberValue(cJSON_GetObjectItem(k, "nonfinite")) == 0 &&
                    cJSON_GetNumberValue(cJSON_GetObjectItem(k, "mismatched")) == 0;
        cr_expect(clean, "%s %s: every element written, finite, the cat exact, BN within tolerance", alias,
                  i ? "check after timing" : "check");
        cr_expect_leq(rel, 0x1p-8, "%s: within bf16 rounding", alias);
        ok &= clean && rel <= 0x1p-8;
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(orc, "candidates")) {
        cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")), "%s: every oracle variant passes", alias);
        ok &= cJSON_IsTrue(cJSON_GetObjectItem(c, "passed"));
    }
    const cJSON *v = cJSON_GetObjectItem(r, "view");
    if (!cJSON_HasObjectItem(orc, "kernels_note")) /* CUPTI's record of the launches, where it has one */
        cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(orc, "kernels")), 1, "%s: the oracle is one kernel", alias);
    const cJSON *sums = cJSON_GetObjectItem(v, "oracle_checksums_equal_torch"), *cat = cJSON_GetObjectItem(sums, "cat");
    cr_expect(!cat || cJSON_IsTrue(cat), "%s: the cat is torch's bit for bit", alias);
    ok &= !cat || cJSON_IsTrue(cat);
    return ok;
}

/* The run's measurement of the golden cat point of alias (occurrence_cache.h). */
static cJSON *shared(cJSON *all, const char *alias)
{
    cJSON *r;
    cJSON_ArrayForEach(r, all) {
        const char *a = test_alias_of("cat", cJSON_GetObjectItem(r, "point")->valuestring);
        if (a && !strcmp(a, alias))
            return r;
    }
    cr_assert_fail("the shared measurement holds no result for %s", alias);
    return NULL;
}

/* The copy bandwidth the measurement ran beside (its document's copy_bandwidth). */
static double copy_bandwidth(void)
{
    cJSON *doc = occ_measured_doc("cat_gpu");
    const cJSON *bw = cJSON_GetObjectItem(doc, "copy_bandwidth");
    cr_assert(cJSON_IsObject(bw), "%s $.copy_bandwidth: expected the copy bandwidth measured beside the points",
              occ_measured_file());
    double b = fmax(num(doc, "copy_bandwidth", "kernel_bytes_per_s"), num(doc, "copy_bandwidth", "memcpy_bytes_per_s"));
    cr_assert(b > 0, "%s $.copy_bandwidth: expected a positive rate", occ_measured_file());
    cJSON_Delete(doc);
    return b;
}

Test(cat_gpu, infer_k25_at_copy_bandwidth, .timeout = 300)
{
    test_skip_without_gpu();
    cJSON *all = occ_shared_results("cat"), *r = shared(all, "densenet121-infer-14x14-k25");
    cr_assert(judged(r, "k25"));
    const cJSON *y = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "view"), "oracle_checksums_equal_torch"), "y");
    cr_assert(cJSON_IsTrue(y), "Inductor's arithmetic: y bit-identical to torch's");
    /* judged warm, as this bound was set; the annotation's fraction is the cold one (logged) */
    double warm_us = num(test_path(r, "oracle", NULL), "time", "median_us");
    double bw = copy_bandwidth();
    ea_figures x = figures(r);
    double frac = x.bytes / (warm_us * 1e-6) / bw;
    cr_log_info("k25: oracle %.2f us warm, %.1f%% of copy bandwidth (%.2f TB/s); cold %.1f%% (%s); current %.2f us",
                warm_us, 100 * frac, bw / 1e12, 100 * x.bandwidth_fraction, x.basis_cold ? "time_cold" : "time",
                num(test_path(r, "current", NULL), "time", "median_us"));
    cr_assert_geq(frac, 0.85, "oracle at %.1f%% of the copy bandwidth", 100 * frac);
    cJSON_Delete(all);
}

/* Every golden point, each judged (non-fatal: all are reported) and its oracle no slower than the
 * current path, one line each for the log; the measurement is a baselines document the strict reader
 * accepts (occ_shared_results). */
Test(cat_gpu, every_golden_point, .timeout = 600)
{
    test_skip_without_gpu();
    cJSON *all = occ_shared_results("cat"), *r;
    int i = 0, ok = 0;
    cJSON_ArrayForEach(r, all) {
        const char *alias = cJSON_GetObjectItem(r, "alias")->valuestring;
        int good = judged(r, alias);
        i++;
        /* the oracle is the fused design: one launch, and no slower than Inductor's two or three */
        ea_figures x = figures(r);
        cr_expect_geq(x.speedup, 1.0, "%s: oracle slower than the current path", alias);
        good &= x.speedup >= 1.0;
        /* every cat capture's coordinate_descent run is Triton launches only: replayed as current_tuned, its outputs
         * that are not the default run's bits judged by cat_check */
        const cJSON *tun = ea_path_named(r, EA_PATH_CURRENT_TUNED, "faithful");
        cr_expect(tun && cJSON_IsTrue(cJSON_GetObjectItem(tun, "passed")) && cJSON_HasObjectItem(tun, "time_cold"),
                  "%s: current_tuned replayed, passed and timed cold: %s", alias, tun ? cJSON_PrintUnformatted(tun) : "none");
        good &= tun && cJSON_IsTrue(cJSON_GetObjectItem(tun, "passed"));
        ok += good;
        const cJSON *v = cJSON_GetObjectItem(r, "view");
        fprintf(stderr, "CAT %-30s current %8.2f us (%d launches) oracle %8.2f us (%s u%d) speedup %5.2fx bw %5.1f%% "
                    "y_torch_exact %d emu_exact %d %s\n",
                    alias, num(test_path(r, "current", NULL), "time", "median_us"),
                    cJSON_GetArraySize(cJSON_GetObjectItem(test_path(r, "current", NULL), "kernels")),
                    num(test_path(r, "oracle", NULL), "time", "median_us"),
                    cJSON_GetObjectItem(test_path(r, "oracle", NULL), "variant")->valuestring,
                    (int)cJSON_GetObjectItem(test_path(r, "oracle", NULL), "unroll")->valuedouble,
                    x.speedup, 100 * x.bandwidth_fraction,
                    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "oracle_checksums_equal_torch"), "y")),
                    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "current_emulated"), "y_bit_exact_with_torch")),
                    good ? "ok" : "FAILED");
        fflush(stderr);
    }
    fprintf(stderr, "CAT %d of %d points passed\n", ok, i);
    cJSON_Delete(all);
    cr_assert_eq(i, 62, "every golden cat point measured");
    cr_assert_eq(ok, 62);
}
