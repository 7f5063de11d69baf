/* landing.c: a new folder built beside its destination, swapped in under a lock (contract in landing.h). */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "base/landing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int ea_landing_lock(const char *parent, const char *name, ea_lock *lock, ea_error *err)
{
    struct stat held, there;
    snprintf(lock->path, sizeof lock->path, "%s/.%s.lock", parent, name);
    for (int tries = 0; tries < 8; tries++) {
        lock->fd = open(lock->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (lock->fd < 0)
            return ea_fail(err, "%s: cannot open the lock of %s/%s: %s", lock->path, parent, name, strerror(errno));
        if (flock(lock->fd, LOCK_EX | LOCK_NB) != 0) {
            int saved = errno;
            close(lock->fd);
            lock->fd = -1;
            if (saved == EWOULDBLOCK)
                return ea_fail(err, "%s/%s: another extern-audit is writing it (it holds %s): nothing was changed; "
                                    "run again once it has finished", parent, name, lock->path);
            return ea_fail(err, "%s: cannot lock: %s", lock->path, strerror(saved));
        }
        /* the holder before us removes the file as it lets go: a lock on a removed file is no lock */
        if (fstat(lock->fd, &held) == 0 && lstat(lock->path, &there) == 0 && held.st_ino == there.st_ino &&
            held.st_dev == there.st_dev)
            return 0;
        close(lock->fd);
    }
    lock->fd = -1;
    return ea_fail(err, "%s: cannot lock: it keeps being replaced", lock->path);
}

void ea_landing_unlock(ea_lock *lock)
{
    if (lock->fd < 0)
        return;
    unlink(lock->path); /* while held, so whoever opened it before sees it gone and tries again */
    close(lock->fd);
    lock->fd = -1;
}

int ea_stale_pid_name(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    char *end;
    if (strncmp(name, prefix, n) || name[n] < '1' || name[n] > '9')
        return 0;
    long pid = strtol(name + n, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void ea_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    DIR *d = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char sub[4200];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            ea_remove_tree(sub);
        }
    }
    if (d)
        closedir(d);
    if (S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path))
        fprintf(stderr, "extern-audit: warning: cannot remove %s: %s\n", path, strerror(errno));
}

int ea_landing_work(const char *parent, const char *name, const char *verb, char *out, size_t n, ea_error *err)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, ".%s.%s-", name, verb);
    DIR *d = opendir(parent);
    struct dirent *e;
    while (d && (e = readdir(d))) { /* under the lock every work folder there is a killed writer's */
        char stale[4800];
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && strspn(e->d_name + strlen(prefix), "0123456789") &&
            !e->d_name[strlen(prefix) + strspn(e->d_name + strlen(prefix), "0123456789")]) {
            snprintf(stale, sizeof stale, "%s/%s", parent, e->d_name);
            fprintf(stderr, "extern-audit: removing %s, left by a writer that did not finish\n", stale);
            ea_remove_tree(stale);
        }
    }
    if (d)
        closedir(d);
    if ((size_t)snprintf(out, n, "%s/%s%ld", parent, prefix, (long)getpid()) >= n)
        return ea_fail(err, "%s/%s: path too long", parent, name);
    if (mkdir(out, 0755) != 0)
        return ea_fail(err, "%s: cannot create: %s", out, strerror(errno));
    return 0;
}

int ea_landing_swap(const char *work, const char *dest, ea_error *err)
{
    struct stat st;
    int exists = lstat(dest, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode)) {
        ea_remove_tree(work);
        return ea_fail(err, "%s: expected a folder (or nothing), got %s", dest,
                       S_ISLNK(st.st_mode) ? "a link (never followed when writing)" : "a file");
    }
    if ((exists ? renameat2(AT_FDCWD, work, AT_FDCWD, dest, RENAME_EXCHANGE) : rename(work, dest)) != 0) {
        int saved = errno;
        ea_remove_tree(work);
        return ea_fail(err, "%s: cannot %s %s: %s", dest, exists ? "swap in" : "rename in", work, strerror(saved));
    }
    if (exists) /* the old folder, now at work */
        ea_remove_tree(work);
    return 0;
}
