#include <criterion/criterion.h>
#include <string.h>

#include "helpers.h"
#include "corpus/inventory.h"
#include "corpus/oldrule.h"

#define RULE "golden/old_rule.json"

static ea_old_rule rule(void)
{
    ea_old_rule r;
    ea_error err;
    cr_assert_eq(ea_old_rule_load(RULE, &r, &err), 0, "%s", err.msg);
    return r;
}

static const char *verdict_of(const ea_old_rule *r, const char *line)
{
    char text[2048];
    snprintf(text, sizeof text,
             "class GraphModule(torch.nn.Module):\n"
             "    def forward(self, a: \"f32[2][1]cuda:0\"):\n%s        return (n,)\n",
             line);
    fx_graph g;
    test_parse(text, &g);
    const char *v = ea_old_rule_verdict(r, &g.nodes[test_node(&g, "n")]);
    fx_graph_free(&g);
    return v;
}

Test(oldrule, verdicts)
{
    ea_old_rule r = rule();
    cr_assert_eq(r.cat_cap, 8);
    char cat9[512] = "        n: \"f32[18][1]cuda:0\" = torch.ops.aten.cat.default([a, a, a, a, a, a, a, a, a])\n";
    cr_assert_str_eq(verdict_of(&r, cat9), "cat_over_cap");
    char cat8[512] = "        n: \"f32[16][1]cuda:0\" = torch.ops.aten.cat.default([a, a, a, a, a, a, a, a])\n";
    cr_assert_null(verdict_of(&r, cat8), "8 inputs still lower to a pointwise cat");
    cr_assert_str_eq(verdict_of(&r, "        n: \"f32[2][1]cuda:0\" = torch.ops.aten.cumsum.default(a, 0)\n"), "fallbacks_set");
    cr_assert_str_eq(verdict_of(&r, "        n: \"f32[2, 2][2, 1]cuda:0\" = torch.ops.aten.mm.default(a, a)\n"), "flop_counted");
    cr_assert_null(verdict_of(&r, "        n: \"f32[2][1]cuda:0\" = torch.ops.aten.relu.default(a)\n"));
    ea_old_rule_free(&r);
}

static void bad_rule(const char *text, const char *needle)
{
    const char *dir = test_tmpdir();
    char *path = test_write(dir, "rule.json", text);
    ea_old_rule r;
    ea_error err = {{0}};
    cr_assert_eq(ea_old_rule_load(path, &r, &err), -1);
    cr_assert(strstr(err.msg, "rule.json"), "%s", err.msg);
    cr_assert(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    free(path);
}

Test(oldrule, malformed_rule_files)
{
    const char *head = "{\"schema\": \"extern-audit/old-rule\", \"schema_version\": 1, \"rule\": \"r\", \"recorded_for\": \"t\", "
                       "\"max_pointwise_cat_inputs\": 8, ";
    char text[1024];
    snprintf(text, sizeof text, "%s\"non_fusible\": [{\"op\": \"a\", \"reason\": \"x\"}, {\"op\": \"a\", \"reason\": \"y\"}]}", head);
    bad_rule(text, "$.non_fusible[1].op: expected each op once");
    snprintf(text, sizeof text, "%s\"non_fusible\": [{\"op\": \"a\"}]}", head);
    bad_rule(text, "$.non_fusible[0]");
    snprintf(text, sizeof text, "%s\"non_fusible\": [], \"extra\": 1}", head);
    bad_rule(text, "unknown key 'extra'");
    bad_rule("{\"schema\": \"other\", \"schema_version\": 1, \"rule\": \"r\", \"recorded_for\": \"t\", "
             "\"max_pointwise_cat_inputs\": 8, \"non_fusible\": []}",
             "$.schema: expected \"extern-audit/old-rule\"");
    bad_rule("{\"schema\": ", "invalid JSON");
}

static cJSON *inventory(const char *corpus)
{
    ea_old_rule r = rule();
    ea_corpus c;
    ea_error err;
    cJSON *inv;
    cr_assert_eq(ea_corpus_open(corpus, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_inventory(&c, &r, NULL, &inv, &err), 0, "%s", err.msg);
    ea_corpus_free(&c);
    ea_old_rule_free(&r);
    return inv;
}

static int op_count(const cJSON *inv, const char *op)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(inv, "by_op"))
        if (!strcmp(cJSON_GetObjectItem(e, "op")->valuestring, op))
            return cJSON_GetObjectItem(e, "count")->valueint;
    return 0;
}

Test(inventory, fixture_corpus_agrees_with_meta)
{
    cJSON *inv = inventory(FIXTURE_CORPUS);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(inv, "mismatches")), 0);
    cr_assert_eq(op_count(inv, "aten.convolution.default"), 13);
    cr_assert_eq(op_count(inv, "aten.cat.default"), 3);
    cr_assert_eq(op_count(inv, "aten.index_add.default"), 2);
    cr_assert_eq(cJSON_GetObjectItem(inv, "non_fusible_total")->valueint, 24);
    cr_assert_eq(cJSON_GetObjectItem(inv, "call_functions")->valueint, 112);
    /* most frequent first */
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(inv, "by_op"), 0), "op")->valuestring,
                     "aten.convolution.default");
    cJSON_Delete(inv);
}

Test(inventory, disagreement_with_meta_is_reported)
{
    const char *dir = test_tmpdir();
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.py",
                    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"i64[4][1]cuda:0\"):\n"
                    "        c: \"i64[4][1]cuda:0\" = torch.ops.aten.cumsum.default(x, 0)\n"
                    "        r: \"i64[4][1]cuda:0\" = torch.ops.aten.relu.default(c)\n        return (r,)\n"));
    /* meta says histc, not cumsum, and one call_function too many */
    free(test_write(dir, "repros/models/hf/infer/M/full_graph_000.meta.json",
                    "{\"schema_version\": 2, \"inputs\": [[[4], \"i64\", {\"n\": \"x\"}]], \"outputs\": [], \"tensor_attrs\": {},"
                    " \"graph\": \"full_graph_000.py\", \"source\": {\"kind\": \"model\", \"suite\": \"hf\", \"mode\": \"infer\","
                    " \"model\": \"M\", \"graph\": \"full_graph_000.py\"}, \"node_accounting\": {\"total_call_functions\": 3,"
                    " \"counts\": {\"fusible_in_partition\": 2, \"fusible_unpartitioned\": 0, \"non_fusible\": 1},"
                    " \"ops\": {\"fusible_in_partition\": {\"aten.relu.default\": 2}, \"fusible_unpartitioned\": {},"
                    " \"non_fusible\": {\"aten.histc.default\": 1}}}, \"roundtrip\": \"ok\"}\n"));
    cJSON *inv = inventory(dir);
    const cJSON *m = cJSON_GetObjectItem(inv, "mismatches");
    cr_assert_eq(cJSON_GetArraySize(m), 3);
    char *s = cJSON_PrintUnformatted(m);
    cr_assert(strstr(s, "\"what\":\"call_functions\",\"emulated\":2,\"recorded\":3"), "%s", s);
    cr_assert(strstr(s, "\"what\":\"non_fusible aten.cumsum.default\",\"emulated\":1,\"recorded\":0"), "%s", s);
    cr_assert(strstr(s, "\"what\":\"non_fusible aten.histc.default\",\"emulated\":0,\"recorded\":1"), "%s", s);
    free(s);
    cJSON_Delete(inv);
}
