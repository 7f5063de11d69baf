/* The cat family on the CPU: every golden point parses and plans, the alias table matches the data, the
 * block view against independent arithmetic, the checks against an independent fp64 computation on
 * small shapes, the generated inputs against torch's cat checksum, and malformed points. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/cat/cat.h"
#include "../repros/cat/cat_impl.h"
#include "../repros/cat/stream_block.h"
#include "cat_small.h"
#include "target/gen.h"
#include "helpers.h"
#include "base/json.h"

#define CAT_FILE "golden/occurrences/cat.json"

static cJSON *golden(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(CAT_FILE, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

static const cJSON *point_by_alias(const cJSON *doc, const char *alias, int *index)
{
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        const char *a = test_alias_of("cat", cJSON_GetObjectItem(p, "point")->valuestring);
        if (a && !strcmp(a, alias)) {
            *index = i;
            return p;
        }
        i++;
    }
    cr_assert_fail("no golden point %s", alias);
    return NULL;
}

Test(cat, plan_every_golden_point_without_gpu)
{
    cJSON *doc = golden(), *p;
    ea_error err;
    int i = 0, infer = 0, train = 0, pooled = 0;
    cJSON *view = cat_view(doc, CAT_FILE, &err);
    cr_assert_not_null(view, "%s", err.msg);
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        cat_scope s;
        const ea_capture *cap;
        cat_plan pl;
        cr_assert_eq(cat_scope_parse(p, CAT_FILE, i, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
        cr_assert_eq(cat_plan_make(&s, 1, &pl, &err), 0, "%s", err.msg);
        /* the derived alias reads as the cat family's points always did: model, mode, H x W, inputs */
        char named[160];
        snprintf(named, sizeof named, "%s-%s-%" PRId64 "x%" PRId64 "-k%d", s.model, s.train ? "train" : "infer", s.h,
                 s.w, s.k);
        cr_assert_str_eq(test_alias_of("cat", s.point), named);
        cr_assert(s.k >= 9 && s.k <= 25 && (s.hw == 784 || s.hw == 196 || s.hw == 49), "%s", s.alias);
        int64_t x = s.n * s.c * s.hw * 2;
        cat_plan v[CAT_MAX_VARIANTS];
        int nv = cat_plan_variants(&s, v, &err), kinds = 0;
        cr_assert_gt(nv, 0, "%s: %s", s.alias, err.msg);
        for (int j = 0; j < nv; j++) {
            kinds |= 1 << v[j].kind;
            cr_assert_eq(v[j].floor_bytes, pl.floor_bytes, "%s: one floor for every layout", s.alias);
            if (v[j].kind == CAT_ORACLE_STREAM)
                cr_assert(v[j].unroll == cat_unrolls[j] && v[j].vec == pl.vec, "%s", s.alias);
            if (v[j].kind == CAT_ORACLE_WARP || v[j].kind == CAT_ORACLE_REGS) /* a warp per channel, four per CTA */
                cr_assert(v[j].threads == 32 * CAT_WARP_CHANNELS && v[j].vec == pl.vec &&
                              v[j].grid_x == (s.c + CAT_WARP_CHANNELS - 1) / CAT_WARP_CHANNELS, "%s", s.alias);
            if (v[j].kind == CAT_ORACLE_WARP)
                cr_assert_eq(v[j].shared_bytes, (int64_t)CAT_WARP_CHANNELS * s.n * s.hw * 4, "%s", s.alias);
            if (v[j].kind == CAT_ORACLE_REGS) /* every value of the channel held: packs x 32 lanes x vec */
                cr_assert(v[j].shared_bytes == 0 && v[j].packs <= CAT_REGS_MAX_PACKS &&
                              (int64_t)v[j].packs * 32 * v[j].vec >= s.n * s.hw &&
                              (int64_t)v[j].packs * 16 * v[j].vec < s.n * s.hw, "%s: %d packs", s.alias, v[j].packs);
            if (v[j].kind == CAT_ORACLE_ROWS) /* DenseNet's inputs: multiples of 32 channels, 32 * 49 = 8 * 196 */
                cr_assert(v[j].rows == 32 && v[j].vec == 8 && v[j].grid_x == s.n * s.c / 32 / CAT_WARP_CHANNELS &&
                              v[j].shared_bytes == (int64_t)CAT_WARP_CHANNELS * 32 * s.hw * 2, "%s", s.alias);
            char text[128];
            cat_variant_kernel(&s, &v[j], text, sizeof text);
            cr_assert(strlen(text) > 10 && strlen(cat_variant_name(&v[j])) > 3, "%s", s.alias);
        }
        int want = !s.train && !s.pooled ? 1 << CAT_ORACLE_STREAM
                   : s.pooled && !s.train ? 1 << CAT_ORACLE_CHANNEL | 1 << CAT_ORACLE_WARP | 1 << CAT_ORACLE_ROWS
                   : s.pooled || s.hw == 784 ? 1 << CAT_ORACLE_CHANNEL | 1 << CAT_ORACLE_WARP /* 28x28: 98 values a lane */
                                             : 1 << CAT_ORACLE_CHANNEL | 1 << CAT_ORACLE_WARP | 1 << CAT_ORACLE_REGS;
        cr_assert_eq(kinds, want, "%s: layouts %#x", s.alias, kinds);
        cr_assert_eq(nv, s.train || s.pooled ? __builtin_popcount(want) : CAT_UNROLLS, "%s", s.alias);
        if (s.train) {
            cr_assert(s.n == 4 && pl.kind == CAT_ORACLE_CHANNEL && pl.grid_x == s.c, "%s", s.alias);
            cr_assert_eq(s.out[CAT_O_CAT], 0);
            cr_assert(fabs(s.momentum - 0.1) < 1e-12 && fabs(s.decay - 0.9) < 1e-12 && s.eps == 1e-5);
        } else {
            cr_assert(s.n == 64 && s.out[CAT_O_CAT] < 0, "%s", s.alias);
            if (!s.pooled)
                cr_assert(pl.kind == CAT_ORACLE_STREAM && pl.vec == 8, "%s: 16-byte accesses", s.alias);
        }
        int64_t y = s.pooled ? s.n * s.c * 2 : x;
        cr_assert_eq(pl.floor_bytes, s.train ? 2 * x + y + 24 * s.c : x + y + 8 * s.c, "%s", s.alias);
        /* train writes the cat, f32 mean, rstd and running var beside the result; infer the result alone */
        cr_assert_eq(pl.floor_written_bytes, s.train ? x + y + 12 * s.c : y, "%s", s.alias);
        char note[1024];
        cat_view_line(cat_view_block(view, &s), note, sizeof note);
        cJSON *cfg = cat_config_json(&s, &pl, cap, note);
        cr_assert_str_eq(cJSON_GetObjectItem(cfg, "current_source")->valuestring, "inductor");
        cr_assert_eq(ej_num(cfg, "floor_written_bytes"), (double)pl.floor_written_bytes, "%s", s.alias);
        cr_assert_geq(ej_num(cfg, "current_launches"), 2, "copies + BN at least");
        cr_assert_null(cJSON_GetObjectItem(cfg, "current"), "the launches are the capture's (run_report.h prints them)");
        cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cfg, "notes"), 0)->valuestring, "cat_block",
                         "the block view is a note (its numbers are cat_view's)");
        cJSON_Delete(cfg);
        infer += !s.train, train += s.train, pooled += s.pooled;
        i++;
    }
    cr_assert(i == 62 && infer == 31 && train == 31 && pooled == 2, "%d points, %d infer, %d train, %d pooled", i,
              infer, train, pooled);
    /* the example: the 25-input 14x14 cat moves 51.4 MB */
    cat_scope s;
    const ea_capture *cap;
    cat_plan pl;
    int k;
    const cJSON *pt = point_by_alias(doc, "densenet121-infer-14x14-k25", &k);
    cr_assert_eq(cat_scope_parse(pt, CAT_FILE, k, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
    cr_assert_eq(cat_plan_make(&s, 2, &pl, &err), 0, "%s", err.msg);
    cr_assert_eq(pl.floor_bytes, 51388416);
    cr_assert(pl.grid_x == 49 && pl.grid_y == 64, "1024*196/8 vectors per row in CTAs of 512: %lld x %lld",
              (long long)pl.grid_x, (long long)pl.grid_y);
    cJSON_Delete(view);
    cJSON_Delete(doc);
}

/* Block 3 of DenseNet-121 at inference: cats of k = 9..25 inputs, 256 + 32 (k - 1) channels, 64 x 14 x 14. */
Test(cat, block_view_against_independent_arithmetic)
{
    cJSON *doc = golden();
    ea_error err;
    cJSON *view = cat_view(doc, CAT_FILE, &err);
    cr_assert_not_null(view, "%s", err.msg);
    const cJSON *b = NULL, *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(view, "blocks"))
        if (!strcmp(cJSON_GetObjectItem(x, "block")->valuestring, "densenet121-infer-14x14"))
            b = x;
    cr_assert_not_null(b);
    double copied = 0, fused = 0;
    for (int k = 9; k <= 25; k++) {
        double c = 256 + 32 * (k - 1), s = 64 * c * 196 * 2;
        copied += s;
        fused += 2 * s + 4 * c * 2;
    }
#define NUM(key) cJSON_GetObjectItem(b, key)->valuedouble
    cr_assert(NUM("cats_over_cap") == 17 && NUM("k_min") == 9 && NUM("k_max") == 25);
    cr_assert(NUM("in_channels") == 256 && NUM("growth") == 32 && cJSON_IsTrue(cJSON_GetObjectItem(b, "uniform")));
    cr_assert_eq(NUM("cats_reading_first_conv_output"), 24, "the issue's 24 times in block 3");
    cr_assert_eq(NUM("copies_of_first_conv_output"), 17);
    cr_assert_eq(NUM("bytes_copied_into_cats"), copied);
    cr_assert_eq(NUM("copy_traffic_bytes"), 2 * copied);
    cr_assert_eq(NUM("fused_bytes"), fused);
    cr_assert_eq(NUM("today_bytes"), fused + 2 * copied);
    char line[1024];
    cat_view_line(b, line, sizeof line);
    cr_assert(strstr(line, "copied into 17 of them"), "%s", line);
    cat_view_line(NULL, line, sizeof line);
    cr_assert_str_eq(line, "", "no block, no note");
#undef NUM
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(view, "blocks")), 6, "3 blocks x 2 modes");
    cJSON_Delete(view);
    cJSON_Delete(doc);
}

Test(cat, checks_on_small_shapes)
{
    small_case(0, 0, 3);
    small_case(0, 1, 3);
    small_case(1, 0, 4);
    small_case(1, 1, 3);
}

/* The C inputs are torch's: the cat built from them on the CPU has the capture's checksum. */
Test(cat, generated_inputs_give_torchs_cat)
{
    cJSON *doc = golden();
    int k;
    const cJSON *pt = point_by_alias(doc, "densenet121-train-14x14-k9", &k);
    cat_scope s;
    const ea_capture *cap;
    cat_inputs in;
    ea_error err;
    cr_assert_eq(cat_scope_parse(pt, CAT_FILE, k, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
    cr_assert_eq(cat_inputs_make(&s, cap, &in, &err), 0, "%s", err.msg);
    uint16_t *cat = malloc((size_t)cat_output_bytes(cap, s.out[CAT_O_CAT]));
    for (int64_t n = 0; n < s.n; n++)
        for (int i = 0; i < s.k; i++)
            memcpy(cat + (n * s.c + s.c_off[i]) * s.hw,
                   (const uint16_t *)in.data[s.in_x[i]] + n * s.ch[i] * s.hw, (size_t)(s.ch[i] * s.hw * 2));
    const ea_capture_tensor *t = &cap->outputs[s.out[CAT_O_CAT]];
    cr_assert_eq(ea_checksum(&t->t, cat), t->checksum, "the cat of the generated inputs is torch's");
    void *outs[CAT_NOUTS] = {cat, NULL, NULL, NULL, NULL};
    cat_check_result r;
    uint16_t *y = malloc((size_t)cat_output_bytes(cap, s.out[CAT_O_Y]));
    memset(y, 0xFF, (size_t)cat_output_bytes(cap, s.out[CAT_O_Y]));
    outs[CAT_O_Y] = y;
    cat_check(&s, &in, outs, &r);
    cr_assert(r.cat_mismatched == 0 && r.unwritten == s.n * s.c * s.hw, "the cat matches, y is all poison");
    free(y);
    free(cat);
    cat_inputs_free(&in);
    cJSON_Delete(doc);
}

/* The train oracles' one-pass statistics (oracle.cu train_terms: fp64 sums of x and x^2, var =
 * E[x^2] - mean^2) against the two-pass variance, on every train golden point's generated inputs: the
 * cancellation the one pass risks stays far inside CAT_STAT_TOL. */
Test(cat, one_pass_statistics_on_every_train_input, .timeout = 120)
{
    cJSON *doc = golden(), *pt;
    ea_error err;
    int i = 0, channels = 0;
    double worst = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(doc, "points")) {
        cat_scope s;
        const ea_capture *cap;
        cat_inputs in;
        cr_assert_eq(cat_scope_parse(pt, CAT_FILE, i++, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
        if (!s.train) {
            continue;
        }
        cr_assert_eq(cat_inputs_make(&s, cap, &in, &err), 0, "%s", err.msg);
        const double m = (double)(s.n * s.hw);
        for (int k = 0; k < s.k; k++)
            for (int64_t c = 0; c < s.ch[k]; c++, channels++) {
                const uint16_t *x = (const uint16_t *)in.data[s.in_x[k]] + c * s.hw;
                double sum = 0, squares = 0, dev = 0;
                for (int64_t n = 0; n < s.n; n++)
                    for (int64_t p = 0; p < s.hw; p++) {
                        const double v = cat_bf(x[n * s.ch[k] * s.hw + p]);
                        sum += v, squares += v * v;
                    }
                const double mean = sum / m;
                for (int64_t n = 0; n < s.n; n++)
                    for (int64_t p = 0; p < s.hw; p++) {
                        const double v = cat_bf(x[n * s.ch[k] * s.hw + p]);
                        dev += (v - mean) * (v - mean);
                    }
                const double two = dev / m, one = fmax(squares / m - mean * mean, 0.0);
                cr_assert_gt(two, 0, "%s channel %lld: a constant channel", s.alias, (long long)c);
                worst = fmax(worst, fabs(one - two) / two);
            }
        cat_inputs_free(&in);
    }
    cr_log_info("one-pass variance: worst relative error %.3g over %d channels", worst, channels);
    cr_assert_gt(channels, 0);
    cr_assert_leq(worst, 0x1p-40, "worst relative error %.3g; the statistics' tolerance is 2^-16", worst);
    cJSON_Delete(doc);
}

static void expect_error(cJSON *pt, const char *file, const char *needle)
{
    cat_scope s;
    const ea_capture *cap;
    ea_error err = {{0}};
    cr_assert_eq(cat_scope_parse(pt, file, 3, test_golden_captures(), &s, &cap, &err), -1, "expected an error with %s", needle);
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
    cr_assert(strstr(err.msg, file), "message '%s' names the file", err.msg);
}

Test(cat, malformed_points_are_errors)
{
    cJSON *doc = golden();
    int k;
    const cJSON *orig = point_by_alias(doc, "densenet121-infer-7x7-k9", &k);
    cJSON *pt = cJSON_Duplicate(orig, 1), *sig = cJSON_GetObjectItem(pt, "signature");
    cJSON *out = cJSON_GetObjectItem(sig, "output"), *args = cJSON_GetObjectItem(sig, "args");
    cJSON_ReplaceItemInObject(out, "dtype", cJSON_CreateString("i64"));
    expect_error(pt, CAT_FILE, "$.points[3].signature.output.dtype: expected \"bf16\", \"f16\" or \"f32\"");
    /* an f32 output of bf16 inputs: every tensor of the point is of one dtype */
    cJSON_ReplaceItemInObject(out, "dtype", cJSON_CreateString("f32"));
    expect_error(pt, CAT_FILE, "$.points[3].signature.args[0][0].dtype: expected \"f32\" (the output's), got bf16");
    /* an fp16 point against the bf16 capture: its inputs are not the point's */
    cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetArrayItem(args, 0))
        cJSON_ReplaceItemInObject(t, "dtype", cJSON_CreateString("f16"));
    cJSON_ReplaceItemInObject(out, "dtype", cJSON_CreateString("f16"));
    {
        cat_scope s;
        const ea_capture *cap;
        ea_error err = {{0}};
        cr_assert_eq(cat_scope_parse(pt, CAT_FILE, 3, test_golden_captures(), &s, &cap, &err), -1);
        cr_assert(strstr(err.msg, "capture.json $.inputs[0]: expected 4 per-channel f16 parameters of 768 elements"),
                  "%s", err.msg);
    }
    cJSON_ArrayForEach(t, cJSON_GetArrayItem(args, 0))
        cJSON_ReplaceItemInObject(t, "dtype", cJSON_CreateString("bf16"));
    cJSON_ReplaceItemInObject(out, "dtype", cJSON_CreateString("bf16"));
    /* channels-last strides */
    cJSON *in0 = cJSON_GetArrayItem(cJSON_GetArrayItem(args, 0), 0);
    cJSON *saved = cJSON_Duplicate(cJSON_GetObjectItem(in0, "strides"), 1);
    cJSON_ReplaceItemInObject(in0, "strides", cJSON_CreateIntArray((const int[]){25088, 1, 3584, 512}, 4));
    expect_error(pt, CAT_FILE, "$.points[3].signature.args[0][0].strides: expected contiguous NCHW");
    cJSON_ReplaceItemInObject(in0, "strides", saved);
    /* channels that do not add up */
    cJSON *osz = cJSON_GetObjectItem(out, "sizes"), *ost = cJSON_GetObjectItem(out, "strides");
    cJSON_ReplaceItemInArray(osz, 1, cJSON_CreateNumber(780));
    cJSON_ReplaceItemInArray(ost, 0, cJSON_CreateNumber(780 * 49));
    expect_error(pt, CAT_FILE, "$.points[3].signature.args[0]: expected input channels summing to the output's 780, "
                               "got 768");
    cJSON_ReplaceItemInArray(osz, 1, cJSON_CreateNumber(768));
    cJSON_ReplaceItemInArray(ost, 0, cJSON_CreateNumber(768 * 49));
    /* the dim */
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(2));
    expect_error(pt, CAT_FILE, "$.points[3].signature.args[1]: expected the channel dim 1, got 2");
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(1));
    /* no eps in the scope */
    cJSON *nodes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0),
                                                           "scope"), "nodes"), *node;
    cJSON_ArrayForEach(node, nodes)
        if (!strcmp(cJSON_GetObjectItem(node, "op")->valuestring, "aten.add.Tensor") &&
            cJSON_IsNumber(cJSON_GetArrayItem(cJSON_GetObjectItem(node, "args"), 1)))
            cJSON_ReplaceItemInObject(node, "op", cJSON_CreateString("aten.sub.Tensor"));
    expect_error(pt, CAT_FILE, "$.points[3].scopes[0].scope.nodes: expected one aten.add.Tensor of a positive literal "
                               "(the BN eps), found 0");
    cJSON_Delete(pt);
    /* a point whose capture is missing */
    pt = cJSON_Duplicate(orig, 1);
    {
        cat_scope s;
        const ea_capture *cap;
        ea_error err = {{0}};
        const ea_captures empty = {0}; /* a target with no captures */
        /* a shape not captured yet: the scope is whole (it plans), with a capture's roles; err names it */
        cr_assert_eq(cat_scope_parse(pt, CAT_FILE, 3, &empty, &s, &cap, &err), 1, "%s", err.msg);
        cr_assert(strstr(err.msg, "(no target)/captures: expected a capture named cat-c55205584f58-14a28c1ed74f or one covering "),
                  "%s", err.msg);
        cr_assert(s.k == 9 && !s.train && !s.capture[0] && cap == NULL);
        cr_assert(s.in_x[0] == 0 && s.in_x[8] == 8 && s.in_param[CAT_P_MEAN] == 9 && s.in_param[CAT_P_BIAS] == 12);
        cr_assert(s.out[CAT_O_Y] == 0 && s.out[CAT_O_CAT] == -1);
    }
    /* the mode */
    cJSON *occ = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0),
                                                        "occurrences"), 0);
    cJSON_ReplaceItemInObject(occ, "mode", cJSON_CreateString("eval"));
    expect_error(pt, CAT_FILE, ".occurrences[0].mode: expected \"train\" or \"infer\", got eval");
    cJSON_Delete(pt);
    cJSON_Delete(doc);
}

static cJSON *group_nodes(cJSON *pt, int g)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), g), "scope"),
                               "nodes");
}

/* The i-th node of op whose args[1] is a number literal (its eps, Bessel factor, momentum ...). */
static cJSON *literal_node(cJSON *pt, int g, const char *op, int i)
{
    cJSON *node;
    cJSON_ArrayForEach(node, group_nodes(pt, g))
        if (!strcmp(cJSON_GetObjectItem(node, "op")->valuestring, op) &&
            cJSON_IsNumber(cJSON_GetArrayItem(cJSON_GetObjectItem(node, "args"), 1)) && i-- == 0)
            return node;
    cr_assert_fail("no literal %s #%d", op, i);
    return NULL;
}

/* The plan refuses what its 32-bit kernel indexing cannot reach, and an unroll below 1. */
Test(cat, plan_refuses_outside_its_kernels)
{
    cJSON *doc = golden();
    int k;
    cat_scope s;
    const ea_capture *cap;
    cat_plan p;
    ea_error err;
    const cJSON *pt = point_by_alias(doc, "densenet121-infer-7x7-k9", &k);
    cr_assert_eq(cat_scope_parse(pt, CAT_FILE, k, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
    cr_assert_eq(cat_plan_make(&s, 0, &p, &err), -1);
    cr_assert(strstr(err.msg, "expected an unroll >= 1, got 0"), "%s", err.msg);
    s.n = 1 << 20;
    cr_assert_eq(cat_plan_make(&s, 1, &p, &err), -1);
    char want[96];
    snprintf(want, sizeof want, CAT_FILE " $.points[%d]: expected fewer than 2^30 output elements", k);
    cr_assert(strstr(err.msg, want), "%s", err.msg);
    cJSON_Delete(doc);
}

/* The block view reads every point of the document: one it cannot read names the file and the point. */
Test(cat, block_view_refuses_malformed_points)
{
    cJSON *doc = golden();
    ea_error err;
    cJSON *p2 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 2);
    cJSON *sizes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(p2, "signature"), "output"), "sizes");
    cJSON_ReplaceItemInArray(sizes, 0, cJSON_CreateNumber(1e300)); /* no int64: never cast */
    cr_assert_null(cat_view(doc, CAT_FILE, &err));
    cr_assert(strstr(err.msg, CAT_FILE " $.points[2]: expected a 4-d cat output of at most 2^48 elements"), "%s",
              err.msg);
    cJSON_ReplaceItemInArray(sizes, 0, cJSON_CreateNumber(1 << 20)); /* each size fine, the product too large */
    cJSON_ReplaceItemInArray(sizes, 1, cJSON_CreateNumber(1 << 20));
    cJSON_ReplaceItemInArray(sizes, 2, cJSON_CreateNumber(1 << 10));
    cr_assert_null(cat_view(doc, CAT_FILE, &err));
    cr_assert(strstr(err.msg, CAT_FILE " $.points[2]: expected"), "%s", err.msg);
    cJSON_Delete(doc);
}

/* Counts, shapes and scope constants the parse refuses, each naming the file, the path and the expectation. */
Test(cat, malformed_points_shapes_and_groups)
{
    cJSON *doc = golden();
    int k;
    const cJSON *orig = point_by_alias(doc, "densenet121-infer-7x7-k9", &k);
    cJSON *pt = cJSON_Duplicate(orig, 1), *sig = cJSON_GetObjectItem(pt, "signature");
    cJSON *list = cJSON_GetArrayItem(cJSON_GetObjectItem(sig, "args"), 0);
    while (cJSON_GetArraySize(list) > 1) /* one input: no cat */
        cJSON_DeleteItemFromArray(list, 1);
    expect_error(pt, CAT_FILE, "$.points[3].signature.args[0]: expected 2 to 128 cat inputs (CAT_MAX_INPUTS), got 1");
    cJSON_Delete(pt);

    pt = cJSON_Duplicate(orig, 1); /* cat(tensors) without its dim */
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "args"), 1);
    expect_error(pt, CAT_FILE, "$.points[3].signature.args: expected cat(tensors, dim), got 1 arguments");
    cJSON_Delete(pt);

    pt = cJSON_Duplicate(orig, 1); /* sizes whose product would overflow the element counts */
    cJSON *out = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "output");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(out, "sizes"), 0, cJSON_CreateNumber(4e15));
    expect_error(pt, CAT_FILE, "$.points[3].signature.output.sizes: expected at most 2^48 elements");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(out, "sizes"), 0); /* and a 3-d one */
    expect_error(pt, CAT_FILE, "$.points[3].signature.output.sizes: expected a 4-d NCHW tensor, got 3 sizes");
    cJSON_Delete(pt);

    pt = cJSON_Duplicate(orig, 1); /* a group without occurrences */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0), "occurrences",
                              cJSON_CreateArray());
    expect_error(pt, CAT_FILE, "$.points[3].scopes[0].occurrences: expected at least one occurrence");
    cJSON_ReplaceItemInObject(pt, "scopes", cJSON_CreateArray()); /* no groups */
    expect_error(pt, CAT_FILE, "$.points[3].scopes: expected 1 to 8 scope groups, got 0");
    cJSON_Delete(pt);

    pt = cJSON_Duplicate(orig, 1); /* an eps that is no epsilon */
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(literal_node(pt, 0, "aten.add.Tensor", 0), "args"), 1,
                             cJSON_CreateNumber(-1e-5));
    expect_error(pt, CAT_FILE, "$.points[3].scopes[0].scope.nodes: expected one aten.add.Tensor of a positive literal "
                               "(the BN eps), found 1 (the first: -1e-05)");
    cJSON_Delete(pt);

    pt = cJSON_Duplicate(orig, 1); /* a second group with another eps: not the same scope */
    cJSON *groups = cJSON_GetObjectItem(pt, "scopes");
    cJSON_AddItemToArray(groups, cJSON_Duplicate(cJSON_GetArrayItem(groups, 0), 1));
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(literal_node(pt, 1, "aten.add.Tensor", 0), "args"), 1,
                             cJSON_CreateNumber(1e-3));
    expect_error(pt, CAT_FILE,
                 "$.points[3].scopes[1]: expected every scope group of a point to compute the same scope");
    cJSON_Delete(pt);

    /* train: the running variance's Bessel factor must be N*H*W/(N*H*W-1) */
    pt = cJSON_Duplicate(point_by_alias(doc, "densenet121-train-28x28-k9", &k), 1);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(literal_node(pt, 0, "aten.mul.Tensor", 0), "args"), 1,
                             cJSON_CreateNumber(1.5));
    expect_error(pt, CAT_FILE, "$.points[3].scopes[0].scope.nodes: expected the Bessel factor");
    cJSON_DeleteItemFromArray(group_nodes(pt, 0), 0); /* keep the refs as they are: only the mul count matters */
    cJSON *node;
    cJSON_ArrayForEach(node, group_nodes(pt, 0))
        if (!strcmp(cJSON_GetObjectItem(node, "op")->valuestring, "aten.mul.Tensor") &&
            cJSON_IsNumber(cJSON_GetArrayItem(cJSON_GetObjectItem(node, "args"), 1)))
            cJSON_ReplaceItemInObject(node, "op", cJSON_CreateString("aten.div.Tensor"));
    expect_error(pt, CAT_FILE, "expected three aten.mul.Tensor by a literal in a train scope");
    cJSON_Delete(pt);
    cJSON_Delete(doc);
}

/* Inductor's arithmetic as cat_emulate_current writes it is torch's own y, bit for bit, for every infer
 * point and both pooled points: the current path's accuracy is known exactly on the CPU there. (Train
 * statistics are sums in Triton's own order, which the emulation does not follow.) */
Test(cat, emulation_is_torchs_y_for_infer_points, .timeout = 300)
{
    cJSON *doc = golden(), *p;
    ea_error err;
    int i = 0, exact = 0, tried = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        cat_scope s;
        const ea_capture *cap;
        cat_inputs in;
        cr_assert_eq(cat_scope_parse(p, CAT_FILE, i++, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
        if (s.train && !s.pooled) {
            continue;
        }
        cr_assert_eq(cat_inputs_make(&s, cap, &in, &err), 0, "%s", err.msg);
        const ea_capture_tensor *t = &cap->outputs[s.out[CAT_O_Y]];
        uint16_t *y = malloc((size_t)cat_output_bytes(cap, s.out[CAT_O_Y]));
        cat_check_result r;
        cat_emulate_current(&s, &in, &r, y);
        cr_assert(r.mismatched == 0 && r.rel_l2 <= 0x1p-8, "%s: Inductor within tolerance (%g)", s.alias, r.rel_l2);
        exact += ea_checksum(&t->t, y) == t->checksum;
        tried++;
        free(y);
        cat_inputs_free(&in);
    }
    cr_assert(tried == 32 && exact == tried, "%d of %d points bit-exact", exact, tried);
    cJSON_Delete(doc);
}

/* The stream kernel's own block code (stream_block.h) run on the CPU gives torch's y bit for bit on
 * every infer point without pooling (each unroll in turn, all of them on two points), and the emulated
 * Inductor arithmetic on a small shape whose vectors straddle channels (H*W = 9, 4-element vectors). */
Test(cat, stream_kernel_indexing_on_the_cpu, .timeout = 300)
{
    cJSON *doc = golden(), *p;
    ea_error err;
    int i = 0, tried = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        cat_scope s;
        const ea_capture *cap;
        cat_inputs in;
        cr_assert_eq(cat_scope_parse(p, CAT_FILE, i++, test_golden_captures(), &s, &cap, &err), 0, "%s", err.msg);
        if (s.train || s.pooled) {
            continue;
        }
        cr_assert_eq(cat_inputs_make(&s, cap, &in, &err), 0, "%s", err.msg);
        const ea_capture_tensor *t = &cap->outputs[s.out[CAT_O_Y]];
        size_t bytes = (size_t)cat_output_bytes(cap, s.out[CAT_O_Y]);
        uint16_t *y = malloc(bytes);
        int every = !strcmp(s.alias, "densenet121-infer-7x7-k9") || !strcmp(s.alias, "densenet121-infer-14x14-k25");
        for (int u = 0; u < CAT_UNROLLS; u++) {
            if (!every && u != tried % CAT_UNROLLS)
                continue;
            memset(y, 0xFF, bytes);
            cr_assert_eq(cat_stream_emulate(&s, &in, cat_unrolls[u], y, &err), 0, "%s", err.msg);
            cr_assert_eq(ea_checksum(&t->t, y), t->checksum, "%s unroll %d: torch's y", s.alias, cat_unrolls[u]);
        }
        tried++;
        free(y);
        cat_inputs_free(&in);
    }
    cr_assert_eq(tried, 30);
    cJSON_Delete(doc);
    small m;
    small_make(&m, 0, 0, 3);
    cat_plan pl;
    cr_assert_eq(cat_plan_make(&m.s, 1, &pl, &err), 0, "%s", err.msg);
    cr_assert_eq(pl.vec, 4, "36-element inputs: 4-element vectors, some across two channels");
    int64_t total = m.s.n * m.s.c * m.s.hw;
    uint16_t *want = malloc((size_t)total * 2), *got = malloc((size_t)total * 2);
    cat_check_result r;
    cat_emulate_current(&m.s, &m.in, &r, want);
    for (int u = 0; u < CAT_UNROLLS; u++) {
        memset(got, 0xFF, (size_t)total * 2);
        cr_assert_eq(cat_stream_emulate(&m.s, &m.in, cat_unrolls[u], got, &err), 0, "%s", err.msg);
        cr_assert(!memcmp(got, want, (size_t)total * 2), "unroll %d: Inductor's arithmetic, every element", cat_unrolls[u]);
    }
    free(want), free(got);
    small_free(&m);
}
