/* The device lock on a machine without a GPU: a test key stands in for the device's UUID. Two processes
 * started at once never hold it together, nesting holds it to the last unlock, the counter names the
 * sections other processes took, a folder that cannot hold the lock is an error naming it, and the log says
 * who held it how long (a bad line reported and skipped). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/device_lock.h"
#include "gpu/device_lock_impl.h"
#include "gpu/device_lock_log_impl.h"
#include "helpers.h"

static char log_file[4200];

/* A test key in a fresh folder, its log there too: the suite's own log never sees a test's sections. */
static void use_test_lock(void)
{
    char key[64];
    setenv(EA_LOCK_DIR_ENV, test_tmpdir(), 1);
    snprintf(log_file, sizeof log_file, "%s/device-lock.tsv", test_tmpdir());
    setenv(EA_LOCK_LOG_ENV, log_file, 1);
    snprintf(key, sizeof key, "test-%ld", (long)getpid());
    ea_device_lock_use_key(key);
}

typedef struct {
    volatile int go, inside, overlaps, sharers, shared_beside_timing;
} shared_state;

/* A timing process: 40 sections of 1 ms, each counting who else is inside. */
static int time_sections(shared_state *s)
{
    ea_error err;
    while (!s->go)
        ;
    for (int i = 0; i < 40; i++) {
        if (ea_device_lock(&err))
            return 1;
        if (__atomic_add_fetch(&s->inside, 1, __ATOMIC_SEQ_CST) > 1)
            __atomic_add_fetch(&s->overlaps, 1, __ATOMIC_SEQ_CST);
        usleep(1000);
        __atomic_sub_fetch(&s->inside, 1, __ATOMIC_SEQ_CST);
        ea_device_unlock();
    }
    return 0;
}

/* n processes started at once (released together through s->go), process k running body(k, s); asserts each
 * exited 0. The caller reads s and unmaps it. */
static shared_state *run_at_once(int n, int (*body)(int k, shared_state *s))
{
    shared_state *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t kids[8];
    cr_assert_neq(s, MAP_FAILED);
    cr_assert_leq(n, 8);
    memset((void *)s, 0, sizeof *s);
    for (int k = 0; k < n; k++) {
        kids[k] = fork();
        cr_assert_geq(kids[k], 0);
        if (kids[k] == 0)
            _exit(body(k, s));
    }
    s->go = 1;
    for (int k = 0; k < n; k++) {
        int st;
        cr_assert_eq(waitpid(kids[k], &st, 0), kids[k]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d of %d failed to take the lock", k + 1, n);
    }
    return s;
}

static int timer_only(int k, shared_state *s)
{
    (void)k;
    return time_sections(s);
}

Test(device_lock, two_timing_processes_started_at_once_never_hold_the_device_together)
{
    use_test_lock();
    shared_state *s = run_at_once(2, timer_only);
    cr_assert_eq(s->overlaps, 0, "two processes held one device's lock at once %d times", s->overlaps);
    munmap((void *)s, sizeof *s);
}

/* A GPU test: shares the device, and times 20 sections of 1 ms from inside its shared hold. */
static int share_and_time(shared_state *s)
{
    ea_error err;
    while (!s->go)
        ;
    if (ea_device_share(&err))
        return 1;
    for (int i = 0; i < 20; i++) {
        __atomic_add_fetch(&s->sharers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&s->inside, __ATOMIC_SEQ_CST))
            __atomic_add_fetch(&s->shared_beside_timing, 1, __ATOMIC_SEQ_CST);
        usleep(500);
        __atomic_sub_fetch(&s->sharers, 1, __ATOMIC_SEQ_CST);
        if (ea_device_lock(&err))
            return 1;
        if (__atomic_add_fetch(&s->inside, 1, __ATOMIC_SEQ_CST) > 1 || __atomic_load_n(&s->sharers, __ATOMIC_SEQ_CST))
            __atomic_add_fetch(&s->overlaps, 1, __ATOMIC_SEQ_CST);
        usleep(1000);
        __atomic_sub_fetch(&s->inside, 1, __ATOMIC_SEQ_CST);
        ea_device_unlock();
    }
    ea_device_unshare();
    return 0;
}

/* three GPU tests that share and time, one process that only times */
static int three_sharers_one_timer(int k, shared_state *s)
{
    return k < 3 ? share_and_time(s) : time_sections(s);
}

Test(device_lock, sharers_run_together_but_never_beside_a_timed_section)
{
    use_test_lock();
    shared_state *s = run_at_once(4, three_sharers_one_timer);
    cr_assert_eq(s->overlaps, 0, "a timed section ran beside another or beside a sharer %d times", s->overlaps);
    cr_assert_eq(s->shared_beside_timing, 0, "a sharer ran beside a timed section %d times", s->shared_beside_timing);
    munmap((void *)s, sizeof *s);
}

/* Another process takes the device lock n times and ends; its pid. */
static pid_t sections_in_another_process(int n)
{
    ea_error err;
    pid_t kid = fork();
    if (kid == 0) {
        for (int i = 0; i < n; i++) {
            if (ea_device_lock(&err))
                _exit(1);
            ea_device_unlock();
        }
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(kid, &st, 0), kid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the other process failed to take the lock");
    return kid;
}

Test(device_lock, the_counter_names_the_sections_another_process_took)
{
    ea_lock_mark m;
    ea_error err;
    long pid;
    use_test_lock();
    ea_device_lock_mark(&m);
    cr_assert(m.valid, "a device never locked gives a mark at 0");
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg); /* this process's own sections do not count */
    ea_device_unlock();
    pid_t kid = sections_in_another_process(3);
    cr_assert_eq(ea_device_lock_others(&m, &pid), 3);
    cr_assert_eq(pid, (long)kid);
    char note[512], want[64];
    ea_device_lock_note(&m, note, sizeof note);
    snprintf(want, sizeof want, "the last pid %ld", (long)kid);
    cr_assert(strstr(note, "3 timed sections of other processes") && strstr(note, want), "%s", note);
    ea_device_lock_mark(&m);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    cr_assert_eq(ea_device_lock_others(&m, &pid), 0, "only this process locked since the mark");
    cr_assert_eq(pid, 0);
    ea_device_lock_note(&m, note, sizeof note);
    cr_assert(strstr(note, "no other process took"), "%s", note);
}

/* 1 when another process could take the lock now. */
static int free_for_another(void)
{
    pid_t kid = fork();
    if (kid == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/test-%ld.lock", getenv(EA_LOCK_DIR_ENV), (long)getppid());
        int fd = open(path, O_RDWR);
        _exit(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
    }
    int st;
    waitpid(kid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

Test(device_lock, nested_sections_hold_the_device_until_the_last_unlock)
{
    ea_error err;
    use_test_lock();
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    cr_assert_not(free_for_another());
    ea_device_unlock();
    cr_assert_not(free_for_another(), "the inner unlock released the outer section's lock");
    ea_device_unlock();
    cr_assert(free_for_another());
}

Test(device_lock, a_folder_that_cannot_hold_the_lock_is_an_error_naming_it)
{
    ea_error err;
    setenv(EA_LOCK_DIR_ENV, "/proc/self/no-such/locks", 1);
    ea_device_lock_use_key("test");
    cr_assert_eq(ea_device_lock(&err), -1);
    cr_assert(strstr(err.msg, "/proc/self/no-such/locks") && strstr(err.msg, EA_LOCK_DIR_ENV), "%s", err.msg);
}

Test(device_lock, sections_others_took_before_this_process_began_are_no_sharing)
{
    ea_lock_mark m;
    ea_error err;
    long pid;
    use_test_lock();
    ea_device_lock_mark(&m); /* as gate --run marks, then waits for the lock while another process times */
    sections_in_another_process(2);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    cr_assert_eq(ea_device_lock_others(&m, &pid), 0, "the other process's sections came before this one's");
}

Test(device_lock, the_log_names_each_timed_section_its_holder_and_its_time)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    ea_device_lock_label("device_lock::a\ttest");
    munmap((void *)run_at_once(2, timer_only), sizeof(shared_state));
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.bad, 0, "line %d of %s", u.first_bad, log_file);
    cr_assert_eq(u.sections, 80, "two processes of 40 sections each: %d logged", u.sections);
    cr_assert_geq(u.held_s, 0.080, "80 sections of at least 1 ms held it %.4f s", u.held_s);
    cr_assert_geq(u.span_s, u.held_s, "sections one after another span at least their sum: %.4f < %.4f", u.span_s,
                  u.held_s);
    cr_assert_eq(u.top_n, 1);
    cr_assert_str_eq(u.top[0].who, "device_lock::a test", "a tab in a label would break the line's fields");
    cr_assert_eq(u.top[0].sections, 80);
}

Test(device_lock, the_log_counts_each_shared_hold_and_the_time_spent_waiting)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    munmap((void *)run_at_once(4, three_sharers_one_timer), sizeof(shared_state));
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.shares, 3, "three sharers: %d shared holds logged", u.shares);
    cr_assert_eq(u.sections, 100, "3 x 20 + 40 timed sections: %d logged", u.sections);
    cr_assert_gt(u.waited_s, 0.0, "four processes wanting one device never waited");
}

Test(device_lock, a_malformed_log_line_is_counted_and_skipped_and_the_rest_summed)
{
    ea_lock_use u;
    ea_error err;
    const char *dir = test_tmpdir();
    char *file = test_write(dir, "lock.tsv",
                            "ex\t12\t0.5\t2.0\t1700000000.0\tgate\n"
                            "ex\t12\tnot a number\n"
                            "ex\t13\t0\t-1\t1700000001.0\tnegative\n"
                            "xx\t14\t0\t1\t1700000002.0\tunknown kind\n"
                            "ex\t12\t0\t1.0\t1700000003.0\tgate\n"
                            "ex\t12\t0\t1.0\t1700000004.0\t\n"
                            "ex\t12\t0\t1.0x\t1700000005.0\ttrailing junk in a number\n");
    cr_assert_eq(ea_lock_log_read(file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.bad, 5, "a bad number, a negative hold, an unknown kind, no holder, junk after a number");
    cr_assert_eq(u.first_bad, 2);
    cr_assert_eq(u.sections, 2);
    cr_assert_float_eq(u.held_s, 3.0, 1e-9);
    cr_assert_float_eq(u.span_s, 4.0, 1e-6, "from the first ask (0) to the last end (3 + 1): %f", u.span_s);
    cr_assert_str_eq(u.top[0].who, "gate");
    free(file);
    char missing[4300];
    snprintf(missing, sizeof missing, "%s/absent.tsv", dir);
    cr_assert_eq(ea_lock_log_read(missing, &u, &err), -1);
    cr_assert(strstr(err.msg, missing) && strstr(err.msg, "cannot read"), "%s", err.msg);
}

Test(device_lock, nested_sections_log_one_line_and_a_child_forked_inside_logs_none)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    ea_device_lock_label("outer");
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    pid_t kid = fork();
    if (kid == 0) { /* as a test that forks while it times: the section is not the child's to log */
        ea_device_unlock();
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(kid, &st, 0), kid);
    ea_device_unlock();
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.sections, 1, "one outermost section, logged once by its process: %d lines", u.sections);
    cr_assert_str_eq(u.top[0].who, "outer");
}

Test(device_lock, a_label_loses_its_control_characters_and_a_blank_one_is_a_question_mark)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    ea_device_lock_label("gate\x1b[31m\r\nrun");
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    ea_device_lock_label("\t \n");
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.bad, 0, "line %d of %s", u.first_bad, log_file);
    cr_assert_eq(u.top_n, 2);
    cr_assert(!strcmp(u.top[0].who, "gate [31m  run") || !strcmp(u.top[1].who, "gate [31m  run"), "%s | %s",
              u.top[0].who, u.top[1].who);
    cr_assert(!strcmp(u.top[0].who, "?") || !strcmp(u.top[1].who, "?"), "%s | %s", u.top[0].who, u.top[1].who);
}

static const char *namer_text;

static const char *test_namer(void)
{
    return namer_text;
}

/* A namer's text is cleaned as a label is; one that gives nothing leaves the program's name. */
Test(device_lock, a_namer_text_loses_its_control_characters_and_an_empty_one_is_not_used)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    ea_device_lock_namer(test_namer);
    const char *texts[] = {"a\tb\n", "", NULL};
    for (int i = 0; i < 3; i++) {
        namer_text = texts[i];
        cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
        ea_device_unlock();
    }
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.bad, 0, "line %d of %s", u.first_bad, log_file);
    cr_assert_eq(u.top_n, 2, "\"a b\" and the program's name, twice");
    int named = 0, program = 0;
    for (int i = 0; i < u.top_n; i++) {
        named += !strcmp(u.top[i].who, "a b") && u.top[i].sections == 1;
        program += strcmp(u.top[i].who, "a b") && u.top[i].sections == 2;
    }
    cr_assert(named == 1 && program == 1, "%s (%d) | %s (%d)", u.top[0].who, u.top[0].sections, u.top[1].who,
              u.top[1].sections);
}

Test(device_lock, a_section_without_a_label_is_named_by_the_running_test)
{
    ea_lock_use u;
    ea_error err;
    use_test_lock();
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.top_n, 1);
    cr_assert_str_eq(u.top[0].who, "device_lock::a_section_without_a_label_is_named_by_the_running_test",
                     "the suite's namer, not the program's name");
    ea_device_lock_namer(NULL);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    ea_device_unlock();
    cr_assert_eq(ea_lock_log_read(log_file, &u, &err), 0, "%s", err.msg);
    cr_assert_eq(u.top_n, 2);
    char comm[64] = "";
    FILE *f = fopen("/proc/self/comm", "r");
    cr_assert(f && fgets(comm, sizeof comm, f));
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    cr_assert(!strcmp(u.top[0].who, comm) || !strcmp(u.top[1].who, comm),
              "without a namer, the program's name without comm's newline: '%s' | '%s'", u.top[0].who, u.top[1].who);
}

Test(device_lock, a_log_that_cannot_be_written_leaves_the_lock_working)
{
    ea_error err;
    use_test_lock();
    setenv(EA_LOCK_LOG_ENV, "/proc/self/no-such/device-lock.tsv", 1);
    cr_assert_eq(ea_device_lock(&err), 0, "%s", err.msg);
    cr_assert_not(free_for_another());
    ea_device_unlock();
    cr_assert(free_for_another(), "the lock outlived its section when its log could not be written");
}
