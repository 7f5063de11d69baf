/* json_diff.h: where two JSON values first differ, for a message a reader can act on.
 * Contract: ej_first_difference walks a and b in document order (object keys as a has them, then the keys only
 * b has; arrays by index); numbers within a 1e-12 relative difference are equal (a double printed by cJSON reads
 * back within its epsilon, not bit for bit, so a value derived in memory and one derived from its printed inputs
 * may differ in the last digits). When they differ it returns 1 and writes "first at <root><path>: <a's value>
 * -> <b's value>" to text (compact JSON, "(none)" for a missing key or index, both cut to a window around their
 * first differing byte); 0 when they are equal. */
#ifndef EA_JSON_DIFF_H
#define EA_JSON_DIFF_H

#include <stddef.h>

#include <cjson/cJSON.h>

int ej_first_difference(const cJSON *a, const cJSON *b, const char *root, char *text, size_t n);

#endif
