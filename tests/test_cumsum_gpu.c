/* The position-id cumsum scopes on a GPU (skipped without one): every claimed golden point as the run's one
 * measurement holds it (occurrence_cache.h): the replayed Inductor kernels and the oracle bit-exact against the CPU reference
 * and the capture's checksums, on the capture's inputs and (mask scopes) on a padded batch, and the
 * verdict following from the two medians the run measured. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../repros/cumsum/kernels_impl.h"
#include "../repros/cumsum/reference.h"
#include "../repros/cumsum/run.h"
#include "../repros/cumsum/run_impl.h"
#include "../repros/cumsum/scope_impl.h"
#include "target/gen.h"
#include "helpers.h"
#include "measure/path.h"
#include "base/json.h"
#include "occurrence_cache.h"

#define GOLDEN "golden/occurrences/cumsum.json"

extern const ea_repro_family ea_family_cumsum;

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItem(b ? cJSON_GetObjectItem(o, a) : o, b ? b : a);
    cr_assert(cJSON_IsNumber(v), "%s.%s is not a number", a, b ? b : "");
    return v->valuedouble;
}

static int flag(const cJSON *o, const char *a, const char *b)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b));
}

static void exact(const cJSON *path, const char *alias)
{
    const char *name = cJSON_GetObjectItem(path, "name")->valuestring;
    for (int i = 0; i < 2; i++) {
        const char *check = i ? "check after timing" : "check";
        cr_assert_eq(num(test_check(path, i), "unwritten", NULL), 0, "%s %s %s: unwritten", alias, name, check);
        cr_assert_eq(num(test_check(path, i), "mismatched", NULL), 0, "%s %s %s: mismatched", alias, name, check);
    }
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(path, "passed")), "%s %s did not pass", alias, name);
    cr_assert(num(path, "time", "median_us") > 0);
    cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(path, "kernels")) >= 1 ||
                  cJSON_GetObjectItem(path, "kernels_note"),
              "%s %s: no kernels and no note", alias, name);
}

/* A mask or const oracle ran at every variant that applies, each passed, none more than EA_PATH_TIE faster than
 * the kept one (a near-tie keeps the earlier variant), and (mask) the padded batch checked them all. */
static void tuned_variants(const cJSON *r, const cJSON *orc, const char *alias, cs_kind k)
{
    const cs_scope s = {.kind = k, .rows = (int64_t)num(r, "config", "rows"), .cols = (int64_t)num(r, "config", "cols")};
    int n = 0;
    cJSON *scratch = cJSON_CreateObject();
    for (int v = 0; v < cs_oracle_variants(k); v++)
        n += cs_oracle_variant_json(&s, v, scratch, 0);
    cJSON_Delete(scratch);
    const cJSON *cands = cJSON_GetObjectItem(orc, "candidates"), *c;
    cr_assert_eq(cJSON_GetArraySize(cands), n, "%s: %d variants apply", alias, n);
    cJSON_ArrayForEach(c, cands) {
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")), "%s: a variant failed", alias);
        cr_assert_geq(num(c, "median_us", NULL), num(orc, "time", "median_us") * (1 - EA_PATH_TIE),
                      "%s: a variant more than 1%% faster than the kept one (ea_path_tune's rule)", alias);
    }
    if (k == CS_MASK)
        cr_assert_eq(num(cJSON_GetObjectItem(r, "view"), "padded", "oracle_variants_checked"), n, "%s", alias);
}

/* The golden point of a result (its "point"), from the family's document. */
static const cJSON *golden_point(const cJSON *doc, const cJSON *r)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points"))
        if (!strcmp(cJSON_GetObjectItem(p, "point")->valuestring, cJSON_GetObjectItem(r, "point")->valuestring))
            return p;
    cr_assert_fail("%s: not a point of %s", cJSON_GetObjectItem(r, "point")->valuestring, GOLDEN);
    return NULL;
}

/* Every claimed point of kind k, as the run's one measurement holds it (occurrence_cache.h). */
static void measure_kind(cs_kind k)
{
    test_skip_without_gpu();
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(GOLDEN, &d, &err), 0, "%s", err.msg);
    cJSON *all = occ_shared_results("cumsum"), *r;
    int measured = 0;
    cJSON_ArrayForEach(r, all) {
        const cJSON *p = golden_point(d.root, r);
        if (strcmp(cJSON_GetObjectItem(r, "family")->valuestring, ea_family_cumsum.name) ||
            cs_kind_of(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "scopes"), 0)) != k)
            continue;
        const char *alias = cJSON_GetObjectItem(r, "alias")->valuestring;
        const cJSON *view = cJSON_GetObjectItem(r, "view"), *cur = test_path(r, "current", "faithful"),
                    *orc = test_path(r, "oracle", "faithful");
        exact(cur, alias);
        exact(orc, alias);
        /* every position-id capture's coordinate_descent run is Triton launches only: the current_tuned path */
        const cJSON *tun = test_path(r, EA_PATH_CURRENT_TUNED, "faithful");
        exact(tun, alias);
        cr_assert(flag(view, "capture_checksums", EA_PATH_CURRENT_TUNED), "%s: current_tuned vs torch", alias);
        cr_assert(flag(view, "capture_checksums", "reference"), "%s: reference vs torch", alias);
        cr_assert(flag(view, "capture_checksums", "current"), "%s: current vs torch", alias);
        cr_assert(flag(view, "capture_checksums", "oracle"), "%s: oracle vs torch", alias);
        cr_assert_eq(num(view, "replay", "outputs_matching"), num(view, "replay", "outputs"), "%s: replay", alias);
        if (k == CS_MASK) {
            cr_assert(flag(view, "padded", "current_exact"), "%s: current on the padded batch", alias);
            cr_assert(flag(view, "padded", "current_tuned_exact"), "%s: current_tuned on the padded batch", alias);
            cr_assert(flag(view, "padded", "oracle_exact"), "%s: oracle on the padded batch", alias);
            cr_assert(num(view, "padded", "rows_padded") > 0);
        }
        tuned_variants(r, orc, alias, k);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s failed", alias);
        const char *want = cs_result_verdict(r);
        cr_assert_not_null(want);
        cr_assert_str_eq(cJSON_GetObjectItem(r, "verdict")->valuestring, want, "%s", alias);
        measured++;
    }
    cr_assert_eq(measured, k == CS_MASK ? 6 : k == CS_PACKED ? 8 : 1);
    cJSON_Delete(all);
    ej_free(&d);
}

Test(cumsum_gpu, mask_scopes)
{
    measure_kind(CS_MASK);
}

/* The mask oracle off the golden shapes: odd widths (scalar accesses), tails of a partial warp, rows
 * split over CTAs, a misaligned ids buffer, with and without the mask output and a nonzero past, every
 * variant that applies against the CPU reference on a right-padded batch (pad tokens inside rows too). */
Test(cumsum_gpu, mask_oracle_odd_shapes)
{
    test_skip_without_gpu();
    const int64_t widths[] = {1, 2, 63, 64, 130, 511, 1024, 2049, 3001}, rows = 5;
    int64_t *d_ids, *d_pos;
    uint8_t *d_mask;
    cr_assert_eq(cudaMalloc((void **)&d_ids, (size_t)(rows * 3001 + 1) * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d_pos, (size_t)(rows * 3001) * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d_mask, (size_t)(rows * 3001)), cudaSuccess);
    int launched = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (int shifted = 0; shifted < 2; shifted++) {
            const int64_t cols = widths[w], n = rows * cols;
            cs_scope s = {.kind = CS_MASK, .rows = rows, .cols = cols, .pad = 1, .past = shifted ? 3 : 0,
                          .offset = 1, .mask_out = !shifted, .noutputs = shifted ? 1 : 2};
            s.outputs[0] = (ea_tensor){.dtype = EA_B8, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
            s.outputs[s.mask_out] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
            int64_t *ids = malloc((size_t)n * 8), *pos = malloc((size_t)n * 8), *want = malloc((size_t)n * 8);
            uint8_t *mask = malloc((size_t)n), *want_mask = malloc((size_t)n);
            int64_t len[5];
            for (int64_t i = 0; i < n; i++)
                ids[i] = 2 + (int64_t)(ea_gen_hash(7, (uint64_t)i) % 1000);
            cs_pad_tails(&s, CS_PAD_SEED, ids, len);
            for (int64_t i = 0; i < n; i++) /* and one token in 5 of each prefix the pad too */
                if (i % cols < len[i / cols] && ea_gen_hash(11, (uint64_t)i) % 5 == 0)
                    ids[i] = s.pad;
            void *ref[2] = {want_mask, want};
            if (shifted)
                ref[0] = want;
            cs_reference(&s, ids, ref);
            int64_t *in = d_ids + shifted; /* shifted: ids 8 bytes off 16-byte alignment */
            cr_assert_eq(cudaMemcpy(in, ids, (size_t)n * 8, cudaMemcpyHostToDevice), cudaSuccess);
            for (int v = 0; v < CS_MASK_VARIANTS; v++) {
                cs_mask_shape sh;
                if (!cs_mask_variant(v, cols, &sh))
                    continue;
                cr_assert_eq(cudaMemset(d_pos, 0xFF, (size_t)n * 8), cudaSuccess);
                cr_assert_eq(cudaMemset(d_mask, 0xFF, (size_t)n), cudaSuccess);
                cr_assert_eq(cs_oracle_mask(&sh, rows, cols, s.pad, s.past, s.offset, in, shifted ? NULL : d_mask, d_pos,
                                            NULL), 0, "cols %ld variant %d", (long)cols, v);
                cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
                cr_assert_eq(cudaMemcpy(pos, d_pos, (size_t)n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
                cr_assert_arr_eq(pos, want, (size_t)n * 8, "positions: cols %ld variant %d shifted %d", (long)cols, v,
                                 shifted);
                if (!shifted) {
                    cr_assert_eq(cudaMemcpy(mask, d_mask, (size_t)n, cudaMemcpyDeviceToHost), cudaSuccess);
                    cr_assert_arr_eq(mask, want_mask, (size_t)n, "mask: cols %ld variant %d", (long)cols, v);
                }
                launched++;
            }
            free(ids), free(pos), free(want), free(mask), free(want_mask);
        }
    cr_assert_geq(launched, 2 * 9);
    cudaFree(d_ids), cudaFree(d_pos), cudaFree(d_mask);
}

/* The width-compiled mask kernels (cs_mask_fixed) on every row variant of each compiled width, with and
 * without the mask output and with a nonzero past, against the CPU reference on a right-padded batch with pad
 * tokens inside the rows. */
Test(cumsum_gpu, mask_oracle_compiled_widths)
{
    test_skip_without_gpu();
    const int64_t widths[] = {128, 256, 512, 1024, 2048}, rows = 7, most = rows * 2048;
    int64_t *d_ids, *d_pos;
    uint8_t *d_mask;
    cr_assert_eq(cudaMalloc((void **)&d_ids, (size_t)most * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d_pos, (size_t)most * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d_mask, (size_t)most), cudaSuccess);
    int launched = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (int with_mask = 0; with_mask < 2; with_mask++) {
            const int64_t cols = widths[w], n = rows * cols;
            cs_scope s = {.kind = CS_MASK, .rows = rows, .cols = cols, .pad = 1, .past = with_mask ? 0 : 5,
                          .offset = 1, .mask_out = with_mask, .noutputs = 1 + with_mask};
            s.outputs[0] = (ea_tensor){.dtype = EA_B8, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
            s.outputs[s.mask_out] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
            int64_t *ids = malloc((size_t)n * 8), *pos = malloc((size_t)n * 8), *want = malloc((size_t)n * 8), len[7];
            uint8_t *mask = malloc((size_t)n), *want_mask = malloc((size_t)n);
            for (int64_t i = 0; i < n; i++)
                ids[i] = 2 + (int64_t)(ea_gen_hash(13, (uint64_t)i) % 1000);
            cs_pad_tails(&s, CS_PAD_SEED, ids, len);
            for (int64_t i = 0; i < n; i++)
                if (i % cols < len[i / cols] && ea_gen_hash(17, (uint64_t)i) % 7 == 0)
                    ids[i] = s.pad;
            void *ref[2] = {with_mask ? (void *)want_mask : (void *)want, want};
            cs_reference(&s, ids, ref);
            cr_assert_eq(cudaMemcpy(d_ids, ids, (size_t)n * 8, cudaMemcpyHostToDevice), cudaSuccess);
            for (int v = 0; v < CS_MASK_VARIANTS; v++) {
                cs_mask_shape sh;
                if (!cs_mask_variant(v, cols, &sh) || !cs_mask_fixed(&sh, cols))
                    continue;
                cr_assert_eq(cudaMemset(d_pos, 0xFF, (size_t)n * 8), cudaSuccess);
                cr_assert_eq(cudaMemset(d_mask, 0xFF, (size_t)n), cudaSuccess);
                cr_assert_eq(cs_oracle_mask(&sh, rows, cols, s.pad, s.past, s.offset, d_ids, with_mask ? d_mask : NULL,
                                            d_pos, NULL), 0, "cols %ld variant %d", (long)cols, v);
                cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
                cr_assert_eq(cudaMemcpy(pos, d_pos, (size_t)n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
                cr_assert_arr_eq(pos, want, (size_t)n * 8, "positions: cols %ld variant %d mask %d", (long)cols, v,
                                 with_mask);
                if (with_mask) {
                    cr_assert_eq(cudaMemcpy(mask, d_mask, (size_t)n, cudaMemcpyDeviceToHost), cudaSuccess);
                    cr_assert_arr_eq(mask, want_mask, (size_t)n, "mask: cols %ld variant %d", (long)cols, v);
                }
                launched++;
            }
            free(ids), free(pos), free(want), free(mask), free(want_mask);
        }
    cr_assert_geq(launched, 2 * 5 * 2, "every width has at least two row variants compiled");
    cudaFree(d_ids), cudaFree(d_pos), cudaFree(d_mask);
}

/* The const oracle at every launch variant on OPT's shape and on shapes no golden point has: one column, a partial
 * CTA, more rows than a grid has CTAs down (each column's thread strides over them), and a sub past the i32
 * conversion's bound (the kernels that convert to i64 directly), at a width compiled in too. */
Test(cumsum_gpu, const_oracle_odd_shapes)
{
    test_skip_without_gpu();
    /* rows, cols, the variants that apply (pairs need an even width; compiled widths are powers of two 128 .. 2048
     * whose grid covers the output exactly), 1: sub -3e9 */
    const int64_t shapes[][4] = {{1, 1, 3, 0},   {3, 257, 3, 0}, {4, 2048, 6, 0}, {CS_CONST_MAX_ROWS + 6, 3, 3, 0},
                                 {2, 300, 4, 1}, {3, 130, 4, 0}, {3, 128, 5, 0},  {2, 256, 6, 0},
                                 {2, 256, 6, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const int64_t rows = shapes[k][0], cols = shapes[k][1], n = rows * cols;
        const double sub = shapes[k][3] ? -3e9 : 1;
        cr_assert_eq(cs_const_i32(cols, 1, sub), !shapes[k][3]);
        cs_scope s = {.kind = CS_CONST, .rows = rows, .cols = cols, .fill = 1, .sub = sub, .add = 2, .noutputs = 1};
        s.outputs[0] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
        int64_t *got = malloc((size_t)n * 8), *want = malloc((size_t)n * 8), *d_out;
        void *ref[1] = {want};
        cs_reference(&s, NULL, ref);
        cr_assert_eq(cudaMalloc((void **)&d_out, (size_t)n * 8), cudaSuccess);
        int ran = 0;
        for (int v = 0; v < CS_CONST_VARIANTS; v++) {
            cs_const_shape sh;
            if (!cs_const_variant(v, rows, cols, &sh))
                continue;
            cr_assert_eq(cudaMemset(d_out, 0xFF, (size_t)n * 8), cudaSuccess);
            cr_assert_eq(cs_oracle_const(&sh, rows, cols, 1.0f, (float)sub, 2, d_out, NULL), 0);
            cr_assert_eq(cudaMemcpy(got, d_out, (size_t)n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
            cr_assert_arr_eq(got, want, (size_t)n * 8, "%s: rows %ld cols %ld", sh.name, (long)rows, (long)cols);
            ran++;
        }
        cr_assert_eq(ran, shapes[k][2], "rows %ld cols %ld: %d variants ran", (long)rows, (long)cols, ran);
        cudaFree(d_out), free(got), free(want);
    }
}

/* Every packed variant on rows short, odd and long, against the CPU reference: a step of 2 flags every column, so
 * the row's scan is 1, 2, 3, ... and a wrong carry between threads, warps or a transpose shows in every later
 * column; a step of 1 with a first difference of 1 flags none. */
Test(cumsum_gpu, packed_oracle_every_variant_on_odd_widths)
{
    test_skip_without_gpu();
    const int64_t widths[] = {1, 5, 128, 129, 1000, 1024, 2048, 2049, 4096, 4097, CS_PACKED_MAX_COLS}, rows = 3;
    int64_t *d_pos, *d_cum;
    cr_assert_eq(cudaMalloc((void **)&d_pos, (size_t)CS_PACKED_MAX_COLS * 8), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d_cum, (size_t)(rows * CS_PACKED_MAX_COLS) * 8), cudaSuccess);
    int launched = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (int64_t step = 1; step <= 2; step++) {
            const int64_t cols = widths[w], n = rows * cols;
            cs_scope s = {.kind = CS_PACKED, .rows = rows, .cols = cols, .start = 3, .step = step, .first_full = 1,
                          .first_value = 2, .noutputs = 2};
            s.outputs[0] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {1, cols}, .strides = {cols, 1}};
            s.outputs[1] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {rows, cols}, .strides = {cols, 1}};
            int64_t *pos = malloc((size_t)cols * 8), *cum = malloc((size_t)n * 8), *want_pos = malloc((size_t)cols * 8),
                    *want_cum = malloc((size_t)n * 8);
            void *ref[2] = {want_pos, want_cum};
            cs_reference(&s, NULL, ref);
            for (int v = 0; v < CS_PACKED_VARIANTS; v++) {
                cs_packed_shape sh;
                if (!cs_packed_variant(v, cols, &sh))
                    continue;
                cr_assert_eq(cudaMemset(d_pos, 0xFF, (size_t)cols * 8), cudaSuccess);
                cr_assert_eq(cudaMemset(d_cum, 0xFF, (size_t)n * 8), cudaSuccess);
                cr_assert_eq(cs_oracle_packed(&sh, rows, cols, s.start, s.first_value, step, d_pos, d_cum, NULL), 0,
                             "%s cols %ld", sh.name, (long)cols);
                cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
                cr_assert_eq(cudaMemcpy(pos, d_pos, (size_t)cols * 8, cudaMemcpyDeviceToHost), cudaSuccess);
                cr_assert_eq(cudaMemcpy(cum, d_cum, (size_t)n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
                cr_assert_arr_eq(pos, want_pos, (size_t)cols * 8, "positions: %s cols %ld", sh.name, (long)cols);
                cr_assert_arr_eq(cum, want_cum, (size_t)n * 8, "scan: %s cols %ld step %ld", sh.name, (long)cols,
                                 (long)step);
                launched++;
            }
            if (step == 2)
                cr_assert_eq(want_cum[n - 1], cols, "every column flagged");
            free(pos), free(cum), free(want_pos), free(want_cum);
        }
    cr_assert_geq(launched, 2 * 40);
    cudaFree(d_pos), cudaFree(d_cum);
}

/* A mask scope's run, tuned oracle and all, is a document --record writes and the strict reader accepts. */
Test(cumsum_gpu, mask_run_records)
{
    test_skip_without_target(NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/cumsum.json", test_tmpdir());
    cli_run r = test_cli("run", "--scope", "m2m100-infer", "--record", path, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    ej_free(&d);
    cli_run_free(&r);
}

Test(cumsum_gpu, packed_scopes)
{
    measure_kind(CS_PACKED);
}

Test(cumsum_gpu, const_scope)
{
    measure_kind(CS_CONST);
}
