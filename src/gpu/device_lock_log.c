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
    int n = snprintf(line, sizeof line, "%s\t%ld\t%.6f\t%.6f\t%.6f\t%.200s\n", kind, (long)getpid(), waited_s, held_s,
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

int ea_lock_log_read(const char *file, ea_lock_use *use, ea_error *err)
{
    memset(use, 0, sizeof *use);
    FILE *f = fopen(file, "r");
    if (!f)
        return ea_fail(err, "%s: cannot read the device lock's log: %s", file, strerror(errno));
    char *line = NULL, kind[4], who[128];
    size_t cap = 0;
    long pid;
    double waited, held, start, first = INFINITY, last = -INFINITY;
    ea_lock_holder *list = NULL;
    int n = 0, ncap = 0, lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        int ex = 0;
        who[0] = '\0';
        if (sscanf(line, "%3[a-z]\t%ld\t%lf\t%lf\t%lf\t%127[^\n]", kind, &pid, &waited, &held, &start, who) != 6 ||
            !((ex = !strcmp(kind, "ex")) || !strcmp(kind, "sh")) || !(waited >= 0) || !(held >= 0) || !(start > 0)) {
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
