/* device_lock.c: one lock per GPU, shared by untimed work and exclusive for timed work (device_lock.h). */
#include "gpu/device_lock.h"
#include "gpu/device_lock_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu/device.h"
#include "gpu/device_lock_log.h"

/* "<sections> <pid>\n" at the file's start, fixed width so that a rewrite never leaves a longer old tail. */
#define RECORD_FMT "%20" PRIu64 " %10ld\n"
#define RECORD_LEN 33

static struct {
    char key[64];   /* the device's UUID, or a test's key */
    char path[4200];
    char turn[4200]; /* the turnstile beside it: a waiting timer keeps new sharers out (no starvation) */
    int fd;         /* open while held, shared or exclusive */
    int ex, sh;     /* nesting of exclusive and shared holds within this process */
    uint64_t own;   /* exclusive sections this process took */
    uint64_t first; /* the counter just before this process's first section since the last mark */
    int marked;     /* a mark waits for that first section */
    double asked;   /* the outermost exclusive section's ask, s since the epoch (the log's start field) */
    double ask, got; /* its ask and grant on the monotonic clock, for durations a clock step cannot make negative */
    pid_t owner;    /* the process granted it: a child forked inside it logs nothing of it */
    char who[128];  /* ea_device_lock_label's, for the log */
} lk = {.fd = -1};

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *(*namer)(void);

/* Control characters become spaces (a tab or newline would break the log's line, an escape the summary's),
 * trailing ones dropped (/proc/self/comm ends in a newline); an empty or blank label is "?". */
static void clean_label(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
    size_t len = strlen(dst);
    while (len && iscntrl((unsigned char)dst[len - 1]))
        dst[--len] = '\0';
    int blank = 1;
    for (char *c = dst; *c; c++) {
        *c = iscntrl((unsigned char)*c) ? ' ' : *c;
        blank &= *c == ' ';
    }
    if (blank)
        snprintf(dst, n, "?");
}

void ea_device_lock_label(const char *who)
{
    clean_label(lk.who, sizeof lk.who, who);
}

void ea_device_lock_namer(const char *(*fn)(void))
{
    namer = fn;
}

/* One line of $EA_DEVICE_LOCK_LOG, when it is set: a section of kind asked for at asked (epoch). */
static void log_section(const char *kind, double asked, double waited, double held)
{
    const char *file = getenv(EA_LOCK_LOG_ENV);
    if (!file || !*file)
        return;
    char who[sizeof lk.who];
    const char *named = lk.who[0] || !namer ? NULL : namer();
    if (lk.who[0]) {
        snprintf(who, sizeof who, "%s", lk.who);
    } else if (named && *named) {
        clean_label(who, sizeof who, named);
    } else {
        char comm[128] = "";
        FILE *f = fopen("/proc/self/comm", "r");
        if (!f || !fgets(comm, sizeof comm, f))
            snprintf(comm, sizeof comm, "pid %ld", (long)getpid());
        if (f)
            fclose(f);
        clean_label(who, sizeof who, comm);
    }
    ea_lock_log_append(file, kind, waited, held, asked, who);
}

void ea_device_lock_use_key(const char *key)
{
    snprintf(lk.key, sizeof lk.key, "%s", key);
    lk.path[0] = lk.turn[0] = '\0';
}

static const char *lock_dir(void)
{
    const char *d = getenv(EA_LOCK_DIR_ENV);
    return d && *d ? d : EA_LOCK_DIR_DEFAULT;
}

/* The files' paths, from the device's UUID on first use: 0, or 1 when there is no device to lock. */
static int resolve(ea_error *err)
{
    if (lk.path[0])
        return 0;
    if (!lk.key[0]) {
        ea_device_info info;
        if (!ea_device_probe(&info) || !info.uuid[0])
            return 1;
        snprintf(lk.key, sizeof lk.key, "%s", info.uuid);
    }
    const char *dir = lock_dir();
    /* shared by every user of the machine: the GPU is */
    if (mkdir(dir, 01777) == 0)
        chmod(dir, 01777);
    else if (errno != EEXIST)
        return ea_fail(err, "%s: cannot make the device lock folder: %s (%s names another)", dir, strerror(errno),
                       EA_LOCK_DIR_ENV);
    snprintf(lk.path, sizeof lk.path, "%s/%s.lock", dir, lk.key);
    snprintf(lk.turn, sizeof lk.turn, "%s/%s.turn", dir, lk.key);
    return 0;
}

static int read_record(int fd, uint64_t *sections, long *pid)
{
    char buf[RECORD_LEN + 1];
    ssize_t n = pread(fd, buf, RECORD_LEN, 0);
    *sections = 0, *pid = 0;
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return sscanf(buf, "%" SCNu64 " %ld", sections, pid) == 2;
}

static int open_lock(const char *path, ea_error *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return ea_fail(err, "%s: cannot open the device lock: %s", path, strerror(errno));
    fchmod(fd, 0666);
    return fd;
}

static int take(int fd, int op, const char *path, ea_error *err)
{
    while (flock(fd, op) != 0)
        if (errno != EINTR)
            return ea_fail(err, "%s: cannot lock the device: %s", path, strerror(errno));
    return 0;
}

/* lk.fd locked in mode op (LOCK_SH or LOCK_EX), through the turnstile: a process waiting for the exclusive
 * lock holds the turnstile, so processes asking to share wait behind it instead of overtaking it. A shared
 * hold is dropped before the turnstile is asked for: two sharers that both want to time never wait on each
 * other while holding what the other needs. */
static int acquire(int op, ea_error *err)
{
    if (lk.fd >= 0) { /* from shared to exclusive, or back */
        flock(lk.fd, LOCK_UN);
    } else if ((lk.fd = open_lock(lk.path, err)) < 0) {
        return -1;
    }
    int turn = open_lock(lk.turn, err);
    int rc = turn < 0 || take(turn, LOCK_EX, lk.turn, err) || take(lk.fd, op, lk.path, err) ? -1 : 0;
    if (turn >= 0)
        close(turn);
    if (rc) {
        close(lk.fd);
        lk.fd = -1;
    }
    return rc;
}

static void release(void)
{
    close(lk.fd); /* releases the flock */
    lk.fd = -1;
}

int ea_device_lock(ea_error *err)
{
    if (lk.ex > 0) {
        lk.ex++;
        return 0;
    }
    int r = resolve(err);
    if (r)
        return r < 0 ? -1 : 0;
    lk.asked = clock_s(CLOCK_REALTIME);
    lk.ask = clock_s(CLOCK_MONOTONIC);
    if (acquire(LOCK_EX, err))
        return -1;
    lk.got = clock_s(CLOCK_MONOTONIC);
    lk.owner = getpid();
    uint64_t sections;
    long pid;
    char rec[RECORD_LEN + 1];
    read_record(lk.fd, &sections, &pid);
    if (lk.marked) /* sections others took while this one waited came before it: they shared nothing */
        lk.first = sections, lk.marked = 0;
    snprintf(rec, sizeof rec, RECORD_FMT, sections + 1, (long)getpid());
    if (pwrite(lk.fd, rec, RECORD_LEN, 0) != RECORD_LEN) {
        int e = errno;
        release();
        lk.sh = 0;
        return ea_fail(err, "%s: cannot write the device lock's counter: %s", lk.path, strerror(e));
    }
    lk.ex = 1;
    lk.own++;
    return 0;
}

void ea_device_unlock(void)
{
    ea_error err;
    if (lk.ex == 0 || --lk.ex > 0)
        return;
    double end = clock_s(CLOCK_MONOTONIC);
    if (lk.sh == 0 || acquire(LOCK_SH, &err)) /* back to the shared hold the exclusive one came from */
        release(), lk.sh = 0;
    if (lk.owner == getpid()) /* written once the device is free: the log never lengthens a section */
        log_section("ex", lk.asked, lk.got - lk.ask, end - lk.got);
}

int ea_device_share(ea_error *err)
{
    if (lk.sh > 0 || lk.ex > 0) {
        lk.sh++;
        return 0;
    }
    int r = resolve(err);
    if (r)
        return r < 0 ? -1 : 0;
    double asked = clock_s(CLOCK_REALTIME), ask = clock_s(CLOCK_MONOTONIC);
    if (acquire(LOCK_SH, err))
        return -1;
    log_section("sh", asked, clock_s(CLOCK_MONOTONIC) - ask, 0);
    lk.sh = 1;
    return 0;
}

void ea_device_unshare(void)
{
    if (lk.sh == 0 || --lk.sh > 0 || lk.ex > 0)
        return;
    release();
}

/* The counter now, and this process's own sections. */
static void read_mark(ea_lock_mark *m)
{
    long pid;
    ea_error err;
    memset(m, 0, sizeof *m);
    if (resolve(&err) != 0)
        return;
    m->own = lk.own;
    int fd = open(lk.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) { /* never locked yet: a valid mark at 0 */
        m->valid = errno == ENOENT;
        return;
    }
    read_record(fd, &m->sections, &pid);
    close(fd);
    m->valid = 1;
}

void ea_device_lock_mark(ea_lock_mark *m)
{
    lk.marked = 1;
    read_mark(m);
}

uint64_t ea_device_lock_others(const ea_lock_mark *m, long *pid)
{
    ea_lock_mark now;
    *pid = 0;
    read_mark(&now);
    if (!m->valid || !now.valid || now.sections < m->sections)
        return 0;
    /* counted from this process's first section since m: what others did before it started is no sharing */
    uint64_t from = now.own > m->own && !lk.marked && lk.first >= m->sections ? lk.first : m->sections;
    uint64_t all = now.sections - from, mine = now.own - m->own;
    if (all <= mine)
        return 0;
    int fd = open(lk.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
        uint64_t s;
        read_record(fd, &s, pid);
        close(fd);
        if (*pid == (long)getpid())
            *pid = 0;
    }
    return all - mine;
}

void ea_device_lock_note(const ea_lock_mark *m, char *buf, size_t n)
{
    long pid;
    uint64_t others = ea_device_lock_others(m, &pid);
    if (!lk.path[0])
        snprintf(buf, n, "%s", "");
    else if (others)
        snprintf(buf, n, "%llu timed sections of other processes (the last pid %ld) took %s between this process's own, "
                 "never during one", (unsigned long long)others, pid, lk.path);
    else
        snprintf(buf, n, "no other process took %s meanwhile (a process that does not take it, such as torch, is "
                 "not seen)", lk.path);
}
