/* test_tensor.c: dtype tables, annotation parsing and layout queries of tensor.c. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/tensor.h"
#include "base/tensor_impl.h"

static ea_tensor parse_ok(const char *text)
{
    ea_tensor t;
    ea_error err = {{0}};
    int rc = ea_tensor_parse(text, strlen(text), "g.py:7", &t, &err);
    cr_assert_eq(rc, 0, "parse of %s failed: %s", text, err.msg);
    return t;
}

/* Parses text expecting failure; the message must carry the caller's location and `want`. */
static void parse_fails(const char *text, const char *want)
{
    ea_tensor t;
    ea_error err = {{0}};
    cr_assert_eq(ea_tensor_parse(text, strlen(text), "g.py:7", &t, &err), -1, "%s parsed", text);
    cr_assert(strncmp(err.msg, "g.py:7: expected ", 17) == 0, "bad prefix: %s", err.msg);
    cr_assert(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
}

static ea_tensor dense(int ndim, const int64_t *sizes, const int64_t *strides)
{
    ea_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = EA_F32;
    t.ndim = ndim;
    memcpy(t.sizes, sizes, (size_t)ndim * sizeof *sizes);
    memcpy(t.strides, strides, (size_t)ndim * sizeof *strides);
    strcpy(t.device, "cuda:0");
    return t;
}

Test(tensor_dtype, names_sizes_and_float_flags)
{
    static const struct {
        ea_dtype dt;
        const char *name;
        int size, is_float;
    } want[] = {
        {EA_BF16, "bf16", 2, 1}, {EA_F16, "f16", 2, 1}, {EA_F32, "f32", 4, 1}, {EA_F64, "f64", 8, 1},
        {EA_I8, "i8", 1, 0},     {EA_I16, "i16", 2, 0}, {EA_I32, "i32", 4, 0}, {EA_I64, "i64", 8, 0},
        {EA_U8, "u8", 1, 0},     {EA_U64, "u64", 8, 0}, {EA_B8, "b8", 1, 0},   {EA_C64, "c64", 8, 0},
    };
    cr_assert_eq(sizeof want / sizeof want[0], EA_DTYPE_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_str_eq(ea_dtype_name(want[i].dt), want[i].name);
        cr_assert_eq(ea_dtype_size(want[i].dt), want[i].size, "%s", want[i].name);
        cr_assert_eq(ea_dtype_is_float(want[i].dt), want[i].is_float, "%s", want[i].name);
        cr_assert_eq(ea_dtype_from_name(want[i].name, strlen(want[i].name)), want[i].dt);
    }
    cr_assert_eq(ea_dtype_size(EA_DTYPE_INVALID), 0);
    cr_assert_eq(ea_dtype_is_float(EA_DTYPE_INVALID), 0);
    cr_assert_str_eq(ea_dtype_name(EA_DTYPE_INVALID), "invalid");
}

Test(tensor_dtype, from_name_needs_the_exact_span)
{
    cr_assert_eq(ea_dtype_from_name("bf16[2]", 4), EA_BF16);
    cr_assert_eq(ea_dtype_from_name("bf16", 3), EA_DTYPE_INVALID);
    cr_assert_eq(ea_dtype_from_name("f32x", 4), EA_DTYPE_INVALID);
    cr_assert_eq(ea_dtype_from_name("", 0), EA_DTYPE_INVALID);
}

Test(tensor_dtype, from_torch_accepts_aliases)
{
    static const struct {
        const char *lit;
        ea_dtype dt;
    } want[] = {
        {"torch.float32", EA_F32}, {"torch.float", EA_F32},    {"torch.float16", EA_F16},
        {"torch.half", EA_F16},    {"torch.bfloat16", EA_BF16}, {"torch.float64", EA_F64},
        {"torch.double", EA_F64},  {"torch.int8", EA_I8},      {"torch.int16", EA_I16},
        {"torch.int32", EA_I32},   {"torch.int", EA_I32},      {"torch.int64", EA_I64},
        {"torch.long", EA_I64},    {"torch.uint8", EA_U8},     {"torch.uint64", EA_U64},
        {"torch.bool", EA_B8},     {"torch.complex64", EA_C64},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_eq(ea_dtype_from_torch(want[i].lit, strlen(want[i].lit)), want[i].dt, "%s",
                     want[i].lit);
    cr_assert_eq(ea_dtype_from_torch("torch.float8", 12), EA_DTYPE_INVALID);
    cr_assert_eq(ea_dtype_from_torch("torch.strided", 13), EA_DTYPE_INVALID);
    cr_assert_eq(ea_dtype_from_torch("float32", 7), EA_DTYPE_INVALID);
    cr_assert_eq(ea_dtype_from_torch("torch.int32)", 11), EA_I32);
}

Test(tensor_parse, concrete_annotation)
{
    ea_tensor t = parse_ok("bf16[16, 16, 512, 1023][8380416, 523776, 1023, 1]cuda:0");
    static const int64_t sizes[] = {16, 16, 512, 1023}, strides[] = {8380416, 523776, 1023, 1};
    cr_assert_eq(t.dtype, EA_BF16);
    cr_assert_eq(t.ndim, 4);
    cr_assert_arr_eq(t.sizes, sizes, sizeof sizes);
    cr_assert_arr_eq(t.strides, strides, sizeof strides);
    cr_assert_eq(t.offset, 0);
    cr_assert_eq(t.symbolic, 0);
    cr_assert_str_eq(t.device, "cuda:0");
    cr_assert_eq(ea_tensor_numel(&t), 16 * 16 * 512 * 1023);
    cr_assert_eq(ea_tensor_extent(&t), 16 * 16 * 512 * 1023);
    cr_assert(ea_tensor_is_contiguous(&t));
    cr_assert_not(ea_tensor_is_channels_last(&t));
}

Test(tensor_parse, spaces_around_dims)
{
    ea_tensor t = parse_ok("f16[2 , 3 ][ 3,1]cpu");
    cr_assert_eq(t.ndim, 2);
    cr_assert_eq(t.sizes[0], 2);
    cr_assert_eq(t.sizes[1], 3);
    cr_assert_eq(t.strides[0], 3);
    cr_assert_eq(t.strides[1], 1);
    cr_assert_eq(t.symbolic, 0);
}

Test(tensor_parse, scalar_on_cpu)
{
    ea_tensor t = parse_ok("i64[][]cpu");
    cr_assert_eq(t.dtype, EA_I64);
    cr_assert_eq(t.ndim, 0);
    cr_assert_str_eq(t.device, "cpu");
    cr_assert_eq(ea_tensor_numel(&t), 1);
    cr_assert_eq(ea_tensor_extent(&t), 1);
    cr_assert(ea_tensor_is_contiguous(&t));
}

Test(tensor_parse, symbolic_dims_become_minus_one)
{
    ea_tensor t = parse_ok("f32[64, 32, 4, s16*s82][128*s16*s82, 4*s16*s82, s16*s82, 1]cuda:0");
    static const int64_t sizes[] = {64, 32, 4, -1}, strides[] = {-1, -1, -1, 1};
    cr_assert_eq(t.ndim, 4);
    cr_assert_arr_eq(t.sizes, sizes, sizeof sizes);
    cr_assert_arr_eq(t.strides, strides, sizeof strides);
    cr_assert_eq(t.symbolic, 1);
    cr_assert_eq(ea_tensor_numel(&t), -1);
    cr_assert_eq(ea_tensor_extent(&t), -1);
    cr_assert_not(ea_tensor_is_contiguous(&t));
    cr_assert_not(ea_tensor_is_channels_last(&t));
}

Test(tensor_parse, parenthesised_expressions_and_commas_inside_calls)
{
    ea_tensor t = parse_ok("bf16[64, (((s1 - 1)//2)) + 1, Max(1, s0)][(((s1 - 1)//2)) + 1, 1, 1]cuda:0");
    static const int64_t sizes[] = {64, -1, -1}, strides[] = {-1, 1, 1};
    cr_assert_eq(t.ndim, 3);
    cr_assert_arr_eq(t.sizes, sizes, sizeof sizes);
    cr_assert_arr_eq(t.strides, strides, sizeof strides);
    cr_assert_eq(t.symbolic, 1);
}

Test(tensor_parse, eight_dims_and_other_devices)
{
    ea_tensor t = parse_ok("u8[1, 1, 1, 1, 1, 1, 1, 2][2, 2, 2, 2, 2, 2, 2, 1]cuda:1");
    cr_assert_eq(t.ndim, EA_MAX_DIMS);
    cr_assert_eq(t.sizes[7], 2);
    cr_assert_str_eq(t.device, "cuda:1");
    cr_assert_str_eq(parse_ok("b8[0][1]meta").device, "meta");
}

Test(tensor_parse, rejects_malformed_annotations)
{
    parse_fails("f32[2, 3][1]cuda:0", "2 strides, one per size, got '[1]cuda:0'");
    parse_fails("f32[1, 1, 1, 1, 1, 1, 1, 1, 1][1, 1, 1, 1, 1, 1, 1, 1, 1]cuda:0", "at most 8 dimensions");
    parse_fails("f32[2, -3][3, 1]cuda:0", "non-negative size, got '-3]");
    parse_fails("f32[2, 3][-3, 1]cuda:0", "non-negative stride");
    parse_fails("f32[2][1]cuda:0 junk", "end of annotation after device, got ' junk'");
    parse_fails("f32[2][1]cuda:0]", "end of annotation after device");
    parse_fails("q32[2][1]cuda:0", "expected dtype (bf16, f16, f32");
    parse_fails("[2][1]cuda:0", "expected dtype");
    parse_fails("f32[2][1]", "device (cuda:0, cpu)");
    parse_fails("f32[2][1]cuda:", "device index after ':'");
    parse_fails("f32[2][1]averyveryverylongdevice", "at most 15 characters");
    parse_fails("f32[2, 3", "']' closing the dimension list");
    parse_fails("f32(2)[1]cuda:0", "expected '[', got '(2)[1]cuda:0'");
    parse_fails("f32[2][1", "']' closing the dimension list");
    parse_fails("f32[2!][1]cuda:0", "size (integer or symbolic expression), got '2!]");
    parse_fails("f32[2, ][1, 1]cuda:0", "expected size");
    parse_fails("f32[(s0))][1]cuda:0", "expected size");
    parse_fails("f32[99999999999999999999][1]cuda:0", "size within int64");
    parse_fails("f32[2]", "'['");
}

Test(tensor_parse, long_junk_is_excerpted)
{
    ea_tensor t;
    ea_error err;
    const char *text = "f32[2][1]cuda:0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    cr_assert_eq(ea_tensor_parse(text, strlen(text), "w", &t, &err), -1);
    cr_assert_str_eq(err.msg, "w: expected end of annotation after device, got "
                              "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
}

Test(tensor_parse, only_len_bytes_are_read)
{
    ea_tensor t;
    ea_error err;
    const char *text = "f32[4][1]cuda:0\" = torch.ops.aten.relu.default(x)";
    cr_assert_eq(ea_tensor_parse(text, 15, "w", &t, &err), 0);
    cr_assert_eq(t.sizes[0], 4);
}

Test(tensor_format, round_trips_and_marks_symbolic_dims)
{
    char buf[128];
    const char *text = "bf16[2, 3][3, 1]cuda:0";
    ea_tensor t = parse_ok(text);
    cr_assert_eq(ea_tensor_format(&t, buf, sizeof buf), (int)strlen(text));
    cr_assert_str_eq(buf, text);
    t = parse_ok("f32[s0, 4][4, 1]cpu");
    ea_tensor_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "f32[?, 4][4, 1]cpu");
    t = parse_ok("i64[][]cpu");
    ea_tensor_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "i64[][]cpu");
}

Test(tensor_format, truncates_without_overrunning)
{
    char buf[8];
    memset(buf, 'z', sizeof buf);
    ea_tensor t = parse_ok("bf16[2, 3][3, 1]cuda:0");
    cr_assert_eq(ea_tensor_format(&t, buf, sizeof buf), 7);
    cr_assert_str_eq(buf, "bf16[2,");
    cr_assert_eq(ea_tensor_format(&t, buf, 0), 0);
}

Test(tensor_layout, contiguity_ignores_size_one_dims)
{
    ea_tensor t = dense(2, (int64_t[]){1, 4}, (int64_t[]){99, 1});
    cr_assert(ea_tensor_is_contiguous(&t));
    t = dense(2, (int64_t[]){2, 4}, (int64_t[]){1, 2});
    cr_assert_not(ea_tensor_is_contiguous(&t));
    t = dense(2, (int64_t[]){2, 4}, (int64_t[]){0, 1}); /* expanded */
    cr_assert_not(ea_tensor_is_contiguous(&t));
    t = dense(2, (int64_t[]){0, 4}, (int64_t[]){7, 3}); /* empty: any strides */
    cr_assert(ea_tensor_is_contiguous(&t));
    cr_assert_eq(ea_tensor_numel(&t), 0);
    cr_assert_eq(ea_tensor_extent(&t), 0);
}

Test(tensor_layout, channels_last)
{
    ea_tensor t = dense(4, (int64_t[]){2, 3, 4, 5}, (int64_t[]){60, 1, 15, 3});
    cr_assert(ea_tensor_is_channels_last(&t));
    cr_assert_not(ea_tensor_is_contiguous(&t));
    t = dense(4, (int64_t[]){2, 3, 4, 5}, (int64_t[]){60, 20, 5, 1});
    cr_assert_not(ea_tensor_is_channels_last(&t));
    /* NHWC-dense but also contiguous (1x1 spatial): not channels-last. */
    t = parse_ok("f32[16, 32, 1, 1][32, 1, 32, 32]cuda:0");
    cr_assert(ea_tensor_is_contiguous(&t));
    cr_assert_not(ea_tensor_is_channels_last(&t));
    /* C == 1 never counts. */
    t = parse_ok("f32[32, 1, 3, 3][9, 1, 3, 1]cuda:0");
    cr_assert_not(ea_tensor_is_channels_last(&t));
    /* A size-1 H may carry any stride. */
    t = dense(4, (int64_t[]){2, 8, 1, 4}, (int64_t[]){32, 1, 7, 8});
    cr_assert(ea_tensor_is_channels_last(&t));
    t = dense(3, (int64_t[]){3, 4, 5}, (int64_t[]){1, 15, 3});
    cr_assert_not(ea_tensor_is_channels_last(&t));
    t = dense(4, (int64_t[]){2, 3, 4, 5}, (int64_t[]){60, 1, 16, 3});
    cr_assert_not(ea_tensor_is_channels_last(&t));
    t = dense(4, (int64_t[]){0, 3, 4, 5}, (int64_t[]){60, 1, 15, 3});
    cr_assert_not(ea_tensor_is_channels_last(&t));
    t = parse_ok("bf16[128, 3, 224, 224][150528, 1, 672, 3]cuda:0");
    cr_assert(ea_tensor_is_channels_last(&t));
}

Test(tensor_layout, extent_of_expanded_and_offset_views)
{
    ea_tensor t = parse_ok("bf16[128, 1280, 7, 7][1280, 1, 0, 0]cuda:0");
    cr_assert_eq(ea_tensor_numel(&t), 128 * 1280 * 49);
    cr_assert_eq(ea_tensor_extent(&t), 163840);
    t.offset = 5;
    cr_assert_eq(ea_tensor_extent(&t), 163845);
}

Test(tensor_layout, check_storage)
{
    ea_error err = {{0}};
    ea_tensor t = parse_ok("bf16[128, 1280, 7, 7][1280, 1, 0, 0]cuda:0");
    cr_assert_eq(ea_tensor_check_storage(&t, 163840, "as_strided_5", &err), 0);
    cr_assert_eq(ea_tensor_check_storage(&t, 163839, "as_strided_5", &err), -1);
    cr_assert_str_eq(err.msg,
                     "as_strided_5: stride overruns storage: view needs 163840 elements, storage has 163839");
    t = parse_ok("f32[s0][1]cuda:0");
    cr_assert_eq(ea_tensor_check_storage(&t, 1000, "sym", &err), -1);
    cr_assert(strstr(err.msg, "sym: expected concrete sizes"), "%s", err.msg);
}

Test(tensor_layout, equal_ignores_device_only)
{
    ea_tensor a = parse_ok("f32[2, 3][3, 1]cuda:0"), b = parse_ok("f32[2, 3][3, 1]cpu");
    cr_assert(ea_tensor_equal(&a, &b));
    b = parse_ok("f32[2, 3][1, 2]cuda:0");
    cr_assert_not(ea_tensor_equal(&a, &b));
    b = parse_ok("f16[2, 3][3, 1]cuda:0");
    cr_assert_not(ea_tensor_equal(&a, &b));
    b = parse_ok("f32[2, 4][4, 1]cuda:0");
    cr_assert_not(ea_tensor_equal(&a, &b));
    b = parse_ok("f32[6][1]cuda:0");
    cr_assert_not(ea_tensor_equal(&a, &b));
    b = a;
    b.offset = 1;
    cr_assert_not(ea_tensor_equal(&a, &b));
}
