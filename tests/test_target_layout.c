/* The one owner of a target folder's layout (target_layout.h): the paths it builds, the forms it reads back,
 * and that no other source file spells an entry's name in a string literal (comments may: they document). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readfile.h"
#include "target/target_layout.h"

Test(target_layout, paths_are_the_folder_and_the_entry_name)
{
    char buf[256];
    cr_assert_eq(ea_tf_path("golden/targets/T", EA_TF_BASELINES, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "golden/targets/T/baselines.json");
    cr_assert_eq(ea_tf_path("d", EA_TF_CAPTURES, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "d/captures");
    cr_assert_str_eq(ea_tf_name(EA_TF_TARGET), "target.json");
    cr_assert_str_eq(ea_tf_name(EA_TF_CLASSIFICATION), "classification.json");
    cr_assert_str_eq(ea_tf_name(EA_TF_TORCH_OPS), "torch_ops.json");
    cr_assert_str_eq(ea_tf_name(EA_TF_REPLAY), "replay.json");
    cr_assert_str_eq(ea_tf_name(EA_TF_SANITIZE), "sanitize.json");
    cr_assert_str_eq(ea_tf_name(EA_TF_REPLICA_GAP), "replica_gap.json");
}

Test(target_layout, a_path_that_does_not_fit_is_refused)
{
    char small[8];
    cr_assert_eq(ea_tf_path("golden", EA_TF_BASELINES, small, sizeof small), -1);
    cr_assert_eq(ea_tf_capture(NULL, "a_long_scope", small, sizeof small), -1);
    cr_assert_eq(ea_tf_capture("d", "s", small, sizeof small), -1);
}

Test(target_layout, a_capture_path_is_absolute_under_a_folder_and_relative_without_one)
{
    char buf[256];
    cr_assert_eq(ea_tf_capture("golden/targets/T", "cat_1", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "golden/targets/T/captures/cat_1/capture.json");
    cr_assert_eq(ea_tf_capture(NULL, "cat_1", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "captures/cat_1/capture.json");
}

Test(target_layout, the_scope_of_a_recorded_capture_path_is_read_back)
{
    char buf[64] = "stale";
    cr_assert_eq(ea_tf_capture_scope("captures/cat_1/capture.json", buf, sizeof buf), 1);
    cr_assert_str_eq(buf, "cat_1");
    cr_assert_eq(ea_tf_capture_scope(NULL, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(ea_tf_capture_scope("captures//capture.json", buf, sizeof buf), 0, "an empty scope");
    cr_assert_eq(ea_tf_capture_scope("captures/cat_1", buf, sizeof buf), 0, "no file under the scope");
    cr_assert_eq(ea_tf_capture_scope("other/cat_1/capture.json", buf, sizeof buf), 0);
}

Test(target_layout, complete_targets_hold_the_entries_before_the_records)
{
    cr_assert_eq(EA_TF_FIRST_RECORD, EA_TF_SANITIZE);
    cr_assert_lt(EA_TF_CAPTURES, EA_TF_FIRST_RECORD);
    cr_assert_lt(EA_TF_FIRST_RECORD, EA_TF_REPLICA_GAP + 1);
}

/* What the sources may not spell: every entry's name, and the capture folder's path forms. */
static const char *const spelled[] = {"target.json", "classification.json", "baselines.json", "torch_ops.json",
                                      "replay.json", "sanitize.json", "replica_gap.json", "captures/",
                                      "capture.json", NULL};

/* The first string literal of text (outside comments and character constants) that spells a name:
 * "file:line: literal" into out, 1; 0 when none. */
static int first_spelling(const char *file, const char *text, char *out, size_t n)
{
    int line = 1;
    for (const char *p = text; *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (p[1] && p[1] != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
                line += *p == '\n';
            if (!*p)
                return 0;
            p++;
        } else if (*p == '"' || *p == '\'') {
            const char *start = ++p, q = p[-1];
            while (*p && *p != q && *p != '\n')
                p += p[0] == '\\' && p[1] ? 2 : 1;
            for (int i = 0; q == '"' && spelled[i]; i++) {
                const char *hit = strstr(start, spelled[i]);
                if (hit && hit < p) {
                    snprintf(out, n, "%s:%d: \"%.*s\" spells %s", file, line, (int)(p - start), start, spelled[i]);
                    return 1;
                }
            }
            if (!*p)
                return 0;
        } else {
            line += *p == '\n';
        }
    }
    return 0;
}

Test(target_layout, the_scan_finds_a_name_in_a_literal_and_not_in_a_comment)
{
    char where[512];
    cr_assert_eq(first_spelling("x.c", "/* baselines.json */ // target.json\nint a = 'c';", where, sizeof where), 0);
    cr_assert_eq(first_spelling("x.c", "/* \"baselines.json\" */\nf(\"%s/baselines.json\");", where, sizeof where), 1);
    cr_assert_str_eq(where, "x.c:2: \"%s/baselines.json\" spells baselines.json");
    cr_assert_eq(first_spelling("x.c", "g(\"a \\\" captures/x\");", where, sizeof where), 1, "past an escaped quote");
}

static char found[8192];
static int nfound, nscanned;

static int scan_one(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
    const char *dot = strrchr(path, '.');
    char *text, where[512];
    size_t len;
    ea_error err;
    if (kind != FTW_F || !dot || strstr(path, "target_layout.") ||
        (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".cu") && strcmp(dot, ".cuh")))
        return 0;
    cr_assert_eq(ea_read_file(path, &text, &len, &err), 0, "%s", err.msg);
    nscanned++;
    if (first_spelling(path, text, where, sizeof where)) {
        nfound++;
        snprintf(found + strlen(found), sizeof found - strlen(found), "%s\n", where);
    }
    free(text);
    return 0;
}

Test(target_layout, no_other_source_file_spells_a_target_entry)
{
    static const char *const roots[] = {"src", "repros", "tools"};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(nftw(roots[i], scan_one, 16, FTW_PHYS), 0, "cannot walk %s", roots[i]);
    cr_assert_gt(nscanned, 100, "only %d sources scanned", nscanned);
    cr_assert_eq(nfound, 0, "the target folder's layout is target_layout.h's to spell (ea_tf_path, EA_*_NAME):\n%s",
                 found);
}
