/* shard.h: a gate's points split over N shards (gate --shard I/N), balanced by each point's measuring time.
 * Contract:
 * - ea_shard_parse reads "I/N" (1 <= I <= N <= EA_SHARD_MAX).
 * - ea_shard_plan weighs each point id of ids by the stored baselines document: the "point_wall_s" its
 *   results record ("recorded") when every measured result of the document has one, else, for every point
 *   alike (one scale), the estimate from its stored timing ("estimated": per time object, the timer's 0.1 s
 *   warm-up plus replays x calls per replay x median; a cold one is one replay); a point with no measured
 *   result weighs the median of the others ("assumed", counted), 1 s when none has a weight. Longest first
 *   (ties by id), each point goes to the least loaded shard (ties: the lowest): deterministic, every point in
 *   exactly one shard. The plan (a new object, docs/reference/schema.md "gate --shard"): {"count", "basis", "assumed",
 *   "shards": [{"points": [ids, in the order of ids], "seconds": predicted}]}.
 * - ea_shard_digest: a 16-hex-digit FNV-1a digest of a document's unformatted print (what merge compares). */
#ifndef EA_SHARD_H
#define EA_SHARD_H

#include <cjson/cJSON.h>

#include "base/error.h"

#define EA_SHARD_MAX 64
#define EA_SHARD_PLAN_SCHEMA "extern-audit/shard-plan"
#define EA_SHARD_PLAN_VERSION 1

int ea_shard_parse(const char *arg, int *index, int *count, ea_error *err);
cJSON *ea_shard_plan(const cJSON *stored, const cJSON *ids, int count);
void ea_shard_digest(const cJSON *doc, char out[17]);

#endif
