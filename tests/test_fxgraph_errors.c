/* test_fxgraph_errors.c: malformed graph dumps; each must fail with a located, named expectation
 * and leave no graph behind. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/fxgraph.h"
#include "corpus/fxgraph_impl.h"

#define FIXTURES "tests/fixtures/"

/* The parse must fail with exactly `want`, and leave nothing behind to free. */
static void text_fails(const char *text, const char *want)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_text("t.py", text, strlen(text), &g, &err), -1, "parsed: %s", text);
    cr_assert_str_eq(err.msg, want);
    cr_assert_null(g.arena);
    cr_assert_eq(g.nnodes, 0);
    fx_graph_free(&g);
}

static void file_fails(const char *path, const char *want)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_file(path, &g, &err), -1, "parsed: %s", path);
    cr_assert_str_eq(err.msg, want);
    cr_assert_null(g.arena);
}

#define HEAD "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2][1]cuda:0\"):\n"

Test(fx_errors, fixture_files)
{
    file_fails(FIXTURES "undefined_name.py",
               FIXTURES "undefined_name.py:3: expected name of an earlier node, got 'missing_1'");
    file_fails(FIXTURES "truncated_no_return.py",
               FIXTURES "truncated_no_return.py:4: expected 'return' closing forward(), got end of file");
    file_fails(FIXTURES "truncated_list.py",
               FIXTURES "truncated_list.py:3: expected ',' or ']', got end of line");
    file_fails(FIXTURES "bad_dtype.py",
               FIXTURES "bad_dtype.py:3: expected dtype (bf16, f16, f32, f64, i8, i16, i32, i64, u8, "
               "u64, b8, c64), got 'q7[2][1]cuda:0'");
    file_fails(FIXTURES "garbage_line.py",
               FIXTURES "garbage_line.py:4: expected ':' or '=' after the node name, got '(y)'");
    file_fails(FIXTURES "no_such_file.py",
               FIXTURES "no_such_file.py: cannot read: No such file or directory");
    file_fails("tests/fixtures", "tests/fixtures: not a regular file (a folder)");
}

Test(fx_errors, structure)
{
    text_fails("", "t.py:1: expected 'class GraphModule(torch.nn.Module):', got end of file");
    text_fails("class GraphModule(nn.Module):\n",
               "t.py:1: expected 'class GraphModule(torch.nn.Module):', got '(nn.Module):'");
    text_fails("import torch\n", "t.py:1: expected 'class GraphModule(torch.nn.Module):', got 'import torch'");
    text_fails("class GraphModule(torch.nn.Module):\n",
               "t.py:2: expected 'def forward(self, ...):', got end of file");
    text_fails("class GraphModule(torch.nn.Module):\n    def backward(self):\n",
               "t.py:2: expected 'def forward(self, ...):', got 'def backward(self):'");
    text_fails("class GraphModule(torch.nn.Module):\n    def forward(self x):\n",
               "t.py:2: expected ',' or ')' in the forward() signature, got 'x):'");
    text_fails("class GraphModule(torch.nn.Module):\n    def forward(self, x)\n",
               "t.py:2: expected ':' ending the forward() signature, got end of line");
    text_fails("class GraphModule(torch.nn.Module):\n    def forward(self, x, x):\n",
               "t.py:2: expected a name not defined before, got 'x'");
    text_fails(HEAD "        return x\n        y = x\n",
               "t.py:4: expected end of file after the return statement, got 'y = x'");
    text_fails(HEAD "        return (x, 3)\n", "t.py:3: expected node names or None as return values, got '(x, 3)'");
    text_fails(HEAD "        return (x\n", "t.py:3: expected ',' or ')', got end of line");
    text_fails(HEAD "        return x;\n", "t.py:3: expected end of line, got ';'");
}

Test(fx_errors, comments)
{
    text_fails(HEAD "        # a note\n",
               "t.py:3: expected '# File: ...' or '# No stacktrace found for following nodes', got '# a note'");
    text_fails(HEAD "        # File: /a.py in f, code: x\n",
               "t.py:3: expected '<path>:<line> in <function>, code: <code>', got '/a.py in f, code: x'");
    text_fails(HEAD "        # File: /a.py:12 in f\n",
               "t.py:3: expected '<path>:<line> in <function>, code: <code>', got '/a.py:12 in f'");
    text_fails(HEAD "        # No stacktrace found for following nodes!\n", "t.py:3: expected end of line, got '!'");
}

Test(fx_errors, node_lines)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        {"x = torch.ops.aten.relu.default(x)", "a name not defined before, got 'x'"},
        {"y = torch.ops.aten.add.Tensor(x, y)", "name of an earlier node, got 'y'"},
        {"y: \"f32[2][1]cuda:0 = torch.ops.aten.relu.default(x)", "'\"' closing the annotation, got '"},
        {"y: f32[2][1]cuda:0 = x", "'\"' opening the annotation, got 'f32[2][1]"},
        {"y: \"f32[2][1]cuda:0 junk\" = x", "t.py:3: expected end of annotation after device, got ' junk'"},
        {"y: \"Sym()\" = x", "expected dtype"},
        {"y = x", "'torch.ops...', 'self...', '[' or an operator (*, +, -, //), got end of line"},
        {"y = x % 2", "'torch.ops...', 'self...', '[' or an operator (*, +, -, //), got '% 2'"},
        {"y = x[1.5]", "integer index in '[...]', got 'x[1.5]'"},
        {"y = 3[0]", "node name before '[', got '3[0]'"},
        {"y = x[0", "integer index in '[...]'"},
        {"y = self.", "attribute name after 'self.', got end of line"},
        {"y = torch.ops.aten.relu(x)", "torch.ops.<namespace>.<op>.<overload>(...), got 'aten.relu(x)'"},
        {"y = torch.ops.aten.relu.default", "'(' opening the call arguments, got end of line"},
        {"y = torch.ops.aten.relu.default(x", "',' or ')', got end of line"},
        {"y = torch.ops.aten.relu.default(x y)", "',' or ')', got 'y)'"},
        {"y = torch.ops.aten.relu.default(x, 'floor)", "string closed on the same line, got ''floor)'"},
        {"y = torch.ops.aten.f.default(x, torch.float8)", "torch dtype, layout or memory format, got 'torch.float8'"},
        {"y = torch.ops.aten.f.default(dim = 1, x)", "keyword argument after keyword arguments, got 'x)'"},
        {"y = torch.ops.aten.f.default(x, 1e)", "number, got '1e)'"},
        {"y = torch.ops.aten.f.default(x, 12abc)", "number, got '12abc)'"},
        {"y = torch.ops.aten.f.default(x, -)", "number, got '-)'"},
        {"y = torch.ops.aten.f.default(x, 1.2.3)", "number, got '1.2.3)'"},
        {"y = torch.ops.aten.f.default(x, 1e+)", "number, got '1e+)'"},
        {"y = torch.ops.aten.f.default(x, 1234567890123456789012345678901234567890123456789012345678901234567890)",
         "number, got '12345678901234567890"},
        {"y = torch.ops.aten.f.default(x, 99999999999999999999)", "integer within int64, got '99999999999999999999'"},
        {"y = torch.ops.aten.f.default(x, @)", "value, got '@)'"},
        {"y = torch.ops.aten.f.default(x, device(type=cuda))", "device(type='...'), got 'device(type=cuda))'"},
        {"y = torch.ops.aten.f.default(x, device(type=''))", "device type such as 'cuda', got end of line"},
        {"y = torch.ops.aten.f.default(x, device(type='cuda', index=a))", "device index, got 'a))'"},
        {"y = torch.ops.aten.f.default(x, device(type='cuda' index=0))", "')' closing device(...), got ' index=0))'"},
        {"y = torch.ops.aten.relu.default(x);  x = 3", "name of an earlier node in 'x = None' cleanup, got '3'"},
        {"y = torch.ops.aten.relu.default(x);  z = None", "name of an earlier node in 'x = None' cleanup, got 'z'"},
        {"y = torch.ops.aten.relu.default(x);  x = None; y = None", "end of line, got '; y = None'"},
        {"y = torch.ops.aten.relu.default(x);  x None", "'=' in 'x = None' cleanup, got 'None'"},
        {"y = torch.ops.aten.relu.default(x);", "name of an earlier node in 'x = None' cleanup, got end of line"},
        {"y = torch.ops.aten.relu.default(x) x", "end of line, got 'x'"},
        {"3 = x", "node name, got '3 = x'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        fx_graph g;
        ea_error err = {{0}};
        snprintf(text, sizeof text, HEAD "        %s\n        return (y,)\n", cases[i].line);
        cr_assert_eq(fx_graph_parse_text("t.py", text, strlen(text), &g, &err), -1, "parsed: %s",
                     cases[i].line);
        cr_assert(strncmp(err.msg, "t.py:3: expected ", 17) == 0, "%s -> %s", cases[i].line, err.msg);
        cr_assert(strstr(err.msg, cases[i].want), "%s -> %s", cases[i].line, err.msg);
        cr_assert_null(g.arena);
    }
}

Test(fx_errors, long_lines_are_excerpted)
{
    text_fails(HEAD "        y = torch.ops.aten.relu.default(x) + aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
               "t.py:3: expected end of line, got '+ aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");
}

