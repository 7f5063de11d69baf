/* error.h: one error record passed down every fallible call.
 * Contract: a function that fails fills err->msg with "where: what was expected, what was found"
 * (where = file:line or file JSON-path) and returns -1; callers add context only by prefixing. */
#ifndef EA_ERROR_H
#define EA_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char msg[1024];
} ea_error;

/* printf into err->msg; always returns -1 so callers can `return ea_fail(...)`. */
int ea_fail(ea_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
