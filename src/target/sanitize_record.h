/* sanitize_record.h: golden/targets/<target>/sanitize.json, what ci/gpu-sanitize (ci/sanitize-summary)
 * records: every kernel of every scope under compute-sanitizer's tools (docs/reference/schema.md "sanitize").
 * Contract: ea_sanitize_validate checks a parsed document strictly ("<file> <JSON path>: expected
 * ..."; -1); ea_sanitize_show prints a validated one for `audit`'s bottom line (and so docs/results.md):
 * the GPU, driver, sanitizer and command, the kernels the plain runs launched, and per tool its
 * runs, the errors and hazards it reported (null: a run that never printed its summary) and its
 * slowest run, then the verdict. */
#ifndef EA_SANITIZE_RECORD_H
#define EA_SANITIZE_RECORD_H

#define EA_SANITIZE_SCHEMA "extern-audit/sanitize"
#define EA_SANITIZE_VERSION 1

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/error.h"

int ea_sanitize_validate(const char *file, const cJSON *doc, ea_error *err);
void ea_sanitize_show(const char *file, const cJSON *doc, FILE *f);

#endif
