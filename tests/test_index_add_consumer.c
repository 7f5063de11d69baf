/* The index_add consumer fold (repros/index_add/consumer.h): which golden scope groups end in a div the scope
 * takes in, what refuses the fold or fails, the reference and oracle arithmetic with it, and the plan that runs the
 * captured consumer kernel. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/index_add/consumer.h"
#include "../repros/index_add/reference_impl.h"
#include "../repros/index_add/run.h"
#include "helpers.h"
#include "measure/baseline.h"
#include "target/gen.h"
#include "target/torch_ops.h"
#include "index_add_points.h"

extern const ea_repro_family ea_family_index_add;

#define LONGFORMER_B "longformer-bf16-6291456"

static cJSON *golden_point(const char *alias, int *index)
{
    cJSON *doc = iap_golden(), *p;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        if (!strcmp(cJSON_GetObjectItem(p, "point")->valuestring, test_point_id("index_add", alias))) {
            cJSON *copy = cJSON_Duplicate(p, 1);
            cJSON_Delete(doc);
            if (index)
                *index = i;
            return copy;
        }
        i++;
    }
    cr_assert_fail("no golden point %s", alias);
    return NULL;
}

static int group_named(const cJSON *pt, const char *tail)
{
    int g = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(pt, "scopes")) {
        const char *id = cJSON_GetObjectItem(s, "scope_id")->valuestring;
        if (strlen(id) >= strlen(tail) && !strcmp(id + strlen(id) - strlen(tail), tail))
            return g;
        g++;
    }
    cr_assert_fail("no scope group %s", tail);
    return -1;
}

static cJSON *nodes_of(cJSON *pt, int g)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), g), "scope"),
                               "nodes");
}

/* The first node of group g whose op is `op` and annotation starts with `ann` (NULL: any). */
static cJSON *node_of(cJSON *pt, int g, const char *op, const char *ann)
{
    cJSON *n;
    cJSON_ArrayForEach(n, nodes_of(pt, g))
        if (!strcmp(cJSON_GetObjectItem(n, "op")->valuestring, op) &&
            (!ann || !strncmp(cJSON_GetObjectItem(n, "ann")->valuestring, ann, strlen(ann))))
            return n;
    cr_assert_fail("no %s node %s", op, ann ? ann : "");
    return NULL;
}

static void parse(const cJSON *pt, int g, ia_scope *s)
{
    ea_error err;
    cr_assert_eq(ia_scope_parse(pt, IAP_FILE, 0, g, s, &err), 0, "%s", err.msg);
}

/* Longformer's 6291456 point: the two groups whose chain ends in div(., 8) take it in (six views that give back
 * the output's own order: [1024, 8, 768] contiguous); the two whose chain ends in sum do not; nor does any group
 * of the other points (a constant_pad_nd copy, XLNet's slice_scatter). */
Test(index_add_consumer, golden_groups_ending_in_a_div_fold_it)
{
    cJSON *pt = golden_point(LONGFORMER_B, NULL);
    const char *with[] = {"25eb7967d6d2", "cbe0d184b798"}, *without[] = {"335f7d6b05cb", "c06b114e6a86"};
    ia_scope s;
    for (int i = 0; i < 2; i++) {
        parse(pt, group_named(pt, with[i]), &s);
        cr_assert(s.consumed && s.consumer_div && s.consumer_by == 8 && s.consumer_scale == 0.125, "%s", with[i]);
        cr_assert_eq(s.consumer_views, 6);
        cr_assert_str_eq(s.consumer_op, "aten.div.Tensor");
        cr_assert(s.final.ndim == 3 && s.final.sizes[0] == 1024 && s.final.sizes[2] == 768 &&
                  ea_tensor_is_contiguous(&s.final));
        ia_plan p;
        ea_error err;
        cr_assert_eq(ia_plan_make(&s, 132, &p, &err), 0, "%s", err.msg);
        cr_assert(p.oracle_scale == 0.125 && p.oracle_fill == 0, "the oracle writes the quotient");
        parse(pt, group_named(pt, without[i]), &s);
        cr_assert(!s.consumed, "%s ends in sum: nothing to fold", without[i]);
    }
    cJSON_Delete(pt);
    const char *others[] = {"longformer-bf16-9437184", "xlnet"};
    for (int i = 0; i < 2; i++) {
        pt = golden_point(others[i], NULL);
        for (int g = 0; g < cJSON_GetArraySize(cJSON_GetObjectItem(pt, "scopes")); g++) {
            parse(pt, g, &s);
            cr_assert(!s.consumed && !strstr(s.note, "consumer"), "%s group %d", others[i], g);
        }
        cJSON_Delete(pt);
    }
}

/* One edit of group 25eb7967d6d2 and what parsing it gives: consumed, or not, or an error naming the node. */
typedef void edit_fn(cJSON *pt, int g);

static void div_by_3(cJSON *pt, int g)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(pt, g, "aten.div.Tensor", NULL), "args"), 1,
                             cJSON_CreateNumber(3));
}

static void mul_by_0_3(cJSON *pt, int g)
{
    cJSON *n = node_of(pt, g, "aten.div.Tensor", NULL);
    cJSON_ReplaceItemInObject(n, "op", cJSON_CreateString("aten.mul.Tensor"));
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(n, "args"), 1, cJSON_CreateNumber(0.3));
}

static void view_escapes(cJSON *pt, int g)
{
    cJSON_AddItemToObject(node_of(pt, g, "aten.reshape.default", "bf16[96, 1024, 64]"), "escapes",
                          cJSON_CreateStringArray((const char *[]){"aten.mm.default"}, 1));
}

static void op_used_twice(cJSON *pt, int g)
{
    cJSON *extra = cJSON_Duplicate(node_of(pt, g, "aten.as_strided.default", "bf16[96, 2, 512, 64]"), 1);
    cJSON_AddItemToArray(nodes_of(pt, g), extra);
}

/* the op's output also inside a list argument (as a cat takes its inputs) */
static void op_in_a_list(cJSON *pt, int g)
{
    cJSON *extra = cJSON_Duplicate(node_of(pt, g, "aten.as_strided.default", "bf16[96, 2, 512, 64]"), 1);
    cJSON *args = cJSON_GetObjectItem(extra, "args");
    cJSON *list = cJSON_CreateArray();
    cJSON_AddItemToArray(list, cJSON_Duplicate(cJSON_GetArrayItem(args, 0), 1));
    cJSON_ReplaceItemInObject(extra, "op", cJSON_CreateString("aten.cat.default"));
    cJSON_ReplaceItemInObject(extra, "args", cJSON_CreateArray());
    cJSON_AddItemToArray(cJSON_GetObjectItem(extra, "args"), list);
    cJSON_AddItemToArray(nodes_of(pt, g), extra);
}

/* strides under which [96, 2, 512, 64] -> [96, 1024, 64] needs a copy: the div no longer reads the output's order */
static void reshape_copies(cJSON *pt, int g)
{
    cJSON *n = node_of(pt, g, "aten.as_strided.default", "bf16[96, 2, 512, 64]");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(n, "args"), 2,
                             cJSON_CreateIntArray((const int[]){64, 6144, 12288, 1}, 4));
    cJSON_ReplaceItemInObject(n, "ann", cJSON_CreateString("bf16[96, 2, 512, 64][64, 6144, 12288, 1]cuda:0"));
}

static void offset_view(cJSON *pt, int g)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(pt, g, "aten.as_strided.default", "bf16[96, 2, 512, 64]"),
                                                 "args"), 3, cJSON_CreateNumber(64));
}

static void permute_short(cJSON *pt, int g)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(pt, g, "aten.permute.default", "bf16[8, 1024, 12, 64]"),
                                                 "args"), 1, cJSON_CreateIntArray((const int[]){0, 2, 1}, 3));
}

static void ann_disagrees(cJSON *pt, int g)
{
    cJSON_ReplaceItemInObject(node_of(pt, g, "aten.reshape.default", "bf16[96, 1024, 64]"), "ann",
                              cJSON_CreateString("bf16[96, 1024, 64][65536, 64, 1]cuda:0"));
}

/* an op the schema annotates with null (var_mean) after the index_add: no fold, no error */
static void var_mean_next(cJSON *pt, int g)
{
    cJSON *n = node_of(pt, g, "aten.as_strided.default", "bf16[96, 2, 512, 64]");
    cJSON_ReplaceItemInObject(n, "op", cJSON_CreateString("aten.var_mean.correction"));
    cJSON_ReplaceItemInObject(n, "ann", cJSON_CreateNull());
}

/* a reshape to sizes the graph gives as symbols */
static void symbolic_reshape(cJSON *pt, int g)
{
    cJSON *sizes = cJSON_GetArrayItem(cJSON_GetObjectItem(node_of(pt, g, "aten.reshape.default", "bf16[96, 1024, 64]"),
                                                          "args"), 1), *sym = cJSON_CreateObject();
    cJSON_AddNumberToObject(sym, "ref", 0);
    cJSON_ReplaceItemInArray(sizes, 0, sym);
}

/* the div reads another tensor; the view reaches it only as a keyword */
static void div_of_another(cJSON *pt, int g)
{
    cJSON *n = node_of(pt, g, "aten.div.Tensor", NULL), *args = cJSON_GetObjectItem(n, "args");
    cJSON *kw = cJSON_AddObjectToObject(n, "kwargs");
    cJSON_AddItemToObject(kw, "other", cJSON_Duplicate(cJSON_GetArrayItem(args, 0), 1));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(args, 0), "ref", cJSON_CreateNumber(0));
}

static void permute_twice_one_dim(cJSON *pt, int g)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(pt, g, "aten.permute.default", "bf16[8, 1024, 12, 64]"),
                                                 "args"), 1, cJSON_CreateIntArray((const int[]){0, 2, 2, 3}, 4));
}

static ia_scope edited(edit_fn *edit, int *rc, ea_error *err)
{
    cJSON *pt = golden_point(LONGFORMER_B, NULL);
    int g = group_named(pt, "25eb7967d6d2");
    edit(pt, g);
    ia_scope s;
    *rc = ia_scope_parse(pt, IAP_FILE, 0, g, &s, err);
    cJSON_Delete(pt);
    return s;
}

Test(index_add_consumer, what_refuses_the_fold_and_what_fails)
{
    ea_error err;
    int rc;
    ia_scope s = edited(div_by_3, &rc, &err);
    cr_assert(rc == 0 && !s.consumed);
    cr_assert(strstr(s.note, "the consumer div by 3 is left out of the scope"), "%s", s.note);
    s = edited(mul_by_0_3, &rc, &err);
    cr_assert(rc == 0 && s.consumed && !s.consumer_div && s.consumer_scale == 0.3, "a mul by any scalar folds");
    edit_fn *refused[] = {view_escapes,  op_used_twice,    op_in_a_list,  reshape_copies,
                          offset_view,   var_mean_next,    symbolic_reshape, div_of_another};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        s = edited(refused[i], &rc, &err);
        cr_assert(rc == 0 && !s.consumed, "edit %zu", i);
    }
    edited(permute_short, &rc, &err);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(err.msg, IAP_FILE " $.points[0].scopes[3].scope.nodes[") &&
                  strstr(err.msg, "].args: expected the arguments aten.permute.default takes"), "%s", err.msg);
    edited(permute_twice_one_dim, &rc, &err);
    cr_assert(rc == -1 && strstr(err.msg, "expected the arguments aten.permute.default takes (sizes, strides, distinct "
                                          "dims in range)"), "%s", err.msg);
    edited(ann_disagrees, &rc, &err);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(err.msg, "].ann: expected the layout aten.reshape.default gives the op's output") &&
                  strstr(err.msg, "got \"bf16[96, 1024, 64][65536, 64, 1]cuda:0\""), "%s", err.msg);
}

/* A small windows point whose output is divided by 4: the reference is the undivided one times 1/4, current's two
 * roundings are ATen's result rounded again after the multiply, and the oracle's one rounding of the quotient is, for
 * a power of two, exactly the undivided oracle's bits times 1/4. */
Test(index_add_consumer, reference_and_emulations_divide)
{
    const int64_t size[3] = {3, 24, 8}, stride[3] = {64, 8, 1}, n_out = 3 * 64 + 8 * 24; /* overlapping windows */
    cJSON *plain = iap_windows_point(n_out, 3, size, stride), *div = cJSON_Duplicate(plain, 1);
    char ann[64];
    snprintf(ann, sizeof ann, "bf16[%lld][1]cuda:0", (long long)n_out);
    cJSON *node = cJSON_CreateObject(), *args = cJSON_AddArrayToObject(node, "args"), *r = cJSON_CreateObject();
    cJSON_AddStringToObject(node, "role", "consumer");
    cJSON_AddStringToObject(node, "op", "aten.div.Tensor");
    cJSON_AddStringToObject(node, "ann", ann);
    cJSON_AddNumberToObject(r, "ref", 0);
    cJSON_AddItemToArray(args, r);
    cJSON_AddItemToArray(args, cJSON_CreateNumber(4));
    cJSON_AddItemToArray(nodes_of(div, 0), node);
    ia_scope s0, s1;
    ia_plan p0, p1;
    iap_parse_plan(plain, &s0, &p0);
    iap_parse_plan(div, &s1, &p1);
    cr_assert(!s0.consumed && s1.consumed && s1.consumer_views == 0 && p1.oracle == IA_ORACLE_WINDOWS);
    ia_inputs in;
    ea_error err;
    double *ref0, *ref1;
    cr_assert_eq(ia_inputs_make(&s1, 0, &in, &err), 0, "%s", err.msg);
    cr_assert(ia_reference(&s0, &p0, &in, in.index, &ref0, &err) == 0 &&
              ia_reference(&s1, &p1, &in, in.index, &ref1, &err) == 0, "%s", err.msg);
    uint16_t c0[1024], c1[1024], o0[1024], o1[1024];
    cr_assert(n_out <= 1024);
    ia_emulate_current(&s0, &in, in.index, c0);
    ia_emulate_current(&s1, &in, in.index, c1);
    cr_assert(ia_emulate_oracle(&s0, &p0, &in, o0) == 0 && ia_emulate_oracle(&s1, &p1, &in, o1) == 0);
    int nonzero = 0;
    for (int64_t i = 0; i < n_out; i++) {
        cr_assert_eq(ref1[i], ref0[i] / 4, "element %lld", (long long)i);
        cr_assert_eq(c1[i], ea_f32_to_bf16(ia_bf16_to_f32(c0[i]) * 0.25f), "element %lld", (long long)i);
        cr_assert_eq(o1[i], ea_f32_to_bf16(ia_bf16_to_f32(o0[i]) / 4), "element %lld", (long long)i);
        nonzero += o1[i] != 0;
    }
    cr_assert_gt(nonzero, n_out / 2, "the check compares real values");
    free(ref0), free(ref1);
    ia_inputs_free(&in);
    cJSON_Delete(plain), cJSON_Delete(div);
}

static const ea_run_opts plan_opts = {.faithful = 1, .sm_count = 132};

/* The committed target's point plans as two configurations of 12 occurrences each: the div groups' current path
 * ends with the captured Inductor kernel (current_tuned with the coordinate-descent run's), the torch-op fidelity is
 * not judged for them. */
Test(index_add_consumer, plan_splits_the_point_and_names_the_captured_kernel)
{
    int i;
    cJSON *pt = golden_point(LONGFORMER_B, &i), *r;
    ea_error err;
    cJSON *arr = test_family_points(&ea_family_index_add, pt, IAP_FILE, i, &plan_opts, 0, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 2);
    int consumed = 0;
    ea_torch_ops ops;
    cr_assert_eq(ea_torch_ops_load_dir("golden/targets/" TEST_TARGET, "H200", &ops, &err), 0, "%s", err.msg);
    cJSON_ArrayForEach(r, arr) {
        const cJSON *cfg = cJSON_GetObjectItem(r, "config"), *cur = cJSON_GetObjectItem(cfg, "current");
        const cJSON *last = cJSON_GetArrayItem(cur, cJSON_GetArraySize(cur) - 1), *ids = cJSON_GetObjectItem(r, "scope_ids");
        cr_assert_eq(cJSON_GetObjectItem(r, "occurrences")->valueint, 12);
        cr_assert_eq(cJSON_GetArraySize(ids), 2);
        cJSON *fid = ea_result_fidelity(r, pt, test_golden_captures(), &ops);
        const char *note = ej_str(cJSON_GetObjectItem(fid, "torch_op"), "note");
        cr_assert_eq(note && !strcmp(note, "fidelity_scope_beyond_op"), cJSON_GetObjectItem(cfg, "consumer") != NULL,
                     "%s", cJSON_PrintUnformatted(fid));
        cJSON_Delete(fid);
        if (!cJSON_GetObjectItem(cfg, "consumer")) {
            cr_assert(strstr(cJSON_GetObjectItem(last, "kernel")->valuestring, "indexFuncLargeIndex"));
            continue;
        }
        consumed++;
        cr_assert(strstr(cJSON_GetArrayItem(ids, 0)->valuestring, "cbe0d184b798") &&
                  strstr(cJSON_GetArrayItem(ids, 1)->valuestring, "25eb7967d6d2"));
        cr_assert_str_eq(cJSON_GetObjectItem(last, "kernel")->valuestring, "triton_poi_fused_as_strided_div_permute_view_3");
        cr_assert_str_eq(cJSON_GetObjectItem(last, "captured")->valuestring,
                         "index_add-31177027c868-cbe0d184b798 $.runs[0].steps[4]");
        cr_assert_eq(cJSON_GetObjectItem(last, "grid")->valueint, 6144);
        const cJSON *tuned = cJSON_GetArrayItem(cJSON_GetObjectItem(cfg, "current_tuned"), 0);
        cr_assert_not_null(tuned, "the capture's coordinate_descent run: the current_tuned path's kernel");
        cr_assert_str_eq(cJSON_GetObjectItem(tuned, "captured")->valuestring,
                         "index_add-31177027c868-cbe0d184b798 $.runs[1].steps[4]");
        cr_assert_eq(cJSON_GetObjectItem(tuned, "grid")->valueint, 3072);
    }
    cr_assert_eq(consumed, 1);
    ea_torch_ops_free(&ops);
    cJSON_Delete(arr);
    cJSON_Delete(pt);
}

/* A golden folder whose one target holds the cbe0d184b798 capture (the consumer configuration's first group),
 * its capture.json edited. */
#define CBE0 "index_add-31177027c868-cbe0d184b798"

static const char *golden_with_capture(void (*edit)(cJSON *cap))
{
    const char *dir = test_tmpdir();
    char cmd[5000], *target = test_target(dir, "H200", "2.11.0+cu130", "9.0"), *text;
    snprintf(cmd, sizeof cmd, "mkdir -p %s/captures && cp -r golden/targets/" TEST_TARGET "/captures/" CBE0
             " %s/captures/", target, target);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    text = test_read("golden/targets/" TEST_TARGET "/captures/" CBE0 "/capture.json");
    cJSON *cap = cJSON_Parse(text);
    free(text);
    edit(cap);
    text = cJSON_Print(cap);
    free(test_write(target, "captures/" CBE0 "/capture.json", text));
    free(target);
    free(text);
    cJSON_Delete(cap);
    return dir;
}

static cJSON *steps(cJSON *cap)
{
    return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 0), "steps");
}

static void consumer_takes_three(cJSON *cap)
{
    cJSON *args = cJSON_GetObjectItem(cJSON_GetArrayItem(steps(cap), 4), "args");
    cJSON_AddItemToArray(args, cJSON_Duplicate(cJSON_GetArrayItem(args, 1), 1));
}

static void consumer_other_numel(cJSON *cap)
{
    cJSON *n = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(steps(cap), 4), "args"), 1);
    cJSON_ReplaceItemInObject(n, "scalar", cJSON_CreateNumber(6291455));
}

/* the full kernel (the same two arguments) where the div's was */
static void consumer_other_kernel(cJSON *cap)
{
    cJSON *st = cJSON_GetArrayItem(steps(cap), 4);
    cJSON_ReplaceItemInObject(st, "function", cJSON_CreateString("triton_poi_fused_full_0"));
    cJSON_ReplaceItemInObject(st, "kernel", cJSON_CreateString("triton_poi_fused_full_0"));
    cJSON_ReplaceItemInObject(st, "cubin", cJSON_CreateString("default.triton_poi_fused_full_0.cubin"));
}

static void other_aten_call(cJSON *cap)
{
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(steps(cap), 3), "call",
                              cJSON_CreateString("torch.ops.aten.index_copy.default"));
}

static void two_aten_steps(cJSON *cap)
{
    cJSON_AddItemToArray(steps(cap), cJSON_Duplicate(cJSON_GetArrayItem(steps(cap), 3), 1));
}

/* the coordinate-descent run (the current_tuned path) without its ATen step: the default run has one */
static void tuned_without_aten(cJSON *cap)
{
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 1);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(run, "steps"), 3);
    cJSON_ReplaceItemInObject(run, "replayable", cJSON_CreateTrue());
}

static void no_aten_step(cJSON *cap) /* as a lowering leaves it: the index_add is Inductor's */
{
    cJSON_DeleteItemFromArray(steps(cap), 3);
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cap, "runs"), 0), "replayable", cJSON_CreateTrue());
}

static cJSON *family_points(void (*edit)(cJSON *), int measure, ea_error *err)
{
    const char *dir = golden_with_capture(edit);
    char file[512];
    int i;
    snprintf(file, sizeof file, "%s/occurrences/index_add.json", dir); /* only its folder matters */
    cJSON *pt = golden_point(LONGFORMER_B, &i);
    const ea_run_opts o = {.faithful = 1, .sm_count = measure ? 0 : 132};
    cJSON *arr = test_family_points(&ea_family_index_add, pt, file, i, &o, measure, err);
    cJSON_Delete(pt);
    return arr;
}

Test(index_add_consumer, malformed_consumer_step_fails_naming_the_capture)
{
    void (*edits[])(cJSON *) = {consumer_takes_three, consumer_other_numel};
    for (int i = 0; i < 2; i++) {
        ea_error err = {{0}};
        cr_assert_null(family_points(edits[i], 0, &err));
        cr_assert(strstr(err.msg, CBE0 "/capture.json $.runs[0].steps[4]: expected the aten.div.Tensor after the "
                                  "index_add: a Triton kernel named for it (\"_div_\") of two arguments, a buffer of the "
                                  "output's 12582912 bytes at offset 0 and the scalar 6291456"), "%s", err.msg);
    }
    struct {
        void (*edit)(cJSON *);
        const char *want;
    } more[] = {
        {consumer_other_kernel, CBE0 "/capture.json $.runs[0].steps[4]: expected the aten.div.Tensor after the index_add: "
                                "a Triton kernel named for it"},
        {other_aten_call, CBE0 "/capture.json $.runs[0].steps[3].call: expected torch.ops.aten.index_add.default, got "
                          "torch.ops.aten.index_copy.default"},
        {two_aten_steps, CBE0 "/capture.json $.runs[0].steps[7]: expected one ATen step (the index_add), got another"},
        {tuned_without_aten, CBE0 "/capture.json $.runs[1].steps: no ATen step"},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        ea_error err = {{0}};
        cr_assert_null(family_points(more[i].edit, 0, &err), "edit %zu", i);
        cr_assert(strstr(err.msg, more[i].want), "wanted \"%s\" in: %s", more[i].want, err.msg);
    }
}

/* A partition without the ATen step (a candidate lowering's) plans, and its run is one unsupported result, decided
 * before any device call, that says why. */
Test(index_add_consumer, partition_without_the_op_is_unsupported)
{
    ea_error err = {{0}};
    cJSON *arr = family_points(no_aten_step, 0, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 2);
    cJSON_Delete(arr);
    arr = family_points(no_aten_step, 1, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    const char *why = ej_str(cJSON_GetArrayItem(arr, 0), "unsupported");
    cr_assert(why && strstr(why, CBE0 "/capture.json $.runs[0].steps: no ATen step: a lowering replaced the "
                                      "index_add"), "%s", cJSON_PrintUnformatted(arr));
    cJSON_Delete(arr);
}

/* A consumer node of the small windows point's op (node 0): op, the node its input is (ref), the ann, one list or
 * number argument. */
static void chain(cJSON *nodes, const char *op, int ref, const char *ann, cJSON *arg)
{
    cJSON *n = cJSON_CreateObject(), *args = cJSON_AddArrayToObject(n, "args"), *r = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "role", "consumer");
    cJSON_AddStringToObject(n, "op", op);
    cJSON_AddStringToObject(n, "ann", ann);
    cJSON_AddNumberToObject(r, "ref", ref);
    cJSON_AddItemToArray(args, r);
    if (arg)
        cJSON_AddItemToArray(args, arg);
    cJSON_AddItemToArray(nodes, n);
}

static cJSON *ints_of(int n, const int *v)
{
    return cJSON_CreateIntArray(v, n);
}

/* Every view the walk follows, as torch lays them out: unsqueeze, view with -1, permutes with a negative dim,
 * unsqueeze at the end, squeeze of a negative dim, _unsafe_view, as_strided without an offset; then div by 2. The
 * same chain with a reshape of the transposed view (a copy in torch) ends without a fold. */
Test(index_add_consumer, every_followed_view_keeps_the_layout_torch_gives)
{
    const int64_t size[3] = {3, 24, 8}, stride[3] = {64, 8, 1}, n_out = 384; /* 3 * 64 + 8 * 24 */
    for (int copy = 0; copy < 2; copy++) {
        cJSON *pt = iap_windows_point(n_out, 3, size, stride), *nodes = nodes_of(pt, 0);
        chain(nodes, "aten.unsqueeze.default", 0, "bf16[1, 384][384, 1]cuda:0", cJSON_CreateNumber(0));
        chain(nodes, "aten.view.default", 1, "bf16[48, 8][8, 1]cuda:0", ints_of(2, (const int[]){-1, 8}));
        chain(nodes, "aten.permute.default", 2, "bf16[8, 48][1, 8]cuda:0", ints_of(2, (const int[]){-1, 0}));
        if (copy) {
            chain(nodes, "aten.reshape.default", 3, "bf16[384][1]cuda:0", ints_of(1, (const int[]){384}));
            chain(nodes, "aten.div.Tensor", 4, "bf16[384][1]cuda:0", cJSON_CreateNumber(2));
        } else {
            chain(nodes, "aten.permute.default", 3, "bf16[48, 8][8, 1]cuda:0", ints_of(2, (const int[]){1, 0}));
            chain(nodes, "aten.unsqueeze.default", 4, "bf16[48, 8, 1][8, 1, 1]cuda:0", cJSON_CreateNumber(2));
            chain(nodes, "aten.squeeze.dim", 5, "bf16[48, 8][8, 1]cuda:0", cJSON_CreateNumber(-1));
            chain(nodes, "aten._unsafe_view.default", 6, "bf16[384][1]cuda:0", ints_of(1, (const int[]){384}));
            chain(nodes, "aten.as_strided.default", 7, "bf16[384][1]cuda:0", ints_of(1, (const int[]){384}));
            cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 8), "args"), ints_of(1, (const int[]){1}));
            chain(nodes, "aten.div.Tensor", 8, "bf16[384][1]cuda:0", cJSON_CreateNumber(2));
        }
        ia_scope s;
        parse(pt, 0, &s);
        if (copy)
            cr_assert(!s.consumed, "the transposed view reshaped is a copy: the div reads another order");
        else
            cr_assert(s.consumed && s.consumer_views == 8 && s.consumer_scale == 0.5, "views %d", s.consumer_views);
        cJSON_Delete(pt);
    }
}
