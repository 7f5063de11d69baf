/* The replay's judge for partitions with tl.atomic_add: eager's reference samples in capture.json (read
 * strictly), the sampled relative L2 error (gen.h), and the tolerant verdict in replay.json. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/capture.h"
#include "target/capture_impl.h"
#include "target/gen.h"
#include "helpers.h"
#include "base/json.h"
#include "target/replay_file.h"
#include "target_fixture.h"

#define STAGE_CAPTURE "tests/fixtures/candidates/H200-torch2.11.0+cu130-index_add_bf16_atomic/captures/" \
                      "index_add-a8e741bae3fe-d86ebce10336"

static ea_tensor tensor(ea_dtype d, int64_t rows, int64_t cols, int64_t row_stride)
{
    ea_tensor t = {.dtype = d, .ndim = 2, .sizes = {rows, cols}, .strides = {row_stride, 1}};
    return t;
}

Test(replay_tolerance, sampled_error_reads_row_major_elements_of_strided_storage)
{
    /* a 3 x 4 view with rows 6 apart: elements 0, 2, 4, ... of its row-major order */
    float f[18];
    double ref[6];
    for (int i = 0; i < 18; i++)
        f[i] = (float)(100 + i);
    ea_tensor t = tensor(EA_F32, 3, 4, 6);
    for (int k = 0; k < 6; k++)
        ref[k] = 100 + (2 * k / 4) * 6 + (2 * k) % 4;
    cr_expect_float_eq(ea_sampled_rel_l2(&t, f, 2, ref, 6), 0.0, 1e-15);
    ref[5] += 1; /* one sample off by one */
    double norm = 0;
    for (int k = 0; k < 6; k++)
        norm += ref[k] * ref[k];
    cr_expect_float_eq(ea_sampled_rel_l2(&t, f, 2, ref, 6), 1 / sqrt(norm), 1e-15);
}

Test(replay_tolerance, sampled_error_of_half_types_and_non_finite_values)
{
    uint16_t bf[4] = {ea_f32_to_bf16(1.5f), ea_f32_to_bf16(-2.0f), ea_f32_to_bf16(0.25f), ea_f32_to_bf16(3.0f)};
    uint16_t h[4] = {ea_f32_to_f16(1.5f), ea_f32_to_f16(-2.0f), ea_f32_to_f16(6e-8f), ea_f32_to_f16(3.0f)};
    double ref[4] = {1.5, -2.0, 0.25, 3.0};
    ea_tensor t = tensor(EA_BF16, 1, 4, 4);
    cr_expect_float_eq(ea_sampled_rel_l2(&t, bf, 1, ref, 4), 0.0, 1e-15);
    t.dtype = EA_F16;
    ref[2] = ldexp(1, -24); /* 6e-8 is the subnormal half 2^-24 */
    cr_expect_float_eq(ea_sampled_rel_l2(&t, h, 1, ref, 4), 0.0, 1e-15);
    h[3] = 0x7c00; /* +inf */
    cr_expect(isnan(ea_sampled_rel_l2(&t, h, 1, ref, 4)));
    t.dtype = EA_I32;
    cr_expect(isnan(ea_sampled_rel_l2(&t, h, 1, ref, 1)), "no error measure for an integer output");
}

/* The fixture capture copied, out<k> given a reference of n values every stride (and dtype, if given). */
static const char *with_reference(int k, int64_t stride, int n, const char *dtype)
{
    static char dir[4400];
    char cmd[9000];
    snprintf(dir, sizeof dir, "%s/index_add-a8e741bae3fe-d86ebce10336", test_tmpdir());
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", STAGE_CAPTURE, dir);
    cr_assert_eq(system(cmd), 0);
    cJSON *cap = target_load(dir, "capture.json");
    cJSON *out = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cap, "outputs"), k);
    cJSON *ref = cJSON_AddObjectToObject(out, "reference"), *vals = cJSON_AddArrayToObject(ref, "values");
    cJSON_AddNumberToObject(ref, "stride", (double)stride);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(vals, cJSON_CreateNumber(0.5 * i));
    if (dtype)
        cJSON_ReplaceItemInObjectCaseSensitive(out, "dtype", cJSON_CreateString(dtype));
    target_save(dir, "capture.json", cap);
    snprintf(cmd, sizeof cmd, "%s/capture.json", dir);
    return strcpy(dir, cmd);
}

Test(replay_tolerance, capture_reads_an_outputs_reference_samples)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(STAGE_CAPTURE "/capture.json", &c, &err), 0, "%s", err.msg);
    int64_t numel = 1;
    for (int d = 0; d < c.outputs[2].t.ndim; d++)
        numel *= c.outputs[2].t.sizes[d];
    cr_expect_null(c.outputs[2].reference, "captured before references existed");
    ea_capture_free(&c);
    int64_t stride = (numel + 4095) / 4096;
    cr_assert_eq(ea_capture_load(with_reference(2, stride, (int)((numel + stride - 1) / stride), NULL), &c, &err), 0,
                 "%s", err.msg);
    cr_expect_eq(c.outputs[2].ref_stride, stride);
    cr_expect_eq(cJSON_GetArraySize(c.outputs[2].reference), (numel + stride - 1) / stride);
    ea_capture_free(&c);
}

Test(replay_tolerance, capture_refuses_a_reference_of_the_wrong_length_stride_or_dtype)
{
    ea_capture c;
    ea_error err;
    cr_expect_eq(ea_capture_load(with_reference(2, 1 << 20, 3, NULL), &c, &err), -1);
    cr_expect(strstr(err.msg, "$.outputs[2].reference.values: expected") && strstr(err.msg, "got 3"), "%s", err.msg);
    cr_expect_eq(ea_capture_load(with_reference(2, 0, 1, NULL), &c, &err), -1);
    cr_expect(strstr(err.msg, "$.outputs[2].reference.stride") != NULL, "%s", err.msg);
    cr_expect_eq(ea_capture_load(with_reference(0, 1 << 30, 1, "i32"), &c, &err), -1);
    cr_expect(strstr(err.msg, "$.outputs[0].reference: expected no reference for a non-floating output"), "%s", err.msg);
}

static int validate(const char *text, ea_error *err)
{
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc);
    int rc = ea_replay_file_validate("replay.json", doc, err);
    cJSON_Delete(doc);
    return rc;
}

/* A replayed row of 5 outputs, timed at torch's own time (ratio 1); `extra` adds fields. */
#define ROW(verdict, matching, extra)                                                                            \
    "[{\"scope\": \"s\", \"verdict\": \"" verdict "\", \"outputs\": 5, \"outputs_matching\": " matching extra   \
    ", \"kernels_match\": true, \"kernels\": [], \"replay_us\": {\"median\": 10, \"q1\": 9, \"q3\": 11,"     \
    " \"samples\": 30, \"policy\": \"warm\"}, \"torch_compiled_us\": 10, \"ratio\": 1}]"

Test(replay_tolerance, replay_file_takes_the_tolerant_verdict_only_when_the_counts_add_up)
{
    ea_error err;
    cr_expect_eq(validate(ROW(EA_REPLAY_OK_TOLERANT, "3", ", \"outputs_within_tolerance\": 2"), &err), 0, "%s", err.msg);
    cr_expect_eq(validate(ROW(EA_REPLAY_OK_TOLERANT, "3", ", \"outputs_within_tolerance\": 1, \"mismatch\": \"o\""), &err),
                 -1);
    cr_expect(strstr(err.msg, "$[0].verdict: expected \"output mismatch\""), "%s", err.msg);
    cr_expect_eq(validate(ROW(EA_REPLAY_OK_TOLERANT, "5", ""), &err), -1, "all bit-exact is plain ok");
    cr_expect(strstr(err.msg, "$[0].verdict: expected \"ok\""), "%s", err.msg);
    cr_expect_eq(validate(ROW("output mismatch", "4", ", \"outputs_within_tolerance\": 2"), &err), -1);
    cr_expect(strstr(err.msg, "$[0].outputs_matching: expected outputs_matching + outputs_within_tolerance at most "
                              "outputs (5), got 4 + 2") != NULL, "%s", err.msg);
    cr_expect_eq(validate(ROW("output mismatch", "1", ", \"outputs_within_tolerance\": 0"), &err), -1);
    cr_expect(strstr(err.msg, "$[0].outputs_within_tolerance") != NULL, "%s", err.msg);
    cJSON *doc = cJSON_Parse(ROW(EA_REPLAY_OK_TOLERANT, "3", ", \"outputs_within_tolerance\": 2"));
    int replayed, ok;
    ea_replay_file_count(doc, &replayed, &ok);
    cr_expect(replayed == 1 && ok == 1);
    cJSON_Delete(doc);
}
