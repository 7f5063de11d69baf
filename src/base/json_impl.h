/* json_impl.h: test-only entry point of json.c (the tests and fuzz/ harnesses parse in memory).
 * ej_parse: text already in memory, parsed as ej_load parses a file; label names it in messages. */
#ifndef EA_JSON_IMPL_H
#define EA_JSON_IMPL_H

#include "base/json.h"

int ej_parse(const char *label, const char *text, ej_doc *doc, ea_error *err);

#endif
