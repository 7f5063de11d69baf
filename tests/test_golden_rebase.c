/* extern-audit golden rebase: a candidate target's entries of the points it kept follow its base, its own
 * (recaptured, or of a point it cannot plan) stay; --check names a candidate that did not follow and writes
 * nothing; the files change as one set; what does not read is refused naming it. On copies of the committed
 * golden (a link per file, the baselines files copied). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "helpers.h"
#include "measure/baseline.h"
#include "target/target.h"
#include "target/target_layout.h"

#define CANDIDATE TEST_TARGET "-index_add_iota_gather"
#define CANDIDATE2 TEST_TARGET "-routing_counting_sort"
#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* A golden folder mirroring the committed one's occurrences, base and two candidates, their baselines.json real
 * files (copies) so that a rebase replaces nothing committed. */
static const char *golden_copy(void)
{
    static const char *const targets[] = {TEST_TARGET, CANDIDATE, CANDIDATE2};
    const char *dir = test_tmpdir();
    char cwd[2048], from[4400], to[4400];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(from, sizeof from, "%s/golden/occurrences", cwd);
    test_mirror(from, test_join(dir, "occurrences"));
    cr_assert_eq(ea_make_dirs(test_join(dir, "targets"), &(ea_error){{0}}), 0);
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        snprintf(from, sizeof from, "%s/golden/targets/%s", cwd, targets[i]);
        snprintf(to, sizeof to, "%s/targets/%s", dir, targets[i]);
        test_mirror(from, to);
        char *text = test_read(test_join(from, EA_BASELINES_NAME));
        cr_assert_eq(unlink(test_join(to, EA_BASELINES_NAME)), 0);
        free(test_write(to, EA_BASELINES_NAME, text));
        free(text);
    }
    return dir;
}

static char *target_file(const char *golden, const char *target)
{
    static char path[3][4400];
    static int k;
    char *p = path[k++ % 3];
    snprintf(p, sizeof path[0], "%s/targets/%s/" EA_BASELINES_NAME, golden, target);
    return p;
}

static cJSON *load(const char *path)
{
    char *text = test_read(path);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(doc, "%s reads", path);
    return doc;
}

static void save(const char *path, cJSON *doc)
{
    char *text = cJSON_Print(doc);
    FILE *f = fopen(path, "w");
    cr_assert(f && text && fputs(text, f) >= 0 && fclose(f) == 0, "%s", path);
    free(text);
    cJSON_Delete(doc);
}

/* The first result of family (and point, unless NULL) in doc. */
static cJSON *first_at(cJSON *doc, const char *family, const char *point)
{
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        if (!strcmp(ej_text(r, "family"), family) && (!point || !strcmp(ej_text(r, "point"), point)))
            return r;
    cr_assert_fail("no %s result", family);
    return NULL;
}

static cJSON *first_of(cJSON *doc, const char *family)
{
    return first_at(doc, family, NULL);
}

static cJSON *current_path(cJSON *result)
{
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths"))
        if (!strcmp(ej_text(p, "name"), "current") && !strcmp(ej_text(p, "mode"), "faithful"))
            return p;
    cr_assert_fail("no faithful current path");
    return NULL;
}

static double current_median(cJSON *result)
{
    return ej_num(cJSON_GetObjectItemCaseSensitive(current_path(result), "time"), "median_us");
}

/* result's faithful current warm time (median, quartiles, spread) times f; returns the new median. */
static double slower(cJSON *result, double f)
{
    cJSON *time = cJSON_GetObjectItemCaseSensitive(current_path(result), "time");
    static const char *const keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (int i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(time, keys[i]);
        cJSON_SetNumberValue(v, f * v->valuedouble);
    }
    return ej_num(time, "median_us");
}

/* The base's first cat result and first index_add result (a point the iota_gather candidate recaptured) moved:
 * their current paths 10% slower. Returns the moved cat time. */
static double move_base(const char *golden)
{
    cJSON *base = load(target_file(golden, TEST_TARGET));
    double t = slower(first_of(base, "cat"), 1.1);
    slower(first_of(base, "index_add"), 1.1);
    save(target_file(golden, TEST_TARGET), base);
    return t;
}

/* golden rebase [--check] over golden, which must exit want and leave target's baselines file as it was. */
static cli_run rebase_leaving(const char *golden, const char *target, int check, int want)
{
    char *text = test_read(target_file(golden, target));
    cli_run r = check ? test_cli("golden", "rebase", "--check", "--golden", golden, NULL)
                      : test_cli("golden", "rebase", "--golden", golden, NULL);
    cr_assert_eq(r.status, want, "%s", r.err);
    char *still = test_read(target_file(golden, target));
    cr_assert_str_eq(still, text, "%s: as it was", target);
    free(still);
    free(text);
    return r;
}

Test(golden_rebase, the_committed_candidates_follow_their_base)
{
    cli_run r = test_cli("golden", "rebase", "--check", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, CANDIDATE "/" EA_BASELINES_NAME ": today's");
    cli_run_free(&r);
    /* a point the base measured after the candidate was staged (the avgpool backward captures came later: the
     * candidate has none) keeps the candidate's reason, not the base's results */
    cJSON *c = load("golden/targets/" CANDIDATE "/" EA_BASELINES_NAME), *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "scopes"))
        cr_assert_str_neq(ej_text(e, "family"), "avgpool_backward", "%s", ej_text(e, "point"));
    int unmeasured = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "unmeasured"))
        unmeasured += !strncmp(ej_text(e, "point"), "adaptive_avg_pool2d_backward-", 29);
    cr_assert_eq(unmeasured, 2);
    cJSON_Delete(c);
}

Test(golden_rebase, a_moved_base_reaches_the_kept_entries_and_not_the_recaptured_ones)
{
    const char *golden = golden_copy();
    cJSON *before = load(target_file(golden, CANDIDATE));
    double own = current_median(first_of(before, "index_add"));
    cJSON_Delete(before);
    double t = move_base(golden);
    cli_run r = test_cli("golden", "rebase", "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, CANDIDATE "/" EA_BASELINES_NAME ": 1 of today's entries taken, 1 of its own dropped; the first: "
               "today's $.scopes[");
    has(r.err, "(cat cat-");
    has(r.err, CANDIDATE2 "/" EA_BASELINES_NAME ": 2 of today's entries taken"); /* it kept both */
    has(r.err, "golden rebase: 2 files written");
    cli_run_free(&r);
    cJSON *after = load(target_file(golden, CANDIDATE));
    cr_assert_float_eq(current_median(first_of(after, "cat")), t, 1e-12, "the base's moved time");
    cr_assert_float_eq(current_median(first_of(after, "index_add")), own, 1e-12,
                       "the recaptured point keeps the candidate's own time");
    cr_assert_eq(ea_baseline_validate("after", after, &(ea_error){{0}}), 0);
    /* the command keeps the candidate's run and names the base's command as it is now */
    cJSON *base = load(target_file(golden, TEST_TARGET));
    const char *cmd = ej_text(after, "command"), *tail = strstr(cmd, "; every other result kept from ");
    static const char run[] = "extern-audit run --mode both --golden build/stage-index_add_iota_gather";
    cr_assert(!strncmp(cmd, run, sizeof run - 1), "%s", cmd);
    cr_assert(tail && strstr(tail, ": ") && !strncmp(strstr(tail, ": ") + 2, ej_text(base, "command"),
                                                   strlen(ej_text(base, "command"))), "%s", cmd);
    cJSON_Delete(base);
    cJSON_Delete(after);
    /* again: nothing moves, and the files keep their bytes */
    r = rebase_leaving(golden, CANDIDATE, 0, 0);
    has(r.err, ": today's");
    cli_run_free(&r);
}

Test(golden_rebase, check_names_a_candidate_that_did_not_follow_and_writes_nothing)
{
    const char *golden = golden_copy();
    move_base(golden);
    cli_run r = rebase_leaving(golden, CANDIDATE, 1, 1);
    has(r.err, CANDIDATE "/" EA_BASELINES_NAME " is not what its base ");
    has(r.err, "1 of today's entries taken, 1 of its own dropped; the first: today's $.scopes[");
    has(r.err, "run extern-audit golden rebase");
    cli_run_free(&r);
}

Test(golden_rebase, one_candidate_that_does_not_read_leaves_every_file_as_it_was)
{
    const char *golden = golden_copy();
    move_base(golden);
    cJSON *c = load(target_file(golden, CANDIDATE2));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "command", cJSON_CreateString("extern-audit run --scope all"));
    save(target_file(golden, CANDIDATE2), c);
    /* the candidate before it in name order, which would follow, is not written either */
    cli_run r = rebase_leaving(golden, CANDIDATE, 0, 2);
    has(r.err, CANDIDATE2 "/" EA_BASELINES_NAME " $.command: expected what the candidate kept from its base");
    has(r.err, "got \"extern-audit run --scope all\"");
    cli_run_free(&r);
}

Test(golden_rebase, refuses_a_target_of_todays_code_a_missing_base_and_two_folders)
{
    const char *golden = golden_copy();
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/targets/" TEST_TARGET, golden);
    cli_run r = test_cli("golden", "rebase", dir, "--golden", golden, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, TEST_TARGET "/" EA_TARGET_NAME " $.lowering: expected a candidate lowering's name, got none");
    cli_run_free(&r);
    snprintf(dir, sizeof dir, "%s/targets/" TEST_TARGET, golden);
    char base_file[4500];
    snprintf(base_file, sizeof base_file, "%s/" EA_BASELINES_NAME, dir);
    cr_assert_eq(unlink(base_file), 0);
    snprintf(dir, sizeof dir, "%s/targets/" CANDIDATE, golden);
    r = test_cli("golden", "rebase", dir, "--golden", golden, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, TEST_TARGET "/" EA_BASELINES_NAME);
    cli_run_free(&r);
    r = test_cli("golden", "rebase", dir, dir, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "rebase takes at most one CANDIDATE folder");
    cli_run_free(&r);
}

/* A gate --propose on the candidate itself appends to its command after the kept-from part: that stays, whatever
 * parentheses it and the base's command hold, and a second rebase reads back what the first wrote. */
Test(golden_rebase, what_follows_the_kept_from_part_of_the_command_stays)
{
    const char *golden = golden_copy();
    static const char proposed[] = "; gate --propose took 2 entries from: extern-audit run --scope xlnet (gate --run "
                                   "--scope xlnet --markdown (b).md)";
    cJSON *c = load(target_file(golden, CANDIDATE)), *base = load(target_file(golden, TEST_TARGET));
    char cmd[8192], own[8192], kept[8192];
    /* what the committed candidate says after its kept-from part (its own proposals so far) stays before the new one */
    snprintf(kept, sizeof kept, "%s)", ej_text(base, "command"));
    const char *tail = strstr(ej_text(c, "command"), kept);
    cr_assert_not_null(tail, "the candidate's command holds the base's: %s", ej_text(c, "command"));
    snprintf(own, sizeof own, "%s%s", tail + strlen(kept), proposed);
    snprintf(cmd, sizeof cmd, "%s%s", ej_text(c, "command"), proposed);
    cJSON_ReplaceItemInObjectCaseSensitive(c, "command", cJSON_CreateString(cmd));
    save(target_file(golden, CANDIDATE), c);
    /* a base command whose parentheses do not balance (a file name, a command cut at its buffer's end) */
    snprintf(cmd, sizeof cmd, "%s; gate --propose took 1 entry from: extern-audit run (gate --run --markdown 'a)b(c(.md'",
             ej_text(base, "command"));
    cJSON_ReplaceItemInObjectCaseSensitive(base, "command", cJSON_CreateString(cmd));
    save(target_file(golden, TEST_TARGET), base);
    cli_run r = test_cli("golden", "rebase", "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    cJSON *after = load(target_file(golden, CANDIDATE));
    const char *got = ej_text(after, "command");
    char mid[sizeof cmd + sizeof own + 4];
    snprintf(mid, sizeof mid, ": %s)%s", cmd, own);
    size_t n = strlen(got), m = strlen(mid);
    cr_assert(n > m && !strcmp(got + n - m, mid), "the base's command today, then the candidate's own history: %s", got);
    cJSON_Delete(after);
    r = rebase_leaving(golden, CANDIDATE, 1, 0);
    cli_run_free(&r);
}

/* An entry the file holds and today's base does not is named too, as the file's. */
Test(golden_rebase, check_names_an_entry_only_the_file_holds)
{
    const char *golden = golden_copy();
    cJSON *base = load(target_file(golden, TEST_TARGET)), *scopes = cJSON_GetObjectItemCaseSensitive(base, "scopes");
    int i = 0;
    for (cJSON *e = scopes->child; e; e = e->next, i++)
        if (!strcmp(ej_text(e, "family"), "cat"))
            break;
    cJSON_DeleteItemFromArray(scopes, i);
    save(target_file(golden, TEST_TARGET), base);
    cli_run r = rebase_leaving(golden, CANDIDATE, 1, 1);
    has(r.err, "0 of today's entries taken, 1 of its own dropped; the first: the file's $.scopes[");
    has(r.err, "(cat cat-");
    cli_run_free(&r);
}

/* The candidate's captures_from (its target.json, a link to the committed file: replaced, not written through). */
static cJSON *inherited_captures(const char *dir, cJSON **target)
{
    *target = load(test_join(dir, EA_TARGET_NAME));
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(*target, "captures_from"), "captures");
}

static void save_target(const char *dir, cJSON *target)
{
    cr_assert_eq(unlink(test_join(dir, EA_TARGET_NAME)), 0);
    save(test_join(dir, EA_TARGET_NAME), target);
}

/* The base's first family result of point moved; a rebase of the candidate in dir keeps the candidate's own. */
static void keeps_its_own(const char *golden, const char *dir, const char *family, const char *point)
{
    cJSON *before = load(target_file(golden, CANDIDATE)), *base = load(target_file(golden, TEST_TARGET));
    slower(first_at(base, family, point), 1.1);
    save(target_file(golden, TEST_TARGET), base);
    cli_run r = test_cli("golden", "rebase", dir, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    cJSON *after = load(target_file(golden, CANDIDATE));
    /* whole entries: the candidate's own may be a refusal with no paths (a lowering left no ATen step) */
    cr_assert(cJSON_Compare(first_at(after, family, point), first_at(before, family, point), 1), "%s", point);
    cJSON_Delete(before);
    cJSON_Delete(after);
}

/* A point one of whose scope groups has no capture in the candidate (the base captured it after the candidate was
 * staged) is the candidate's too: here DistilGPT2's cumsum point without its train group. */
Test(golden_rebase, a_point_with_a_group_the_candidate_lacks_keeps_the_candidates_entries)
{
    const char *golden = golden_copy();
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/targets/" CANDIDATE, golden);
    cJSON *t;
    cJSON_DeleteItemFromObjectCaseSensitive(inherited_captures(dir, &t), "cumsum-b7979881a31c-0b4ae9f9d467");
    save_target(dir, t);
    keeps_its_own(golden, dir, "cumsum", "cumsum-b7979881a31c");
}

/* A point with several captures is the candidate's own when it recaptured any of them: here Longformer's
 * 6291456-element point inherits its first scope group's capture and keeps its three own. */
Test(golden_rebase, a_point_partly_recaptured_keeps_the_candidates_entries)
{
    static const char scope[] = "index_add-31177027c868-335f7d6b05cb";
    const char *golden = golden_copy();
    char dir[4400], path[4600], digest[EA_DIGEST_LEN], cmd[9000];
    snprintf(dir, sizeof dir, "%s/targets/" CANDIDATE, golden);
    snprintf(cmd, sizeof cmd, "rm -r '%s/captures/%s'", dir, scope);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/targets/" TEST_TARGET "/captures/%s/capture.json", golden, scope);
    cr_assert_eq(ea_capture_digest(path, digest, &(ea_error){{0}}), 0);
    cJSON *t;
    cJSON_AddStringToObject(inherited_captures(dir, &t), scope, digest);
    save_target(dir, t);
    keeps_its_own(golden, dir, "index_add", "index_add-31177027c868");
}
