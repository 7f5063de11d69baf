/* readfile.h: how every input file (graph dump, meta.json, golden document, cubin) is opened.
 * Contract: ea_read_file reads a whole regular file (links followed) of at most EA_READ_MAX bytes
 * into a malloc'd, NUL-terminated buffer. Anything else fails without blocking, naming the file:
 * "<path>: not a regular file (a FIFO)", "<path>: larger than the 64 MiB limit on input files
 * (N bytes)", "<path>: cannot read: <strerror>". A FIFO is opened non-blocking, so it never hangs.
 * ea_file_present tells an absent optional file (nothing at the path: 0) from one that is there
 * (1) and from a path that cannot be resolved (-1, message set): a dangling or looping link, an
 * unreadable folder. Only "nothing there" may be treated as absent. */
#ifndef EA_READFILE_H
#define EA_READFILE_H

#include <stddef.h>

#include "base/error.h"

#define EA_READ_MAX ((size_t)64 << 20)

int ea_read_file(const char *path, char **text, size_t *len, ea_error *err);
int ea_file_present(const char *path, ea_error *err);
/* The entry names under dir (hidden ones skipped), sorted; *names NULL and *n 0 when dir is absent.
 * Free them with ea_list_folder_free. */
int ea_list_folder(const char *dir, char ***names, int *n, ea_error *err);
void ea_list_folder_free(char **names, int n);
/* Whether s names one entry of a folder, as ea_list_folder lists them: non-empty, no '/', not hidden ('.' first;
 * so neither "." nor ".."). */
int ea_plain_name(const char *s);

#endif
