/* reference.c: the routing scope (reference.h) on the CPU, exact.
 * - rt_sort_stable: counting sort (histogram, exclusive scan, scatter in position order), so equal ids
 *   keep ascending flat positions: the order the oracles are held to (torch's unstable sort may differ).
 * - rt_histc_i32: ATen's CUDA histc binning for integer inputs (int64 arithmetic, truncating division,
 *   x == max into the last bin, out-of-range values dropped). With bins = E, min = 0, max = E - 1 and ids
 *   in range, bin(x) = floor(E * x / (E - 1)) = x for x <= E - 2 and E - 1 for x = E - 1: a bincount.
 * - rt_reference chains them as the graph does (sort, to int32, histc, cumsum); rt_offsets_narrow gets
 *   the same offsets from the sorted ids alone by binary search. */
#include "reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "target/gen.h"
#include "reference_impl.h"
#include "base/tensor.h"

/* sorted[i] = ids[perm[i]] for n ids in [0, E); -1 with err naming the first id out of range. */
static int rt_sort_stable(const int64_t *ids, int64_t n, int64_t E, int64_t *sorted, int64_t *perm, ea_error *err)
{
    int64_t *start = calloc((size_t)E + 1, sizeof *start);
    if (!start)
        return ea_fail(err, "routing: out of memory for %" PRId64 " experts", E);
    for (int64_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= E) {
            free(start);
            return ea_fail(err, "routing: id %" PRId64 " at flat position %" PRId64 " is outside [0, %" PRId64 ")",
                           ids[i], i, E);
        }
        start[ids[i] + 1]++;
    }
    for (int64_t e = 0; e < E; e++)
        start[e + 1] += start[e];
    for (int64_t i = 0; i < n; i++) {
        int64_t at = start[ids[i]]++;
        if (sorted)
            sorted[at] = ids[i];
        if (perm)
            perm[at] = i;
    }
    free(start);
    return 0;
}

int rt_histc_i32(const int32_t *x, int64_t n, int64_t bins, int64_t min, int64_t max, int32_t *counts, ea_error *err)
{
    if (bins < 1 || min >= max)
        return ea_fail(err, "routing: histc needs bins >= 1 and min < max, got bins %" PRId64 " range [%" PRId64
                       ", %" PRId64 "]", bins, min, max);
    memset(counts, 0, sizeof *counts * (size_t)bins);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = x[i];
        if (v < min || v > max)
            continue;
        int64_t bin = (v - min) * bins / (max - min);
        if (bin == bins)
            bin--;
        counts[bin]++;
    }
    return 0;
}

void rt_cumsum_i32(const int32_t *x, int64_t n, int32_t *out)
{
    uint32_t run = 0;
    for (int64_t i = 0; i < n; i++) {
        run += (uint32_t)x[i];
        out[i] = (int32_t)run;
    }
}

int rt_reference(const int64_t *ids, int64_t n, int64_t E, int64_t *sorted, int64_t *perm, int32_t *offsets,
                 ea_error *err)
{
    if (E < 1 || n < 0 || n > INT32_MAX)
        return ea_fail(err, "routing: needs 1 <= experts and 0 <= ids <= INT32_MAX, got %" PRId64 " experts, %" PRId64
                       " ids", E, n);
    int64_t *s = malloc(sizeof *s * (size_t)(n ? n : 1));
    int32_t *s32 = malloc(sizeof *s32 * (size_t)(n ? n : 1)), *counts = malloc(sizeof *counts * (size_t)E);
    int rc = -1;
    if (!s || !s32 || !counts) {
        ea_fail(err, "routing: out of memory for %" PRId64 " ids", n);
        goto done;
    }
    if (rt_sort_stable(ids, n, E, s, perm, err))
        goto done;
    for (int64_t i = 0; i < n; i++)
        s32[i] = (int32_t)s[i]; /* convert_element_type: ids are in [0, E) */
    /* histc(bins=E, min=0, max=E-1); E = 1 has no range in the graph's form: every id is 0, one bin */
    if (E == 1) {
        counts[0] = (int32_t)n;
    } else if (rt_histc_i32(s32, n, E, 0, E - 1, counts, err)) {
        goto done;
    }
    if (offsets)
        rt_cumsum_i32(counts, E, offsets);
    if (sorted)
        memcpy(sorted, s, sizeof *s * (size_t)n);
    rc = 0;
done:
    free(s);
    free(s32);
    free(counts);
    return rc;
}

void rt_offsets_narrow(const int64_t *sorted, int64_t n, int64_t E, int32_t *offsets)
{
    for (int64_t e = 0; e < E; e++) {
        int64_t lo = 0, hi = n; /* first position whose id exceeds e */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (sorted[mid] <= e)
                lo = mid + 1;
            else
                hi = mid;
        }
        offsets[e] = (int32_t)lo;
    }
}

int rt_check_sort(const int64_t *ids, int64_t n, const int64_t *sorted, const int64_t *perm, char *why, size_t len)
{
    unsigned char *seen = calloc((size_t)(n ? n : 1), 1);
    int rc = -1;
    if (!seen) {
        snprintf(why, len, "out of memory for %" PRId64 " positions", n);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t p = perm[i];
        if (p < 0 || p >= n || seen[p]) {
            snprintf(why, len, "perm[%" PRId64 "] = %" PRId64 " is %s", i, p,
                     p < 0 || p >= n ? "out of range" : "repeated");
            goto done;
        }
        seen[p] = 1;
        if (sorted[i] != ids[p]) {
            snprintf(why, len, "sorted[%" PRId64 "] = %" PRId64 " but ids[perm[%" PRId64 "] = %" PRId64 "] = %" PRId64,
                     i, sorted[i], i, p, ids[p]);
            goto done;
        }
        if (i > 0 && sorted[i] < sorted[i - 1]) {
            snprintf(why, len, "sorted[%" PRId64 "] = %" PRId64 " < sorted[%" PRId64 "] = %" PRId64, i, sorted[i],
                     i - 1, sorted[i - 1]);
            goto done;
        }
        if (i > 0 && sorted[i] == sorted[i - 1] && p < perm[i - 1]) {
            snprintf(why, len, "not stable: id %" PRId64 " at positions %" PRId64 " then %" PRId64, sorted[i],
                     perm[i - 1], p);
            goto done;
        }
    }
    rc = 0;
done:
    free(seen);
    return rc;
}

int rt_ids_make(int64_t tokens, int64_t k, int64_t E, int seed, int skewed, int64_t **ids, ea_error *err)
{
    ea_tensor t = {.dtype = EA_I64, .ndim = 2, .sizes = {tokens, k}, .strides = {k, 1}};
    int64_t n = tokens * k;
    *ids = malloc(sizeof **ids * (size_t)(n > 0 ? n : 1));
    cJSON *g = cJSON_CreateObject();
    if (!*ids || !g) {
        cJSON_Delete(g);
        free(*ids);
        *ids = NULL;
        return ea_fail(err, "routing: out of memory for %" PRId64 " ids", n);
    }
    cJSON_AddStringToObject(g, "generator", skewed ? "topk_ids_skewed" : "topk_ids");
    cJSON_AddNumberToObject(g, "seed", seed);
    cJSON_AddNumberToObject(g, "experts", (double)E);
    cJSON_AddNumberToObject(g, "k", (double)k);
    int rc = ea_gen_fill(g, &t, *ids, skewed ? "routing ids (topk_ids_skewed)" : "routing ids (topk_ids)", err);
    cJSON_Delete(g);
    if (rc) {
        free(*ids);
        *ids = NULL;
    }
    return rc;
}
