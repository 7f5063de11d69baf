/* classify_impl.h: test-only entry point of classify.c.
 * ea_classification_summary: the $.summary that classify writes for a classification's occurrences entries
 * (each of an audit op and a known class), the one a stored document must hold; the tests resummarize the
 * documents they edit with it. The caller deletes it. */
#ifndef EA_CLASSIFY_IMPL_H
#define EA_CLASSIFY_IMPL_H

#include <cjson/cJSON.h>

cJSON *ea_classification_summary(const cJSON *entries);

#endif
