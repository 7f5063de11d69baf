/* The routing scope on a GPU (skipped without one): both golden points as the run's one measurement holds
 * them (every
 * configuration bit-exact before and after timing, the capture's checksums on its own input, the kernels
 * CUPTI saw, the oracle faster than the current path), and the replica and oracle kernels on other
 * shapes against the CPU reference. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../repros/routing/kernels.h"
#include "../repros/routing/plan.h"
#include "../repros/routing/reference.h"
#include "../repros/routing/reference_impl.h"
#include "gpu/device.h"
#include "corpus/extract.h"
#include "helpers.h"
#include "base/json.h"
#include "occurrence_cache.h"
#include "measure/path.h"
#include "measure/repro.h"
#include "gpu/cupti.h"
#include "gpu/timer.h"

extern const ea_repro_family ea_family_routing_histc, ea_family_routing_cumsum;

static double num(const cJSON *o, const char *a, const char *b)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b)->valuedouble;
}

/* name's kernels appear in CUPTI's list in this order (skipped when CUPTI recorded nothing). */
static void kernels_in_order(const cJSON *path, const char *const *names, int n)
{
    const cJSON *k = cJSON_GetObjectItem(path, "kernels"), *item;
    if (cJSON_GetArraySize(k) == 0) {
        cr_log_warn("no CUPTI record: %s", cJSON_GetObjectItem(path, "kernels_note")->valuestring);
        return;
    }
    int at = 0;
    cJSON_ArrayForEach(item, k)
        if (at < n && strstr(item->valuestring, names[at]))
            at++;
    cr_assert_eq(at, n, "expected %s (in order) among %s", names[at < n ? at : 0], cJSON_PrintUnformatted(k));
}

/* The golden point of alias as the run's one measurement holds it (occurrence_cache.h): its four
 * configurations, whole and narrow scope, uniform and skewed routing, in that order. */
static void run_golden(const ea_repro_family *f, const char *op, const char *alias)
{
    cJSON *all = occ_shared_results(op), *r, *arr = cJSON_CreateArray();
    const char *id = test_point_id(f->name, alias);
    cJSON_ArrayForEach(r, all)
        if (!strcmp(cJSON_GetObjectItem(r, "point")->valuestring, id))
            cJSON_AddItemReferenceToArray(arr, r);
    cr_assert_eq(cJSON_GetArraySize(arr), 4, "%s: four configurations measured", id);
    ea_device_info info;
    const int h200 = ea_device_probe(&info) && strstr(info.name, "H200") != NULL;
    int k = 0;
    cJSON_ArrayForEach(r, arr) {
        int whole = k < 2, uniform = k % 2 == 0;
        char *text = cJSON_PrintUnformatted(r);
        cr_log_info("%s", text);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s", text);
        const cJSON *cur = test_path(r, "current", NULL), *orc = test_path(r, "oracle", NULL),
                    *tun = test_path(r, EA_PATH_CURRENT_TUNED, NULL); /* the coordinate_descent run's Triton steps */
        for (int p = 0; p < 3; p++) {
            const cJSON *path = p == 2 ? tun : p ? orc : cur;
            for (int c = 0; c < 2; c++) { /* bit-exact, nothing left poisoned, before and after timing */
                const cJSON *check = test_check(path, c);
                cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(check, "mismatched")), 0, "%s", text);
                cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(check, "unwritten")), 0, "%s", text);
            }
        }
        if (uniform) {
            const cJSON *sums = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "view"), "capture_checksums"), *s, *o;
            cJSON_ArrayForEach(s, sums)
                cJSON_ArrayForEach(o, s)
                    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "match")), "%s", text);
        }
        static const char *const whole_kernels[] = {"radixSortKVInPlace", "triton_poi_fused_convert_element_type_0",
                                                    "kernelHistogram1D", "triton_per_fused_cumsum_1"};
        kernels_in_order(cur, whole ? whole_kernels : whole_kernels + 1, whole ? 4 : 3);
        kernels_in_order(tun, whole ? whole_kernels : whole_kernels + 1, whole ? 4 : 3);
        cr_assert_gt(num(tun, "time", "median_us"), 0, "%s", text);
        /* a generous bound: the oracle replaces 8 (whole) or 4 (narrow) launches with one */
        double tc = num(cur, "time", "median_us"), to = num(orc, "time", "median_us");
        cr_log_info("%s %s %s: current %.2f us, oracle %.2f us", alias, whole ? "whole" : "narrow",
                    uniform ? "uniform" : "skewed", tc, to);
        cr_assert_lt(to, tc, "%s", text);
        if (h200) /* the targets per call, on the card they were set for */
            cr_assert_leq(to, whole ? 5.0 : 1.5, "%s %s: oracle %.2f us, target %.1f", alias, whole ? "whole" : "narrow",
                          to, whole ? 5.0 : 1.5);
        free(text);
        k++;
    }
    cJSON_Delete(arr);
    cJSON_Delete(all);
}

Test(routing_gpu, histc_point_all_configurations, .timeout = 300)
{
    test_skip_without_gpu();
    run_golden(&ea_family_routing_histc, "histc", "routing");
}

Test(routing_gpu, cumsum_point_all_configurations, .timeout = 300)
{
    test_skip_without_gpu();
    run_golden(&ea_family_routing_cumsum, "cumsum", "routing-cumsum");
}

/* ---- the kernels alone, on shapes the golden point does not have ---- */

static void *upload(const void *host, size_t bytes)
{
    void *p = NULL;
    cr_assert_eq(cudaMalloc(&p, bytes ? bytes : 16), cudaSuccess);
    if (host)
        cr_assert_eq(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    else
        cr_assert_eq(cudaMemset(p, 0xFF, bytes ? bytes : 16), cudaSuccess); /* poison */
    return p;
}

static void download(void *host, const void *dev, size_t bytes)
{
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

/* The device's multiprocessor count, which sizes ATen's histc grid. */
static int sms(void)
{
    int n = 0;
    cr_assert_eq(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    return n;
}

typedef struct {
    int64_t T, k, E;
    int skewed;
} shape;

static void one_shape(shape sh)
{
    int64_t n = sh.T * sh.k, *ids, *sorted = malloc(n * 8), *perm = malloc(n * 8), *got = malloc(n * 8),
            *got_perm = malloc(n * 8);
    int32_t *offsets = malloc(sh.E * 4), *got_off = malloc(sh.E * 4);
    ea_error err;
    cr_assert_eq(rt_ids_make(sh.T, sh.k, sh.E, 3, sh.skewed, &ids, &err), 0, "%s", err.msg);
    cr_assert_eq(rt_reference(ids, n, sh.E, sorted, perm, offsets, &err), 0, "%s", err.msg);
    int64_t *d_ids = upload(ids, n * 8), *d_sorted = upload(NULL, n * 8), *d_perm = upload(NULL, n * 8);
    int32_t *d_off = upload(NULL, sh.E * 4);
    /* the oracle: everything, at each variant that takes the shape (the cluster at every one) */
    cr_assert(rt_route_applies(RT_ROUTE_CLUSTER, n, sh.E), "n %lld E %lld", (long long)n, (long long)sh.E);
    cr_assert_eq(rt_route_applies(RT_ROUTE_PER_EXPERT, n, sh.E), n <= RT_EXPERT_MAX_IDS);
    for (int v = 0; v < RT_ROUTE_VARIANTS; v++) {
        if (!rt_route_applies(v, n, sh.E))
            continue;
        cr_assert_eq(cudaMemset(d_sorted, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(cudaMemset(d_perm, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(cudaMemset(d_off, 0xFF, sh.E * 4), cudaSuccess);
        cr_assert_eq(rt_oracle_route(d_ids, n, sh.E, v, d_sorted, d_perm, d_off, NULL), 0);
        download(got, d_sorted, n * 8), download(got_perm, d_perm, n * 8), download(got_off, d_off, sh.E * 4);
        cr_assert_arr_eq(got, sorted, n * 8, "oracle %d sorted ids, n %lld E %lld", v, (long long)n, (long long)sh.E);
        cr_assert_arr_eq(got_perm, perm, n * 8, "oracle %d permutation, n %lld E %lld", v, (long long)n,
                         (long long)sh.E);
        cr_assert_arr_eq(got_off, offsets, sh.E * 4, "oracle %d offsets, n %lld E %lld", v, (long long)n,
                         (long long)sh.E);
    }
    /* the narrow oracle from the sorted ids */
    cr_assert_eq(cudaMemset(d_off, 0xFF, sh.E * 4), cudaSuccess);
    cr_assert_eq(rt_oracle_offsets(d_sorted, n, sh.E, d_off, NULL), 0);
    download(got_off, d_off, sh.E * 4);
    cr_assert_arr_eq(got_off, offsets, sh.E * 4, "narrow offsets");
    /* ATen's histc replica on the sorted ids as int32 (the graph's convert), SHARED mode at every E */
    int32_t *ids32 = malloc(n * 4), *counts = malloc(sh.E * 4), *got_counts = malloc(sh.E * 4);
    for (int64_t i = 0; i < n; i++)
        ids32[i] = (int32_t)sorted[i];
    cr_assert_eq(rt_histc_i32(ids32, n, sh.E, 0, sh.E - 1, counts, &err), 0, "%s", err.msg);
    int32_t *d_ids32 = upload(ids32, n * 4), *d_counts = upload(NULL, sh.E * 4);
    cr_assert_eq(rt_fill_zero_i32(d_counts, sh.E, NULL), 0);
    cr_assert_eq(rt_aten_histc_i32(d_counts, d_ids32, n, sh.E, 0, sh.E - 1, sms(), NULL), 0, "histc replica, E %lld",
                 (long long)sh.E);
    download(got_counts, d_counts, sh.E * 4);
    cr_assert_arr_eq(got_counts, counts, sh.E * 4, "histc replica counts, n %lld E %lld", (long long)n, (long long)sh.E);
    cudaFree(d_ids32), cudaFree(d_counts);
    free(ids32), free(counts), free(got_counts);
    /* ATen's sort replica: keys and arange values, in place; past 4096 ids the CUB sort from the ids */
    if (n > RT_SORT_MAX) {
        size_t bytes;
        cr_assert_eq(rt_aten_sort_large_temp_bytes(n, &bytes), 0);
        int64_t *d_scratch = upload(NULL, n * 8);
        void *d_temp = upload(NULL, bytes);
        cr_assert_eq(cudaMemset(d_sorted, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(cudaMemset(d_perm, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(rt_aten_sort_large(d_ids, d_sorted, d_scratch, d_perm, n, d_temp, bytes, NULL), 0);
        download(got, d_sorted, n * 8), download(got_perm, d_perm, n * 8);
        cr_assert_arr_eq(got, sorted, n * 8, "CUB replica sorted ids, n %lld", (long long)n);
        cr_assert_arr_eq(got_perm, perm, n * 8, "CUB replica permutation: the stable order, n %lld", (long long)n);
        download(got, d_ids, n * 8);
        cr_assert_arr_eq(got, ids, n * 8, "the ids are read only (keys_in is self)");
        cudaFree(d_scratch), cudaFree(d_temp);
    } else if (rt_sort_size(n)) {
        cr_assert_eq(rt_copy_d2d(d_sorted, d_ids, n * 8, NULL), 0);
        cr_assert_eq(rt_arange_i64(d_perm, n, NULL), 0);
        cr_assert_eq(rt_aten_sort_kv(d_sorted, d_perm, n, NULL), 0);
        download(got, d_sorted, n * 8), download(got_perm, d_perm, n * 8);
        cr_assert_arr_eq(got, sorted, n * 8, "replica sorted ids, n %lld", (long long)n);
        cr_assert_arr_eq(got_perm, perm, n * 8, "replica permutation: the stable order");
    }
    cudaFree(d_ids), cudaFree(d_sorted), cudaFree(d_perm), cudaFree(d_off);
    free(ids), free(sorted), free(perm), free(got), free(got_perm), free(offsets), free(got_off);
}

Test(routing_gpu, kernels_other_shapes, .timeout = 120)
{
    test_skip_without_gpu();
    const shape shapes[] = {
        {50, 3, 8, 0},    /* 150 ids: sort size 1024 */
        {11, 3, 8, 1},    /* 33 ids: ATen's WarpMergeSort<128>, one warp, from 33 ... */
        {10, 4, 8, 0},
        {32, 4, 16, 1},   /* ... to 128 ids */
        {333, 4, 64, 1},  /* 1332: sort size 2048, empty experts */
        {512, 8, 96, 0},  /* 4096: every CTA of the cluster full, 96 experts (7 id bits) */
        {1000, 4, 512, 1}, /* the oracle's most experts: one per thread of a CTA */
        {100, 3, 33, 0},  /* odd experts: the last row scan runs in half a warp */
        {1000, 4, 32, 1}, /* the golden shape, skewed */
        {65, 2, 2, 0},    /* two experts */
        {7, 2, 8, 1},     /* 14 ids: ATen's bitonic sort, not replicated: oracles only */
        {1000, 4, 64, 0}, /* the golden tokens routed over 64, 128 (gpt-oss-120b) and 256 experts: */
        {1000, 4, 128, 0}, /* histc past the old 100-bin threshold, in SHARED mode as torch 2.11 */
        {1000, 4, 128, 1},
        {1000, 4, 256, 1},
        {2048, 4, 128, 0}, /* past ATen's small sort: 8192 and 16384 ids, CUB's onesweep; the oracle in rounds */
        {2048, 4, 128, 1},
        {2048, 4, 256, 0},
        {2048, 4, 256, 1},
        {4096, 4, 128, 0},
        {4096, 4, 128, 1},
        {4096, 4, 256, 0},
        {4096, 4, 256, 1},
        {1025, 4, 32, 1},  /* 4100: a second round that is nearly empty */
        {1, 1, 8, 0},      /* the per-expert variant's tails: one id, */
        {2047, 1, 32, 1},  /* ... an odd count in its first round, */
        {683, 3, 32, 0},   /* ... 2049 ids: one into its second round, */
        {1365, 3, 64, 0},  /* ... 4095: one short of its last pair */
        {16384, 4, 512, 1}, /* 65536: the oracle's 16 rounds, its most experts */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        one_shape(shapes[i]);
    /* a histogram past a CTA's shared memory (ATen's GLOBAL mode) is not replicated: refused */
    cr_assert_eq(rt_aten_histc_i32(NULL, NULL, 4000, 20000, 0, 19999, sms(), NULL), cudaErrorInvalidValue);
    /* past a variant's ids, a CTA's experts, the variants, or ids the pair loads cannot read: refused before
     * any launch */
    cr_assert_eq(rt_oracle_route(NULL, 65537, 32, RT_ROUTE_CLUSTER, NULL, NULL, NULL, NULL), cudaErrorInvalidValue);
    cr_assert_eq(rt_oracle_route(NULL, 4097, 32, RT_ROUTE_PER_EXPERT, NULL, NULL, NULL, NULL), cudaErrorInvalidValue);
    for (int v = 0; v < RT_ROUTE_VARIANTS; v++) {
        cr_assert_eq(rt_oracle_route(NULL, 4000, 513, v, NULL, NULL, NULL, NULL), cudaErrorInvalidValue);
        cr_assert_eq(rt_oracle_route(NULL, 4000, 1, v, NULL, NULL, NULL, NULL), cudaErrorInvalidValue);
    }
    cr_assert_eq(rt_oracle_route(NULL, 4000, 32, RT_ROUTE_VARIANTS, NULL, NULL, NULL, NULL), cudaErrorInvalidValue);
    int64_t *d_ids = upload(NULL, 4000 * 8 + 8);
    cr_assert_eq(rt_oracle_route(d_ids + 1, 4000, 32, RT_ROUTE_PER_EXPERT, NULL, NULL, NULL, NULL),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "nothing was launched");
    cudaFree(d_ids);
}

/* Ids outside [0, experts) (-1, experts, and 2^32 + 1, which a 32-bit cast would wrap into expert 1) are left
 * unwritten by each variant and shift no expert's run: the ids in range sorted stably, the outputs past them
 * still poisoned, the offsets counting the ids in range only. */
Test(routing_gpu, ids_outside_the_experts_are_left_unwritten, .timeout = 60)
{
    test_skip_without_gpu();
    const int64_t T = 250, k = 4, n = T * k, E = 32, bad[] = {-1, E, ((int64_t)1 << 32) + 1};
    int64_t *ids, *want = malloc(n * 8), *want_perm = malloc(n * 8), *got = malloc(n * 8), *got_perm = malloc(n * 8);
    int64_t *in = malloc(n * 8), *where = malloc(n * 8), m = 0;
    int32_t want_off[32], got_off[32];
    ea_error err;
    cr_assert_eq(rt_ids_make(T, k, E, 5, 0, &ids, &err), 0, "%s", err.msg);
    for (int64_t i = 3; i < n; i += 7)
        ids[i] = bad[(i / 7) % 3];
    for (int64_t i = 0; i < n; i++) /* the ids in range and where they stand */
        if (ids[i] >= 0 && ids[i] < E)
            in[m] = ids[i], where[m++] = i;
    /* the reference of those, positions mapped back; the outputs past them stay -1, the poison */
    memset(want, 0xFF, n * 8), memset(want_perm, 0xFF, n * 8);
    cr_assert_eq(rt_reference(in, m, E, want, want_perm, want_off, &err), 0, "%s", err.msg);
    for (int64_t a = 0; a < m; a++)
        want_perm[a] = where[want_perm[a]];
    int64_t *d_ids = upload(ids, n * 8), *d_sorted = upload(NULL, n * 8), *d_perm = upload(NULL, n * 8);
    int32_t *d_off = upload(NULL, E * 4);
    for (int v = 0; v < RT_ROUTE_VARIANTS; v++) {
        cr_assert_eq(cudaMemset(d_sorted, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(cudaMemset(d_perm, 0xFF, n * 8), cudaSuccess);
        cr_assert_eq(rt_oracle_route(d_ids, n, E, v, d_sorted, d_perm, d_off, NULL), 0);
        download(got, d_sorted, n * 8), download(got_perm, d_perm, n * 8), download(got_off, d_off, E * 4);
        cr_assert_arr_eq(got, want, n * 8, "variant %d: sorted ids", v);
        cr_assert_arr_eq(got_perm, want_perm, n * 8, "variant %d: permutation", v);
        cr_assert_arr_eq(got_off, want_off, E * 4, "variant %d: offsets", v);
    }
    cudaFree(d_ids), cudaFree(d_sorted), cudaFree(d_perm), cudaFree(d_off);
    free(ids), free(in), free(where), free(want), free(want_perm), free(got), free(got_perm);
}

/* histc's binning on the GPU as the CPU reference has it: coarse bins, the closed last bin, values
 * outside the range dropped. */
Test(routing_gpu, histc_replica_binning, .timeout = 60)
{
    test_skip_without_gpu();
    const int32_t x[] = {-1, 0, 2, 3, 5, 7, 8, 9, 10, 11};
    int32_t want[4], got[4];
    ea_error err;
    cr_assert_eq(rt_histc_i32(x, 10, 4, 0, 10, want, &err), 0, "%s", err.msg);
    int32_t *d_x = upload(x, sizeof x), *d_out = upload(NULL, sizeof got);
    cr_assert_eq(rt_fill_zero_i32(d_out, 4, NULL), 0);
    cr_assert_eq(rt_aten_histc_i32(d_out, d_x, 10, 4, 0, 10, sms(), NULL), 0);
    download(got, d_out, sizeof got);
    cr_assert_arr_eq(got, want, sizeof got);
    /* many ids over several blocks: counts add up across blocks */
    int32_t *big = malloc(5000 * 4), big_want[32], big_got[32];
    for (int i = 0; i < 5000; i++)
        big[i] = (i * 7919) % 32;
    cr_assert_eq(rt_histc_i32(big, 5000, 32, 0, 31, big_want, &err), 0, "%s", err.msg);
    int32_t *d_big = upload(big, 5000 * 4), *d_big_out = upload(NULL, sizeof big_got);
    cr_assert_eq(rt_fill_zero_i32(d_big_out, 32, NULL), 0);
    cr_assert_eq(rt_aten_histc_i32(d_big_out, d_big, 5000, 32, 0, 31, sms(), NULL), 0);
    download(big_got, d_big_out, sizeof big_got);
    cr_assert_arr_eq(big_got, big_want, sizeof big_got);
    cudaFree(d_x), cudaFree(d_out), cudaFree(d_big), cudaFree(d_big_out);
    free(big);
}

/* The fixture routing over 128 experts (tests/fixtures/corpus/.../tiny/moe128: gpt-oss-120b's experts):
 * its point's shape, read from the extraction, through ATen's sort and histc replicas and both oracles,
 * bit-exact against the CPU reference, uniform and skewed ids. Its current path also needs Inductor's
 * convert and scan, which only a capture on a GPU with torch provides (run reports it unsupported). */
Test(routing_gpu, fixture_over_128_experts, .timeout = 60)
{
    test_skip_without_gpu();
    ea_extraction x = test_extract_corpus(FIXTURE_CORPUS, 8);
    const cJSON *doc = test_extraction_doc(&x, "aten.histc.default"), *pt;
    int i = 0, found = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(doc, "points")) {
        rt_scope s;
        ea_error err;
        if (rt_scope_parse(pt, "fixtures/occurrences/histc.json", i++, &s, &err) || s.experts != 128)
            continue;
        found = 1;
        cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
        one_shape((shape){s.tokens, s.k, s.experts, 0});
        one_shape((shape){s.tokens, s.k, s.experts, 1});
    }
    cr_assert(found, "the fixture's 128-expert histc point");
    ea_extraction_free(&x);
}

/* ---- past ATen's small sort: the CUB replica's launches, and the oracle's lead ---- */

typedef struct {
    int64_t n, E;
    int64_t *ids, *sorted, *perm, *scratch;
    int32_t *ids32, *counts, *offsets;
    void *temp;
    size_t temp_bytes;
    int sms, oracle;
} large_call;

/* current: ATen's sort (CUB) and histc (zeros + kernel) on the sorted ids as int32, which the Triton convert
 * made beforehand: the current path without its two Triton steps, which only add time. oracle: the whole
 * scope. */
static int large_enqueue(void *ctx, void *stream, ea_error *err)
{
    large_call *c = ctx;
    int rc = c->oracle ? rt_oracle_route(c->ids, c->n, c->E, RT_ROUTE_CLUSTER, c->sorted, c->perm, c->offsets,
                                         stream)
                       : rt_aten_sort_large(c->ids, c->sorted, c->scratch, c->perm, c->n, c->temp, c->temp_bytes, stream);
    if (!rc && !c->oracle && !(rc = rt_fill_zero_i32(c->counts, c->E, stream)))
        rc = rt_aten_histc_i32(c->counts, c->ids32, c->n, c->E, 0, c->E - 1, c->sms, stream);
    return rc ? ea_fail(err, "routing: launch failed (%d)", rc) : 0;
}

static large_call large_setup(int64_t T, int64_t E)
{
    large_call c = {.n = T * 4, .E = E, .sms = sms()};
    int64_t *ids;
    ea_error err;
    cr_assert_eq(rt_ids_make(T, 4, E, 0, 0, &ids, &err), 0, "%s", err.msg);
    int64_t *sorted = malloc(c.n * 8);
    int32_t *ids32 = malloc(c.n * 4);
    cr_assert_eq(rt_reference(ids, c.n, E, sorted, NULL, NULL, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < c.n; i++)
        ids32[i] = (int32_t)sorted[i];
    cr_assert_eq(rt_aten_sort_large_temp_bytes(c.n, &c.temp_bytes), 0);
    c.ids = upload(ids, c.n * 8), c.ids32 = upload(ids32, c.n * 4);
    c.sorted = upload(NULL, c.n * 8), c.perm = upload(NULL, c.n * 8), c.scratch = upload(NULL, c.n * 8);
    c.counts = upload(NULL, E * 4), c.offsets = upload(NULL, E * 4), c.temp = upload(NULL, c.temp_bytes);
    free(ids), free(sorted), free(ids32);
    return c;
}

static void large_free(large_call *c)
{
    void *all[] = {c->ids, c->sorted, c->perm, c->scratch, c->ids32, c->counts, c->offsets, c->temp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudaFree(all[i]);
}

/* What CUPTI sees of one CUB replica call is what the plan prints: the copy, the fill, onesweep's two memsets,
 * histogram and exclusive sum (a CTA per pass), then per pass a memset and the onesweep kernel on
 * ceil(n / 4608) CTAs (skipped when CUPTI cannot record). */
Test(routing_gpu, cub_replica_launches_what_the_plan_says, .timeout = 60)
{
    test_skip_without_gpu();
    for (int64_t T = 2048; T <= 4096; T *= 2) {
        large_call c = large_setup(T, 128);
        rt_cub_sort_plan p;
        cr_assert_eq(rt_cub_sort_shape(c.n, &p), 0);
        ea_error err;
        cr_assert_eq(large_enqueue(&c, NULL, &err), 0, "%s", err.msg); /* loads the modules */
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        if (ea_cupti_begin_copies(&err)) {
            cr_log_warn("no CUPTI record: %s", err.msg);
            large_free(&c);
            return;
        }
        cr_assert_eq(rt_aten_sort_large(c.ids, c.sorted, c.scratch, c.perm, c.n, c.temp, c.temp_bytes, NULL), 0);
        ea_kernel_list list;
        cr_assert_eq(ea_cupti_end(&list, &err), 0, "%s", err.msg);
        cr_assert_eq(list.dropped, 0);
        const char *want[4 + 2 * 8];
        int nwant = 0;
        want[nwant++] = "Memcpy DtoD";
        want[nwant++] = "fill_reverse_indices_kernel";
        want[nwant++] = "Memset";
        want[nwant++] = "Memset";
        want[nwant++] = "DeviceRadixSortHistogramKernel";
        want[nwant++] = "DeviceRadixSortExclusiveSumKernel";
        cr_assert_eq(list.count, (size_t)(nwant + 2 * p.passes), "%zu operations", list.count);
        for (size_t k = 0; k < list.count; k++) {
            const ea_kernel_record *r = &list.kernels[k];
            const char *name = k < (size_t)nwant ? want[k] : k % 2 == 0 ? "Memset" : "DeviceRadixSortOnesweepKernel";
            cr_assert(strstr(r->name, name), "operation %zu: expected %s, got %s", k, name, r->name);
            if (k == 1)
                cr_assert(r->grid[0] == c.n / 128 && r->block[0] == 128, "fill %d x %d", r->grid[0], r->block[0]);
            if (k == 5)
                cr_assert(r->grid[0] == p.passes && r->block[0] == p.exclusive_sum_threads, "scan %d x %d",
                          r->grid[0], r->block[0]);
            if (k >= (size_t)nwant && k % 2 == 1)
                cr_assert(r->grid[0] == p.onesweep_blocks && r->block[0] == p.onesweep_threads, "onesweep %d x %d",
                          r->grid[0], r->block[0]);
        }
        ea_kernel_list_free(&list);
        large_free(&c);
    }
}

/* The oracle keeps its lead past 4096 ids: at 8192 and 16384 ids over 128 and 256 experts, its time per call
 * (CUDA-graph replay, warm) is below that of ATen's sort and histc alone (the current path less its Triton
 * convert and scan); both bit-exact first (kernels_other_shapes checks every output of each). */
Test(routing_gpu, oracle_leads_past_the_small_sort, .timeout = 120)
{
    test_skip_without_gpu();
    const int64_t tokens[] = {2048, 4096}, experts[] = {128, 256};
    for (int t = 0; t < 2; t++)
        for (int e = 0; e < 2; e++) {
            large_call c = large_setup(tokens[t], experts[e]);
            ea_timing cur, orc;
            ea_error err;
            cr_assert_eq(ea_time_graph(large_enqueue, &c, NULL, &cur, &err), 0, "%s", err.msg);
            c.oracle = 1;
            cr_assert_eq(ea_time_graph(large_enqueue, &c, NULL, &orc, &err), 0, "%s", err.msg);
            cr_log_info("%lld ids, %lld experts: ATen sort + histc %.2f us, oracle %.2f us", (long long)c.n,
                        (long long)c.E, cur.per_call_us.median, orc.per_call_us.median);
            cr_assert_lt(orc.per_call_us.median, cur.per_call_us.median, "%lld ids, %lld experts", (long long)c.n,
                         (long long)c.E);
            ea_timing_free(&cur), ea_timing_free(&orc);
            large_free(&c);
        }
}
