/* test_fxgraph.c: the graph-dump reader on small synthetic dumps and on the real corpus. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus/fxgraph.h"
#include "corpus/fxgraph_impl.h"

#define FIXTURES "tests/fixtures/"

static fx_graph parse_file_ok(const char *path)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_file(path, &g, &err), 0, "%s", err.msg);
    return g;
}

static fx_graph parse_text_ok(const char *text)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_text("t.py", text, strlen(text), &g, &err), 0, "%s", err.msg);
    return g;
}

static const fx_node *node(const fx_graph *g, const char *name)
{
    int i = fx_graph_find(g, name);
    cr_assert_geq(i, 0, "no node %s", name);
    return &g->nodes[i];
}

static void assert_users(const fx_graph *g, const char *name, int n, const int *want)
{
    const fx_node *x = node(g, name);
    cr_assert_eq(x->nusers, n, "%s has %d users", name, x->nusers);
    for (int i = 0; i < n; i++)
        cr_assert_eq(x->users[i], want[i], "%s user %d", name, i);
}

static void assert_arg(const fx_arg *a, fx_arg_kind kind, const char *key)
{
    cr_assert_not_null(a);
    cr_assert_eq(a->kind, kind);
    if (key)
        cr_assert_str_eq(a->key, key);
    else
        cr_assert_null(a->key);
}

static void assert_node_arg(const fx_arg *a, int node)
{
    assert_arg(a, ARG_NODE, NULL);
    cr_assert_eq(a->node, node);
}

static void assert_int_arg(const fx_arg *a, const char *key, int64_t v)
{
    assert_arg(a, ARG_INT, key);
    cr_assert_eq(a->i, v);
}

/* ---- small_graph.py: every line form, checked value by value ---- */

enum { ARG0, ARG1, ARG2, ARG3, SORT, GETITEM, GETITEM_1, MUL, FLOORDIV, CONST0, IOTA, DIV, CAT, FULL,
       CLAMP, WHERE, CLONE, INDEX, ADD, SUB, SMALL_NODES };

Test(fx_small_graph, nodes_in_order_with_lines)
{
    static const char *const names[SMALL_NODES] = {
        "arg0_1", "arg1_1", "arg2_1", "arg3_1", "sort",  "getitem", "getitem_1",
        "mul",    "floordiv", "_tensor_constant0", "iota", "div", "cat", "full",
        "clamp",  "where", "clone", "index", "add", "sub",
    };
    static const int lines[SMALL_NODES] = {2, 2, 2, 2, 4, 5, 6, 9, 10, 11, 12, 14, 15, 16, 17, 18,
                                           19, 20, 22, 23};
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    cr_assert_str_eq(g.path, FIXTURES "small_graph.py");
    cr_assert_eq(g.nnodes, SMALL_NODES);
    for (int i = 0; i < SMALL_NODES; i++) {
        cr_assert_str_eq(g.nodes[i].name, names[i]);
        cr_assert_eq(g.nodes[i].line, lines[i], "%s", names[i]);
        cr_assert_eq(fx_graph_find(&g, names[i]), i);
        cr_assert_eq(g.nodes[i].kind, i < SORT ? FX_PLACEHOLDER : i == CONST0 ? FX_GET_ATTR : FX_CALL);
    }
    cr_assert_eq(fx_graph_find(&g, "nope"), -1);
    cr_assert_eq(fx_graph_find(&g, "getitem_"), -1);
    fx_graph_free(&g);
    cr_assert_null(g.nodes);
}

Test(fx_small_graph, placeholder_annotations)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    const fx_node *a0 = &g.nodes[ARG0], *a1 = &g.nodes[ARG1], *a3 = &g.nodes[ARG3];
    cr_assert_null(a0->target);
    cr_assert_eq(a0->nargs, 0);
    cr_assert(a0->has_ann && a0->ann_is_tensor);
    cr_assert_str_eq(a0->ann_text, "f32[4, 8][8, 1]cuda:0");
    cr_assert_eq(a0->ann.dtype, EA_F32);
    cr_assert_eq(a0->ann.ndim, 2);
    cr_assert_eq(a0->ann.sizes[0], 4);
    cr_assert_eq(a0->ann.sizes[1], 8);
    cr_assert_eq(a0->ann.strides[0], 8);
    cr_assert_eq(a0->ann.strides[1], 1);
    cr_assert(a1->has_ann);
    cr_assert_not(a1->ann_is_tensor);
    cr_assert_str_eq(a1->ann_text, "Sym(s16)");
    static const int64_t sizes[] = {2, -1, -1}, strides[] = {-1, -1, 1};
    cr_assert_eq(a3->ann.dtype, EA_BF16);
    cr_assert_eq(a3->ann.symbolic, 1);
    cr_assert_arr_eq(a3->ann.sizes, sizes, sizeof sizes);
    cr_assert_arr_eq(a3->ann.strides, strides, sizeof strides);
    cr_assert_eq(a0->source, -1);
    fx_graph_free(&g);
}

Test(fx_small_graph, tuple_ops_getitem_and_symbolic_arithmetic)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    const fx_node *n = &g.nodes[SORT];
    cr_assert_str_eq(n->target, "aten.sort.default");
    cr_assert(fx_node_is(n, "aten.sort.default"));
    cr_assert_not(fx_node_is(n, "aten.sort"));
    cr_assert_not(n->has_ann);
    cr_assert_null(n->ann_text);
    cr_assert_eq(n->nargs, 3);
    assert_node_arg(fx_node_arg(n, 0), ARG0);
    assert_int_arg(fx_node_arg(n, 1), NULL, -1);
    assert_arg(fx_node_arg(n, 2), ARG_BOOL, NULL);
    cr_assert_eq(fx_node_arg(n, 2)->i, 1);
    cr_assert_null(fx_node_arg(n, 3));
    cr_assert_null(fx_node_arg(n, -1));

    n = &g.nodes[GETITEM_1];
    cr_assert_str_eq(n->target, "_operator.getitem");
    cr_assert_eq(n->nargs, 2);
    assert_node_arg(fx_node_arg(n, 0), SORT);
    assert_int_arg(fx_node_arg(n, 1), NULL, 1);
    cr_assert_eq(n->ann.dtype, EA_I64);

    static const struct {
        int node;
        const char *target, *ann;
        int rhs_node;
        int64_t rhs_int;
    } sym[] = {
        {MUL, "_operator.mul", "Sym(s16*s82)", ARG2, 0},
        {FLOORDIV, "_operator.floordiv", "Sym((s16//2))", -1, 2},
        {ADD, "_operator.add", "Sym(s16 + 1)", -1, 1},
        {SUB, "_operator.sub", "Sym(s16 - s82)", ARG2, 0},
    };
    for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
        n = &g.nodes[sym[i].node];
        cr_assert_str_eq(n->target, sym[i].target);
        cr_assert_str_eq(n->ann_text, sym[i].ann);
        cr_assert_not(n->ann_is_tensor);
        cr_assert_eq(n->nargs, 2);
        assert_node_arg(fx_node_arg(n, 0), ARG1);
        if (sym[i].rhs_node >= 0)
            assert_node_arg(fx_node_arg(n, 1), sym[i].rhs_node);
        else
            assert_int_arg(fx_node_arg(n, 1), NULL, sym[i].rhs_int);
    }
    fx_graph_free(&g);
}

Test(fx_small_graph, get_attr)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    const fx_node *n = &g.nodes[CONST0];
    cr_assert_eq(n->kind, FX_GET_ATTR);
    cr_assert_str_eq(n->target, "_tensor_constant0");
    cr_assert_eq(n->nargs, 0);
    cr_assert_null(n->args);
    cr_assert_eq(n->ann.dtype, EA_I64);
    cr_assert_eq(n->ann.ndim, 0);
    cr_assert_str_eq(n->ann.device, "cpu");
    fx_graph_free(&g);
}

Test(fx_small_graph, keyword_arguments_and_literals)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    const fx_node *n = &g.nodes[IOTA];
    cr_assert_str_eq(n->target, "prims.iota.default");
    cr_assert_eq(n->nargs, 6);
    assert_int_arg(fx_node_arg(n, 0), NULL, 8);
    cr_assert_null(fx_node_arg(n, 1), "keywords are not positional");
    assert_int_arg(fx_node_kwarg(n, "start"), "start", 0);
    assert_int_arg(fx_node_kwarg(n, "step"), "step", 1);
    assert_arg(fx_node_kwarg(n, "dtype"), ARG_DTYPE, "dtype");
    cr_assert_eq(fx_node_kwarg(n, "dtype")->dtype, EA_I64);
    assert_arg(fx_node_kwarg(n, "device"), ARG_DEVICE, "device");
    cr_assert_str_eq(fx_node_kwarg(n, "device")->s, "cuda:0");
    assert_arg(fx_node_kwarg(n, "requires_grad"), ARG_BOOL, "requires_grad");
    cr_assert_eq(fx_node_kwarg(n, "requires_grad")->i, 0);
    cr_assert_null(fx_node_kwarg(n, "layout"));
    cr_assert_str_eq(n->args[5].key, "requires_grad", "keywords keep source order");

    n = &g.nodes[DIV];
    cr_assert_str_eq(n->target, "aten.div.Tensor_mode");
    assert_node_arg(fx_node_arg(n, 0), GETITEM_1);
    assert_int_arg(fx_node_arg(n, 1), NULL, 4);
    assert_arg(fx_node_kwarg(n, "rounding_mode"), ARG_STR, "rounding_mode");
    cr_assert_str_eq(fx_node_kwarg(n, "rounding_mode")->s, "floor");

    n = &g.nodes[FULL];
    const fx_arg *shape = fx_node_arg(n, 0);
    assert_arg(shape, ARG_LIST, NULL);
    cr_assert_eq(shape->nitems, 2);
    assert_int_arg(&shape->items[0], NULL, 2);
    assert_int_arg(&shape->items[1], NULL, 3);
    assert_arg(fx_node_arg(n, 1), ARG_FLOAT, NULL);
    cr_assert(isinf(fx_node_arg(n, 1)->f) && fx_node_arg(n, 1)->f < 0);
    cr_assert_eq(fx_node_kwarg(n, "dtype")->dtype, EA_F32);
    assert_arg(fx_node_kwarg(n, "layout"), ARG_ENUM, "layout");
    cr_assert_str_eq(fx_node_kwarg(n, "layout")->s, "torch.strided");
    cr_assert_str_eq(fx_node_kwarg(n, "device")->s, "cpu");
    cr_assert_eq(fx_node_kwarg(n, "pin_memory")->kind, ARG_BOOL);
    cr_assert_eq(n->ann.ndim, 2);
    cr_assert_str_eq(n->ann.device, "cpu");

    n = &g.nodes[CLAMP];
    assert_arg(fx_node_arg(n, 1), ARG_FLOAT, NULL);
    cr_assert_float_eq(fx_node_arg(n, 1)->f, 1e-05, 1e-12);
    cr_assert(isinf(fx_node_arg(n, 2)->f) && fx_node_arg(n, 2)->f > 0);
    cr_assert(isnan(fx_node_arg(&g.nodes[WHERE], 2)->f));
    cr_assert_eq(fx_node_arg(&g.nodes[WHERE], 2)->kind, ARG_FLOAT);
    cr_assert_str_eq(fx_node_kwarg(&g.nodes[CLONE], "memory_format")->s, "torch.channels_last");
    fx_graph_free(&g);
}

Test(fx_small_graph, nested_lists)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    const fx_arg *cat = fx_node_arg(&g.nodes[CAT], 0);
    assert_arg(cat, ARG_LIST, NULL);
    cr_assert_eq(cat->nitems, 2);
    assert_node_arg(&cat->items[0], GETITEM);
    assert_node_arg(&cat->items[1], GETITEM);
    assert_int_arg(fx_node_arg(&g.nodes[CAT], 1), NULL, 0);

    const fx_arg *idx = fx_node_arg(&g.nodes[INDEX], 1);
    assert_arg(idx, ARG_LIST, NULL);
    cr_assert_eq(idx->nitems, 2);
    assert_arg(&idx->items[0], ARG_NONE, NULL);
    assert_arg(&idx->items[1], ARG_LIST, NULL);
    cr_assert_eq(idx->items[1].nitems, 2);
    assert_node_arg(&idx->items[1].items[0], IOTA);
    assert_node_arg(&idx->items[1].items[1], DIV);
    fx_graph_free(&g);
}

Test(fx_small_graph, sources_follow_comments)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    cr_assert_eq(g.nsources, 3);
    static const struct {
        int line;
        const char *func, *code;
    } want[] = {{10, "forward", "y = torch.sort(x)"}, {12, "helper", "z = x // 4"},
                {20, "<lambda>", "return a, b"}};
    for (int i = 0; i < 3; i++) {
        cr_assert_str_eq(g.sources[i].file, "/src/model.py");
        cr_assert_eq(g.sources[i].line, want[i].line);
        cr_assert_str_eq(g.sources[i].func, want[i].func);
        cr_assert_str_eq(g.sources[i].code, want[i].code);
    }
    static const int source_of[SMALL_NODES] = {-1, -1, -1, -1, 0, 0, 0, -1, -1, -1, -1,
                                               1,  1,  1,  1,  1, 1, 1, 2, 2};
    for (int i = 0; i < SMALL_NODES; i++)
        cr_assert_eq(g.nodes[i].source, source_of[i], "%s", g.nodes[i].name);
    fx_graph_free(&g);
}

Test(fx_small_graph, users_are_deduplicated_in_graph_order)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    assert_users(&g, "arg0_1", 1, (int[]){SORT});
    assert_users(&g, "arg1_1", 4, (int[]){MUL, FLOORDIV, ADD, SUB});
    assert_users(&g, "arg2_1", 2, (int[]){MUL, SUB});
    assert_users(&g, "arg3_1", 0, NULL);
    assert_users(&g, "sort", 2, (int[]){GETITEM, GETITEM_1});
    assert_users(&g, "getitem", 1, (int[]){CAT});
    assert_users(&g, "getitem_1", 1, (int[]){DIV});
    assert_users(&g, "iota", 1, (int[]){INDEX});
    assert_users(&g, "div", 1, (int[]){INDEX});
    assert_users(&g, "cat", 2, (int[]){CLAMP, WHERE});
    assert_users(&g, "clamp", 1, (int[]){WHERE});
    assert_users(&g, "where", 1, (int[]){CLONE});
    assert_users(&g, "clone", 1, (int[]){INDEX});
    assert_users(&g, "index", 0, NULL);
    assert_users(&g, "_tensor_constant0", 0, NULL);
    cr_assert_null(node(&g, "index")->users);
    fx_graph_free(&g);
}

Test(fx_small_graph, outputs_with_none)
{
    fx_graph g = parse_file_ok(FIXTURES "small_graph.py");
    cr_assert_eq(g.noutputs, 4);
    static const int want[] = {INDEX, -1, CAT, MUL};
    cr_assert_arr_eq(g.outputs, want, sizeof want);
    fx_graph_free(&g);
}

/* ---- return forms and other small shapes ---- */

Test(fx_returns, plain_name_and_empty_signature)
{
    fx_graph g = parse_file_ok(FIXTURES "return_plain.py");
    cr_assert_eq(g.nnodes, 1);
    cr_assert_eq(g.noutputs, 1);
    cr_assert_eq(g.outputs[0], 0);
    cr_assert_float_eq(fx_node_arg(&g.nodes[0], 1)->f, 0.125, 0);
    cr_assert_eq(fx_node_arg(&g.nodes[0], 0)->nitems, 0);
    cr_assert_null(fx_node_arg(&g.nodes[0], 0)->items);
    cr_assert_eq(g.nsources, 0);
    fx_graph_free(&g);
}

Test(fx_returns, empty_tuple_single_tuple_and_none)
{
    fx_graph g = parse_text_ok("class GraphModule(torch.nn.Module):\n    def forward(self):\n"
                               "        return ()\n");
    cr_assert_eq(g.nnodes, 0);
    cr_assert_eq(g.noutputs, 0);
    cr_assert_null(g.outputs);
    fx_graph_free(&g);
    g = parse_text_ok("class GraphModule(torch.nn.Module):\n    def forward(self, x, y: \"f32[][]cpu\"):\n"
                      "        return (y,)");
    cr_assert_eq(g.nnodes, 2);
    cr_assert_not(g.nodes[0].has_ann);
    cr_assert_null(g.nodes[0].ann_text);
    cr_assert_eq(g.noutputs, 1);
    cr_assert_eq(g.outputs[0], 1);
    fx_graph_free(&g);
    g = parse_text_ok("class GraphModule(torch.nn.Module):\n    def forward(self):\n        return None\n\n");
    cr_assert_eq(g.noutputs, 1);
    cr_assert_eq(g.outputs[0], -1);
    fx_graph_free(&g);
}

/* torch prints a graph module built from a lambda (a Longformer backward, MoE inference graphs) so */
Test(fx_returns, a_lambda_module_header_is_read_like_graph_module)
{
    fx_graph g = parse_text_ok("class <lambda>(torch.nn.Module):\n    def forward(self, x: \"f32[2][1]cuda:0\"):\n"
                               "        return (x,)\n");
    cr_assert_eq(g.nnodes, 1);
    cr_assert_eq(g.outputs[0], 0);
    fx_graph_free(&g);
    fx_graph bad;
    ea_error err = {{0}};
    const char *half = "class <lambda(torch.nn.Module):\n";
    cr_assert_eq(fx_graph_parse_text("t.py", half, strlen(half), &bad, &err), -1, "an unclosed <lambda is no name");
    cr_assert_str_eq(err.msg, "t.py:1: expected 'class GraphModule(torch.nn.Module):', got '<lambda(torch.nn.Module):'");
}

Test(fx_returns, text_need_not_be_terminated)
{
    const char text[] = "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n        return x)))";
    fx_graph g;
    ea_error err;
    cr_assert_eq(fx_graph_parse_text("t.py", text, strlen(text) - 3, &g, &err), 0, "%s", err.msg);
    cr_assert_eq(g.outputs[0], 0);
    fx_graph_free(&g);
}

Test(fx_values, torch_aliases_devices_and_numbers)
{
    fx_graph g = parse_text_ok(
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        a = torch.ops.aten.f.default(x, torch.long, torch.float, torch.complex64, "
        "torch.preserve_format, torch.contiguous_format, device(type='cuda', index=3), "
        "-9223372036854775808, 2.5e+20, -0.5, \"dq\", [], [[]], key = [x, [1, -2]])\n"
        "        return a\n");
    const fx_node *n = &g.nodes[1];
    static const ea_dtype dts[] = {EA_I64, EA_F32, EA_C64};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(fx_node_arg(n, 1 + i)->dtype, dts[i]);
    cr_assert_str_eq(fx_node_arg(n, 4)->s, "torch.preserve_format");
    cr_assert_str_eq(fx_node_arg(n, 5)->s, "torch.contiguous_format");
    cr_assert_str_eq(fx_node_arg(n, 6)->s, "cuda:3");
    assert_int_arg(fx_node_arg(n, 7), NULL, INT64_MIN);
    cr_assert_float_eq(fx_node_arg(n, 8)->f, 2.5e20, 1);
    cr_assert_float_eq(fx_node_arg(n, 9)->f, -0.5, 0);
    cr_assert_str_eq(fx_node_arg(n, 10)->s, "dq");
    cr_assert_eq(fx_node_arg(n, 11)->nitems, 0);
    cr_assert_eq(fx_node_arg(n, 12)->nitems, 1);
    cr_assert_eq(fx_node_arg(n, 12)->items[0].kind, ARG_LIST);
    const fx_arg *key = fx_node_kwarg(n, "key");
    cr_assert_eq(key->nitems, 2);
    assert_node_arg(&key->items[0], 0);
    assert_int_arg(&key->items[1].items[1], NULL, -2);
    assert_users(&g, "x", 1, (int[]){1});
    fx_graph_free(&g);
}

/* ---- the real corpus ---- */

static const char *corpus_root(void)
{
    const char *env = getenv("EXTERN_AUDIT_CORPUS");
    return env && *env ? env : "build/corpus/better-benchmark";
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Counts the dump independently of the parser: one node per body line that is not a comment, a
 * blank or the return, plus one per annotated placeholder; outputs from the return tuple's commas. */
static void count_dump(const char *path, int *nodes, int *outputs)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char line[1 << 22];
    *nodes = *outputs = 0;
    while (fgets(line, sizeof line, f)) {
        const char *s = line + strspn(line, " ");
        if (*s == '\n' || *s == '#' || strncmp(s, "class ", 6) == 0)
            continue;
        if (strncmp(s, "def forward(self", 16) == 0) {
            for (const char *q = s; (q = strstr(q, ": \"")); q++)
                (*nodes)++;
        } else if (strncmp(s, "return (", 8) == 0) {
            *outputs = s[8] != ')';
            for (const char *q = s; (q = strchr(q, ',')); q++)
                *outputs += q[1] != ')';
        } else {
            (*nodes)++;
        }
    }
    fclose(f);
}

static void check_dump(const char *path)
{
    int nodes, outputs;
    fx_graph g;
    ea_error err = {{0}};
    count_dump(path, &nodes, &outputs);
    cr_assert_eq(fx_graph_parse_file(path, &g, &err), 0, "%s", err.msg);
    cr_assert_eq(g.nnodes, nodes, "%s", path);
    cr_assert_eq(g.noutputs, outputs, "%s", path);
    fx_graph_free(&g);
}

static int walk(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    for (struct dirent *e; (e = readdir(d));) {
        char path[4096];
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_dir(path)) {
            n += walk(path);
        } else if (strncmp(e->d_name, "full_graph_", 11) == 0 && len > 3 &&
                   strcmp(e->d_name + len - 3, ".py") == 0) {
            check_dump(path);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void need_corpus(void)
{
    if (!is_dir(corpus_root()))
        cr_skip_test("corpus not unpacked at %s (set EXTERN_AUDIT_CORPUS)", corpus_root());
}

Test(fx_corpus, symbolic_dump_in_detail)
{
    need_corpus();
    char path[4096];
    snprintf(path, sizeof path, "%s/repros/models/torchbench/infer/opacus_cifar10/full_graph_008.py",
             corpus_root());
    check_dump(path);
    fx_graph g = parse_file_ok(path);
    cr_assert_eq(node(&g, "arg2_1")->ann_is_tensor, 0);
    const fx_node *mul = node(&g, "mul_2");
    cr_assert_eq(mul->line, 5);
    cr_assert_str_eq(mul->target, "_operator.mul");
    assert_node_arg(fx_node_arg(mul, 0), fx_graph_find(&g, "arg2_1"));
    assert_node_arg(fx_node_arg(mul, 1), fx_graph_find(&g, "arg3_1"));
    const fx_node *view = node(&g, "view");
    const fx_arg *shape = fx_node_arg(view, 1);
    cr_assert_eq(shape->nitems, 4);
    assert_node_arg(&shape->items[3], fx_graph_find(&g, "mul_2"));
    assert_users(&g, "mul_2", 1, (int[]){fx_graph_find(&g, "view")});
    cr_assert_eq(view->ann.sizes[3], -1);
    cr_assert_eq(view->ann.strides[3], 1);
    fx_graph_free(&g);
}

Test(fx_corpus, model_name_with_slash)
{
    need_corpus();
    char path[4096];
    snprintf(path, sizeof path, "%s/repros/models/hf/infer/openai/gpt-oss-20b/full_graph_000.py",
             corpus_root());
    check_dump(path);
}

Test(fx_corpus, every_dump_parses, .timeout = 120)
{
    need_corpus();
    cr_assert_gt(walk(corpus_root()), 0, "no full_graph_*.py under %s", corpus_root());
}
