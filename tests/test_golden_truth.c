/* test_golden_truth.c: golden data that cannot say something false with exit 0 (issue 26): derived counts
 * checked against what they derive from, paths confined to the target folder. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "helpers.h"
#include "json.h"
#include "readfile.h"

#define TARGET "targets/" TEST_TARGET
#define CLASSIFICATION "golden/" TARGET "/classification.json"

static char *join(const char *dir, const char *name)
{
    static char buf[4][4096];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static void has(const char *text, const char *needle)
{
    cr_assert(strstr(text, needle), "expected '%s' in:\n%s", needle, text);
}

/* A golden folder linking the committed one's files, with the committed classification.json's first `from`
 * replaced by `to` (from NULL: the file as committed). */
static const char *golden_with_classification(const char *from, const char *to)
{
    static const char *const parts[] = {"occurrences", "old_rule.json", TARGET "/target.json", TARGET "/captures",
                                        TARGET "/baselines.json", TARGET "/torch_ops.json"};
    const char *dir = test_tmpdir();
    char cwd[2048], target[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(ea_make_dirs(join(dir, TARGET), &(ea_error){{0}}), 0);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(target, sizeof target, "%s/golden/%s", cwd, parts[i]);
        cr_assert_eq(symlink(target, join(dir, parts[i])), 0);
    }
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
                  "true_fallback: expected 24 (the count of its $.occurrences of that op and class), got "
                  "9007199254740992"); /* 2^53+1 reads as the nearest double */
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
