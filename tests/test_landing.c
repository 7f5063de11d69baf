/* test_landing.c: every golden write lands whole, under a lock, following no link (issue 26): golden accept
 * refuses a link in its stage, a second writer while one holds the lock, and removes what killed writers left;
 * extract --out swaps its whole set in; the one atomic write never follows a planted temporary name. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus/extract.h"
#include "helpers.h"
#include "base/json.h"
#include "base/landing.h"
#include "corpus/occurrences.h"
#include "target_fixture.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))
#define TARGET_DIR "targets/H200-torch2.11.0+cu130"

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The names in dir other than . and .., one per line. */
static char *listing(const char *dir)
{
    static char out[8192];
    size_t k = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    out[0] = '\0';
    cr_assert_not_null(d, "%s", dir);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            k += (size_t)snprintf(out + k, sizeof out - k, "%s\n", e->d_name);
    closedir(d);
    return out;
}

/* A golden with an old target holding a marker; returns golden. */
static const char *golden_with_old_target(void)
{
    const char *golden = target_golden();
    cr_assert_eq(mkdir(test_join(golden, TARGET_DIR), 0755), 0);
    free(test_write(test_join(golden, TARGET_DIR), "old-marker", "the old target\n"));
    return golden;
}

/* accept of stage into golden is refused with exit 2 and want; the old target is as it was, nothing left beside it
 * (but a lock file the test holds). */
static void accept_refused(const char *stage, const char *golden, const char *want)
{
    cli_run r = test_cli("golden", "accept", stage, "--golden", golden, NULL);
    cr_assert_eq(r.status, 2, "exit %d:\n%s", r.status, r.err);
    has(r.err, want);
    cr_assert(exists(test_join(golden, TARGET_DIR "/old-marker")), "the old target was replaced");
    const char *left = listing(test_join(golden, "targets"));
    cr_assert(!strcmp(left, "H200-torch2.11.0+cu130\n") ||
                  !strcmp(left, "H200-torch2.11.0+cu130\n.H200-torch2.11.0+cu130.lock\n") ||
                  !strcmp(left, ".H200-torch2.11.0+cu130.lock\nH200-torch2.11.0+cu130\n"),
              "left in targets/:\n%s", left);
    cli_run_free(&r);
}

/* A copy of src's bytes at dir/name, outside the stage. */
static const char *outside_copy(const char *src, const char *name)
{
    char *text = test_read(src), *path = test_write(test_tmpdir(), name, text);
    static char keep[4][4400];
    static int k;
    char *p = keep[k++ % 4];
    snprintf(p, sizeof keep[0], "%s", path);
    free(path);
    free(text);
    return p;
}

Test(landing, accept_refuses_a_link_to_a_file_outside_the_stage)
{
    const char *golden = golden_with_old_target(), *stage = target_copy("linked_file");
    /* the same bytes, outside: the check passes (reading may follow), the install must not */
    const char *outside = outside_copy(test_join(stage, "replay.json"), "replay.json");
    cr_assert_eq(unlink(test_join(stage, "replay.json")), 0);
    cr_assert_eq(symlink(outside, test_join(stage, "replay.json")), 0);
    char want[4600];
    snprintf(want, sizeof want, "%s/replay.json: a link, refused (golden accept installs files and folders, never "
                                "follows a link", stage);
    accept_refused(stage, golden, want);
}

Test(landing, accept_refuses_a_linked_folder_and_a_link_inside_captures)
{
    const char *golden = golden_with_old_target(), *stage = target_copy("linked_dir");
    char scope_file[4400], cmd[9000];
    /* a file link deep in captures/ */
    snprintf(scope_file, sizeof scope_file, "%s/captures/%s/capture.json", stage, XL_SCOPE);
    const char *outside = outside_copy(scope_file, "capture.json");
    cr_assert_eq(unlink(scope_file), 0);
    cr_assert_eq(symlink(outside, scope_file), 0);
    accept_refused(stage, golden, "/capture.json: a link, refused");
    /* captures/ itself a link to a copy of it (the review's: a link to /etc was read file by file) */
    stage = target_copy("linked_captures");
    const char *away = test_tmpdir();
    snprintf(cmd, sizeof cmd, "cp -r '%s/captures' '%s/captures'", stage, away);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -r '%s/captures'", stage);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(symlink(test_join(away, "captures"), test_join(stage, "captures")), 0);
    accept_refused(stage, golden, "/captures: a link, refused");
}

Test(landing, a_second_accept_is_refused_while_the_first_holds_the_lock)
{
    const char *golden = golden_with_old_target(), *stage = target_copy("second");
    int fd = open(test_join(golden, "targets/.H200-torch2.11.0+cu130.lock"), O_RDWR | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0); /* as a running accept holds it */
    accept_refused(stage, golden, "/targets/H200-torch2.11.0+cu130: another extern-audit is writing it (it holds "
                                  "/");
    close(fd);
    cli_run r = test_cli("golden", "accept", stage, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "once the lock is free: %s", r.err);
    cr_assert_str_eq(listing(test_join(golden, "targets")), "H200-torch2.11.0+cu130\n", "the lock file stayed");
    cli_run_free(&r);
}

Test(landing, work_folders_of_killed_accepts_are_removed_at_the_next)
{
    const char *golden = golden_with_old_target(), *stage = target_copy("after_kill");
    const char *left = test_join(golden, "targets/.H200-torch2.11.0+cu130.accept-999999999");
    cr_assert_eq(mkdir(left, 0755), 0);
    free(test_write(left, "captures/x/capture.json", "half a copy\n"));
    cr_assert_eq(mkdir(test_join(golden, "targets/.other.accept-123"), 0755), 0); /* another target's: left alone */
    cli_run r = test_cli("golden", "accept", stage, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, ".H200-torch2.11.0+cu130.accept-999999999, left by a writer that did not finish");
    cr_assert(!exists(left));
    cr_assert(exists(test_join(golden, "targets/.other.accept-123")));
    cli_run_free(&r);
}

Test(landing, stale_pid_names_are_only_those_of_dead_processes)
{
    char mine[64], parent[64];
    snprintf(mine, sizeof mine, "x.tmp.%ld", (long)getpid());
    snprintf(parent, sizeof parent, "x.tmp.%ld", (long)getppid());
    cr_assert_eq(ea_stale_pid_name(mine, "x.tmp."), 0, "our own");
    cr_assert_eq(ea_stale_pid_name(parent, "x.tmp."), 0, "a running process");
    cr_assert_eq(ea_stale_pid_name("x.tmp.999999999", "x.tmp."), 1);
    cr_assert_eq(ea_stale_pid_name("x.tmp.0", "x.tmp."), 0);
    cr_assert_eq(ea_stale_pid_name("x.tmp.12a", "x.tmp."), 0);
    cr_assert_eq(ea_stale_pid_name("y.tmp.999999999", "x.tmp."), 0);
}

Test(landing, a_link_planted_at_the_temporary_name_is_never_written_through)
{
    const char *dir = test_tmpdir(), *victim = outside_copy("golden/old_rule.json", "victim.json");
    char *before = test_read(victim), tmp[4400];
    const char *path = test_join(dir, "classification.json");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    cr_assert_eq(symlink(victim, tmp), 0); /* the review's: classify --update overwrote the link's target */
    cJSON *doc = cJSON_Parse("{\"a\": 1}");
    ea_error err;
    cr_assert_eq(ej_write_atomic(path, doc, &err), 0, "%s", err.msg);
    char *after = test_read(victim), *written = test_read(path);
    cr_assert_str_eq(after, before, "the file the link points to was written");
    cr_assert_str_eq(written, "{\n\t\"a\":\t1\n}\n");
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISREG(st.st_mode), "a link was renamed into place");
    cr_assert(!exists(tmp));
    free(before);
    free(after);
    free(written);
    cJSON_Delete(doc);
}

Test(landing, temporary_files_of_dead_writers_are_removed_at_the_next_write)
{
    const char *dir = test_tmpdir();
    free(test_write(dir, "x.json.tmp.999999999", "{\"half\":"));
    char live[64];
    snprintf(live, sizeof live, "x.json.tmp.%ld", (long)getppid()); /* a running writer's: kept */
    free(test_write(dir, live, "{"));
    free(test_write(dir, "y.json.tmp.999999999", "{")); /* another file's: its own write removes it */
    cJSON *doc = cJSON_Parse("[]");
    ea_error err;
    cr_assert_eq(ej_write_atomic(test_join(dir, "x.json"), doc, &err), 0, "%s", err.msg);
    cr_assert(!exists(test_join(dir, "x.json.tmp.999999999")));
    cr_assert(exists(test_join(dir, live)));
    cr_assert(exists(test_join(dir, "y.json.tmp.999999999")));
    cJSON_Delete(doc);
}

/* The fixture corpus's extraction (the caller frees it). */
static ea_extraction fixture_extraction(void)
{
    return test_extract_corpus(FIXTURE_CORPUS, 8);
}

static const char *const set_names[] = {"cat.json", "cumsum.json", "histc.json", "index_add.json", "summary.json"};

/* dir/<name>/ holding "old\n" in each of the set's files named above; returns the set's folder. */
static const char *old_set(const char *dir, const char *name)
{
    const char *occ = test_join(dir, name);
    static char keep[4][4400];
    static int k;
    char *p = keep[k++ % 4];
    snprintf(p, sizeof keep[0], "%s", occ);
    for (size_t i = 0; i < sizeof set_names / sizeof set_names[0]; i++)
        free(test_write(p, set_names[i], "old\n"));
    return p;
}

static void still_old(const char *occ)
{
    for (size_t i = 0; i < sizeof set_names / sizeof set_names[0]; i++) {
        char *t = test_read(test_join(occ, set_names[i]));
        cr_assert_str_eq(t, "old\n", "%s was replaced", set_names[i]);
        free(t);
    }
}

Test(landing, extract_swaps_the_whole_set_in_and_leaves_no_debris)
{
    ea_extraction x = fixture_extraction();
    const char *dir = test_tmpdir(), *occ = old_set(dir, "occ");
    /* what the old writer left: its .staged, .previous and a dead run's temp files */
    free(test_write(occ, "cat.json.staged", "{"));
    free(test_write(occ, "summary.json.previous", "{"));
    free(test_write(occ, "histc.json.staged.tmp.999999999", "{"));
    ea_error err;
    cr_assert_eq(ea_extraction_write(&x, occ, &err), 0, "%s", err.msg);
    cr_assert_str_eq(listing(dir), "occ\n", "left beside the set: %s", listing(dir));
    cJSON *docs[EA_AUDIT_OPS];
    cr_assert_eq(ea_occurrences_load(occ, docs, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    int n = 0;
    for (char *l = listing(occ); (l = strchr(l, '\n')); l++)
        n++;
    cr_assert_eq(n, EA_AUDIT_OPS + 1, "the set and nothing else:\n%s", listing(occ));
    ea_extraction_free(&x);
}

Test(landing, extract_refuses_a_folder_holding_other_files)
{
    ea_extraction x = fixture_extraction();
    const char *dir = test_tmpdir(), *occ = old_set(dir, "occ");
    free(test_write(occ, "notes.txt", "mine\n"));
    ea_error err;
    cr_assert_eq(ea_extraction_write(&x, occ, &err), -1);
    has(err.msg, "/occ: holds notes.txt, which is no part of an extraction: extract --out replaces the whole folder");
    still_old(occ);
    ea_extraction_free(&x);
}

Test(landing, a_second_extract_is_refused_while_the_first_holds_the_lock)
{
    ea_extraction x = fixture_extraction();
    const char *dir = test_tmpdir(), *occ = old_set(dir, "occ");
    int fd = open(test_join(dir, ".occ.lock"), O_RDWR | O_CREAT, 0644);
    cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    ea_error err;
    cr_assert_eq(ea_extraction_write(&x, occ, &err), -1);
    has(err.msg, "/occ: another extern-audit is writing it (it holds ");
    has(err.msg, "/.occ.lock): nothing was changed; run again once it has finished");
    still_old(occ);
    close(fd);
    cr_assert_eq(ea_extraction_write(&x, occ, &err), 0, "%s", err.msg);
    ea_extraction_free(&x);
}

Test(landing, an_extract_failing_midway_keeps_the_old_set_and_leaves_nothing)
{
    ea_extraction x = fixture_extraction();
    const char *dir = test_tmpdir(), *occ = old_set(dir, "occ");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* a disk that fills after a few KiB: write() fails with EFBIG partway through the set */
        struct rlimit lim = {4096, 4096};
        ea_error e;
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &lim);
        int rc = ea_extraction_write(&x, occ, &e);
        _exit(rc == -1 && strstr(e.msg, ": cannot write: File too large") ? 0 : 1);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the write did not fail as a full disk makes it");
    still_old(occ);
    cr_assert_str_eq(listing(dir), "occ\n", "left beside the set: %s", listing(dir));
    ea_extraction_free(&x);
}

Test(landing, a_set_of_two_extractions_is_refused_by_its_reader)
{
    ea_extraction x = fixture_extraction();
    const char *dir = test_tmpdir();
    char occ[4400];
    snprintf(occ, sizeof occ, "%s/occ", dir);
    ea_error err;
    cr_assert_eq(ea_extraction_write(&x, occ, &err), 0, "%s", err.msg);
    /* histc.json from another corpus: what a writer killed between renames left */
    cJSON *h = cJSON_Duplicate(test_extraction_doc(&x, "aten.histc.default"), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "corpus"), "digest",
                                           cJSON_CreateString("fnv1a64:0123456789abcdef"));
    cr_assert_eq(ej_write_atomic(test_join(occ, "histc.json"), h, &err), 0, "%s", err.msg);
    cJSON *docs[EA_AUDIT_OPS];
    cr_assert_eq(ea_occurrences_load(occ, docs, &err), -1);
    has(err.msg, "/occ/histc.json $.corpus.digest: expected ");
    has(err.msg, "/occ/cat.json's (one extraction's set), got another: the folder mixes two extractions");
    cJSON_Delete(h);
    ea_extraction_free(&x);
}

Test(landing, rollup_reports_land_together_or_not_at_all)
{
    const char *dir = test_tmpdir();
    char md[4400], html[4400], blocked[4400];
    snprintf(md, sizeof md, "%s/a.md", dir);
    snprintf(html, sizeof html, "%s/b.html", dir);
    snprintf(blocked, sizeof blocked, "%s/missing/b.html", dir);
    free(test_write(dir, "a.md", "old\n"));
    /* B cannot be written: A stays as it was (the review's full disk replaced A, then failed on B) */
    cli_run r = test_cli("rollup", "--markdown", md, "--html", blocked, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "/missing/b.html: cannot write: No such file or directory");
    char *t = test_read(md);
    cr_assert_str_eq(t, "old\n", "a.md was replaced though b.html was not");
    free(t);
    cr_assert_str_eq(listing(dir), "a.md\n", "left: %s", listing(dir));
    cli_run_free(&r);
    /* a disk that fills partway through the set: neither replaced */
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit lim = {16 << 10, 16 << 10}; /* the markdown (8 KB) fits, the html (30 KB) does not */
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &lim);
        cli_run c = test_cli("rollup", "--markdown", md, "--html", html, NULL);
        _exit(c.status == 2 && strstr(c.err, "b.html: cannot write: File too large") ? 0 : 1);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the html write did not fail as a full disk makes it");
    t = test_read(md);
    cr_assert_str_eq(t, "old\n", "a.md was replaced though b.html was not");
    free(t);
    cr_assert_str_eq(listing(dir), "a.md\n", "left: %s", listing(dir));
    /* both written when both can be */
    r = test_cli("rollup", "--markdown", md, "--html", html, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    t = test_read(md);
    cr_assert_neq(strcmp(t, "old\n"), 0);
    free(t);
}
