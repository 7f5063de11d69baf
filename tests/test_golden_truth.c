/* test_golden_truth.c: golden data that cannot say something false with exit 0 (issue 26): derived counts
 * checked against what they derive from, paths confined to the target folder. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/classify.h"
#include "helpers.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "base/readfile.h"

#define TARGET "targets/" TEST_TARGET
#define CLASSIFICATION "golden/" TARGET "/classification.json"

static void has(const char *text, const char *needle)
{
    cr_assert(strstr(text, needle), "expected '%s' in:\n%s", needle, text);
}

/* A golden folder linking the committed one's files, with the committed classification.json's first `from`
 * replaced by `to` (from NULL: the file as committed). */
static const char *golden_with_classification(const char *from, const char *to)
{
    const char *dir = test_golden_links();
    char *text = test_read(CLASSIFICATION), *at = from ? strstr(text, from) : text;
    cr_assert_not_null(at, "%s lacks '%s'", CLASSIFICATION, from);
    size_t n = strlen(text) + (to ? strlen(to) : 0) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, from ? to : "", from ? at + strlen(from) : text);
    free(test_write(dir, TARGET "/classification.json", out));
    free(out);
    free(text);
    return dir;
}

/* audit on the classification with from replaced by to: refused (exit 2) with want in its message. */
static void audit_refuses(const char *from, const char *to, const char *want)
{
    cli_run r = test_cli("audit", "--golden", golden_with_classification(from, to), NULL);
    cr_expect_eq(r.status, 2, "accepted %s -> %s:\n%s", from, to, r.out);
    cr_expect(strstr(r.err, want), "expected '%s' in:\n%s", want, r.err);
    cr_expect_eq(strstr(r.out, "Bottom line"), NULL, "a bottom line was printed from a false summary");
    cli_run_free(&r);
}

Test(golden_truth, the_committed_classification_passes_as_committed)
{
    cli_run r = test_cli("audit", "--golden", golden_with_classification(NULL, NULL), NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "Bottom line: 106 of the 279 occurrences");
    cli_run_free(&r);
}

Test(golden_truth, a_summary_count_its_entries_do_not_give_is_refused)
{
    /* the review's -5 (it printed "106 of the 250") and 2^53+1 (int overflow in the bottom line) */
    audit_refuses("\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t24,",
                  "\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t-5,",
                  "classification.json $.summary[\"aten.histc.default\"].true_fallback: expected 24 (the count of its "
                  "$.occurrences of that op and class), got -5");
    audit_refuses("\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t24,",
                  "\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t9007199254740993,",
                  "$.summary[\"aten.histc.default\"].true_fallback: expected integer of magnitude below 2^53, got "
                  "number 9007199254740992"); /* 2^53+1 reads as 2^53 */
    audit_refuses("\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t24,",
                  "\"aten.histc.default\":\t{\n\t\t\t\"true_fallback\":\t4503599627370496,",
                  "expected 24 (the count of its $.occurrences of that op and class), got 4503599627370496");
    audit_refuses("\"lowered\":\t62,\n\t\t\t\"false_extern\":\t62", "\"lowered\":\t62,\n\t\t\t\"false_extern\":\t61",
                  "$.summary[\"aten.cat.default\"].false_extern: expected 62 (the count of its $.occurrences of that "
                  "op with false_extern true), got 61");
    /* a count left out, an extra class, an op outside the audit set */
    audit_refuses("\"lowered\":\t62,\n", "",
                  "$.summary[\"aten.cat.default\"].lowered: expected 62 (the count of its $.occurrences of that op "
                  "and class), got nothing");
    audit_refuses("\"lowered\":\t62,\n", "\"lowered\":\t62,\n\"true_fallback\":\t1,\n",
                  "$.summary[\"aten.cat.default\"].true_fallback: expected 0");
    audit_refuses("\"lowered\":\t62,\n", "\"lowered\":\t62,\n\"sideways\":\t0,\n",
                  "$.summary[\"aten.cat.default\"]: unknown key 'sideways' (expected a class or false_extern)");
    audit_refuses("\"summary\":\t{\n", "\"summary\":\t{\n\"aten.nothing.default\": {},\n",
                  "$.summary[\"aten.nothing.default\"]: expected an op of the audit set, got \"aten.nothing.default\"");
}

Test(golden_truth, an_entry_false_extern_that_its_class_and_verdict_do_not_give_is_refused)
{
    audit_refuses("\"false_extern\":\ttrue", "\"false_extern\":\tfalse",
                  "].false_extern: expected true (an old_rule verdict and a lowered class), got false");
}

Test(golden_truth, an_occurrence_listed_twice_is_refused)
{
    char *text = test_read(CLASSIFICATION);
    const char *first = strstr(text, "\"occurrences\":\t[{");
    cr_assert_not_null(first);
    const char *open = strchr(first, '{'), *close = strstr(open, "\n\t\t}");
    char entry[8192];
    snprintf(entry, sizeof entry, "\"occurrences\":\t[%.*s, {", (int)(close + 4 - open), open);
    audit_refuses("\"occurrences\":\t[{", entry, "classification.json $.occurrences: expected each occurrence "
                                                    "once, got \"");
    free(text);
}

Test(golden_truth, an_op_outside_the_audit_set_is_refused)
{
    audit_refuses("\"op\":\t\"aten.cat.default\"", "\"op\":\t\"aten.bogus.default\"",
                  "].op: expected an op of the audit set (aten.cat.default, ...), got aten.bogus.default");
}

Test(golden_truth, a_capture_path_outside_the_target_folder_is_refused)
{
    static const char *const outside[] = {"/etc/passwd", "captures/../../../etc/passwd", "captures/.x/capture.json",
                                          "captures/a/b/capture.json", "captures//capture.json",
                                          "captures/cumsum-bbbc239b67b8-008242e3eb1a/other.json"};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        char to[200], want[300];
        snprintf(to, sizeof to, "\"capture\":\t\"%s\"", outside[i]);
        snprintf(want, sizeof want, ".capture: expected null or captures/<scope>/capture.json (a capture of the "
                                    "target folder), got \"%s\"", outside[i]);
        audit_refuses("\"capture\":\t\"captures/cumsum-bbbc239b67b8-008242e3eb1a/capture.json\"", to, want);
    }
}

/* ej_parse refuses text with want in its message. */
static void parse_refused(const char *text, const char *want)
{
    ej_doc doc;
    ea_error err = {{0}};
    cr_expect_eq(ej_parse("t.json", text, &doc, &err), -1, "accepted: %s", text);
    cr_expect(strstr(err.msg, want), "expected '%s' in: %s", want, err.msg);
    cr_expect_null(doc.root);
}

static void parse_accepted(const char *text)
{
    ej_doc doc;
    ea_error err = {{0}};
    cr_expect_eq(ej_parse("t.json", text, &doc, &err), 0, "%s: %s", text, err.msg);
    ej_free(&doc);
}

Test(golden_truth, a_key_repeated_anywhere_in_a_document_is_refused)
{
    /* cJSON reads the first, Python's json the last: one file, two GPUs */
    parse_refused("{\"gpu_model\": \"H200\", \"gpu_model\": \"B200\"}",
                  "t.json $: expected unique keys, got duplicate key 'gpu_model'");
    parse_refused("{\"a\": {\"b\": [1, {\"x\": 1, \"y\": 2, \"x\": 3}]}}",
                  "t.json $.a.b[1]: expected unique keys, got duplicate key 'x'");
    parse_refused("{\"aten.cat.default\": {\"lowered\": 1, \"lowered\": 2}}",
                  "t.json $[\"aten.cat.default\"]: expected unique keys, got duplicate key 'lowered'");
    parse_accepted("{\"a\": {\"x\": 1}, \"b\": {\"x\": 1}, \"c\": [{\"x\": 1}, {\"x\": 2}]}");
}

Test(golden_truth, raw_control_characters_in_a_string_are_refused)
{
    parse_refused("{\"note\": \"a\tb\"}", "t.json:1:12: invalid JSON: raw control character 0x09 in a string");
    parse_refused("{\n\"note\": \"a\x01\"}", "t.json:2:11: invalid JSON: raw control character 0x01 in a string");
    parse_accepted("{\"note\": \"a\\tb\\u0001\\\"\\\\\"}\t\r\n"); /* escaped, and whitespace outside strings */
    parse_refused("{\"n\": \"\\t\t\"}", "t.json:1:10: invalid JSON: raw control"); /* columns count an escape's two */
}

Test(golden_truth, bytes_that_are_not_utf8_are_refused)
{
    parse_refused("{\"note\": \"\xff\"}", "t.json:1:11: invalid JSON: byte 0xff is not UTF-8");
    parse_refused("{\"note\": \"\xc0\x80\"}", "byte 0xc0 is not UTF-8"); /* overlong NUL */
    parse_refused("{\"note\": \"\xed\xa0\x80\"}", "byte 0xed is not UTF-8"); /* a surrogate */
    parse_refused("{\"note\": \"\xe2\x82\"}", "byte 0xe2 is not UTF-8"); /* cut short */
    parse_refused("{\"note\": \"\xf4\x90\x80\x80\"}", "byte 0xf4 is not UTF-8"); /* beyond U+10FFFF */
    parse_accepted("{\"note\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}");
}

Test(golden_truth, a_duplicate_key_in_a_target_json_is_refused_by_audit)
{
    const char *g = golden_with_classification(NULL, NULL);
    char path[4400];
    snprintf(path, sizeof path, "%s/" TARGET "/target.json", g);
    char *text = test_read(path), *at = strstr(text, "\"gpu_model\"");
    cr_assert_not_null(at);
    size_t n = strlen(text) + 64;
    char *out = malloc(n);
    snprintf(out, n, "%.*s\"gpu_model\": \"B200\", %s", (int)(at - text), text, at);
    cr_assert_eq(unlink(path), 0); /* the link to the committed file */
    free(test_write(g, TARGET "/target.json", out));
    cli_run r = test_cli("audit", "--golden", g, NULL);
    cr_expect_eq(r.status, 2, "accepted:\n%s", r.out);
    has(r.err, "target.json $: expected unique keys, got duplicate key 'gpu_model'");
    cli_run_free(&r);
    free(out);
    free(text);
}

/* The golden tree of this process and the files replace() wrote in it since golden_tree() last handed it out. Built
 * once: 1529 entries, a tree per row of the schema tables took the golden_truth suite from 6.6 to 9.4 CPU s. */
static const char *tree;
static char replaced[16][512];
static int nreplaced;

/* A golden folder of the committed occurrences, old rule, seed and targets, every file a link (test_mirror): the
 * process's one tree, each file replace() wrote in it a link to the committed one again. A test's own writes
 * outside replace() stay for its later calls (one process per test). */
static const char *golden_tree(void)
{
    static const char *const parts[] = {"occurrences", "old_rule.json", "seed_totals.json", "targets"};
    char cwd[2048], from[4600];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    for (; nreplaced > 0; nreplaced--) {
        const char *at = test_join(tree, replaced[nreplaced - 1]);
        snprintf(from, sizeof from, "%s/golden/%s", cwd, replaced[nreplaced - 1]);
        cr_assert_eq(unlink(at), 0, "%s", at);
        cr_assert_eq(symlink(from, at), 0, "%s", at);
    }
    if (tree)
        return tree;
    tree = test_tmpdir();
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(from, sizeof from, "%s/golden/%s", cwd, parts[i]);
        test_mirror(from, test_join(tree, parts[i]));
    }
    return tree;
}

/* golden/rel, a link in the tree, replaced by a file of text (the link unlinked: never written through). */
static void replace(const char *golden, const char *rel, const char *text)
{
    cr_assert_lt(nreplaced, (int)(sizeof replaced / sizeof replaced[0]));
    snprintf(replaced[nreplaced++], sizeof replaced[0], "%s", rel);
    cr_assert_eq(unlink(test_join(golden, rel)), 0);
    free(test_write(golden, rel, text));
}

/* golden/rel replaced by a copy of the committed file with its first from replaced by to. */
static void edit(const char *golden, const char *rel, const char *from, const char *to)
{
    char src[4400];
    snprintf(src, sizeof src, "golden/%s", rel);
    char *text = test_read(src), *at = strstr(text, from);
    cr_assert_not_null(at, "%s lacks '%s'", src, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    replace(golden, rel, out);
    free(out);
    free(text);
}

static void refused_by(const char *golden, const char *target, const char *cmd, const char *want)
{
    cli_run r = !strcmp(cmd, "rollup") ? test_cli("rollup", "--golden", golden, "--target", target, "--check", NULL)
                                       : test_cli(cmd, "--golden", golden, "--target", target, NULL);
    cr_expect_eq(r.status, 2, "%s accepted it (exit %d):\n%s", cmd, r.status, r.err);
    cr_expect(strstr(r.err, want), "%s: expected '%s' in:\n%s", cmd, want, r.err);
    cli_run_free(&r);
}

#define CAT_CAPTURE "targets/" TEST_TARGET "/captures/cat-045eee571676-5dbbb59b601c/capture.json"
#define CANDIDATE TEST_TARGET "-histc_scatter"

Test(golden_truth, a_capture_covering_a_model_the_corpus_lacks_is_refused_by_audit_and_rollup)
{
    const char *g = golden_tree();
    edit(g, CAT_CAPTURE, "torchbench/infer/densenet121/full_graph_000:cat_38",
         "torchbench/infer/no_such_model/full_graph_000:cat_38");
    const char *want = "cat-045eee571676-5dbbb59b601c/capture.json $.covers[0]: expected an id of the golden "
                       "occurrences, got \"torchbench/infer/no_such_model/full_graph_000:cat_38\"";
    refused_by(g, TEST_TARGET, "audit", want);
    refused_by(g, TEST_TARGET, "rollup", want);
}

Test(golden_truth, rollup_check_refuses_an_inherited_capture_recaptured_since)
{
    const char *g = golden_tree();
    cli_run r = test_cli("rollup", "--golden", g, "--target", CANDIDATE, "--check", NULL);
    cr_assert_neq(r.status, 2, "the tree as committed: %s", r.err);
    cli_run_free(&r);
    /* the base's capture changes under the candidate that inherits it (its digest was recorded at accept) */
    edit(g, CAT_CAPTURE, "\"covers\": [", "\"covers\":  [");
    const char *want = "$.captures_from.captures[\"cat-045eee571676-5dbbb59b601c\"]: expected ";
    refused_by(g, CANDIDATE, "audit", want);
    refused_by(g, CANDIDATE, "rollup", want);
}

/* One schema layer (finding 6): each number or shape the review slipped through, edited into a copy of the committed
 * target, is refused by the command that reads it, naming the file and JSON path. */
static void schema_refuses(const char *rel, const char *from, const char *to, const char *cmd, const char *want)
{
    const char *g = golden_tree();
    edit(g, rel, from, to);
    refused_by(g, TEST_TARGET, cmd, want);
}

#define BASELINES "targets/" TEST_TARGET "/baselines.json"
#define REPLAY "targets/" TEST_TARGET "/replay.json"
#define SANITIZE "targets/" TEST_TARGET "/sanitize.json"
#define TORCH_OPS "targets/" TEST_TARGET "/torch_ops.json"

/* 0 when path is absent; else 1, the file removed, so that a failing check leaves the committed tree as it was. */
static int leaked(const char *path)
{
    if (access(path, F_OK))
        return 0;
    cr_assert_eq(unlink(path), 0, "%s", path);
    return 1;
}

/* Every folder under dir real (none a link into golden/), n counting them. */
static void real_folders(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[4400];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cr_assert_eq(lstat(path, &st), 0, "%s", path);
        if (S_ISDIR(st.st_mode)) {
            ++*n;
            real_folders(path, n);
        } else if (S_ISLNK(st.st_mode)) {
            cr_assert_eq(stat(path, &st), 0, "%s", path);
            cr_assert(!S_ISDIR(st.st_mode), "%s links a committed folder: a write into it lands in golden/", path);
        }
    }
    closedir(d);
}

/* What a test or a command writes into a golden tree, a new file (plainly or renamed into place) or a committed
 * file replaced, lands in the tree: golden/ stays as committed. */
Test(golden_truth, a_write_into_the_test_tree_leaves_the_committed_golden_as_it_was)
{
    const char *g = golden_tree();
    char *before = test_read("golden/" BASELINES), *after;
    cJSON *empty = cJSON_CreateObject();
    ea_error err;
    free(test_write(g, CAT_CAPTURE ".plain-by-a-test", "{}\n"));
    cr_assert_eq(ej_write_atomic(test_join(g, CAT_CAPTURE ".renamed-by-a-test"), empty, &err), 0, "%s", err.msg);
    cr_assert_eq(leaked("golden/" CAT_CAPTURE ".plain-by-a-test") + leaked("golden/" CAT_CAPTURE ".renamed-by-a-test"),
                 0, "a write into the tree's captures went through to golden/");
    int folders = 0, committed = 2; /* occurrences and targets themselves */
    real_folders(g, &folders);
    real_folders("golden/occurrences", &committed);
    real_folders("golden/targets", &committed);
    cr_assert_eq(folders, committed, "the committed tree's folders, each made real");
    cr_assert_eq(ej_write_atomic(test_join(g, BASELINES), empty, &err), 0, "%s", err.msg);
    after = test_read("golden/" BASELINES);
    cr_assert(!strcmp(before, after), "golden/" BASELINES " rewritten through the tree");
    cJSON_Delete(empty);
    free(before), free(after);
}

/* The bad-input tests' golden (test_golden_links) is made the same way: their writes stay in it. */
Test(golden_truth, a_write_into_the_linked_golden_of_the_bad_input_tests_stays_there)
{
    const char *g = test_golden_links();
    cJSON *empty = cJSON_CreateObject();
    ea_error err;
    free(test_write(g, CAT_CAPTURE ".plain-by-a-test", "{}\n"));
    cr_assert_eq(ej_write_atomic(test_join(g, "occurrences/renamed-by-a-test.json"), empty, &err), 0, "%s", err.msg);
    cr_assert_eq(leaked("golden/" CAT_CAPTURE ".plain-by-a-test") + leaked("golden/occurrences/renamed-by-a-test.json"),
                 0, "a write into the linked golden went through to golden/");
    cJSON_Delete(empty);
}

/* One schema_refuses per row: the file, its first from replaced by to, the command that reads it, the message. */
typedef struct {
    const char *rel, *from, *to, *cmd, *want;
} refusal;

static void refuse_each(const refusal *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        schema_refuses(rows[i].rel, rows[i].from, rows[i].to, rows[i].cmd, rows[i].want);
}

#define REFUSE_EACH(rows) refuse_each(rows, sizeof rows / sizeof rows[0])

Test(golden_truth, baselines_times_counts_and_sizes_out_of_range_are_refused)
{
    static const refusal rows[] = {
        {BASELINES, "\"median_us\":188.63466382026672", "\"median_us\":-188.6", "audit",
         "$.scopes[0].paths[0].time.median_us: expected a positive finite time, got -188.6"},
        {BASELINES, "\"median_us\":166.42057044165475", "\"median_us\":-5", "audit",
         "$.scopes[2].paths[1].candidates[6].median_us: expected a positive time below 1e9 us, got -5"},
        {BASELINES, "\"samples\":30", "\"samples\":-30", "audit",
         "$.scopes[0].paths[0].time.samples: expected an integer >= 1, got -30"},
        {BASELINES, "\"calls_per_replay\":6", "\"calls_per_replay\":-20", "audit",
         "$.scopes[0].paths[0].time.calls_per_replay: expected an integer >= 1, got -20"},
        {BASELINES, "\"floor_bytes\":56623104", "\"floor_bytes\":1e308", "rollup",
         "$.scopes[0].config.floor_bytes: expected integer of magnitude below 2^53"},
        /* the measured floor reads its written part of the bytes (floor_path.h) */
        {BASELINES, "\"floor_written_bytes\":18874368", "\"floor_written_bytes\":56623105", "audit",
         "$.scopes[0].config.floor_written_bytes: expected a part of floor_bytes (56623104), got 56623105"},
        {BASELINES, "\"floor_written_bytes\":18874368", "\"floor_written_bytes\":-1", "audit",
         "$.scopes[0].config.floor_written_bytes: expected an integer >= 1, got -1"},
        {BASELINES, "\"bytes\": 1073741824", "\"bytes\": 1e308", "audit",
         "$.copy_bandwidth.bytes: expected integer of magnitude below 2^53"},
        /* found by make campaign: a launch's bytes were read as any number */
        {BASELINES, "\"bytes\":2359296", "\"bytes\":1e308", "audit",
         ".paths[0].kernel_launches[0].bytes: expected integer of magnitude below 2^53"},
        {BASELINES, "\"bytes\":2359296", "\"bytes\":-1", "audit",
         ".paths[0].kernel_launches[0].bytes: expected an integer >= 0, got -1"},
    };
    REFUSE_EACH(rows);
}

Test(golden_truth, replay_sanitize_and_capture_numbers_beyond_range_are_refused)
{
    static const refusal rows[] = {
        {REPLAY, "\"q3\":\t30.2619993686676", "\"q3\":\t9223372036854775808", "audit",
         "replay.json $[0].replay_us.q3: expected a time below 1e9 us, got 9.22337e+18"},
        {SANITIZE, "\"errors\": 0}", "\"errors\": 9007199254740993}", "audit",
         "sanitize.json $.totals[0].errors: expected integer of magnitude below 2^53"},
        {CAT_CAPTURE, "\"name\": \"out0\",\n   \"dtype\": \"bf16\",\n   \"sizes\": [\n    64,",
         "\"name\": \"out0\",\n   \"dtype\": \"bf16\",\n   \"sizes\": [\n    9007199254740993,", "audit",
         "capture.json $.outputs[0].sizes[0]: expected integer of magnitude below 2^53"},
    };
    REFUSE_EACH(rows);
}

Test(golden_truth, torch_ops_sizes_dtypes_and_counts_out_of_range_are_refused)
{
    static const refusal rows[] = {
        {TORCH_OPS, "18874368\n     ]", "2147483648\n     ]", "rollup",
         "torch_ops.json $.points[0].inputs[0].sizes: expected 18874368 elements"},
        {TORCH_OPS, "18874368\n     ]", "4294967296\n     ]", "rollup",
         "torch_ops.json $.points[0].inputs[0].sizes: expected 18874368 elements"},
        {TORCH_OPS, "18874368\n     ]", "-5\n     ]", "rollup",
         "torch_ops.json $.points[0].inputs[0].sizes[0]: expected an integer >= 0, got -5"},
        {TORCH_OPS, "18874368\n     ]", "1e999\n     ]", "rollup",
         "torch_ops.json $.points[0].inputs[0].sizes[0]: expected integer, got number inf"},
        {TORCH_OPS, "\"dtype\": \"i64\"", "\"dtype\": 7", "rollup",
         "torch_ops.json $.points[0].inputs[0].dtype: expected string, got number 7"},
        {TORCH_OPS, "\"calls_per_replay\": 20", "\"calls_per_replay\": -20", "rollup",
         "torch_ops.json $.timing.calls_per_replay: expected an integer >= 1, got -20"},
    };
    REFUSE_EACH(rows);
}

/* What the repository's campaign (ci/campaign) still found accepted after the rules above: each now refused. */
Test(golden_truth, times_the_campaign_found_unbounded_are_refused)
{
    static const refusal rows[] = {
        {TORCH_OPS, "\"steady_us\": 6771.622", "\"steady_us\": 9007199254740993", "rollup",
         "torch_ops.json $.points[0].pipeline.min_us: expected positive min_us and steady_us below 1e9 us"},
        {CAT_CAPTURE, "\"q3_us\": 30.961", "\"q3_us\": 9223372036854775808", "audit",
         ".q3_us: expected a time below 1e9 us, got 9.22337e+18"},
        {BASELINES, "\"torch_compiled_us\":30.845,", "\"torch_compiled_us\":1e308,", "audit",
         ".fidelity.torch_compiled_us: expected null or a positive time below 1e9 us, got 1e+308"},
    };
    REFUSE_EACH(rows);
}

/* golden/rel replaced by the committed document as change leaves its parsed tree. */
static void edit_doc(const char *golden, const char *rel, void (*change)(cJSON *doc))
{
    char src[4400];
    snprintf(src, sizeof src, "golden/%s", rel);
    char *text = test_read(src);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "%s does not parse", src);
    change(doc);
    char *out = cJSON_Print(doc);
    replace(golden, rel, out);
    cJSON_free(out);
    cJSON_Delete(doc);
    free(text);
}

/* schema_refuses for a change made on the parsed document. */
static void doc_refuses(const char *rel, void (*change)(cJSON *doc), const char *cmd, const char *want)
{
    const char *g = golden_tree();
    edit_doc(g, rel, change);
    refused_by(g, TEST_TARGET, cmd, want);
}

/* One doc_refuses per row. */
typedef struct {
    const char *rel;
    void (*change)(cJSON *doc);
    const char *cmd, *want;
} doc_refusal;

static void doc_refuse_each(const doc_refusal *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        doc_refuses(rows[i].rel, rows[i].change, rows[i].cmd, rows[i].want);
}

#define DOC_REFUSE_EACH(rows) doc_refuse_each(rows, sizeof rows / sizeof rows[0])

static cJSON *at(cJSON *doc, const char *key, int i)
{
    cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, key), i);
    cr_assert_not_null(x, "no %s[%d]", key, i);
    return x;
}

/* list[i] once more, right after itself (the items after it moved back; this cJSON's InsertItemInArray refuses) */
static void repeat(cJSON *list, int i)
{
    cJSON *rest = cJSON_CreateArray(), *x;
    while (cJSON_GetArraySize(list) > i + 1)
        cJSON_AddItemToArray(rest, cJSON_DetachItemFromArray(list, i + 1));
    cJSON_AddItemToArray(list, cJSON_Duplicate(cJSON_GetArrayItem(list, i), 1));
    while ((x = cJSON_DetachItemFromArray(rest, 0)) != NULL)
        cJSON_AddItemToArray(list, x);
    cJSON_Delete(rest);
}

static void result_twice(cJSON *d) { repeat(cJSON_GetObjectItemCaseSensitive(d, "scopes"), 0); }
static void path_twice(cJSON *d) { repeat(cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 0), "paths"), 0); }
static void unmeasured_twice(cJSON *d) { repeat(cJSON_GetObjectItemCaseSensitive(d, "unmeasured"), 0); }

Test(golden_truth, a_result_a_path_or_an_unmeasured_point_listed_twice_in_baselines_is_refused)
{
    static const doc_refusal rows[] = {
        /* the review's "a scope listed twice in baselines.json": audit said exit 0 and counted it twice */
        {BASELINES, result_twice, "audit",
         "baselines.json $.scopes[1]: expected each result once (its family, point and config), got a repeat of "
         "$.scopes[0]"},
        {BASELINES, result_twice, "rollup", "baselines.json $.scopes[1]: expected each result once"},
        {BASELINES, path_twice, "audit",
         "baselines.json $.scopes[0].paths[1]: expected each path once (its name and mode), got a repeat of "
         "$.scopes[0].paths[0]"},
        {BASELINES, unmeasured_twice, "audit",
         "baselines.json $.unmeasured[1]: expected each unmeasured point once, got a repeat of $.unmeasured[0]"},
    };
    DOC_REFUSE_EACH(rows);
}

static void occurrences_plus_one(cJSON *d)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 0), "occurrences");
    cJSON_SetNumberValue(v, v->valuedouble + 1);
}
static void scope_id_unknown(cJSON *d)
{
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 0), "scope_ids"), 0,
                             cJSON_CreateString("no-such-scope"));
}

/* what the campaign found still accepted: a count in a family's view (the replay's outputs) of 1e308 or -5 */
static cJSON *replay_outputs(cJSON *d)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 14), "view"), "replay"),
        "outputs");
    cr_assert(cJSON_IsNumber(v), "baselines.json $.scopes[14].view.replay.outputs: expected the replay's count");
    return v;
}
static void view_count_huge(cJSON *d) { cJSON_SetNumberValue(replay_outputs(d), 1e308); }
static void view_count_negative(cJSON *d) { cJSON_SetNumberValue(replay_outputs(d), -5); }

Test(golden_truth, a_view_number_out_of_range_is_refused)
{
    static const doc_refusal rows[] = {
        {BASELINES, view_count_huge, "audit",
         "baselines.json $.scopes[14].view.replay.outputs: expected a count, size, time or error in [0, 2^53), got 1e+308"},
        {BASELINES, view_count_huge, "rollup", "baselines.json $.scopes[14].view.replay.outputs: expected a count"},
        {BASELINES, view_count_negative, "audit",
         "baselines.json $.scopes[14].view.replay.outputs: expected a count, size, time or error in [0, 2^53), got -5"},
    };
    DOC_REFUSE_EACH(rows);
}

/* a result's occurrence count is its scopes' golden counts: one more is a count the corpus never had */
Test(golden_truth, a_result_occurrence_count_its_scopes_do_not_give_is_refused)
{
    static const doc_refusal rows[] = {
        {BASELINES, occurrences_plus_one, "audit",
         "baselines.json $.scopes[0].occurrences: expected the golden count of its scope_ids"},
        {BASELINES, occurrences_plus_one, "rollup",
         "baselines.json $.scopes[0].occurrences: expected the golden count of its scope_ids"},
        {BASELINES, scope_id_unknown, "audit",
         "baselines.json $.scopes[0].scope_ids[0]: expected a scope of golden point"},
    };
    DOC_REFUSE_EACH(rows);
}

/* the second point's first occurrence replaced by the first point's: one node counted under two points */
static void occurrence_under_two_points(cJSON *d)
{
    cJSON *first = at(at(at(d, "points", 0), "scopes", 0), "occurrences", 0);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(at(at(d, "points", 1), "scopes", 0), "occurrences"), 0,
                             cJSON_Duplicate(first, 1));
}

Test(golden_truth, an_occurrence_listed_under_two_points_is_refused)
{
    static const doc_refusal rows[] = {
        {"occurrences/cumsum.json", occurrence_under_two_points, "audit",
         "cumsum.json $.points[1].scopes[0].occurrences[0].id: expected each occurrence once in the document, got a "
         "repeat of $.points[0].scopes[0].occurrences[0]"},
    };
    DOC_REFUSE_EACH(rows);
}

static cJSON *first_time(cJSON *d)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 0),
                                                                                                "paths"), 0), "time");
}

static void scale(cJSON *o, const char *key, double k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    cJSON_SetNumberValue(v, v->valuedouble * k);
}

static void iqr_doubled(cJSON *d) { scale(first_time(d), "iqr_us", 2); }
static void speedup_stored(cJSON *d) { cJSON_AddNumberToObject(at(d, "scopes", 0), "speedup", 2); }
static void floor_us_stored(cJSON *d) { cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(at(d, "scopes", 0), "floor"), "us", 2); }
static void fraction_stored(cJSON *d) { cJSON_AddNumberToObject(at(d, "scopes", 0), "floor_fraction", 0.5); }
static void l2_huge(cJSON *d) { scale(cJSON_GetObjectItemCaseSensitive(d, "gpu"), "l2_bytes", 1e300); }

Test(golden_truth, a_derived_baselines_number_that_its_sources_do_not_give_is_refused)
{
    static const doc_refusal rows[] = {
        /* the drift rule's notch is judged on iqr_us: it must be q3_us - q1_us */
        {BASELINES, iqr_doubled, "audit", "baselines.json $.scopes[0].paths[0].time.iqr_us: expected q3_us - q1_us = "},
        /* speedups, floors and fractions are derived when read (fractions.h, schema 3): a stored one is refused */
        {BASELINES, speedup_stored, "rollup", "baselines.json $.scopes[0]: unknown key 'speedup'"},
        {BASELINES, floor_us_stored, "audit", "baselines.json $.scopes[0].floor: unknown key 'us'"},
        {BASELINES, fraction_stored, "audit", "baselines.json $.scopes[0]: unknown key 'floor_fraction'"},
        {BASELINES, l2_huge, "audit", "baselines.json $.gpu.l2_bytes: expected integer of magnitude below 2^53"},
    };
    DOC_REFUSE_EACH(rows);
}

/* The first path of d tuned over variants (one holding "candidates"): its result and path index. */
static cJSON *first_tuned(cJSON *d, int *ri, int *pi)
{
    cJSON *r, *p;
    *ri = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "scopes")) {
        *pi = 0;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths")) {
            if (cJSON_HasObjectItem(p, "candidates"))
                return p;
            ++*pi;
        }
        ++*ri;
    }
    cr_assert_fail("no tuned path in the committed baselines");
    return NULL;
}

/* The kept variant's entry of the first tuned path 10% slower than the path's warm time: a table older than its
 * time, naming another variant the fastest or none at that time. */
static void table_older(cJSON *d)
{
    int ri, pi;
    cJSON *p = first_tuned(d, &ri, &pi), *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(p, "candidates"))
        if (!strcmp(ej_str(c, "variant"), ej_str(p, "variant")))
            scale(c, "median_us", 1.1);
}

/* A tuned path's time and its variant table come from one run: a stored time its kept variant's entry does not
 * hold is refused, naming the path (gate --propose takes the two together). */
Test(golden_truth, a_tuned_time_its_variant_table_does_not_give_is_refused)
{
    cJSON *d = test_committed_baselines();
    int ri, pi;
    first_tuned(d, &ri, &pi);
    cJSON_Delete(d);
    char want[160];
    snprintf(want, sizeof want, "baselines.json $.scopes[%d].paths[%d].candidates: expected an entry of the kept "
             "variant", ri, pi);
    doc_refuses(BASELINES, table_older, "audit", want);
}

#define CUMSUM_OCC "occurrences/cumsum.json"

static cJSON *signature(cJSON *d)
{
    return cJSON_GetObjectItemCaseSensitive(at(d, "points", 0), "signature");
}

static cJSON *first_arg(cJSON *d)
{
    return at(signature(d), "args", 0);
}

static void output_without_strides(cJSON *d)
{
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(signature(d), "output"), "strides");
}

static void arg_without_strides(cJSON *d) { cJSON_DeleteItemFromObjectCaseSensitive(first_arg(d), "strides"); }
static void arg_stride_short(cJSON *d)
{
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(first_arg(d), "strides"), 0);
}
static void arg_not_contiguous(cJSON *d)
{
    cJSON_ReplaceItemInObjectCaseSensitive(first_arg(d), "contiguous", cJSON_CreateFalse());
}
static void arg_dtype_7(cJSON *d)
{
    cJSON_ReplaceItemInObjectCaseSensitive(first_arg(d), "dtype", cJSON_CreateNumber(7));
}
static void arg_dtype_unknown(cJSON *d)
{
    cJSON_ReplaceItemInObjectCaseSensitive(first_arg(d), "dtype", cJSON_CreateString("q4"));
}
static void arg_size_negative(cJSON *d)
{
    cJSON_SetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(first_arg(d), "sizes"), 0), -5);
}

/* the copy's occurrences added to the total, so that only the repeat is wrong */
static void point_twice(cJSON *d)
{
    repeat(cJSON_GetObjectItemCaseSensitive(d, "points"), 0);
    cJSON *occ = cJSON_GetObjectItemCaseSensitive(d, "occurrences");
    cJSON_SetNumberValue(occ, occ->valuedouble + ej_num(at(d, "points", 0), "count"));
}

Test(golden_truth, an_occurrence_signature_tensor_without_strides_or_with_a_false_layout_is_refused)
{
    static const doc_refusal rows[] = {
        /* the review's tensor without strides: audit and rollup said exit 0, run --plan called the point unsupported */
        {CUMSUM_OCC, output_without_strides, "audit",
         "cumsum.json $.points[0].signature.output.strides: expected a value, got nothing (missing key)"},
        {CUMSUM_OCC, output_without_strides, "rollup", "cumsum.json $.points[0].signature.output.strides: "},
        {CUMSUM_OCC, arg_without_strides, "audit",
         "cumsum.json $.points[0].signature.args[0].strides: expected a value, got nothing (missing key)"},
        {CUMSUM_OCC, arg_stride_short, "audit",
         "cumsum.json $.points[0].signature.args[0].strides: expected 2 strides, one per size, got 1"},
        {CUMSUM_OCC, arg_not_contiguous, "audit",
         "cumsum.json $.points[0].signature.args[0].contiguous: expected true (what its sizes and strides give), "
         "got false"},
        {CUMSUM_OCC, arg_dtype_7, "audit",
         "cumsum.json $.points[0].signature.args[0].dtype: expected string, got number 7"},
        {CUMSUM_OCC, arg_dtype_unknown, "audit",
         "cumsum.json $.points[0].signature.args[0].dtype: expected a dtype of the table (bf16, f32, i64, ...), got "
         "\"q4\""},
        {CUMSUM_OCC, arg_size_negative, "audit",
         "cumsum.json $.points[0].signature.args[0].sizes[0]: expected an integer >= 0, got -5"},
    };
    DOC_REFUSE_EACH(rows);
}

Test(golden_truth, an_occurrence_point_listed_twice_is_refused)
{
    doc_refuses(CUMSUM_OCC, point_twice, "audit",
                "cumsum.json $.points[1]: expected each point once, got a repeat of $.points[0]");
}
