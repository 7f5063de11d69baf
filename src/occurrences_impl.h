/* occurrences_impl.h: test-only entry point of occurrences.c (tests and fuzz/ check one document).
 * ea_occurrences_validate: one golden occurrence document against occurrences.h's contract; file names
 * it in messages, expected_op is the op its file holds. */
#ifndef EA_OCCURRENCES_IMPL_H
#define EA_OCCURRENCES_IMPL_H

#include <cjson/cJSON.h>

#include "error.h"

int ea_occurrences_validate(const char *file, const cJSON *doc, const char *expected_op, ea_error *err);

#endif
