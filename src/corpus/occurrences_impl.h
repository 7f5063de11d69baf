/* occurrences_impl.h: test-only entry points of occurrences.c (tests and fuzz/ check one document).
 * ea_occurrences_validate: one golden occurrence document against occurrences.h's contract; file names
 * it in messages, expected_op is the op its file holds.
 * ea_golden_dir_of: the golden folder that holds a document <golden>/occurrences/<op>.json (the tests
 * open a run context on it for a document they load alone): "golden/occurrences/cat.json" -> "golden",
 * "occurrences/cat.json" -> ".", "cat.json" -> "..". 0, or -1 when out (n bytes) cannot hold it. */
#ifndef EA_OCCURRENCES_IMPL_H
#define EA_OCCURRENCES_IMPL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/error.h"

int ea_occurrences_validate(const char *file, const cJSON *doc, const char *expected_op, ea_error *err);
int ea_golden_dir_of(const char *occurrence_file, char *out, size_t n);

#endif
