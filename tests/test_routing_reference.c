/* The gpt-oss routing scope's CPU reference (repros/routing/reference.h) on both golden distributions:
 * offsets against an independent count, the narrow form against the full one, the permutation as the
 * stable sort, histc's binning at the edges. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/routing/reference.h"
#include "../repros/routing/reference_impl.h"

typedef struct {
    int64_t T, k, E, n;
    int64_t *ids, *sorted, *perm;
    int32_t *offsets;
} routed;

static routed route(int64_t T, int64_t k, int64_t E, int seed, int skewed)
{
    routed r = {T, k, E, T * k, NULL, NULL, NULL, NULL};
    ea_error err;
    cr_assert_eq(rt_ids_make(T, k, E, seed, skewed, &r.ids, &err), 0, "%s", err.msg);
    r.sorted = malloc(sizeof *r.sorted * (size_t)r.n);
    r.perm = malloc(sizeof *r.perm * (size_t)r.n);
    r.offsets = malloc(sizeof *r.offsets * (size_t)E);
    cr_assert_eq(rt_reference(r.ids, r.n, E, r.sorted, r.perm, r.offsets, &err), 0, "%s", err.msg);
    return r;
}

static void routed_free(routed *r)
{
    free(r->ids);
    free(r->sorted);
    free(r->perm);
    free(r->offsets);
}

/* Everything the scope promises, for one input. */
static void check(const routed *r, const char *what)
{
    char why[256];
    cr_assert_eq(rt_check_sort(r->ids, r->n, r->sorted, r->perm, why, sizeof why), 0, "%s: %s", what, why);
    cr_assert_eq(r->offsets[r->E - 1], r->n, "%s: offsets[E-1] = %d", what, r->offsets[r->E - 1]);
    int64_t *count = calloc((size_t)r->E, sizeof *count), run = 0;
    for (int64_t i = 0; i < r->n; i++)
        count[r->ids[i]]++;
    for (int64_t e = 0; e < r->E; e++) {
        run += count[e];
        cr_assert_eq(r->offsets[e], run, "%s: offsets[%lld]", what, (long long)e);
        if (e > 0)
            cr_assert_geq(r->offsets[e], r->offsets[e - 1], "%s: offsets decrease at %lld", what, (long long)e);
        /* the segment of expert e in the sorted ids */
        for (int64_t i = e ? r->offsets[e - 1] : 0; i < r->offsets[e]; i++)
            cr_assert_eq(r->sorted[i], e, "%s: sorted[%lld]", what, (long long)i);
    }
    free(count);
    int32_t *narrow = malloc(sizeof *narrow * (size_t)r->E);
    rt_offsets_narrow(r->sorted, r->n, r->E, narrow);
    cr_assert_arr_eq(narrow, r->offsets, sizeof *narrow * (size_t)r->E, "%s: narrow form differs", what);
    free(narrow);
}

Test(routing_reference, uniform_router)
{
    for (int seed = 0; seed < 3; seed++) {
        routed r = route(1000, 4, 32, seed, 0);
        check(&r, "topk_ids");
        routed_free(&r);
    }
}

Test(routing_reference, skewed_router_has_empty_experts)
{
    for (int seed = 0; seed < 3; seed++) {
        routed r = route(1000, 4, 32, seed, 1);
        check(&r, "topk_ids_skewed");
        int empty = 0, top = 0;
        for (int64_t e = 0; e < 32; e++) {
            int c = r.offsets[e] - (e ? r.offsets[e - 1] : 0);
            empty += c == 0;
            top = c > top ? c : top;
        }
        cr_assert_geq(empty, 1);
        cr_assert(top >= 680 && top <= 920, "largest expert %d of 4000", top);
        routed_free(&r);
    }
}

Test(routing_reference, other_shapes)
{
    routed a = route(1, 1, 1, 0, 0); /* one expert: no histc range, one bin */
    check(&a, "E=1");
    cr_assert_eq(a.offsets[0], 1);
    routed_free(&a);
    routed b = route(7, 2, 8, 5, 1);
    check(&b, "small skewed");
    routed_free(&b);
    routed c = route(333, 8, 128, 2, 0);
    check(&c, "E=128");
    routed_free(&c);
}

Test(routing_reference, permutation_order_is_stable)
{
    const int64_t ids[] = {3, 1, 3, 0, 1, 3, 0, 2};
    int64_t sorted[8], perm[8];
    int32_t offsets[4];
    ea_error err;
    cr_assert_eq(rt_reference(ids, 8, 4, sorted, perm, offsets, &err), 0, "%s", err.msg);
    const int64_t want_sorted[] = {0, 0, 1, 1, 2, 3, 3, 3}, want_perm[] = {3, 6, 1, 4, 7, 0, 2, 5};
    const int32_t want_offsets[] = {2, 4, 5, 8};
    cr_assert_arr_eq(sorted, want_sorted, sizeof sorted);
    cr_assert_arr_eq(perm, want_perm, sizeof perm);
    cr_assert_arr_eq(offsets, want_offsets, sizeof offsets);
    /* what an unstable sort may return: a valid sort, not the oracle's order */
    char why[256];
    int64_t swapped[8];
    memcpy(swapped, perm, sizeof perm);
    swapped[0] = 6;
    swapped[1] = 3;
    cr_assert_eq(rt_check_sort(ids, 8, sorted, swapped, why, sizeof why), -1);
    cr_assert(strstr(why, "not stable"), "%s", why);
    swapped[1] = 6;
    cr_assert_eq(rt_check_sort(ids, 8, sorted, swapped, why, sizeof why), -1);
    cr_assert(strstr(why, "repeated"), "%s", why);
    swapped[0] = 8;
    cr_assert_eq(rt_check_sort(ids, 8, sorted, swapped, why, sizeof why), -1);
    cr_assert(strstr(why, "out of range"), "%s", why);
    int64_t bad_sorted[8];
    memcpy(bad_sorted, sorted, sizeof sorted);
    bad_sorted[2] = 0; /* ids[perm[2]] is 1 */
    cr_assert_eq(rt_check_sort(ids, 8, bad_sorted, perm, why, sizeof why), -1);
    cr_assert(strstr(why, "but ids[perm[2]"), "%s", why);
    /* a descending order: every element matches ids[perm[i]] but the order is wrong */
    const int64_t desc_sorted[] = {3, 0}, desc_ids[] = {3, 0}, desc_perm[] = {0, 1};
    cr_assert_eq(rt_check_sort(desc_ids, 2, desc_sorted, desc_perm, why, sizeof why), -1);
    cr_assert(strstr(why, "< sorted"), "%s", why);
    /* NULL outputs are allowed */
    cr_assert_eq(rt_reference(ids, 8, 4, NULL, NULL, offsets, &err), 0, "%s", err.msg);
    cr_assert_arr_eq(offsets, want_offsets, sizeof offsets);
}

Test(routing_reference, histc_edges)
{
    ea_error err;
    int32_t counts[4];
    /* the graph's form: identity bins, the max (E - 1) in the last bin */
    const int32_t ids[] = {0, 3, 3, 2, 1, 3};
    cr_assert_eq(rt_histc_i32(ids, 6, 4, 0, 3, counts, &err), 0, "%s", err.msg);
    const int32_t want[] = {1, 1, 1, 3};
    cr_assert_arr_eq(counts, want, sizeof counts);
    /* a coarser range: bin = (x - min) * bins / (max - min) truncated; x == max -> last bin; outside dropped */
    const int32_t x[] = {-1, 0, 2, 3, 5, 7, 8, 9, 10, 11};
    cr_assert_eq(rt_histc_i32(x, 10, 4, 0, 10, counts, &err), 0, "%s", err.msg);
    /* 0->0, 2->0 (8/10), 3->1 (12/10), 5->2, 7->2 (28/10), 8->3, 9->3, 10->4->3; -1 and 11 dropped */
    const int32_t coarse[] = {2, 1, 2, 3};
    cr_assert_arr_eq(counts, coarse, sizeof counts);
    /* a shifted minimum */
    const int32_t y[] = {4, 5, 6};
    cr_assert_eq(rt_histc_i32(y, 3, 2, 4, 6, counts, &err), 0, "%s", err.msg);
    cr_assert_eq(counts[0], 1);
    cr_assert_eq(counts[1], 2);
    cr_assert_eq(rt_histc_i32(y, 3, 2, 4, 4, counts, &err), -1);
    cr_assert(strstr(err.msg, "min < max"), "%s", err.msg);
    cr_assert_eq(rt_histc_i32(y, 3, 0, 0, 4, counts, &err), -1);
}

Test(routing_reference, cumsum_and_narrow_edges)
{
    const int32_t c[] = {0, 3, 0, 2};
    int32_t out[4];
    rt_cumsum_i32(c, 4, out);
    const int32_t want[] = {0, 3, 3, 5};
    cr_assert_arr_eq(out, want, sizeof out);
    /* leading and trailing empty experts, and no ids at all */
    const int64_t sorted[] = {1, 1, 1, 3, 3};
    int32_t off[6];
    rt_offsets_narrow(sorted, 5, 6, off);
    const int32_t want_off[] = {0, 3, 3, 5, 5, 5};
    cr_assert_arr_eq(off, want_off, sizeof off);
    rt_offsets_narrow(sorted, 0, 6, off);
    for (int e = 0; e < 6; e++)
        cr_assert_eq(off[e], 0);
}

Test(routing_reference, bad_inputs)
{
    ea_error err;
    const int64_t ids[] = {0, 4, 1};
    int32_t offsets[4];
    cr_assert_eq(rt_reference(ids, 3, 4, NULL, NULL, offsets, &err), -1);
    cr_assert(strstr(err.msg, "id 4 at flat position 1"), "%s", err.msg);
    cr_assert_eq(rt_reference(ids, 3, 0, NULL, NULL, offsets, &err), -1);
    int64_t *none = NULL;
    cr_assert_eq(rt_ids_make(4, 8, 8, 1, 1, &none, &err), -1);
    cr_assert_null(none);
    cr_assert(strstr(err.msg, "topk_ids_skewed"), "%s", err.msg);
}

/* Past ATen's small sort (more than 4096 ids): 2048 and 4096 tokens at top-4 over gpt-oss-120b's 128 and a
 * 256-expert router, both distributions: the stable sort, the offsets, the narrow form. */
Test(routing_reference, past_the_small_sort)
{
    const int64_t tokens[] = {2048, 4096}, experts[] = {128, 256};
    for (int t = 0; t < 2; t++)
        for (int e = 0; e < 2; e++)
            for (int skewed = 0; skewed < 2; skewed++) {
                char what[96];
                snprintf(what, sizeof what, "%lld ids, %lld experts, %s", (long long)tokens[t] * 4,
                         (long long)experts[e], skewed ? "skewed" : "uniform");
                routed r = route(tokens[t], 4, experts[e], 0, skewed);
                cr_assert_eq(r.n, tokens[t] * 4);
                check(&r, what);
                routed_free(&r);
            }
}
