/* fuzz.h: what the libFuzzer harnesses share (built only by `make fuzz`; one harness per reader of
 * external or golden input). Readers that take a path get the input through fuzz_file: a file of
 * that name in a folder of this process's own, rewritten for every input. Every harness checks the
 * reader's contract on each input: success, or -1 with a message naming the file. */
#ifndef EA_FUZZ_H
#define EA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

/* The data as <private dir>/<name>; the path stays valid until the next call. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char dir[64], path[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/extern-audit-fuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    if (slash > path + strlen(dir)) { /* name holds a folder: make it once */
        *slash = '\0';
        mkdir(path, 0700);
        *slash = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

/* The data as a NUL-terminated string, for readers that parse text in memory; the caller frees. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A failure must say what failed: a message that is empty or does not name the input is a defect. */
static inline void fuzz_check_failure(int rc, const ea_error *err, const char *label)
{
    if (rc != 0 && rc != -1)
        abort();
    if (rc == -1 && (!err->msg[0] || !strstr(err->msg, label))) {
        fprintf(stderr, "a failure that does not name %s: '%s'\n", label, err->msg);
        abort();
    }
}

#endif
