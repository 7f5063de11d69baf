/* device_lock_log.c: the device lock's log of sections, written and summed (device_lock_log.h). */
#include "gpu/device_lock_log_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ea_lock_log_append(const char *file, const char *kind, double waited_s, double held_s, double start_s,
                        const char *who)
{
    char line[512];
    int n = snprintf(line, sizeof line, "%s\t%ld\t%.6f\t%.6f\t%.6f\t%.127s\n", kind, (long)getpid(), waited_s, held_s,
                     start_s, who);
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return; /* a log that cannot be written never stops the timed work it describes */
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

/* The holder named who in list (n of them), added when new: NULL only when memory runs out. */
static ea_lock_holder *holder(ea_lock_holder **list, int *n, int *cap, const char *who)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*list)[i].who, who))
            return &(*list)[i];
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 32;
        ea_lock_holder *l = realloc(*list, (size_t)c * sizeof *l);
        if (!l)
            return NULL;
        *list = l, *cap = c;
    }
    ea_lock_holder *h = &(*list)[(*n)++];
    memset(h, 0, sizeof *h);
    snprintf(h->who, sizeof h->who, "%s", who);
    return h;
}

static int by_held(const void *a, const void *b)
{
    double x = ((const ea_lock_holder *)a)->held_s, y = ((const ea_lock_holder *)b)->held_s;
    return (x < y) - (x > y);
}

/* A number field: all of it read, finite. */
static int number(const char *f, double *x)
{
    char *end;
    *x = strtod(f, &end);
    return end != f && *end == '\0' && isfinite(*x);
}

/* line's six tab-separated fields (device_lock_log.h); 0, or -1 when it is not such a line. */
static int parse(char *line, int *ex, double *waited, double *held, double *start, const char **who)
{
    char *f[6], *p = line;
    int n = 0;
    double pid;
    line[strcspn(line, "\n")] = '\0';
    f[n++] = p;
    while (n < 6 && (p = strchr(p, '\t')) != NULL)
        *p++ = '\0', f[n++] = p;
    if (n != 6 || !((*ex = !strcmp(f[0], "ex")) || !strcmp(f[0], "sh")) || !number(f[1], &pid) ||
        !number(f[2], waited) || !number(f[3], held) || !number(f[4], start))
        return -1;
    *who = f[5];
    return *waited >= 0 && *held >= 0 && *start > 0 && pid > 0 && **who ? 0 : -1;
}

int ea_lock_log_read(const char *file, ea_lock_use *use, ea_error *err)
{
    memset(use, 0, sizeof *use);
    FILE *f = fopen(file, "r");
    if (!f)
        return ea_fail(err, "%s: cannot read the device lock's log: %s", file, strerror(errno));
    char *line = NULL;
    const char *who;
    size_t cap = 0;
    double waited, held, start, first = INFINITY, last = -INFINITY;
    ea_lock_holder *list = NULL;
    int n = 0, ncap = 0, lineno = 0, ex;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (parse(line, &ex, &waited, &held, &start, &who)) {
            use->first_bad = use->bad++ ? use->first_bad : lineno;
            continue;
        }
        use->waited_s += waited;
        first = fmin(first, start);
        if (!ex) {
            use->shares++;
            continue;
        }
        ea_lock_holder *h = holder(&list, &n, &ncap, who);
        if (h)
            h->held_s += held, h->sections++;
        use->sections++;
        use->held_s += held;
        last = fmax(last, start + waited + held);
    }
    free(line);
    fclose(f);
    use->span_s = last > first ? last - first : 0;
    qsort(list, (size_t)n, sizeof *list, by_held);
    use->top_n = n < EA_LOCK_LOG_TOP ? n : EA_LOCK_LOG_TOP;
    if (use->top_n)
        memcpy(use->top, list, (size_t)use->top_n * sizeof *list);
    free(list);
    return 0;
}
