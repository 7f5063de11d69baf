/* gate_merge.h: the reports of gate --shard I/N (I = 1..N) joined into the report one unsharded gate gives.
 * Contract: ea_gate_merge reads each report file (schema extern-audit/gate, with "shard"), and refuses, naming
 * the files: a report without "shard", mixed shard counts, targets, stored baselines, compared documents, plans
 * or drift rules; an overlap (one shard twice, or an entry outside its report's share); a missing shard (with
 * its points). It reads the stored baselines again (baseline: another path to them, NULL for the reports'),
 * whose digest must be the shards' (a changed file is named), and the new side: the one document --against
 * shards compared (digest checked), or each --run shard's saved fresh document ("fresh": the path as given, else
 * its base name beside the report), validated, holding only its share's points, of the stored GPU model. The
 * joined report has every shard's entries, in the unsharded order (the stored document's results, then the new
 * side's), new-side indices and "where" shifted into the joined fresh document (the --run shards' results in
 * shard order, the first shard's header, "passed" over all), the summary recounted, "remeasurements" the
 * largest, "remeasure_failed" the shards' joined (absent when none), and "merged" (docs/reference/schema.md); ea_gate_propose(out->stored, out->fresh, out->report) is
 * the proposal.
 * -1 with err set on any refusal; nothing is half-made. */
#ifndef EA_GATE_MERGE_H
#define EA_GATE_MERGE_H

#include <cjson/cJSON.h>

#include "base/error.h"

typedef struct {
    cJSON *report, *stored, *fresh;
    int from_runs; /* the shards ran (--run): fresh is their documents joined, a new measurement to save */
} ea_gate_merged;

int ea_gate_merge(const char *const *files, int n, const char *baseline, ea_gate_merged *out, ea_error *err);
void ea_gate_merged_free(ea_gate_merged *m);

#endif
