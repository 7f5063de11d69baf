/* baseline_table.h: a target's baselines as `extern-audit audit` shows them, one row per measured
 * configuration, saying how rows of one alias differ.
 * Contract: ea_baseline_table(file, doc) returns a malloc'd array of rows {"family", "alias", "mode" ("infer",
 * "train", "infer+train", or "-" when the target has no classification.json beside file), "variant" (the
 * configuration fields that differ among the alias's rows, e.g. "narrow, topk_ids_skewed"; "" when none does),
 * "context" (true for a configuration the capture is not comparable with: another form or distribution of a
 * priced scope), "occurrences" (null on a context row: its occurrences are counted on the priced row, so the
 * column sums to what is priced), "current_us", "oracle_us", "current_cold_us", "oracle_cold_us" (null where
 * not timed cold), "floor_us", "speedup", "floor_fraction", "floor_measured_fraction" (fractions.h's
 * measured_fraction; null before the result had a measured floor), "fraction_basis" ("cold" | "warm"), "passed",
 * "unsupported" (the family's refusal, or null)}. doc is a validated baselines document.
 * ea_baseline_table_print writes them as a terminal table, columns as wide as their contents; the measured floor's
 * column ("meas%") only once a row has one. */
#ifndef EA_BASELINE_TABLE_H
#define EA_BASELINE_TABLE_H

#include <stdio.h>

#include <cjson/cJSON.h>

cJSON *ea_baseline_table(const char *file, const cJSON *doc);
void ea_baseline_table_print(const cJSON *rows, FILE *f);

#endif
