/* readfile.c: regular files only, size-limited (contract in readfile.h). */
#include "base/readfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a plain file";
}

/* Reads up to want bytes; fewer only at end of file. */
static ssize_t read_full(int fd, char *buf, size_t want)
{
    size_t n = 0;
    while (n < want) {
        ssize_t got = read(fd, buf + n, want - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        n += (size_t)got;
    }
    return (ssize_t)n;
}

int ea_read_file(const char *path, char **text, size_t *len, ea_error *err)
{
    struct stat st;
    char *buf;
    ssize_t got;
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before fstat could refuse it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    *text = NULL;
    *len = 0;
    if (fd < 0)
        return ea_fail(err, "%s: cannot read: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return ea_fail(err, "%s: cannot read: %s", path, strerror(saved));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ea_fail(err, "%s: not a regular file (%s)", path, kind(st.st_mode));
    }
    if ((size_t)st.st_size > EA_READ_MAX) {
        close(fd);
        return ea_fail(err, "%s: larger than the %zu MiB limit on input files (%lld bytes)", path, EA_READ_MAX >> 20,
                       (long long)st.st_size);
    }
    buf = malloc((size_t)st.st_size + 2);
    if (!buf) {
        close(fd);
        return ea_fail(err, "%s: out of memory reading %lld bytes", path, (long long)st.st_size);
    }
    /* one byte more than stat said, so a file that grew while being read is seen, not cut short */
    got = read_full(fd, buf, (size_t)st.st_size + 1);
    if (got < 0 || (size_t)got > (size_t)st.st_size) {
        int saved = errno;
        close(fd);
        free(buf);
        return got < 0 ? ea_fail(err, "%s: cannot read: %s", path, strerror(saved))
                       : ea_fail(err, "%s: changed size while being read (%lld bytes at first)", path,
                                 (long long)st.st_size);
    }
    close(fd);
    buf[got] = '\0';
    *text = buf;
    *len = (size_t)got;
    return 0;
}

int ea_file_present(const char *path, ea_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return 1;
    int saved = errno;
    if (saved == ENOENT && lstat(path, &st) != 0 && errno == ENOENT)
        return 0;
    if (saved == ENOENT)
        return ea_fail(err, "%s: a link to nothing (dangling link)", path);
    return ea_fail(err, "%s: cannot read: %s", path, strerror(saved));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ea_list_folder(const char *dir, char ***names, int *n, ea_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int cap = 0;
    *names = NULL;
    *n = 0;
    if (!d)
        return errno == ENOENT ? 0 : ea_fail(err, "%s: cannot read: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(*names, sizeof *bigger * (size_t)cap);
            if (!bigger)
                break;
            *names = bigger;
        }
        if (!((*names)[*n] = strdup(e->d_name)))
            break;
        (*n)++;
    }
    closedir(d);
    if (e)
        return ea_fail(err, "%s: out of memory", dir);
    if (*n)
        qsort(*names, (size_t)*n, sizeof **names, by_name);
    return 0;
}

void ea_list_folder_free(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int ea_plain_name(const char *s)
{
    return *s && *s != '.' && !strchr(s, '/');
}
