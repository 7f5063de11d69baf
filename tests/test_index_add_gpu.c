/* The index_add scopes on a GPU (skipped without one): the golden points as the run's one measurement holds
 * them (occurrence_cache.h): full-size correctness of the current replica and the oracles, the oracle's
 * fraction of the floor, replica fidelity against the op timed alone in torch (the target's torch_ops.json;
 * skipped without it); and other configurations through the same code, checked untimed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/index_add/run.h"
#include "helpers.h"
#include "index_add_points.h"
#include "measure/fractions.h"
#include "occurrence_cache.h"

/* untimed: these judge correctness off the golden shapes; timing is the golden points' (shared) measurement */
static const ea_run_opts faithful = {.faithful = 1, .check_only = 1}, both = {.faithful = 1, .fabricated = 1, .check_only = 1};

static double check_of(const cJSON *path, const char *key)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(path, "check"), key)->valuedouble;
}

/* The run's measurement of the golden point of alias (occurrence_cache.h): its one result for the point's scope
 * groups that end in a consumer the scope takes in (consumed), or for the others. */
static const cJSON *shared(const cJSON *all, const char *alias, int consumed)
{
    const cJSON *r, *found = NULL;
    int n = 0;
    cJSON_ArrayForEach(r, all)
        if (!strcmp(cJSON_GetObjectItem(r, "point")->valuestring, test_point_id("index_add", alias)) &&
            cJSON_HasObjectItem(cJSON_GetObjectItem(r, "config"), "consumer") == consumed)
            found = r, n++;
    cr_assert_eq(n, 1, "%s: one result for the point's scope groups%s, not %d", alias,
                 consumed ? " with a consumer" : "", n);
    return found;
}

static void full_scope(const char *alias, int consumed)
{
    test_skip_without_gpu();
    cJSON *all = occ_shared_results("index_add");
    const cJSON *r = shared(all, alias, consumed);
    char *text = cJSON_Print(r);
    cr_log_info("%s", text);
    free(text);
    const cJSON *cur = test_path(r, "current", "faithful"), *orc = test_path(r, "oracle", "faithful");
    const cJSON *gen = test_path(r, "oracle_general", "faithful");
    cr_assert(cur && orc && gen, "current, oracle and general oracle all ran");
    const cJSON *tuned = ea_path_named(r, "current_tuned", "faithful"); /* absent where no consumer is taken in */
    cr_assert(consumed ? tuned && cJSON_IsTrue(cJSON_GetObjectItem(tuned, "passed")) : !tuned,
              "with a consumer, current_tuned (the replica, then the tuned kernel) ran and passed; else none");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s", cJSON_PrintUnformatted(r));
    cr_assert_leq(check_of(cur, "rel_l2"), 1e-2);
    cr_assert_leq(check_of(orc, "rel_l2"), check_of(cur, "rel_l2"));
    cr_assert_eq(check_of(orc, "mismatched"), 0, "bit-exact with its CPU emulation");
    cr_assert(check_of(cur, "unwritten") == 0 && check_of(orc, "unwritten") == 0 && check_of(gen, "unwritten") == 0);
    /* judged warm, as this bound was set; the annotation's fractions are the cold ones (logged) */
    ea_figures x;
    ea_result_figures(r, &x);
    double frac = x.floor_us / ea_path_median(orc);
    cr_log_info("%s: oracle at %.1f%% of the floor warm; %.1f%% of the floor and %.1f%% of the copy bandwidth "
                "against its %s", alias, 100 * frac, 100 * x.floor_fraction, 100 * x.bandwidth_fraction,
                x.basis_cold ? "time_cold" : "time");
    cr_assert_geq(frac, 0.85, "%s oracle at %.1f%% of the floor", alias, 100 * frac);
    cJSON_Delete(all);
}

Test(index_add_gpu, xlnet_full_scope, .timeout = 300)
{
    full_scope("xlnet", 0);
}

Test(index_add_gpu, longformer_a_full_scope, .timeout = 300)
{
    full_scope("longformer-bf16-9437184", 0);
}

Test(index_add_gpu, longformer_b_full_scope, .timeout = 300)
{
    full_scope("longformer-bf16-6291456", 0);
}

/* its groups that end in div(., 8): the captured Inductor kernel after the replica, the oracle writes the quotient */
Test(index_add_gpu, longformer_b_div_full_scope, .timeout = 300)
{
    full_scope("longformer-bf16-6291456", 1);
}

/* The fidelity: the current replica against the same op timed alone in torch on this GPU model
 * (the target's torch_ops.json), faithful and fabricated index each within 15%. */
Test(index_add_gpu, replica_fidelity_against_torch_op, .timeout = 600)
{
    test_skip_without_gpu();
    char report[2048] = "";
    size_t k = 0;
    int checked = 0, outside = 0;
    cJSON *all = occ_shared_results("index_add");
    const char *aliases[] = {"longformer-bf16-9437184", "longformer-bf16-6291456", "xlnet"};
    for (int a = 0; a < 3; a++) {
        const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(shared(all, aliases[a], 0), "fidelity"), "torch_op");
        const cJSON *why = cJSON_GetObjectItem(t, "note"); /* no torch_ops.json, or no entry for the point */
        if (!t || why) {
            if (k < sizeof report)
                k += (size_t)snprintf(report + k, sizeof report - k, "%s: no torch measurement (%s); ", aliases[a],
                                      cJSON_IsString(why) ? why->valuestring : "no fidelity.torch_op");
            continue;
        }
        checked++;
        for (int i = 0; i < 2; i++) { /* every ratio reported before the verdict */
            const char *mode = i ? "fabricated" : "faithful";
            const cJSON *m = cJSON_GetObjectItem(t, mode);
            int ok = cJSON_IsTrue(cJSON_GetObjectItem(m, "within_tolerance"));
            outside += !ok;
            if (k < sizeof report)
                k += (size_t)snprintf(report + k, sizeof report - k,
                                      "%s %s: %.2f (replica %.1f us)%s; ", aliases[a], mode,
                                      cJSON_GetNumberValue(cJSON_GetObjectItem(m, "ratio")),
                                      ea_path_median(ea_path_named(shared(all, aliases[a], 0), "current", mode)),
                                      ok ? "" : " OUTSIDE 15%");
        }
    }
    cJSON_Delete(all);
    if (!checked)
        cr_skip_test("no golden point has a torch measurement (the target's torch_ops.json; python3 "
                     "tools/capture/op_timing.py): %s", report);
    cr_log_info("fidelity against the torch op: %s", report);
    cr_assert_eq(outside, 0, "replica outside 15%% of torch: %s", report);
}

/* A synthetic point's configuration as the runner hands it to the family (kit.h). */
static cJSON *measure_one(const ia_scope *s, const ia_plan *p, const ea_run_opts *o, ea_error *err)
{
    const ea_kit_state st = {.alias = s->alias, .opts = o, .family = "index_add", .point = s->point};
    return ia_measure(s, p, NULL, NULL, &st, err);
}

static void measure_synthetic(cJSON *pt, const ea_run_opts *o, int want_paths)
{
    ia_scope s;
    ia_plan p;
    ea_error err;
    iap_parse_plan(pt, &s, &p);
    cJSON *r = measure_one(&s, &p, o, &err);
    cr_assert_not_null(r, "%s", err.msg);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s", cJSON_PrintUnformatted(r));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "paths")), want_paths, "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    cJSON_Delete(pt);
}

Test(index_add_gpu, other_configurations, .timeout = 300)
{
    test_skip_without_gpu();
    measure_synthetic(iap_longformer_a(48, 4, 256, 64), &both, 4);  /* Longformer at batch 4 */
    measure_synthetic(iap_longformer_a(24, 8, 128, 64), &faithful, 3); /* another window */
    measure_synthetic(iap_longformer_b(7, 3, 40, 6), &faithful, 3);   /* the scalar oracle path */
    measure_synthetic(iap_xlnet(2, 16, 512, 512, 0.125, 0), &both, 4); /* XLNet at batch 2, mul folded */
    /* no index properties: only the fabricated index exists; current and general oracle run on it */
    cJSON *doc = iap_golden(), *pt = cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 1), 1);
    cJSON *vps = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "value_properties");
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(vps, 1), "derived");
    measure_synthetic(pt, &faithful, 2);
    cJSON_Delete(doc);
}

/* Every slice launch variant on pt, the streaming-store, shared-memory staged and warp-shuffle kernels among them,
 * passes the full checks; wide: with the plan's fast row division dropped, as for rows of 2^31 elements or more, so
 * that the 64-bit instances run. */
static void slice_variants(cJSON *pt, int wide)
{
    ia_scope s;
    ia_plan p;
    ea_error err;
    iap_parse_plan(pt, &s, &p);
    if (wide)
        p.slice.div_row = (ia_fastdiv){0, 0, 0};
    cJSON *r = measure_one(&s, &p, &faithful, &err), *c;
    cr_assert_not_null(r, "%s", err.msg);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s", cJSON_PrintUnformatted(r));
    const cJSON *orc = test_path(r, "oracle", "faithful");
    int staged = 0, shfl = 0, n = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(orc, "candidates")) {
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")), "%s", cJSON_PrintUnformatted(c));
        staged += !strcmp(cJSON_GetObjectItem(c, "variant")->valuestring, "staged");
        shfl += !strcmp(cJSON_GetObjectItem(c, "variant")->valuestring, "vec8-shfl");
        n++;
    }
    cr_assert(n == IA_SLICE_VARIANTS && staged == 1 && shfl == 3,
              "vec8 at 4 unrolls, vec8-cs at 2, the staged kernel and the shuffle kernel at 3: %s",
              cJSON_PrintUnformatted(orc));
    cr_log_info("rows of %lld, fill %g%s: kept %s", (long long)p.slice.row_out, s.fill, wide ? ", 64-bit" : "",
                cJSON_GetObjectItem(orc, "variant")->valuestring);
    cJSON_Delete(r);
    cJSON_Delete(pt);
}

/* Rows of 7, 511 and 1023 elements (scale folded or not), rows of 13 and 21 whose copied columns start at 3 (to
 * the row end: chunks across a row end hold two runs) and at 5, rows of 5 and 3 (a chunk over three rows or more;
 * the rows of 3 copied whole), and rows of 13 copied whole (a run of 8 across a row end); scale 0.3: the fp32 path,
 * 0.125: the bf16x2 fma path. */
Test(index_add_gpu, slice_variants_on_odd_rows, .timeout = 300)
{
    test_skip_without_gpu();
    cJSON *pts[] = {iap_xlnet(1, 3, 8, 4, 0.3, 0), iap_xlnet(2, 2, 8, 256, 0.125, 1),
                    iap_xlnet(1, 4, 40, 512, 0.125, 0), iap_slice(1, 2, 8, 13, 10, 3, 0.3, 0),
                    iap_slice(1, 4, 40, 21, 10, 5, 0.125, 0), iap_slice(1, 2, 8, 5, 2, 1, 0.3, 0),
                    iap_slice(1, 1, 8, 3, 3, 0, 0.125, 0), iap_slice(1, 2, 8, 13, 13, 0, 0.3, 0)};
    for (int i = 0; i < (int)(sizeof pts / sizeof *pts); i++)
        slice_variants(pts[i], 0);
}

/* Self a constant other than zero, so that the fp32 path sets the elements outside an edge chunk's run to the fill
 * (at a power-of-two scale too, which takes that path then), and the 64-bit instances of every variant, on rows
 * with every kind of chunk: a single-run edge, two runs, a third row, rows copied whole. */
Test(index_add_gpu, slice_variants_with_fill_and_64bit_index, .timeout = 300)
{
    test_skip_without_gpu();
    slice_variants(iap_filled(iap_slice(1, 4, 40, 21, 10, 5, 0.3, 0), -1.25), 0);
    slice_variants(iap_filled(iap_slice(1, 2, 8, 13, 10, 3, 0.125, 0), 3.0), 0);
    slice_variants(iap_filled(iap_xlnet(1, 4, 40, 512, 0.125, 0), -0.5), 0);
    slice_variants(iap_xlnet(1, 4, 40, 512, 0.125, 0), 1);
    slice_variants(iap_filled(iap_slice(1, 4, 40, 21, 10, 5, 0.3, 0), -1.25), 1);
    slice_variants(iap_slice(1, 2, 8, 13, 10, 3, 0.3, 0), 1);
    slice_variants(iap_slice(1, 2, 8, 5, 2, 1, 0.3, 0), 1);
    slice_variants(iap_slice(1, 2, 8, 13, 13, 0, 0.3, 0), 1);
}
