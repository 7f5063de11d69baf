/* golden_install.c: copy a target beside its destination, then rename it in (contract in golden_install.h). */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "golden_install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "readfile.h"

/* The entries of a target folder, NULL-terminated; captures/ is the one folder. */
static const char *const ea_target_files[] = {"target.json", "classification.json", "baselines.json", "torch_ops.json",
                                       "replay.json", "captures", NULL};
/* Records measured on the target's GPU and torch by their own steps (ci/gpu-check STEPS=sanitize,
 * replica_gap), which a stage need not repeat: the stage's when it has one, else the old target's. */
static const char *const records[] = {"sanitize.json", "replica_gap.json", NULL};

/* Removes path and everything under it (links are removed, not followed); best effort. */
static void remove_tree(const char *path)
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
            remove_tree(sub);
        }
    }
    if (d)
        closedir(d);
    if (S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path))
        fprintf(stderr, "extern-audit: warning: cannot remove %s: %s\n", path, strerror(errno));
}

static int copy_file(const char *from, const char *to, ea_error *err)
{
    char *text;
    size_t len, done = 0;
    if (ea_read_file(from, &text, &len, err))
        return -1;
    int fd = open(to, O_WRONLY | O_CREAT | O_EXCL, 0644);
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int rc = fd >= 0 && done == len && fsync(fd) == 0 ? 0 : ea_fail(err, "%s: cannot write: %s", to, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = ea_fail(err, "%s: cannot write: %s", to, strerror(errno));
    free(text);
    return rc;
}

/* from (a file or a folder, links followed) to to, which must not exist. */
static int copy_tree(const char *from, const char *to, ea_error *err)
{
    struct stat st;
    if (stat(from, &st) != 0)
        return ea_fail(err, "%s: cannot read: %s", from, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return copy_file(from, to, err);
    if (mkdir(to, 0755) != 0)
        return ea_fail(err, "%s: cannot create: %s", to, strerror(errno));
    DIR *d = opendir(from);
    if (!d)
        return ea_fail(err, "%s: cannot read: %s", from, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char a[4200], b[4200];
        if (e->d_name[0] == '.')
            continue;
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/%s", to, e->d_name);
        rc = copy_tree(a, b, err);
    }
    closedir(d);
    return rc;
}

int ea_golden_install(const char *staged, const char *golden, const char *name, ea_error *err)
{
    char targets[4096], tmp[4400], dest[4400];
    snprintf(targets, sizeof targets, "%s/targets", golden);
    snprintf(tmp, sizeof tmp, "%s/.%s.accept-%ld", targets, name, (long)getpid());
    snprintf(dest, sizeof dest, "%s/%s", targets, name);
    if (ea_make_dirs(targets, err))
        return -1;
    if (mkdir(tmp, 0755) != 0)
        return ea_fail(err, "%s: cannot create: %s", tmp, strerror(errno));
    int rc = 0;
    for (int i = 0; rc == 0 && ea_target_files[i]; i++) {
        char a[4400], b[4600];
        snprintf(a, sizeof a, "%s/%s", staged, ea_target_files[i]);
        snprintf(b, sizeof b, "%s/%s", tmp, ea_target_files[i]);
        rc = copy_tree(a, b, err);
    }
    struct stat st;
    for (int i = 0; rc == 0 && records[i]; i++) {
        char a[4500], b[4600];
        snprintf(a, sizeof a, "%s/%s", staged, records[i]);
        if (lstat(a, &st) != 0)
            snprintf(a, sizeof a, "%s/%s", dest, records[i]);
        snprintf(b, sizeof b, "%s/%s", tmp, records[i]);
        if (lstat(a, &st) == 0)
            rc = copy_tree(a, b, err);
    }
    int exists = lstat(dest, &st) == 0;
    if (rc == 0 && (exists ? renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) : rename(tmp, dest)) != 0)
        rc = ea_fail(err, "%s: cannot %s %s: %s", dest, exists ? "swap in" : "rename in", tmp, strerror(errno));
    if (rc != 0 || exists) /* the failed copy, or the old target now at tmp */
        remove_tree(tmp);
    return rc;
}
