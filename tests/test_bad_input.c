/* test_bad_input.c: inputs that once crashed, hung or were accepted (issue 13): special files in place
 * of inputs, deep nesting, NUL bytes, sizes beyond 2^53, link cycles in the corpus, a graph missing
 * beside its meta.json; a golden write that fails midway is test_landing.c's. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/capture_impl.h"
#include "corpus/corpus.h"
#include "corpus/extract.h"
#include "corpus/fxgraph.h"
#include "corpus/fxgraph_impl.h"
#include "helpers.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "corpus/meta.h"
#include "corpus/occurrences.h"
#include "corpus/occurrences_impl.h"
#include "base/readfile.h"
#include "base/tensor.h"
#include "target/torch_ops.h"
#include "target/capture.h"

static void read_fails(const char *path, const char *want)
{
    char *text = (char *)1, msg[4096];
    size_t len = 7;
    ea_error err = {{0}};
    cr_assert_eq(ea_read_file(path, &text, &len, &err), -1, "read %s", path);
    cr_assert_null(text);
    cr_assert_eq(len, 0);
    snprintf(msg, sizeof msg, "%s: %s", path, want);
    cr_assert_str_eq(err.msg, msg);
}

Test(bad_input, only_regular_files_are_read)
{
    const char *dir = test_tmpdir();
    char *fifo = test_join(dir, "meta.json"), *zero = test_join(dir, "zero.json"), *big = test_join(dir, "big.json");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink("/dev/zero", zero), 0);
    read_fails(fifo, "not a regular file (a FIFO)"); /* returns at once: no writer needed */
    read_fails(zero, "not a regular file (a character device)");
    read_fails(dir, "not a regular file (a folder)");
    FILE *f = fopen(big, "w");
    cr_assert_not_null(f);
    cr_assert_eq(ftruncate(fileno(f), (off_t)EA_READ_MAX + 1), 0); /* sparse: no disk used */
    fclose(f);
    read_fails(big, "larger than the 64 MiB limit on input files (67108865 bytes)");
    read_fails(test_join(dir, "none.json"), "cannot read: No such file or directory");

    /* every reader goes through it: JSON documents, graph dumps */
    ej_doc doc;
    fx_graph g;
    ea_error err;
    cr_assert_eq(ej_load(fifo, &doc, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a FIFO)"), "%s", err.msg);
    cr_assert_eq(fx_graph_parse_file(zero, &g, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a character device)"), "%s", err.msg);

    char *text;
    size_t len;
    char *ok = test_write(dir, "ok.json", "{}");
    cr_assert_eq(ea_read_file(ok, &text, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, 2);
    cr_assert_str_eq(text, "{}");
    free(text);
    free(ok);
}

Test(bad_input, present_absent_or_broken)
{
    const char *dir = test_tmpdir();
    ea_error err = {{0}};
    char *dangling = test_join(dir, "classification.json"), *loop = test_join(dir, "loop.json");
    cr_assert_eq(ea_file_present(test_join(dir, "absent.json"), &err), 0);
    cr_assert_eq(ea_file_present(test_join(dir, "no/such/folder.json"), &err), 0);
    cr_assert_eq(symlink("nowhere.json", dangling), 0);
    cr_assert_eq(ea_file_present(dangling, &err), -1);
    cr_assert(strstr(err.msg, "a link to nothing (dangling link)"), "%s", err.msg);
    cr_assert_eq(symlink("loop.json", loop), 0);
    cr_assert_eq(ea_file_present(loop, &err), -1);
    cr_assert(strstr(err.msg, "Too many levels of symbolic links"), "%s", err.msg);
    cr_assert_eq(ea_file_present(dir, &err), 1);
}

#define HEAD "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2][1]cuda:0\"):\n"

static void graph_fails(const char *text, size_t len, const char *want)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_text("t.py", text, len, &g, &err), -1);
    cr_assert_str_eq(err.msg, want);
}

/* The input that overflowed the stack (exit 139), kept where ci/fuzz replays it too. */
#define DEEP_LISTS "fuzz/regressions/fuzz_graph/nested-50000-lists.py"

Test(bad_input, deep_nesting_is_refused_not_a_stack_overflow)
{
    fx_graph g;
    ea_error err = {{0}};
    cr_assert_eq(fx_graph_parse_file(DEEP_LISTS, &g, &err), -1);
    cr_assert_str_eq(err.msg, DEEP_LISTS ":3: expected lists nested at most 64 deep, got '[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                              "[[[[[[[[[[[[[[[[[[[[...'");
    /* 63 lists inside the call's parentheses still parse */
    const char *pre = HEAD "        y: \"f32[2][1]cuda:0\" = torch.ops.aten.view.default(x, ";
    size_t n = strlen(pre);
    char text[1024];
    memcpy(text, pre, n);
    memset(text + n, '[', 63);
    memset(text + n + 63, ']', 63);
    strcpy(text + n + 126, ")\n        return (y,)\n");
    cr_assert_eq(fx_graph_parse_text("t.py", text, strlen(text), &g, &err), 0, "%s", err.msg);
    fx_graph_free(&g);
}

Test(bad_input, nul_byte_in_a_graph_line_is_named)
{
    static const char text[] = HEAD "        y: \"f32[2][1]cuda:0\" = torch.ops.aten.relu.default(x\0);\n"
                               "        return (y,)\n";
    graph_fails(text, sizeof text - 1, "t.py:3: expected text, got a NUL byte at column 61");
}

static void tensor_fails(const char *ann, const char *want)
{
    ea_tensor t;
    ea_error err = {{0}};
    cr_assert_eq(ea_tensor_parse(ann, strlen(ann), "g.py:9", &t, &err), -1, "parsed %s", ann);
    cr_assert_str_eq(err.msg, want);
}

Test(bad_input, sizes_beyond_2_53_are_refused)
{
    tensor_fails("f32[9223372036854775807][1]cuda:0", "g.py:9: expected size below 2^53, got '9223372036854775807]"
                                                      "[1]cuda:0'");
    tensor_fails("f32[2][9007199254740993]cuda:0", "g.py:9: expected stride below 2^53, got '9007199254740993]cuda:0'");
    tensor_fails("f32[4294967296, 4294967296][4294967296, 1]cuda:0",
                 "g.py:9: expected a numel below 2^53, got 'f32[4294967296, 4294967296][4294967296, ...'");
    tensor_fails("f32[3, 2][4503599627370496, 1]cuda:0",
                 "g.py:9: expected a storage extent below 2^53 elements, got 'f32[3, 2][4503599627370496, 1]cuda:0'");
    ea_tensor t;
    ea_error err;
    const char *edge = "f32[2, 4503599627370495][4503599627370495, 1]cuda:0"; /* just below 2^53 */
    cr_assert_eq(ea_tensor_parse(edge, strlen(edge), "g.py:9", &t, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_tensor_numel(&t), ((int64_t)1 << 53) - 2);
    tensor_fails("f32[2, 4503599627370496][4503599627370496, 1]cuda:0", /* 2^53: what 2^53+1 reads as in JSON */
                 "g.py:9: expected a numel below 2^53, got 'f32[2, 4503599627370496][450359962737049...'");
    const char *empty = "f32[0, 9007199254740991][9007199254740991, 1]cuda:0";
    cr_assert_eq(ea_tensor_parse(empty, strlen(empty), "g.py:9", &t, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_tensor_numel(&t), 0);
}

/* A copy of the fixture corpus to break. */
static const char *corpus_copy(void)
{
    const char *dir = test_tmpdir();
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "cp -r " FIXTURE_CORPUS "/repros '%s'/", dir);
    cr_assert_eq(system(cmd), 0);
    return dir;
}

static void corpus_fails(const char *dir, const char *want_tail)
{
    ea_corpus c;
    ea_error err = {{0}};
    cr_assert_eq(ea_corpus_open(dir, &c, &err), -1);
    const char *tail = err.msg + strlen(err.msg) - strlen(want_tail);
    cr_assert(strlen(err.msg) >= strlen(want_tail) && !strcmp(tail, want_tail), "%s", err.msg);
    cr_assert_null(c.graphs);
}

Test(bad_input, corpus_link_cycle_is_refused)
{
    const char *dir = corpus_copy();
    char link_path[4096];
    snprintf(link_path, sizeof link_path, "%s/repros/models/hf/train/TinyXL/loop", dir);
    cr_assert_eq(symlink(".", link_path), 0);
    corpus_fails(dir, "/repros/models/hf/train/TinyXL/loop: a folder reached twice (a link cycle or a second link "
                      "to it); the corpus walk refuses to count its graphs again");
    /* a link to a folder reached once is followed */
    cr_assert_eq(unlink(link_path), 0);
    char real[1024];
    snprintf(real, sizeof real, "%s/elsewhere", dir);
    snprintf(link_path, sizeof link_path, "mv '%s/repros/models/hf/train/TinyXL' '%s'", dir, real);
    cr_assert_eq(system(link_path), 0);
    snprintf(link_path, sizeof link_path, "%s/repros/models/hf/train/TinyXL", dir);
    cr_assert_eq(symlink(real, link_path), 0);
    ea_corpus c, orig;
    ea_error err;
    cr_assert_eq(ea_corpus_open(dir, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_corpus_open(FIXTURE_CORPUS, &orig, &err), 0, "%s", err.msg);
    cr_assert_eq(c.ngraphs, orig.ngraphs);
    ea_corpus_free(&c);
    ea_corpus_free(&orig);
}

Test(bad_input, graph_missing_beside_its_meta_is_an_error)
{
    const char *dir = corpus_copy();
    char py[4096];
    snprintf(py, sizeof py, "%s/repros/models/hf/train/TinyXL/full_graph_001.py", dir);
    cr_assert_eq(unlink(py), 0);
    corpus_fails(dir, "/TinyXL/full_graph_001.py cannot be read: No such file or directory");
    cr_assert_eq(mkdir(py, 0755), 0);
    corpus_fails(dir, "/TinyXL/full_graph_001.py: a graph file that is not a regular file");
    cr_assert_eq(rmdir(py), 0);
    cr_assert_eq(symlink("nowhere.py", py), 0);
    corpus_fails(dir, "/TinyXL/full_graph_001.py: a graph file that is a dangling link");
}

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

Test(bad_input, cli_options_a_new_user_tries)
{
    cli_run r = test_cli("help", "bogus", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "extern-audit help: unknown command 'bogus'");
    cli_run_free(&r);
    r = test_cli("audit", "--golden=golden", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"occurrences\"");
    cli_run_free(&r);
    r = test_cli("audit", "--golden=tests/fixtures/none", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden tests/fixtures/none: not a folder");
    cli_run_free(&r);
    r = test_cli("audit", "--golden", "", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "extern-audit audit: option '--golden' needs a non-empty value");
    cli_run_free(&r);
    r = test_cli("audit", "--golden=", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "option '--golden' needs a non-empty value");
    cli_run_free(&r);
    r = test_cli("audit", "--json=yes", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "option '--json' takes no value");
    cli_run_free(&r);
    r = test_cli("audit", "--bogus=1", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "unknown option '--bogus'");
    cli_run_free(&r);
}

/* A golden folder whose parts link to the committed ones, so one file can be broken alone: the shared
 * files, and in its target (TARGET) the target.json, captures, baselines and torch timings. */
#define TARGET "targets/H200-torch2.11.0+cu130"
Test(bad_input, classify_refuses_a_corrupt_stored_file_before_printing)
{
    const char *g = test_golden_links();
    free(test_write(g, TARGET "/classification.json", "{\"schema\": \"extern-audit/classification\", \"schema_version\": 1,"));
    cli_run r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "classification.json:1:");
    cr_assert_str_eq(r.out, "", "the table was printed before the failure");
    cli_run_free(&r);
}

Test(bad_input, a_broken_link_is_not_an_absent_file)
{
    const char *g = test_golden_links();
    cr_assert_eq(symlink("nowhere.json", test_join(g, TARGET "/classification.json")), 0);
    const char *cmds[][2] = {{"classify", NULL}, {"audit", NULL}};
    for (size_t i = 0; i < 2; i++) {
        cli_run r = test_cli(cmds[i][0], "--golden", g, NULL);
        cr_assert_eq(r.status, 2, "%s", cmds[i][0]);
        has(r.err, "classification.json: a link to nothing (dangling link)");
        cli_run_free(&r);
    }
    cr_assert_eq(unlink(test_join(g, TARGET "/classification.json")), 0);
    cr_assert_eq(symlink("classification.json", test_join(g, TARGET "/classification.json")), 0);
    cli_run r = test_cli("audit", "--golden", g, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "classification.json: cannot read: Too many levels of symbolic links");
    cli_run_free(&r);

    /* the target's torch_ops.json as well */
    ea_torch_ops ops;
    ea_error err;
    const char *t = test_tmpdir();
    cr_assert_eq(symlink("gone.json", test_join(t, "torch_ops.json")), 0);
    cr_assert_eq(ea_torch_ops_load_dir(t, "H200", &ops, &err), -1);
    has(err.msg, "torch_ops.json: a link to nothing (dangling link)");
}

Test(bad_input, capture_folder_without_a_readable_capture_json_says_why)
{
    const char *g = test_tmpdir();
    ea_captures caps;
    ea_error err;
    cr_assert_eq(mkdir(test_join(g, "captures"), 0755), 0);
    cr_assert_eq(mkdir(test_join(g, "captures/cat-x"), 0755), 0);
    cr_assert_eq(symlink("elsewhere", test_join(g, "captures/cat-x/capture.json")), 0);
    cr_assert_eq(ea_captures_load_dir(g, &caps, &err), -1);
    has(err.msg, "captures/cat-x/capture.json: a link to nothing (dangling link)");
    cr_assert_eq(unlink(test_join(g, "captures/cat-x/capture.json")), 0);
    cr_assert_eq(ea_captures_load_dir(g, &caps, &err), -1);
    has(err.msg, "captures/cat-x: expected capture.json in every capture folder, got none");
}

Test(bad_input, json_nested_beyond_the_parser_limit_says_so)
{
    enum { DEEP = 1001 };
    char *text = malloc(2 * DEEP + 16);
    strcpy(text, "{\"a\\\"[\": ");
    size_t n = strlen(text);
    memset(text + n, '[', DEEP);
    memset(text + n + DEEP, ']', DEEP);
    strcpy(text + n + 2 * DEEP, "}");
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_parse("deep.json", text, &doc, &err), -1);
    has(err.msg, "(arrays and objects nested deeper than the parser's limit of 1000)");
    memset(text + n + 998, ']', 2 * DEEP - 998); /* 998 lists in the object: within the limit */
    strcpy(text + n + 2 * 998, "}");
    cr_assert_eq(ej_parse("deep.json", text, &doc, &err), 0, "%s", err.msg);
    ej_free(&doc);
    free(text);
}

/* The file at path with its first `from` replaced by `to`, written as dir/name; returns the new path. */
static const char *tampered(const char *path, const char *from, const char *to, const char *dir, const char *name)
{
    char *text, *out;
    size_t len;
    ea_error err;
    cr_assert_eq(ea_read_file(path, &text, &len, &err), 0, "%s", err.msg);
    char *at = strstr(text, from);
    cr_assert_not_null(at, "%s lacks '%s'", path, from);
    out = malloc(len + strlen(to) + 1);
    snprintf(out, len + strlen(to) + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    char *written = test_write(dir, name, out);
    static char keep[8][4096];
    static int k;
    char *p = keep[k++ % 8];
    snprintf(p, sizeof keep[0], "%s", written);
    free(written);
    free(out);
    free(text);
    return p;
}

static void occurrences_refused(const char *from, const char *to, const char *want)
{
    const char *path = tampered("golden/occurrences/index_add.json", from, to, test_tmpdir(), "index_add.json");
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_load(path, &doc, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_occurrences_validate(path, doc.root, "aten.index_add.default", &err), -1, "accepted %s", to);
    has(err.msg, want);
    ej_free(&doc);
}

Test(bad_input, golden_fields_out_of_range_are_refused)
{
    occurrences_refused("\"cat_input_cap\":\t8", "\"cat_input_cap\":\t-1", "$.cat_input_cap: expected an integer >= 0, got -1");
    occurrences_refused("\"line\":\t149", "\"line\":\t0", ".line: expected an integer >= 1, got 0");
    occurrences_refused("\"role\":\t\"input\"", "\"role\":\t7", ".role: expected string, got number 7");
    occurrences_refused("\"role\":\t\"input\"", "\"role\":\t\"outside\"",
                        ".role: expected \"input\", \"producer\", \"op\" or \"consumer\", got \"outside\"");
    occurrences_refused("\"ref\":\t0", "\"ref\":\t\"x\"", ".ref: expected integer, got string \"x\"");
    occurrences_refused("\"ref\":\t0", "\"ref\":\t5", ".ref: expected the index of an earlier scope node (0..0), got 5");

    ea_torch_ops ops;
    ea_error err;
    const char *t = tampered("tests/fixtures/torch_ops/H200.json", "\"replays\": 30", "\"replays\": -1", test_tmpdir(),
                             "H200.json");
    cr_assert_eq(ea_torch_ops_load(t, "H200", &ops, &err), -1);
    has(err.msg, "$.timing.replays: expected an integer >= 1, got -1");
    /* empty sizes (and strides) for the index whose values are a 4-D as_strided view of an iota */
    t = tampered("tests/fixtures/torch_ops/H200.json", "\"sizes\": [\n      18874368\n     ],\n     \"strides\": [\n      1\n     ]",
                 "\"sizes\": [], \"strides\": []", test_tmpdir(), "H200.json");
    cr_assert_eq(ea_torch_ops_load(t, "H200", &ops, &err), -1);
    has(err.msg, "H200.json $.points[0].inputs[0].sizes: expected 18874368 elements (values.size has 4 dimensions), "
                 "got 0 dimensions, 1 elements");

    ea_meta m;
    const char *meta = tampered("tests/fixtures/meta/good.meta.json", "\"i64\"", "\"i65\"", test_tmpdir(), "g.meta.json");
    cr_assert_eq(ea_meta_load(meta, &m, &err), -1);
    has(err.msg, ": expected a dtype (bf16, f16, f32, f64, i8, i16, i32, i64, u8, u64, b8, c64), got \"i65\"");
    ea_meta_free(&m);

    const char *dir = test_tmpdir();
    char cmd[4300], cap[4200];
    snprintf(cmd, sizeof cmd, "cp -r tests/fixtures/captures/cumsum-824fbb15db5d-2cfdbbbf0541 '%s'/", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cap, sizeof cap, "%s/cumsum-824fbb15db5d-2cfdbbbf0541/capture.json", dir);
    tampered(cap, "\"shared\": 0", "\"shared\": 1099511627776", dir, "cumsum-824fbb15db5d-2cfdbbbf0541/capture.json");
    ea_capture c;
    cr_assert_eq(ea_capture_load(cap, &c, &err), -1);
    has(err.msg, ".shared: expected at most 232448 bytes (227 KiB, the most an sm_90 or sm_100 block can have), got "
                 "1099511627776");
}

Test(bad_input, index_add_arguments_are_checked_when_planned)
{
    const char *g = test_tmpdir();
    char cwd[2048], target[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(mkdir(test_join(g, "occurrences"), 0755), 0);
    for (int i = 0; i <= EA_AUDIT_OPS; i++) { /* every document but index_add's, and summary.json */
        const char *name = i < EA_AUDIT_OPS ? ea_audit_ops[i].short_name : "summary";
        if (!strcmp(name, "index_add"))
            continue;
        snprintf(target, sizeof target, "%s/golden/occurrences/%s.json", cwd, name);
        char link_name[256];
        snprintf(link_name, sizeof link_name, "occurrences/%s.json", name);
        cr_assert_eq(symlink(target, test_join(g, link_name)), 0);
    }
    static const char *const bad[][3] = {
        {"}, 0, {", "}, 99, {", "$.points[0].signature.args[1]: expected dim in [0, 1)"},
        {"}, 0, {", "}, 3.5, {", "$.points[0].signature.args[1]: expected integer, got number 3.5"},
        {"}, 0, {", "}, {", "$.points[0].signature.args: expected index_add(self, dim, index, source[, alpha]), got 3 args"},
    };
    for (int i = 0; i < 3; i++) {
        tampered("golden/occurrences/index_add.json", bad[i][0], bad[i][1], g, "occurrences/index_add.json");
        /* a point its family refuses is reported unsupported (exit 1, the reason named) and the run goes on */
        cli_run r = test_cli("run", "--scope", "index_add", "--plan", "--golden", g, NULL);
        cr_assert_eq(r.status, 1, "accepted %s", bad[i][1]);
        has(r.err, "occurrences/index_add.json $.points[0]: unsupported: ");
        has(r.err, bad[i][2]);
        has(r.out, "UNSUPPORTED: ");
        cli_run_free(&r);
    }
}

Test(bad_input, extract_check_compares_summary_json_too)
{
    const char *dir = test_tmpdir();
    cli_run r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    char summary[4200];
    snprintf(summary, sizeof summary, "%s/summary.json", dir);
    tampered(summary, "\"occurrences\":", "\"occurrences_\":", dir, "summary.json");
    r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--check", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    has(r.err, "summary.json differs from the corpus extraction");
    cli_run_free(&r);
}

Test(bad_input, audit_states_the_bottom_line)
{
    cli_run r = test_cli("audit", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\nBottom line: 106 of the 279 occurrences the old rule files under \"extern\" are false externs "
               "(Inductor lowers them): aten.cat.default 62, aten.cumsum.default 44\n"
               "  besides them, 51 do no device work (views, host SymInt arithmetic): counted as extern, nothing to price\n\n");
    has(r.out, "\ngolden/targets/H200-torch2.11.0+cu130/baselines.json (NVIDIA H200; per call, median us;");
    has(r.out, "  index_add         xlnet                        train  -                                         24 ");
    cli_run_free(&r);
    const char *g = test_golden_links(); /* no classification.json; baselines linked */
    r = test_cli("audit", "--golden", g, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "Bottom line: not classified yet (no classification.json)");
    cli_run_free(&r);
}

static void replay_refused(const char *from, const char *to, const char *want)
{
    const char *g = test_golden_links();
    tampered("golden/" TARGET "/replay.json", from, to, g, TARGET "/replay.json");
    cli_run r = test_cli("audit", "--golden", g, NULL);
    cr_assert_eq(r.status, 2, "accepted %s", to);
    has(r.err, want);
    cli_run_free(&r);
}

Test(bad_input, golden_replay_file_is_validated)
{
    cli_run r = test_cli("audit", NULL);
    has(r.out, "\ngolden/targets/H200-torch2.11.0+cu130/replay.json: 108 captured partitions, 76 replayed from C, 76 of them ok\n");
    cli_run_free(&r);
    replay_refused("\"verdict\":\t\"ok\"", "\"verdict\":\t\"fine\"", "[0].verdict: expected one of the replay's verdicts");
    replay_refused("\"outputs_matching\":\t", "\"outputs_matching\":\t-", "[0].outputs_matching: expected an integer >= 0");
    replay_refused("\"samples\":\t", "\"samples\":\t-", ".replay_us.samples: expected an integer >= 1");
    replay_refused("\"scope\":\t", "\"extra\":\t1,\n\"scope\":\t", "[0]: unknown key 'extra'");
    replay_refused("[{", "{", TARGET "/replay.json:");
}
