#include <criterion/criterion.h>
#include <string.h>

#include "helpers.h"
#include "corpus/values.h"
#include "corpus/values_impl.h"

/* Longformer A's window structure scaled down: windows of 12 positions every 4, so interior
 * positions are read by 1, 2 or 3 windows, as in the real as_strided [96,4,768,64]. */
Test(values, overlapping_windows_multiplicity)
{
    int64_t size[] = {2, 4, 6, 2}, stride[] = {24, 4, 2, 1};
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(48, 0, 1, 4, size, stride, 0, "t", &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.numel, 96);
    cr_assert_eq(st.hist[0], 0, "every slot covered");
    cr_assert_eq(st.hist[1], 16);
    cr_assert_eq(st.hist[2], 16);
    cr_assert_eq(st.hist[3], 16);
    cr_assert_eq(st.max_multiplicity, 3);
    cr_assert_eq(st.distinct, 48);
    cr_assert_eq(st.min, 0);
    cr_assert_eq(st.max, 47);
    cr_assert_eq(st.sorted, 0);
}

/* Longformer B's structure scaled: heads interleaved in the last dim, half-overlapping chunks. */
Test(values, half_overlapping_chunks_at_most_two)
{
    int64_t size[] = {3, 3, 4, 2}, stride[] = {2, 12, 6, 1};
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(48, 0, 1, 4, size, stride, 0, "t", &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.numel, 72);
    cr_assert_eq(st.hist[0], 0);
    cr_assert_eq(st.hist[1], 24);
    cr_assert_eq(st.hist[2], 24);
    cr_assert_eq(st.max_multiplicity, 2);
}

Test(values, contiguous_view_is_sorted_and_unique)
{
    int64_t size[] = {3, 4}, stride[] = {4, 1};
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(20, 5, 2, 2, size, stride, 3, "t", &st, &err), 0);
    cr_assert_eq(st.sorted, 1);
    cr_assert_eq(st.distinct, 12);
    cr_assert_eq(st.hist[0], 8);
    cr_assert_eq(st.min, 5 + 2 * 3);
    cr_assert_eq(st.max, 5 + 2 * 14);
}

Test(values, descending_iota_and_zero_stride)
{
    int64_t size[] = {4}, stride[] = {1}, bsize[] = {100}, bstride[] = {0};
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(4, 10, -1, 1, size, stride, 0, "t", &st, &err), 0);
    cr_assert_eq(st.sorted, 0, "values fall while positions rise");
    cr_assert_eq(st.min, 7);
    cr_assert_eq(st.max, 10);
    cr_assert_eq(ea_as_strided_iota_stats(4, 0, 1, 1, bsize, bstride, 2, "t", &st, &err), 0);
    cr_assert_eq(st.max_multiplicity, 100);
    cr_assert_eq(st.hist[EA_MULT_BUCKETS - 1], 1, "100 reads land in the last bucket");
    cr_assert_eq(st.hist[0], 3);
    /* falling positions of a descending iota give rising values */
    int64_t rev[] = {-1};
    cr_assert_eq(ea_as_strided_iota_stats(4, 10, -1, 1, size, rev, 3, "t", &st, &err), 0);
    cr_assert_eq(st.sorted, 1);
}

Test(values, empty_view)
{
    int64_t size[] = {0, 5}, stride[] = {5, 1};
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(10, 0, 1, 2, size, stride, 0, "t", &st, &err), 0);
    cr_assert_eq(st.numel, 0);
    cr_assert_eq(st.hist[0], 10);
}

Test(values, overrun_is_refused_with_location)
{
    int64_t size[] = {2, 4, 6, 2}, stride[] = {24, 4, 2, 1};
    ea_index_stats st;
    ea_error err = {{0}};
    cr_assert_eq(ea_as_strided_iota_stats(47, 0, 1, 4, size, stride, 0, "g.py:9", &st, &err), -1);
    cr_assert(strstr(err.msg, "g.py:9: stride overruns storage"), "%s", err.msg);
    cr_assert(strstr(err.msg, "storage has 47"), "%s", err.msg);
    int64_t neg[] = {24, -4, 2, 1};
    cr_assert_eq(ea_as_strided_iota_stats(48, 0, 1, 4, size, neg, 0, "g.py:9", &st, &err), -1);
    int64_t bad[] = {-1};
    cr_assert_eq(ea_as_strided_iota_stats(48, 0, 1, 1, bad, stride, 0, "g.py:9", &st, &err), -1);
    cr_assert(strstr(err.msg, "sizes >= 0"), "%s", err.msg);
}

static const char graph[] =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, ids: \"i64[2, 8][8, 1]cuda:0\", logits: \"bf16[6, 8][8, 1]cuda:0\"):\n"
    "        ne: \"b8[2, 8][8, 1]cuda:0\" = torch.ops.aten.ne.Scalar(ids, 1)\n"
    "        full: \"bf16[48][1]cuda:0\" = torch.ops.aten.full.default([48], 0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n"
    "        iota: \"i64[48][1]cuda:0\" = torch.ops.prims.iota.default(48, start = 0, step = 1, dtype = torch.int64, device = device(type='cuda', index=0), requires_grad = False)\n"
    "        as_strided: \"i64[2, 4, 6, 2][24, 4, 2, 1]cuda:0\" = torch.ops.aten.as_strided.default(iota, [2, 4, 6, 2], [24, 4, 2, 1], 0)\n"
    "        clone: \"i64[2, 4, 6, 2][48, 12, 2, 1]cuda:0\" = torch.ops.aten.clone.default(as_strided, memory_format = torch.contiguous_format)\n"
    "        view: \"i64[96][1]cuda:0\" = torch.ops.aten.reshape.default(clone, [96])\n"
    "        bad: \"i64[2, 4, 6, 2][24, 4, 2, 1]cuda:0\" = torch.ops.aten.as_strided.default(iota, [2, 4, 6, 2], [24, 4, 2, 2], 0)\n"
    "        topk = torch.ops.aten.topk.default(logits, 2)\n"
    "        getitem_1: \"i64[6, 2][2, 1]cuda:0\" = topk[1]\n"
    "        reshape: \"i64[12][1]cuda:0\" = torch.ops.aten.reshape.default(getitem_1, [-1])\n"
    "        sort = torch.ops.aten.sort.default(reshape)\n"
    "        ids_sorted: \"i64[12][1]cuda:0\" = sort[0]\n"
    "        as_i32: \"i32[12][1]cuda:0\" = torch.ops.prims.convert_element_type.default(ids_sorted, torch.int32)\n"
    "        histc: \"i32[8][1]cuda:0\" = torch.ops.aten.histc.default(as_i32, 8, 0, 7)\n"
    "        emb: \"bf16[2, 8][8, 1]cuda:0\" = torch.ops.aten.mul.Tensor(full, 2.0)\n"
    "        return (ne, view, bad, histc, emb)\n";

static cJSON *derived_of(const fx_graph *g, const char *name)
{
    ea_error err;
    cJSON *vp = ea_value_props(g, test_node(g, name), NULL, &err);
    cr_assert_not_null(vp, "%s", err.msg);
    return vp;
}

static const char *kind(const cJSON *vp)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(vp, "derived"), "kind")->valuestring;
}

Test(values, derives_index_structure_from_the_graph)
{
    fx_graph g;
    test_parse(graph, &g);
    cJSON *vp = derived_of(&g, "view");
    cr_assert_str_eq(kind(vp), "as_strided_iota");
    const cJSON *d = cJSON_GetObjectItem(vp, "derived");
    const cJSON *h = cJSON_GetObjectItem(d, "multiplicity_histogram");
    cr_assert_eq(cJSON_GetObjectItem(h, "3")->valueint, 16);
    cr_assert_null(cJSON_GetObjectItem(h, "0"), "no uncovered bucket when everything is read");
    cr_assert_eq(cJSON_GetObjectItem(d, "numel")->valueint, 96);
    /* the expression keeps the walk: reshape <- clone <- as_strided <- iota */
    const cJSON *e = cJSON_GetObjectItem(vp, "expr");
    cr_assert_str_eq(cJSON_GetObjectItem(e, "op")->valuestring, "aten.reshape.default");
    cJSON_Delete(vp);

    vp = derived_of(&g, "ne");
    cr_assert_str_eq(kind(vp), "mask");
    d = cJSON_GetObjectItem(vp, "derived");
    cr_assert_str_eq(cJSON_GetObjectItem(d, "predicate")->valuestring, "ne");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "of"), "kind")->valuestring, "graph_input");
    cJSON_Delete(vp);

    vp = derived_of(&g, "histc");
    cr_assert_str_eq(kind(vp), "histogram");
    d = cJSON_GetObjectItem(cJSON_GetObjectItem(vp, "derived"), "of");
    cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "sorted_topk_ids");
    cr_assert_eq(cJSON_GetObjectItem(d, "k")->valueint, 2);
    cr_assert_eq(cJSON_GetObjectItem(d, "experts")->valueint, 8);
    cr_assert_eq(cJSON_GetObjectItem(d, "tokens")->valueint, 6);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "sorted")));
    cJSON_Delete(vp);

    /* floating data: only its constant matters */
    vp = derived_of(&g, "full");
    cr_assert_str_eq(kind(vp), "constant");
    cr_assert_null(cJSON_GetObjectItem(vp, "expr"));
    cJSON_Delete(vp);
    vp = derived_of(&g, "emb");
    cr_assert_str_eq(cJSON_GetObjectItem(vp, "kind")->valuestring, "float_data");
    cJSON_Delete(vp);
    fx_graph_free(&g);
}

Test(values, overrunning_view_in_a_graph_names_the_line)
{
    fx_graph g;
    test_parse(graph, &g);
    ea_error err = {{0}};
    cr_assert_null(ea_value_props(&g, test_node(&g, "bad"), NULL, &err));
    cr_assert(strstr(err.msg, "inline.py:9: stride overruns storage"), "%s", err.msg);
    fx_graph_free(&g);
}

Test(values, literal_encoding)
{
    fx_graph g;
    test_parse("class GraphModule(torch.nn.Module):\n"
               "    def forward(self, x: \"f32[2][1]cuda:0\"):\n"
               "        y: \"f32[2][1]cuda:0\" = torch.ops.aten.clamp_min.default(x, -inf)\n"
               "        z: \"i32[2][1]cuda:0\" = torch.ops.prims.convert_element_type.default(y, torch.int32)\n"
               "        w: \"f32[2][1]cuda:0\" = torch.ops.aten.full.default([2], nan, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n"
               "        return (z, w)\n",
               &g);
    const fx_node *y = &g.nodes[test_node(&g, "y")], *w = &g.nodes[test_node(&g, "w")];
    cJSON *v = ea_arg_json(&y->args[1], NULL, NULL);
    char *s = cJSON_PrintUnformatted(v);
    cr_assert_str_eq(s, "\"-inf\"");
    free(s);
    cJSON_Delete(v);
    cJSON *all = cJSON_CreateArray();
    for (int i = 0; i < w->nargs; i++)
        cJSON_AddItemToArray(all, ea_arg_json(&w->args[i], NULL, NULL));
    s = cJSON_PrintUnformatted(all);
    cr_assert_str_eq(s, "[[2],\"nan\",{\"dtype\":\"f32\"},{\"enum\":\"torch.strided\"},{\"device\":\"cuda:0\"},false]");
    free(s);
    cJSON_Delete(all);
    fx_graph_free(&g);
}
