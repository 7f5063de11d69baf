/* The index_add scope: reading the golden points, ATen's kernel choice, the oracles' plans, bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../repros/index_add/run.h"
#include "../repros/index_add/scope_impl.h"
#include "target/gen.h"
#include "target/gen_impl.h"
#include "helpers.h"
#include "index_add_points.h"

static const cJSON *golden_point(cJSON *doc, const char *alias)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points"))
        if (!strcmp(cJSON_GetObjectItem(p, "point")->valuestring, test_point_id("index_add", alias)))
            return p;
    cr_assert_fail("no golden point %s", alias);
    return NULL;
}

Test(index_add, golden_longformer_a)
{
    cJSON *doc = iap_golden();
    ia_scope s;
    ia_plan p;
    iap_parse_plan(golden_point(doc, "longformer-bf16-9437184"), &s, &p);
    cr_assert_str_eq(s.point, "index_add-398f48d45d2b"); /* its alias is the family's (test_point_id above) */
    cr_assert_eq(s.occurrences, 12);
    cr_assert_eq(s.ngroups, 2);
    cr_assert_eq(s.dim, 0);
    cr_assert(s.self_const && s.fill == 0 && !s.scaled);
    cr_assert_eq(s.idx.kind, IA_INDEX_AS_STRIDED);
    cr_assert_eq(s.idx.hist[1], 3145728);
    cr_assert_eq(s.idx.hist[3], 3145728);
    cr_assert_eq(s.idx.max_multiplicity, 3);
    /* ATen: 1-d self and source, contiguous index: indexFuncLargeIndex<1, 1, -2, true>, 8 blocks per SM */
    cr_assert_str_eq(p.aten.name, "indexFuncLargeIndex<bf16,i64,u32,1,1,-2,true>");
    cr_assert_eq(p.aten.grid, 1056);
    cr_assert_eq(p.aten.block, 128);
    cr_assert_eq(p.aten.inner_size, 1);
    cr_assert_eq(p.aten.total_size, 18874368);
    /* windows: rows r = 256 w + c; (b, r, d) tiles the output densely */
    cr_assert_eq(p.oracle, IA_ORACLE_WINDOWS);
    cr_assert_eq(p.win.nwin, 4);
    cr_assert_eq(p.win.k, 256);
    cr_assert_eq(p.win.csize, 768);
    cr_assert_eq(p.win.nd, 3);
    cr_assert_eq(p.win.r, 1);
    cr_assert_eq(p.win.size[1], 1536);
    cr_assert_eq(p.win.sstride_w, 49152);
    cr_assert_eq(p.win.vec, 8);
    cr_assert_eq(p.floor_bytes, 56623104);
    cr_assert_str_eq(p.note, "");
    cJSON_Delete(doc);
}

Test(index_add, golden_longformer_b_and_xlnet)
{
    cJSON *doc = iap_golden();
    ia_scope s;
    ia_plan p;
    iap_parse_plan(golden_point(doc, "longformer-bf16-6291456"), &s, &p);
    cr_assert_eq(s.ngroups, 4);
    cr_assert_eq(p.oracle, IA_ORACLE_WINDOWS);
    cr_assert(p.win.nwin == 3 && p.win.k == 256 && p.win.csize == 512 && p.win.r == 2);
    cr_assert(p.win.size[0] == 64 && p.win.size[1] == 96 && p.win.size[2] == 1024);
    cr_assert_eq(p.floor_bytes, 31457280);
    iap_parse_plan(golden_point(doc, "xlnet"), &s, &p);
    cr_assert_eq(s.dim, 3);
    cr_assert_eq(s.idx.kind, IA_INDEX_IOTA);
    cr_assert(s.scaled && s.scale == 0.125 && s.scale_escapes, "mul(x, 0.125), used outside the scope");
    cr_assert(!p.fold_scale && p.oracle_scale == 1.0);
    /* self collapses to [131072, 1023] with the indexed dim innermost: not index-major */
    cr_assert_str_eq(p.aten.name, "indexFuncLargeIndex<bf16,i64,u32,2,2,-2,false>");
    cr_assert_eq(p.aten.dst.dims, 2);
    cr_assert_eq(p.aten.dst.sizes[0], 131072);
    cr_assert_eq(p.aten.dst.strides[0], 1023);
    cr_assert_eq(p.aten.inner_size, 512);
    cr_assert_eq(p.aten.grid, 1056);
    cr_assert_eq(p.oracle, IA_ORACLE_SLICE);
    cr_assert(p.slice.rows == 131072 && p.slice.row_out == 1023 && p.slice.row_src == 512 && p.slice.col0 == 0);
    cr_assert_eq(p.slice.vec, 8);
    cr_assert_eq(p.floor_bytes, 402391040);
    cJSON_Delete(doc);
}

Test(index_add, other_configurations_plan_the_same_way)
{
    ia_scope s;
    ia_plan p;
    cJSON *a4 = iap_longformer_a(48, 4, 256, 64), *w128 = iap_longformer_a(96, 8, 128, 64);
    cJSON *x8 = iap_xlnet(8, 16, 512, 512, 0.125, 0);
    iap_parse_plan(a4, &s, &p);
    cr_assert(p.oracle == IA_ORACLE_WINDOWS && p.win.nwin == 4 && p.win.size[2] == 48);
    cr_assert_eq(s.idx.hist[2], 48 * 256 * 2 * 64);
    iap_parse_plan(w128, &s, &p);
    cr_assert(p.oracle == IA_ORACLE_WINDOWS && p.win.nwin == 8 && p.win.k == 128 && p.win.csize == 384);
    iap_parse_plan(x8, &s, &p);
    cr_assert(p.oracle == IA_ORACLE_SLICE && p.slice.rows == 8 * 16 * 512);
    cr_assert(p.fold_scale && p.oracle_scale == 0.125, "a mul used only here is folded into the oracle");
    cr_assert_eq(p.floor_bytes, 2 * (8 * 16 * 512 * 512 + 8 * 16 * 512 * 1023));
    cJSON *placed = iap_slice(1, 2, 8, 13, 10, 3, 0.3, 0);
    iap_parse_plan(placed, &s, &p);
    cr_assert(p.oracle == IA_ORACLE_SLICE && p.slice.col0 == 3 && p.slice.row_src == 10 && p.slice.row_out == 13 &&
                  p.slice.vec == 8,
              "an iota from 3 places the copied columns at 3");
    cJSON_Delete(placed);
    cJSON_Delete(a4);
    cJSON_Delete(w128);
    cJSON_Delete(x8);
}

static ea_tensor contig(ea_dtype dt, int nd, const int64_t *sizes)
{
    ea_tensor t = {.dtype = dt, .ndim = nd};
    int64_t st = 1;
    for (int d = nd - 1; d >= 0; st *= sizes[d], d--) {
        t.sizes[d] = sizes[d];
        t.strides[d] = st;
    }
    return t;
}

Test(index_add, aten_choice_small_major_wide)
{
    ia_aten_plan p;
    ea_error err;
    int64_t self_sz[2] = {64, 300}, src_sz[2] = {10, 300}, idx_sz[1] = {10};
    ea_tensor self = contig(EA_BF16, 2, self_sz), src = contig(EA_BF16, 2, src_sz), idx = contig(EA_I64, 1, idx_sz);
    cr_assert_eq(ia_aten_plan_make(&self, &idx, &src, 0, 132, &p, &err), 0, "%s", err.msg);
    cr_assert(p.small, "10 indices: indexFuncSmallIndex");
    cr_assert_eq(p.grid, 3); /* ceil(300 / 128) */
    cr_assert_eq(p.block, 128);
    idx_sz[0] = src_sz[0] = 40;
    idx = contig(EA_I64, 1, idx_sz);
    src = contig(EA_BF16, 2, src_sz);
    cr_assert_eq(ia_aten_plan_make(&self, &idx, &src, 0, 132, &p, &err), 0, "%s", err.msg);
    cr_assert(!p.small && p.index_major && p.dst_dims == 2, "rows indexed: index-major");
    cr_assert_eq(p.inner_size, 300);
    idx.strides[0] = 2; /* a strided index falls to the generic -1 instance */
    cr_assert_eq(ia_aten_plan_make(&self, &idx, &src, 0, 132, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(p.dst_dims, -1);
    cr_assert_eq(p.idx_dims, -1);
    int64_t big[1] = {INT64_C(3) << 30}, n[1] = {100};
    self = contig(EA_BF16, 1, big);
    idx = contig(EA_I64, 1, n);
    src = contig(EA_BF16, 1, n);
    cr_assert_eq(ia_aten_plan_make(&self, &idx, &src, 0, 132, &p, &err), 0, "%s", err.msg);
    cr_assert(p.wide && !p.small, "more than INT32_MAX elements: 64-bit index math");
    cr_assert_str_eq(p.name, "indexFuncLargeIndex<bf16,i64,u64,-1,-1,-1,true>");
    cr_assert_neq(ia_aten_plan_make(&self, &idx, &src, 0, 0, &p, &err), 0);
}

Test(index_add, fastdiv_matches_division)
{
    const int64_t ds[] = {1, 2, 3, 7, 64, 96, 255, 256, 1023, 1536, 6144, 98304, 131072, 1000003, (INT64_C(1) << 31) - 1};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        ia_fastdiv f = ia_fastdiv_make(ds[i]);
        uint64_t x = 0x9E3779B97F4A7C15ULL;
        for (int k = 0; k < 20000; k++) {
            x = ea_splitmix64(x);
            uint32_t n = k < 100 ? (uint32_t)k : k < 200 ? UINT32_MAX - (uint32_t)(k - 100) : (uint32_t)x;
            cr_assert_eq(ia_fastdiv_div(f, n), n / (uint32_t)ds[i], "%u / %lld", n, (long long)ds[i]);
        }
    }
    cr_assert_eq(ia_fastdiv_make(INT64_C(1) << 31).d, 0, "too large: plain division");
}

Test(index_add, missing_index_properties_fall_back_to_general)
{
    cJSON *doc = iap_golden();
    cJSON *pt = cJSON_Duplicate(golden_point(doc, "longformer-bf16-9437184"), 1);
    cJSON *vps = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "value_properties");
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(vps, 1), "derived");
    ia_scope s;
    ia_plan p;
    iap_parse_plan(pt, &s, &p);
    cr_assert_eq(s.idx.kind, IA_INDEX_UNKNOWN);
    cr_assert_not_null(strstr(s.note, "general oracle"), "note: %s", s.note);
    cr_assert_eq(p.oracle, IA_ORACLE_GENERAL);
    cr_assert(p.general_ok);
    cr_assert_not_null(strstr(p.note, "general oracle only"), "note: %s", p.note);
    cr_assert_null(ia_index_generator(&s, 0), "no faithful index without properties");
    cJSON_Delete(pt);
    cJSON_Delete(doc);
}

static void expect_parse_error(cJSON *pt, const char *needle)
{
    ia_scope s;
    ea_error err;
    cr_assert_neq(ia_scope_parse(pt, IAP_FILE, 0, -1, &s, &err), 0, "parse should fail with %s", needle);
    cr_assert_not_null(strstr(err.msg, needle), "message: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, IAP_FILE " $.points[0]"), "message names file and path: %s", err.msg);
}

Test(index_add, bad_points_are_refused_with_the_path)
{
    cJSON *pt = iap_longformer_a(2, 4, 4, 8), *sig = cJSON_GetObjectItem(pt, "signature");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(sig, "output"), "dtype", cJSON_CreateString("f32"));
    expect_parse_error(pt, "output.dtype: expected \"bf16\"");
    cJSON_Delete(pt);
    pt = iap_longformer_a(2, 4, 4, 8);
    cJSON *d = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"),
                                                                           "value_properties"), 1), "derived");
    cJSON_ReplaceItemInObject(d, "max", cJSON_CreateNumber(1e6));
    expect_parse_error(pt, "out of bounds for dimension 0");
    cJSON_Delete(pt);
    pt = iap_xlnet(1, 1, 2, 8, 0.5, 0);
    cJSON *args = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "args");
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(7));
    expect_parse_error(pt, "expected dim in [0, 4)");
    cJSON_Delete(pt);
}

Test(index_add, a_shape_that_overruns_memory_is_refused)
{
    int64_t size[2] = {1024, 1024}, stride[2] = {1024, 1};
    cJSON *pt = iap_windows_point(INT64_C(1) << 20, 2, size, stride);
    ia_scope s;
    ea_error err;
    cr_assert_eq(ia_scope_parse(pt, IAP_FILE, 0, -1, &s, &err), 0, "%s", err.msg);
    /* out twice (self and result), both indexes, the source */
    cr_assert_eq(ia_scope_device_bytes(&s), (INT64_C(1) << 20) * (2 + 2 + 8 + 8 + 2));
    cr_assert_neq(ia_scope_check_memory(&s, 8000000, "device memory", &err), 0);
    cr_assert_not_null(strstr(err.msg, "refused"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "0.023 GB of device memory, more than the 0.008 GB available"), "%s", err.msg);
    cr_assert_eq(ia_scope_check_memory(&s, INT64_C(1) << 40, "device memory", &err), 0);
    cJSON_Delete(pt);
    /* sizes whose product overflows are refused while reading */
    pt = iap_longformer_a(2, 4, 4, 8);
    cJSON *src = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "args"), 3);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(src, "sizes"), 0, cJSON_CreateNumber(1.0e15));
    expect_parse_error(pt, "fewer than 2^48 elements");
    cJSON_Delete(pt);
}

Test(index_add, structures_without_an_oracle_say_why)
{
    /* two overlapping pairs: no single window fold */
    int64_t size[3] = {4, 4, 8}, stride[3] = {2, 2, 1};
    cJSON *pt = iap_windows_point(20, 3, size, stride);
    ia_scope s;
    ia_plan p;
    iap_parse_plan(pt, &s, &p);
    cr_assert_eq(p.oracle, IA_ORACLE_GENERAL);
    cr_assert_not_null(strstr(p.note, "no single overlapping window pair"), "%s", p.note);
    cJSON_Delete(pt);
}

/* dim is range-checked as read (int64): 2^32 + 3 is not dim 3, though it wraps to 3 as an int. */
Test(index_add, a_huge_dim_does_not_wrap_into_range)
{
    cJSON *pt = iap_xlnet(1, 1, 2, 8, 0.5, 0);
    cJSON *args = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "args");
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(4294967299.0));
    expect_parse_error(pt, "signature.args[1]: expected dim in [0, 4) (or [-4, 0) from the end), got 4294967299");
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(-4294967293.0)); /* -2^32 + 3 */
    expect_parse_error(pt, "got -4294967293");
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(-5));
    expect_parse_error(pt, "got -5");
    ia_scope s;
    ia_plan p;
    cJSON_ReplaceItemInArray(args, 1, cJSON_CreateNumber(-1)); /* from the end: dim 3 */
    iap_parse_plan(pt, &s, &p);
    cr_assert_eq(s.dim, 3);
    cr_assert_eq(p.oracle, IA_ORACLE_SLICE);
    cJSON_Delete(pt);
}

/* The point's first scope group repeated until it has n, each with its own scope id. */
static void with_groups(cJSON *pt, int n)
{
    cJSON *groups = cJSON_GetObjectItem(pt, "scopes");
    for (int g = cJSON_GetArraySize(groups); g < n; g++) {
        cJSON *copy = cJSON_Duplicate(cJSON_GetArrayItem(groups, 0), 1);
        char id[64];
        snprintf(id, sizeof id, "index_add-synthetic00-%012d", g);
        cJSON_ReplaceItemInObject(copy, "scope_id", cJSON_CreateString(id));
        cJSON_AddItemToArray(groups, copy);
    }
}

Test(index_add, more_scope_groups_than_held_are_refused_naming_the_point)
{
    cJSON *pt = iap_longformer_a(2, 4, 4, 8);
    ia_scope s;
    ia_plan p;
    with_groups(pt, IA_MAX_GROUPS);
    iap_parse_plan(pt, &s, &p);
    cr_assert_eq(s.ngroups, IA_MAX_GROUPS);
    cr_assert_str_eq(s.scope_ids[IA_MAX_GROUPS - 1], "index_add-synthetic00-000000000015");
    with_groups(pt, IA_MAX_GROUPS + 1); /* one more is not dropped silently */
    expect_parse_error(pt, "$.points[0].scopes: point index_add-synthetic00 has 17 scope groups, more than the 16");
    cJSON_Delete(pt);
}

/* The slice oracle's launch variants: one table for the run and the plan. */
Test(index_add, slice_variants_listed_in_the_plan)
{
    cr_assert_eq(IA_SLICE_VARIANTS, 10);
    int vec8 = 0, cs = 0, staged = 0, shfl = 0, shfl_unrolls = 0;
    for (int v = 0; v < IA_SLICE_VARIANTS; v++) {
        const ia_slice_variant *x = &ia_slice_variants[v];
        vec8 += !strcmp(x->name, "vec8") && !x->staged && !x->streaming;
        cs += !strcmp(x->name, "vec8-cs") && x->streaming && (x->unroll == 1 || x->unroll == 2);
        staged += !strcmp(x->name, "staged") && x->staged;
        if (!strcmp(x->name, "vec8-shfl") && x->shfl && !x->staged && !x->streaming) {
            shfl++;
            shfl_unrolls |= 1 << x->unroll;
        }
    }
    cr_assert(vec8 == 4 && cs == 2 && staged == 1 && shfl == 3);
    cr_assert_eq(shfl_unrolls, 1 << 1 | 1 << 2 | 1 << 4, "the shuffle kernel at unroll 1, 2 and 4, each once");
    cJSON *doc = iap_golden();
    ia_scope s;
    ia_plan p;
    iap_parse_plan(golden_point(doc, "xlnet"), &s, &p);
    cJSON *cfg = ia_config_json(&s, &p, NULL, NULL), *orc = cJSON_GetObjectItem(cfg, "oracle");
    const cJSON *vs = cJSON_GetObjectItem(orc, "variants");
    cr_assert_eq(cJSON_GetArraySize(vs), IA_SLICE_VARIANTS, "%s", cJSON_PrintUnformatted(orc));
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(vs, 5), "variant")->valuestring, "vec8-cs");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(vs, 5), "unroll")->valueint, 2);
    cr_assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(vs, 6), "unroll"), "the staged kernel has no unroll");
    cr_assert_null(cJSON_GetObjectItem(orc, "unroll_candidates"));
    /* out written once (16 x 16 x 512 x 1023 bf16), the source read once beside it */
    cr_assert_eq(cJSON_GetObjectItem(cfg, "floor_written_bytes")->valuedouble, 268173312.0);
    cr_assert_eq(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble - 268173312.0, 16.0 * 16 * 512 * 512 * 2);
    cJSON_Delete(cfg);
    cJSON_Delete(doc);
}
