#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "corpus/scope.h"

static fx_graph load(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, FIXTURE_CORPUS "/repros/models/%s", rel);
    fx_graph g;
    ea_error err;
    cr_assert_eq(fx_graph_parse_file(path, &g, &err), 0, "%s", err.msg);
    return g;
}

/* "role:op" of every entry, ops shortened to their middle name ("aten.ne.Scalar" -> "ne"). */
static void roles(const cJSON *scope, char *buf, size_t n)
{
    const cJSON *e;
    buf[0] = '\0';
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(scope, "nodes"))
    {
        const char *op = cJSON_GetObjectItem(e, "op")->valuestring;
        const char *dot = strchr(op, '.');
        char shortop[64];
        if (dot && strchr(dot + 1, '.'))
            snprintf(shortop, sizeof shortop, "%.*s", (int)(strchr(dot + 1, '.') - dot - 1), dot + 1);
        else
            snprintf(shortop, sizeof shortop, "%s", op);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%c:%s", len ? " " : "", cJSON_GetObjectItem(e, "role")->valuestring[0], shortop);
    }
}

static int has_string(const cJSON *arr, const char *s)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
        if (strcmp(it->valuestring, s) == 0)
            return 1;
    return 0;
}

Test(scope, position_ids_cumsum_stops_at_embedding)
{
    fx_graph g = load("hf/train/TinyLongformer/full_graph_000.py");
    cJSON *s = ea_scope(&g, test_node(&g, "cumsum"));
    char r[1024];
    roles(s, r, sizeof r);
    cr_assert_str_eq(r, "i:input p:ne p:convert_element_type o:cumsum c:convert_element_type c:mul c:add");
    cr_assert(has_string(cJSON_GetObjectItem(s, "boundary_consumers"), "aten.embedding.default"));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(s, "truncated")));
    /* args reference entries by position: mul(convert_element_type_1, convert_element_type) */
    const cJSON *mul = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "nodes"), 5);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(mul, "args"), 0), "ref")->valueint, 4);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(mul, "args"), 1), "ref")->valueint, 2);
    cJSON_Delete(s);
    fx_graph_free(&g);
}

Test(scope, routing_chain_absorbs_sort_and_histc)
{
    fx_graph g = load("hf/infer/tiny/moe/full_graph_000.py");
    char r[1024];
    cJSON *s = ea_scope(&g, test_node(&g, "cumsum"));
    roles(s, r, sizeof r);
    cr_assert_str_eq(r, "i:topk p:_operator.getitem p:reshape p:sort p:_operator.getitem p:convert_element_type p:histc o:cumsum");
    cr_assert(has_string(cJSON_GetObjectItem(s, "boundary_consumers"), "aten._grouped_mm.default"));
    /* the sort's permutation and the sorted ids are used outside the scope too */
    const cJSON *sort = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "nodes"), 3);
    cr_assert(has_string(cJSON_GetObjectItem(sort, "escapes"), "_operator.getitem"));
    const cJSON *ids = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "nodes"), 4);
    cr_assert(has_string(cJSON_GetObjectItem(ids, "escapes"), "graph_output"));
    char *a = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    /* histc sees the same scope from its side */
    s = ea_scope(&g, test_node(&g, "histc"));
    roles(s, r, sizeof r);
    cr_assert_str_eq(r, "i:topk p:_operator.getitem p:reshape p:sort p:_operator.getitem p:convert_element_type o:histc c:cumsum");
    free(a);
    cJSON_Delete(s);
    fx_graph_free(&g);
}

Test(scope, cat_keeps_its_bn_relu_consumer_and_side_inputs)
{
    fx_graph g = load("torchbench/infer/tinydense/full_graph_000.py");
    cJSON *s = ea_scope(&g, test_node(&g, "cat"));
    char r[2048];
    roles(s, r, sizeof r);
    const char *want = "i:input i:input i:convolution i:convolution i:convolution i:convolution i:convolution "
                       "i:convolution i:convolution i:convolution i:convolution i:convolution o:cat "
                       /* the BN scale/shift chains are side producers of the fused consumer */
                       "p:convert_element_type p:unsqueeze p:unsqueeze c:sub p:convert_element_type p:add p:sqrt "
                       "p:reciprocal p:mul p:unsqueeze p:unsqueeze c:mul c:relu c:convert_element_type";
    cr_assert_str_eq(r, want);
    cr_assert(has_string(cJSON_GetObjectItem(s, "boundary_consumers"), "aten.convolution.default"));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(s, "truncated")));
    cJSON_Delete(s);
    fx_graph_free(&g);
}

Test(scope, long_pointwise_chain_is_truncated_not_unbounded)
{
    char text[16384] = "class GraphModule(torch.nn.Module):\n"
                       "    def forward(self, x: \"i64[4][1]cuda:0\"):\n"
                       "        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n";
    char prev[32] = "c";
    for (int i = 0; i < 40; i++) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n, "        a%d: \"i64[4][1]cuda:0\" = torch.ops.aten.add.Tensor(%s, 1)\n", i, prev);
        snprintf(prev, sizeof prev, "a%d", i);
    }
    size_t n = strlen(text);
    snprintf(text + n, sizeof text - n, "        return (%s,)\n", prev);
    fx_graph g;
    test_parse(text, &g);
    cJSON *s = ea_scope(&g, test_node(&g, "c"));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(s, "truncated")));
    cr_assert_lt(cJSON_GetArraySize(cJSON_GetObjectItem(s, "nodes")), 40);
    cJSON_Delete(s);
    fx_graph_free(&g);
}
