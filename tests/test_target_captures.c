/* target.h's ea_target_captures_load: a candidate target beside its base (golden/targets/<base> and
 * <base>-<lowering>, both copies of tests/fixtures/targets/H200) holds some captures and inherits the others
 * through target.json's "captures_from". Loaded, it gives the base's scope set in folder order, the inherited
 * captures read from the base's folder; every way captures_from can be wrong is refused naming target.json and
 * the JSON path (or, for a scope both held and inherited, the capture folder and the base). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/capture.h"
#include "helpers.h"
#include "base/json.h"
#include "target/target.h"
#include "target_fixture.h"

#define BASE TEST_TARGET
#define CAND TEST_TARGET "-x"
#define LF_INDEX_ADD_SCOPE "index_add-b36c21aae6f6-955d7c11d470"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* Inherited by the candidate; it holds MOE_SCOPE and LF_INDEX_ADD_SCOPE itself. */
static const char *const inherited[] = {CAT_SCOPE, LF_CUMSUM_SCOPE, XL_SCOPE};
#define NINHERITED 3

static void sh(const char *cmd)
{
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A golden whose targets/ holds the fixture target as the base; returns golden/targets. */
static const char *base_golden(void)
{
    static char targets[4200];
    char cmd[8800];
    snprintf(targets, sizeof targets, "%s/targets", target_golden());
    snprintf(cmd, sizeof cmd, "cp -rL '%s' '%s/%s'", FIXTURE_TARGET, targets, BASE);
    sh(cmd);
    return targets;
}

/* targets/<name>/captures/<scope>/capture.json's digest (asserts it reads). */
static void digest(const char *targets, const char *name, const char *scope, char out[EA_DIGEST_LEN])
{
    char path[4600];
    ea_error err;
    snprintf(path, sizeof path, "%s/%s/captures/%s/capture.json", targets, name, scope);
    cr_assert_eq(ea_capture_digest(path, out, &err), 0, "%s", err.msg);
}

/* dir/target.json's captures_from replaced by from (NULL: removed). */
static void set_from(const char *dir, cJSON *from)
{
    cJSON *doc = target_load(dir, "target.json");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "captures_from");
    if (from)
        cJSON_AddItemToObject(doc, "captures_from", from);
    target_save(dir, "target.json", doc);
}

/* The candidate as golden accept installs one: the fixture target renamed to CAND with lowering "x", without the
 * inherited captures, its captures_from naming them with the base's digests. Returns its folder. */
static const char *candidate(const char *targets)
{
    static char dir[4400];
    char cmd[9000];
    snprintf(dir, sizeof dir, "%s/%s", targets, CAND);
    snprintf(cmd, sizeof cmd, "cp -rL '%s' '%s'", FIXTURE_TARGET, dir);
    sh(cmd);
    target_set_string(dir, "target.json", "", "name", CAND);
    target_set_string(dir, "target.json", "", "lowering", "x");
    cJSON *from = cJSON_CreateObject(), *caps = cJSON_AddObjectToObject(from, "captures");
    cJSON_AddStringToObject(from, "target", BASE);
    for (int i = 0; i < NINHERITED; i++) {
        char d[EA_DIGEST_LEN];
        digest(targets, BASE, inherited[i], d);
        cJSON_AddStringToObject(caps, inherited[i], d);
        snprintf(cmd, sizeof cmd, "rm -r '%s/captures/%s'", dir, inherited[i]);
        sh(cmd);
    }
    set_from(dir, from);
    ea_target t;
    ea_error err;
    cr_assert_eq(ea_target_read(dir, &t, &err), 0, "the candidate's target.json is a valid one: %s", err.msg);
    return dir;
}

/* dir/target.json's captures_from.<key> set to value (taken). */
static void set_member(const char *dir, const char *key, cJSON *value)
{
    cJSON *doc = target_load(dir, "target.json"), *from = cJSON_GetObjectItemCaseSensitive(doc, "captures_from");
    cJSON_DeleteItemFromObjectCaseSensitive(from, key);
    cJSON_AddItemToObject(from, key, value);
    target_save(dir, "target.json", doc);
}

/* Loading dir is refused with a message holding each of the NULL-terminated needles. */
static void refused(const char *dir, ...)
{
    ea_captures caps;
    ea_error err = {{0}};
    cr_assert_eq(ea_target_captures_load(dir, &caps, &err), -1, "loaded, %d captures", caps.n);
    va_list ap;
    va_start(ap, dir);
    for (const char *s; (s = va_arg(ap, const char *));)
        has(err.msg, s);
    va_end(ap);
}

static int inherits(const char *scope)
{
    for (int i = 0; i < NINHERITED; i++)
        if (!strcmp(inherited[i], scope))
            return 1;
    return 0;
}

Test(target_captures, a_candidate_gives_its_bases_captures_the_inherited_read_from_the_base)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    char base_dir[4400];
    snprintf(base_dir, sizeof base_dir, "%s/%s", targets, BASE);
    ea_captures mine, theirs;
    ea_error err;
    cr_assert_eq(ea_target_captures_load(dir, &mine, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_target_captures_load(base_dir, &theirs, &err), 0, "%s", err.msg);
    cr_assert_eq(mine.n, theirs.n);
    cr_assert_eq(mine.n, 5, "the fixture's five captures");
    cr_assert_str_eq(mine.dir, dir, "messages name the candidate's folder");
    int triton_steps = 0;
    for (int i = 0; i < mine.n; i++) {
        const ea_capture *c = &mine.items[i];
        cr_assert_str_eq(c->scope, theirs.items[i].scope, "one folder-name order, inherited and held interleaved");
        /* an inherited capture, its cubins and wrappers are the base's files; a held one the candidate's */
        char want[4600];
        snprintf(want, sizeof want, "%s/captures/%s/", inherits(c->scope) ? base_dir : dir, c->scope);
        cr_assert(!strncmp(c->file, want, strlen(want)), "%s is not under %s", c->file, want);
        cr_assert(!strncmp(c->dir, want, strlen(want) - 1), "%s is not %s", c->dir, want);
        for (int r = 0; r < c->nruns; r++)
            for (int s = 0; s < c->runs[r].nsteps; s++)
                if (c->runs[r].steps[s].triton) {
                    cr_assert(!strncmp(c->runs[r].steps[s].cubin, want, strlen(want)), "%s is not under %s",
                              c->runs[r].steps[s].cubin, want);
                    triton_steps += inherits(c->scope);
                }
    }
    cr_assert_gt(triton_steps, 0, "some inherited capture has a cubin whose path was checked");
    ea_captures_free(&mine);
    ea_captures_free(&theirs);
}

Test(target_captures, without_captures_from_or_target_json_a_folder_gives_its_own_captures)
{
    const char *dir = target_copy("own");
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_target_captures_load(dir, &caps, &err), 0, "%s", err.msg);
    cr_assert_eq(caps.n, 5);
    ea_captures_free(&caps);
    char path[4400];
    snprintf(path, sizeof path, "%s/target.json", dir);
    cr_assert_eq(remove(path), 0);
    cr_assert_eq(ea_target_captures_load(dir, &caps, &err), 0, "%s", err.msg);
    cr_assert_eq(caps.n, 5, "a bare captures folder's parent");
    ea_captures_free(&caps);
    /* a target.json that does not read is not taken for an absent one */
    free(test_write(dir, "target.json", "{\"captures_from\": "));
    refused(dir, "/target.json", NULL);
    free(test_write(dir, "target.json", "{\"captures_from\": []}"));
    refused(dir, "/target.json $.captures_from: expected object, got array", NULL);
}

Test(target_captures, a_base_recaptured_since_is_refused_naming_both_files)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    char file[4600];
    snprintf(file, sizeof file, "%s/%s/captures/%s/capture.json", targets, BASE, XL_SCOPE);
    FILE *f = fopen(file, "a");
    cr_assert_not_null(f);
    fputs("\n", f); /* one byte: still the same JSON, no longer the same capture.json */
    fclose(f);
    char got[EA_DIGEST_LEN], want[4800];
    digest(targets, BASE, XL_SCOPE, got);
    snprintf(want, sizeof want, "/%s/target.json $.captures_from.captures[\"%s\"]: expected %s as it was when", CAND,
             XL_SCOPE, file);
    refused(dir, want, "was recaptured since", got, "ci/golden-stage --lowering", NULL);
}

Test(target_captures, a_capture_missing_in_the_base_is_refused)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    char cmd[4800], want[4800];
    snprintf(cmd, sizeof cmd, "rm -r '%s/%s/captures/%s'", targets, BASE, CAT_SCOPE);
    sh(cmd);
    snprintf(want, sizeof want, "/%s/target.json $.captures_from.captures[\"%s\"]: expected %s/%s/captures/%s/capture.json, "
             "a capture of the base target, got ", CAND, CAT_SCOPE, targets, BASE, CAT_SCOPE);
    refused(dir, want, "capture.json: cannot read", NULL);
}

Test(target_captures, a_scope_both_held_and_inherited_is_refused)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    char cmd[9000], want[9000];
    snprintf(cmd, sizeof cmd, "cp -r '%s/%s/captures/%s' '%s/captures/'", targets, BASE, LF_CUMSUM_SCOPE, dir);
    sh(cmd);
    snprintf(want, sizeof want, "%s/captures/%s: expected a capture the target holds or inherits from %s/%s, got one it "
             "does both", dir, LF_CUMSUM_SCOPE, targets, BASE);
    refused(dir, want, NULL);
}

/* Each malformed digest, names the member's path. */
Test(target_captures, a_digest_not_16_lowercase_hex_is_refused)
{
    static const char *const bad[] = {"ABCDEF0123456789", "0123456789abcde", "0123456789abcdef0", "0123456789abcdeg", ""};
    const char *targets = base_golden(), *dir = candidate(targets);
    char want[512];
    snprintf(want, sizeof want, "/target.json $.captures_from.captures[\"%s\"]: expected 16 lowercase hex digits", CAT_SCOPE);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *doc = target_load(dir, "target.json");
        cJSON *caps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "captures_from"), "captures");
        cJSON_ReplaceItemInObjectCaseSensitive(caps, CAT_SCOPE, cJSON_CreateString(bad[i]));
        target_save(dir, "target.json", doc);
        char got[64];
        snprintf(got, sizeof got, "got \"%s\"", bad[i]);
        refused(dir, want, got, NULL);
    }
    cJSON *doc = target_load(dir, "target.json");
    cJSON *caps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "captures_from"), "captures");
    cJSON_ReplaceItemInObjectCaseSensitive(caps, CAT_SCOPE, cJSON_CreateNumber(1));
    target_save(dir, "target.json", doc);
    snprintf(want, sizeof want, "/target.json $.captures_from.captures[\"%s\"]: expected string", CAT_SCOPE);
    refused(dir, want, NULL);
}

Test(target_captures, a_malformed_captures_from_is_refused_with_its_json_path)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    set_member(dir, "captures", cJSON_CreateObject());
    refused(dir, "/target.json $.captures_from.captures: expected the captures inherited from " BASE " (absent when none), got {}",
            NULL);
    set_member(dir, "captures", cJSON_CreateArray());
    refused(dir, "/target.json $.captures_from.captures: expected object, got array", NULL);
    cJSON *doc = target_load(dir, "target.json");
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "captures_from"), "captures");
    target_save(dir, "target.json", doc);
    refused(dir, "/target.json $.captures_from.captures: expected a value, got nothing (missing key)", NULL);
    set_member(dir, "captures", cJSON_CreateObject());
    set_member(dir, "extra", cJSON_CreateTrue());
    refused(dir, "/target.json $.captures_from: unknown key 'extra' (expected one of: target, captures)", NULL);
    set_from(dir, cJSON_CreateString(BASE));
    refused(dir, "/target.json $.captures_from: expected object, got", NULL);
}

/* The base is a sibling folder: a name that leaves targets/ or names a hidden folder is refused. */
Test(target_captures, a_base_that_is_not_a_sibling_folder_name_is_refused)
{
    static const char *const bad[] = {"../" BASE, BASE "/.", ".hidden", ""};
    const char *targets = base_golden(), *dir = candidate(targets);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        set_member(dir, "target", cJSON_CreateString(bad[i]));
        char want[512];
        snprintf(want, sizeof want, "/target.json $.captures_from.target: expected the base target's folder name (no '/', "
                 "not starting with '.'), got \"%s\"", bad[i]);
        refused(dir, want, NULL);
    }
    set_member(dir, "target", cJSON_CreateNumber(7));
    refused(dir, "/target.json $.captures_from.target: expected string", NULL);
}

/* The candidate's folder however it is named: with a trailing '/', as "." from inside it, as a bare name from
 * targets/ (each once looked for the base inside the candidate or beside the working folder). */
Test(target_captures, the_base_is_found_beside_the_folder_however_it_is_named)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    char here[4096], slashed[4500];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(slashed, sizeof slashed, "%s//", dir);
    const char *names[][2] = {{slashed, NULL}, {".", dir}, {CAND, targets}, {CAND "/", targets}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        ea_captures caps;
        ea_error err;
        cr_assert_eq(chdir(names[i][1] ? names[i][1] : here), 0);
        int rc = ea_target_captures_load(names[i][0], &caps, &err);
        cr_assert_eq(chdir(here), 0);
        cr_assert_eq(rc, 0, "%s: %s", names[i][0], err.msg);
        cr_assert_eq(caps.n, 5, "%s", names[i][0]);
        ea_captures_free(&caps);
    }
}

/* An inherited scope is a folder name under the base's captures/, nothing that leaves it. */
Test(target_captures, an_inherited_scope_that_is_not_a_folder_name_is_refused)
{
    const char *targets = base_golden(), *dir = candidate(targets);
    cJSON *doc = target_load(dir, "target.json");
    cJSON *caps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "captures_from"), "captures");
    cJSON_AddStringToObject(caps, "../../" BASE "/captures/" CAT_SCOPE, "0123456789abcdef");
    target_save(dir, "target.json", doc);
    refused(dir, "/target.json $.captures_from.captures[\"../../" BASE "/captures/" CAT_SCOPE "\"]: expected a capture "
            "folder name (no '/', not starting with '.')", NULL);
}
