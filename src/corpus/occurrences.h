/* occurrences.h: the golden occurrence documents (golden/occurrences/<op>.json), read back strictly.
 * Contract: ea_occurrences_load (occurrences_impl.h's ea_occurrences_validate for one document)
 * accepts exactly the schema in docs/reference/schema.md (version 1): unknown
 * keys, wrong types, counts that disagree with the listed occurrences, an op other than the file's,
 * or an id that does not match its identity fields fail with the file and JSON path named.
 * The summary is derived from the documents alone, so `extract` and `audit` print the same table. */
#ifndef EA_OCCURRENCES_H
#define EA_OCCURRENCES_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/extract.h"

/* Loads and validates <dir>/<short>.json for every audit op; docs[i] owned by the caller. The documents must be
 * one extraction's set (the same corpus digest, graph count and cat cap), else it fails naming the first that
 * differs. */
int ea_occurrences_load(const char *dir, cJSON *docs[EA_AUDIT_OPS], ea_error *err);

/* {"schema","schema_version","occurrences_total","occurrences_by_op","points_by_op",
 *  "bf16_index_add","by_model":[{"op","suite","mode","model","occurrences","points"}]} */
cJSON *ea_occurrences_summary(cJSON *const docs[EA_AUDIT_OPS]);
void ea_occurrences_print(const cJSON *summary, FILE *f);

#endif
