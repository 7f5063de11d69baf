/* json_write.c: every golden writer's one way to land a file (json.h, "writing"): a temporary file opened
 * exclusively, never through a link, written and synced, then renamed over the path; a set of files lands only when
 * every one of them was written. */
#include "base/json.h"
#include "base/landing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

static int cannot_write(const char *path, int errnum, ea_error *err)
{
    return ea_fail(err, "%s: cannot write: %s", path, strerror(errnum));
}

/* The temporary files of path (path.tmp.<pid>) whose writer no longer runs: a killed write's debris. */
static void remove_dead_temps(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], prefix[512], stale[4700];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash ? slash + 1 : path);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (ea_stale_pid_name(e->d_name, prefix)) {
            snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
            unlink(stale);
        }
    if (d)
        closedir(d);
}

/* A new file at tmp, never an existing one and never through a link: a name planted there (a link to a file
 * elsewhere, a dead writer's file of our pid) is removed, not written through. */
static int open_exclusive(const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    return fd;
}

/* head then tail (the JSON writer's trailing newline) into path.tmp.<pid> (created exclusively), fsync: *tmp (malloc'd)
 * holds it, ready to be renamed over path (which replaces a link at path, never writes through it). */
static int stage_file(const char *path, const char *head, size_t hlen, const char *tail, char **tmp_out, ea_error *err)
{
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    int fd, saved;
    *tmp_out = NULL;
    if (!tmp)
        return cannot_write(path, ENOMEM, err);
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());
    remove_dead_temps(path);
    /* Parent directories are not created: a missing one means a wrong path, which is worth reporting. */
    fd = open_exclusive(tmp);
    if (fd < 0) {
        const char *slash = strrchr(path, '/');
        saved = errno;
        free(tmp);
        if (saved == ENOENT && slash)
            return ea_fail(err, "%s: cannot write: %s (directory '%.*s' does not exist)", path, strerror(saved),
                           slash == path ? 1 : (int)(slash - path), path);
        return cannot_write(path, saved, err);
    }
    if (write_all(fd, head, hlen) < 0 || write_all(fd, tail, strlen(tail)) < 0 || fsync(fd) < 0) {
        saved = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) < 0) {
        saved = errno;
        goto fail;
    }
    *tmp_out = tmp;
    return 0;
fail:
    unlink(tmp);
    free(tmp);
    return cannot_write(path, saved, err);
}

static int write_atomic(const char *path, const char *head, size_t hlen, const char *tail, ea_error *err)
{
    char *tmp;
    if (stage_file(path, head, hlen, tail, &tmp, err))
        return -1;
    int rc = rename(tmp, path) ? cannot_write(path, errno, err) : 0;
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

int ea_write_files_atomic(const char *const *paths, const char *const *texts, int n, ea_error *err)
{
    char **tmp = calloc((size_t)(n ? n : 1), sizeof *tmp);
    int staged = 0, rc = tmp ? 0 : ea_fail(err, "%s: cannot write: out of memory", n ? paths[0] : "");
    for (int i = 0; rc == 0 && i < n; i++)
        for (int k = 0; rc == 0 && k < i; k++)
            if (!strcmp(paths[i], paths[k]))
                rc = ea_fail(err, "%s: cannot write: named twice among the files of one set", paths[i]);
    for (; rc == 0 && staged < n; staged++)
        if ((rc = stage_file(paths[staged], texts[staged], strlen(texts[staged]), "", &tmp[staged], err)))
            break;
    /* every file's bytes are on disk before the first is replaced; a rename in its own folder needs no space */
    for (int i = 0; rc == 0 && i < n; i++)
        if (rename(tmp[i], paths[i]))
            rc = ea_fail(err, "%s: cannot replace: %s (%d of the %d files before it replaced)", paths[i],
                         strerror(errno), i, n);
    for (int i = 0; tmp && i < n; i++) {
        if (rc && tmp[i])
            unlink(tmp[i]);
        free(tmp[i]);
    }
    free(tmp);
    return rc;
}

int ea_write_file_atomic(const char *path, const char *text, size_t len, ea_error *err)
{
    return write_atomic(path, text, len, "", err);
}

int ej_write_atomic(const char *path, const cJSON *root, ea_error *err)
{
    char *text = cJSON_Print(root);
    int rc;
    if (!text)
        return cannot_write(path, ENOMEM, err);
    rc = write_atomic(path, text, strlen(text), "\n", err);
    cJSON_free(text);
    return rc;
}

int ea_make_dirs(const char *dir, ea_error *err)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path || !path[0])
        return ea_fail(err, "%.100s: expected a folder path of 1 to %zu bytes", dir, sizeof path - 1);
    for (char *p = path + 1;; p++) { /* each prefix ending before a '/', then the whole path */
        int last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && (errno != EEXIST || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
            return ea_fail(err, "%s: cannot create the folder: %s", path,
                           errno == EEXIST ? "a file of that name is in the way" : strerror(errno));
        if (last)
            return 0;
        *p = '/';
    }
}
