#include <criterion/criterion.h>
#include <string.h>
#include <stdlib.h>

#include "target/gen.h"
#include "target/gen_impl.h"

/* Vectors computed from the definitions in docs/reference/schema.md with plain Python integers. */
Test(gen, hash_and_uniform_vectors)
{
    const uint64_t h[] = {0x1fdd7128f310c389ULL, 0x6d65027660c4cdc5ULL, 0x288f7d14aa891bf6ULL, 0x84f9854797775b8bULL};
    const float u[] = {0.6244726181030273f, 0.927322506904602f, 0.6584393978118896f, 1.0194323062896729f};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(ea_gen_hash(1, (uint64_t)i), h[i]);
        cr_assert_eq(ea_gen_uniform(1, (uint64_t)i), u[i]);
    }
}

static ea_tensor tensor(ea_dtype dt, int ndim, const int64_t *sizes, const int64_t *strides)
{
    ea_tensor t = {.dtype = dt, .ndim = ndim};
    for (int d = 0; d < ndim; d++) {
        t.sizes[d] = sizes[d];
        t.strides[d] = strides[d];
    }
    return t;
}

static void fill(const char *json, const ea_tensor *t, void *storage)
{
    cJSON *g = cJSON_Parse(json);
    ea_error err;
    cr_assert_eq(ea_gen_fill(g, t, storage, "test", &err), 0, "%s", err.msg);
    cJSON_Delete(g);
}

Test(gen, randint_and_checksum_vectors)
{
    int64_t n[] = {6}, s[] = {1}, v[6];
    ea_tensor t = tensor(EA_I64, 1, n, s);
    fill("{\"generator\": \"randint\", \"seed\": 7, \"low\": 3, \"high\": 53}", &t, v);
    const int64_t want[] = {29, 45, 47, 17, 40, 42};
    cr_assert_arr_eq(v, want, sizeof want);
    cr_assert_eq(ea_checksum(&t, v), 0xb2dd0865ccf0c60fULL);
}

Test(gen, bf16_uniform_and_checksum)
{
    int64_t n[] = {2, 3}, s[] = {3, 1};
    uint16_t v[6];
    ea_tensor t = tensor(EA_BF16, 2, n, s);
    fill("{\"generator\": \"uniform\", \"seed\": 3}", &t, v);
    const uint16_t want[] = {0x3fb1, 0x3f3d, 0x3fbb, 0x3fbb, 0x3f33, 0x3f45};
    cr_assert_arr_eq(v, want, sizeof want);
    cr_assert_eq(ea_checksum(&t, v), 0xa6eb3d9b821fbe27ULL);
}

Test(gen, strided_storage_is_filled_in_logical_order)
{
    /* a transposed view: the checksum follows logical order, so it equals the contiguous one */
    int64_t n[] = {2, 3}, s[] = {1, 2}, cs[] = {3, 1};
    uint16_t v[6], c[6];
    ea_tensor t = tensor(EA_BF16, 2, n, s), tc = tensor(EA_BF16, 2, n, cs);
    fill("{\"generator\": \"uniform\", \"seed\": 3}", &t, v);
    fill("{\"generator\": \"uniform\", \"seed\": 3}", &tc, c);
    cr_assert_eq(v[0], c[0]);
    cr_assert_eq(v[2], c[1], "logical (0,1) sits at storage 2");
    cr_assert_eq(ea_checksum(&t, v), ea_checksum(&tc, c));
    cr_assert_eq(ea_storage_bytes(&t), 12);
}

Test(gen, rounding)
{
    cr_assert_eq(ea_f32_to_bf16(1.0f), 0x3f80);
    cr_assert_eq(ea_f32_to_bf16(1.00390625f), 0x3f80, "halfway rounds to even");
    cr_assert_eq(ea_f32_to_bf16(1.01171875f), 0x3f82, "halfway rounds to even (up)");
    cr_assert_eq(ea_f32_to_f16(1.0f), 0x3c00);
    cr_assert_eq(ea_f32_to_f16(-2.0f), 0xc000);
    cr_assert_eq(ea_f32_to_f16(65504.0f), 0x7bff);
    cr_assert_eq(ea_f32_to_f16(70000.0f), 0x7c00, "overflow to inf");
    cr_assert_eq(ea_f32_to_f16(0x1p-24f), 0x0001, "smallest subnormal");
    cr_assert_eq(ea_f32_to_f16(1.0f + 0x1p-11f), 0x3c00, "halfway rounds to even");
    cr_assert_eq(ea_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
}

Test(gen, structured_generators)
{
    int64_t n[] = {2, 3}, s[] = {3, 1}, v[6];
    ea_tensor t = tensor(EA_I64, 2, n, s);
    fill("{\"generator\": \"topk_ids\", \"seed\": 5, \"experts\": 8}", &t, v);
    const int64_t topk[] = {2, 5, 1, 2, 6, 5};
    cr_assert_arr_eq(v, topk, sizeof topk);
    fill("{\"generator\": \"as_strided_iota\", \"iota\": {\"length\": 4, \"start\": 10, \"step\": 2},"
         " \"size\": [2, 3], \"stride\": [1, 1], \"offset\": 0}", &t, v);
    const int64_t windows[] = {10, 12, 14, 12, 14, 16};
    cr_assert_arr_eq(v, windows, sizeof windows);
    fill("{\"generator\": \"iota\", \"start\": 3, \"step\": -1}", &t, v);
    const int64_t down[] = {3, 2, 1, 0, -1, -2};
    cr_assert_arr_eq(v, down, sizeof down);
    fill("{\"generator\": \"constant\", \"value\": 7}", &t, v);
    cr_assert_eq(v[5], 7);
    int8_t b[6];
    ea_tensor tb = tensor(EA_B8, 2, n, s);
    fill("{\"generator\": \"bool\", \"seed\": 1}", &tb, b);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(b[i], (int8_t)(ea_gen_hash(1, (uint64_t)i) >> 63));
}

static void refused(const char *json, const ea_tensor *t, const char *needle)
{
    int64_t v[64];
    cJSON *g = cJSON_Parse(json);
    ea_error err = {{0}};
    cr_assert_eq(ea_gen_fill(g, t, v, "capture.json $.inputs[0]", &err), -1);
    cr_assert(strstr(err.msg, "capture.json $.inputs[0]"), "%s", err.msg);
    cr_assert(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    cJSON_Delete(g);
}

Test(gen, bad_generators)
{
    int64_t n[] = {2, 3}, s[] = {3, 1};
    ea_tensor t = tensor(EA_I64, 2, n, s);
    refused("{\"generator\": \"gauss\", \"seed\": 1}", &t, "unknown generator \"gauss\"");
    refused("{\"generator\": \"randint\", \"seed\": 1, \"low\": 5, \"high\": 5}", &t, "low < high");
    refused("{\"generator\": \"uniform\"}", &t, "\"seed\"");
    refused("{\"generator\": \"topk_ids\", \"seed\": 1, \"experts\": 2}", &t, "k <= experts");
    refused("{\"generator\": \"as_strided_iota\", \"iota\": {\"length\": 4, \"start\": 0, \"step\": 1},"
            " \"size\": [2, 2], \"stride\": [1, 1], \"offset\": 0}", &t, "has 4 values, the tensor 6");
    refused("[1]", &t, "expected a generator object");
}

/* The fill and the checksum walk runs of evenly spaced elements: against the definitions element by
 * element (logical index i at offset + sum of index x stride) on layouts that merge some dimensions and
 * not others, with an offset, a size-1 dimension of any stride, a 0-d tensor, and each element size. */
Test(gen, runs_match_the_element_by_element_definition)
{
    const struct {
        ea_dtype dt;
        int nd;
        int64_t sizes[4], strides[4], offset;
    } cases[] = {
        {EA_BF16, 4, {2, 3, 4, 5}, {60, 1, 15, 3}, 7},  /* last two merge into runs of 20, stride 3 */
        {EA_F32, 4, {3, 1, 4, 5}, {20, 999, 5, 1}, 0},   /* the size-1 dim of odd stride stops the merge */
        {EA_I64, 3, {2, 5, 3}, {1, 6, 2}, 1},            /* nothing merges */
        {EA_B8, 2, {4, 6}, {6, 1}, 3},                   /* one run */
        {EA_F16, 0, {0}, {0}, 2},                        /* 0-d */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ea_tensor t = tensor(cases[k].dt, cases[k].nd, cases[k].sizes, cases[k].strides);
        t.offset = cases[k].offset;
        const int es = ea_dtype_size(t.dtype);
        unsigned char *v = calloc(1, (size_t)ea_storage_bytes(&t));
        fill(t.dtype == EA_I64 ? "{\"generator\": \"randint\", \"seed\": 5, \"low\": -9, \"high\": 99}"
             : t.dtype == EA_B8 ? "{\"generator\": \"bool\", \"seed\": 5}"
                                : "{\"generator\": \"uniform\", \"seed\": 5}",
             &t, v);
        int64_t n = ea_tensor_numel(&t), idx[4] = {0};
        uint64_t sum = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t at = t.offset;
            for (int d = 0; d < t.ndim; d++)
                at += idx[d] * t.strides[d];
            uint64_t bits = 0, h = ea_gen_hash(5, (uint64_t)i);
            memcpy(&bits, v + at * es, (size_t)es);
            sum += ea_splitmix64(bits + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
            float u = ea_gen_uniform(5, (uint64_t)i);
            uint64_t want = t.dtype == EA_BF16  ? ea_f32_to_bf16(u)
                            : t.dtype == EA_F16 ? ea_f32_to_f16(u)
                            : t.dtype == EA_I64 ? (uint64_t)(-9 + (int64_t)((h >> 1) % 108))
                            : t.dtype == EA_B8  ? h >> 63
                                                : 0;
            if (t.dtype == EA_F32)
                memcpy(&want, &u, 4);
            cr_assert_eq(bits, want, "case %zu: element %lld", k, (long long)i);
            for (int d = t.ndim - 1; d >= 0 && ++idx[d] == t.sizes[d]; d--)
                idx[d] = 0;
        }
        cr_assert_eq(ea_checksum(&t, v), sum, "case %zu", k);
        free(v);
    }
}
