/* The index_add scope on the CPU, at scaled-down sizes with the golden structures: index reconstruction,
 * the fp64 reference against the current path's bf16 rounding, the oracles' exact emulation against a
 * brute-force gather through the explicit index, the fabricated generator, the output contract. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/index_add/reference.h"
#include "../repros/index_add/reference_impl.h"
#include "../repros/index_add/run.h"
#include "target/gen.h"
#include "index_add_points.h"

typedef struct {
    cJSON *pt;
    ia_scope s;
    ia_plan p;
    ia_inputs in;
    int64_t n;
} fixture;

static void setup(fixture *f, cJSON *pt, int fabricated)
{
    ea_error err;
    f->pt = pt;
    iap_parse_plan(pt, &f->s, &f->p);
    cr_assert_eq(ia_inputs_make(&f->s, fabricated, &f->in, &err), 0, "%s", err.msg);
    f->n = ea_tensor_numel(&f->s.out);
}

static void teardown(fixture *f)
{
    ia_inputs_free(&f->in);
    cJSON_Delete(f->pt);
}

Test(index_add_reference, rebuilt_indexes_match_the_golden_histograms)
{
    fixture a, b;
    ea_error err;
    setup(&a, iap_longformer_a(2, 4, 4, 8), 0);
    setup(&b, iap_longformer_b(3, 3, 4, 8), 0);
    cr_assert_eq(ia_index_check(&a.s, a.in.index, &err), 0, "%s", err.msg);
    cr_assert_eq(ia_index_check(&b.s, b.in.index, &err), 0, "%s", err.msg);
    /* A: rows read once, twice and three times in equal parts; B: once and twice; full coverage */
    int64_t third = a.s.idx.of / 3;
    cr_assert(a.s.idx.hist[1] == third && a.s.idx.hist[2] == third && a.s.idx.hist[3] == third);
    cr_assert(b.s.idx.hist[1] == b.s.idx.of / 2 && b.s.idx.hist[2] == b.s.idx.of / 2);
    cr_assert(a.s.idx.covered == a.s.idx.of && b.s.idx.covered == b.s.idx.of);
    /* one wrong value is caught, naming the property that differs */
    a.in.index[5] = a.in.index[6];
    cr_assert_neq(ia_index_check(&a.s, a.in.index, &err), 0);
    cr_assert_not_null(strstr(err.msg, "differs from the golden value properties"), "%s", err.msg);
    teardown(&a);
    teardown(&b);
}

Test(index_add_reference, golden_longformer_b_index_rebuilds_exactly)
{
    /* full size: 9.4 M indices, the golden histogram {1: 3145728, 2: 3145728} */
    cJSON *doc = iap_golden();
    ia_scope s;
    ea_error err;
    cr_assert_eq(ia_scope_parse(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 1), IAP_FILE, 1, -1, &s, &err),
                 0, "%s", err.msg);
    int64_t *idx = malloc((size_t)ea_storage_bytes(&s.index));
    cJSON *g = ia_index_generator(&s, 0);
    cr_assert_eq(ea_gen_fill(g, &s.index, idx, "test", &err), 0, "%s", err.msg);
    cr_assert_eq(ia_index_check(&s, idx, &err), 0, "%s", err.msg);
    cJSON_Delete(g);
    free(idx);
    cJSON_Delete(doc);
}

/* Brute force through the explicit index, in source order: fp32 sums rounded once (the oracle's
 * arithmetic), for comparison with the oracle's emulation from the as_strided parameters alone. */
static void gather_by_index(const fixture *f, uint16_t *out)
{
    float *acc = calloc((size_t)f->n, sizeof *acc);
    int64_t outer = 1, inner = 1, L = f->s.source.sizes[f->s.dim], D = f->s.out.sizes[f->s.dim];
    for (int d = 0; d < f->s.out.ndim; d++)
        *(d < f->s.dim ? &outer : &inner) *= d == f->s.dim ? 1 : f->s.out.sizes[d];
    for (int64_t o = 0, src = 0; o < outer; o++)
        for (int64_t l = 0; l < L; l++)
            for (int64_t i = 0; i < inner; i++, src++)
                acc[(o * D + f->in.index[l]) * inner + i] +=
                    ia_bf16_to_f32(ia_oracle_input(&f->p, &f->in)[src]) * (float)f->p.oracle_scale;
    for (int64_t e = 0; e < f->n; e++)
        out[e] = ea_f32_to_bf16(acc[e] + (float)f->s.fill);
    free(acc);
}

static void check_scope(cJSON *pt, int multi_add)
{
    fixture f;
    ea_error err;
    double *ref;
    setup(&f, pt, 0);
    uint16_t *cur = malloc((size_t)f.n * 2), *orc = malloc((size_t)f.n * 2), *brute = malloc((size_t)f.n * 2);
    cr_assert_eq(ia_reference(&f.s, &f.p, &f.in, f.in.index, &ref, &err), 0, "%s", err.msg);
    ia_emulate_current(&f.s, &f.in, f.in.index, cur);
    cr_assert_eq(ia_emulate_oracle(&f.s, &f.p, &f.in, orc), 0);
    gather_by_index(&f, brute);
    ea_check cc, oc;
    ia_compare(cur, ref, NULL, f.n, &cc);
    ia_compare(orc, ref, brute, f.n, &oc);
    cr_log_info("%s: current rel L2 %.3e, oracle %.3e", f.s.alias, cc.rel_l2, oc.rel_l2);
    cr_assert_eq(oc.mismatched, 0, "the oracle's plan reproduces the index's gather exactly");
    cr_assert(cc.unwritten == 0 && oc.unwritten == 0);
    cr_assert_leq(cc.rel_l2, 1e-2);
    cr_assert_leq(oc.rel_l2, cc.rel_l2, "one rounding is at least as accurate as one per add");
    if (multi_add)
        cr_assert_gt(cc.rel_l2, oc.rel_l2, "rounding after every add loses accuracy");
    free(ref), free(cur), free(orc), free(brute);
    teardown(&f);
}

Test(index_add_reference, longformer_a_structure)
{
    check_scope(iap_longformer_a(3, 4, 16, 16), 1);
}

Test(index_add_reference, longformer_b_structure)
{
    check_scope(iap_longformer_b(4, 3, 16, 16), 0); /* at most 2 adds: the first onto zero is exact */
}

Test(index_add_reference, longformer_other_window_and_scalar_path)
{
    check_scope(iap_longformer_a(2, 6, 8, 16), 1);
    check_scope(iap_longformer_b(3, 4, 5, 6), 0); /* width 6: no 16-byte path, scalar oracle */
}

Test(index_add_reference, xlnet_structure_folded_and_materialized)
{
    check_scope(iap_xlnet(2, 3, 8, 16, 0.125, 1), 0);
    check_scope(iap_xlnet(1, 2, 5, 24, 0.3, 0), 0); /* folded: the oracle multiplies x in fp32 */
    check_scope(iap_filled(iap_xlnet(1, 2, 5, 24, 0.3, 0), -1.25), 0); /* self a constant other than zero */
}

Test(index_add_reference, fabricated_index_is_the_replays_randint)
{
    fixture f;
    setup(&f, iap_longformer_a(2, 4, 4, 8), 1);
    int64_t n = ea_tensor_numel(&f.s.index), seen[IA_FABRICATED_HIGH] = {0};
    for (int64_t i = 0; i < n; i++) {
        cr_assert(f.in.fabricated[i] >= 0 && f.in.fabricated[i] < IA_FABRICATED_HIGH);
        seen[f.in.fabricated[i]]++;
        uint64_t h = ea_gen_hash(IA_SEED_FABRICATED, (uint64_t)i);
        cr_assert_eq(f.in.fabricated[i], (int64_t)((h >> 1) % IA_FABRICATED_HIGH), "docs/reference/schema.md randint");
    }
    int distinct = 0;
    for (int v = 0; v < IA_FABRICATED_HIGH; v++)
        distinct += seen[v] > 0;
    cr_assert_eq(distinct, IA_FABRICATED_HIGH, "%lld draws cover all 100 values", (long long)n);
    /* the same draws every time; far more collisions than the faithful index (at most 3 per row) */
    ia_inputs again;
    ea_error err;
    cr_assert_eq(ia_inputs_make(&f.s, 1, &again, &err), 0, "%s", err.msg);
    cr_assert_arr_eq(again.fabricated, f.in.fabricated, (size_t)n * sizeof(int64_t));
    ia_inputs_free(&again);
    double *ref;
    uint16_t *cur = malloc((size_t)f.n * 2);
    cr_assert_eq(ia_reference(&f.s, &f.p, &f.in, f.in.fabricated, &ref, &err), 0, "%s", err.msg);
    ia_emulate_current(&f.s, &f.in, f.in.fabricated, cur);
    ea_check c;
    ia_compare(cur, ref, NULL, f.n, &c);
    cr_assert_eq(c.unwritten, 0);
    free(ref);
    free(cur);
    teardown(&f);
}

Test(index_add_reference, poison_and_contract)
{
    fixture f;
    setup(&f, iap_xlnet(1, 1, 4, 8, 0.5, 1), 0);
    double *ref;
    ea_error err;
    uint16_t *out = malloc((size_t)f.n * 2);
    cr_assert_eq(ia_reference(&f.s, &f.p, &f.in, f.in.index, &ref, &err), 0, "%s", err.msg);
    ia_emulate_oracle(&f.s, &f.p, &f.in, out);
    out[3] = IA_POISON;
    out[f.n - 1] = IA_POISON;
    ea_check c;
    ia_compare(out, ref, NULL, f.n, &c);
    cr_assert_eq(c.unwritten, 2, "poisoned elements are counted as never written");
    char why[256];
    cr_assert_eq(ia_contract_check(&f.s, why, sizeof why), 0);
    f.s.out.strides[2] = 99; /* a layout the paths do not write */
    cr_assert_neq(ia_contract_check(&f.s, why, sizeof why), 0);
    cr_assert_not_null(strstr(why, "output contract: expected bf16[1, 1, 4, 15][60, 60, 99, 1]"), "%s", why);
    cr_assert_neq(ia_emulate_oracle(&f.s, &(ia_plan){.oracle = IA_ORACLE_GENERAL}, &f.in, out), 0);
    free(ref);
    free(out);
    teardown(&f);
}

/* A NaN that is not the poison pattern (and an infinity) is counted, not folded into a NaN error. */
Test(index_add_reference, non_finite_outputs_are_counted)
{
    fixture f;
    setup(&f, iap_xlnet(1, 1, 4, 8, 0.5, 1), 0);
    double *ref;
    ea_error err;
    uint16_t *out = malloc((size_t)f.n * 2), *exact = malloc((size_t)f.n * 2);
    cr_assert_eq(ia_reference(&f.s, &f.p, &f.in, f.in.index, &ref, &err), 0, "%s", err.msg);
    ia_emulate_oracle(&f.s, &f.p, &f.in, exact);
    memcpy(out, exact, (size_t)f.n * 2);
    ea_check c;
    ia_compare(out, ref, exact, f.n, &c);
    cr_assert(c.nonfinite == 0 && c.unwritten == 0 && c.mismatched == 0);
    out[2] = 0x7FC0;  /* quiet NaN */
    out[5] = 0xFFC1;  /* a negative NaN, one bit off the poison */
    out[7] = 0x7F80;  /* +infinity */
    out[9] = IA_POISON;
    ia_compare(out, ref, exact, f.n, &c);
    cr_assert_eq(c.nonfinite, 3, "NaNs other than the poison, and infinities");
    cr_assert_eq(c.unwritten, 1, "the poison pattern alone is unwritten");
    cr_assert_eq(c.mismatched, 3);
    cr_assert(isfinite(c.rel_l2) && isfinite(c.max_abs), "the error is over the finite rest: %g", c.rel_l2);
    free(ref), free(out), free(exact);
    teardown(&f);
}
