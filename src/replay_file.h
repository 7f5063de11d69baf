/* replay_file.h: the strict reader of golden/targets/<target>/replay.json (docs/schema.md), which only
 * `replay --record` writes. Contract: ea_replay_file_validate accepts an array of one object per
 * capture: scope, verdict (one of the replay's verdicts); a replayed capture also has outputs >= 1,
 * outputs_matching in [0, outputs] (equal when the verdict is ok), outputs_within_tolerance (optional,
 * >= 1; with outputs_matching, all outputs when the verdict is EA_REPLAY_OK_TOLERANT), kernels_match, kernels (strings),
 * and, when timed, replay_us {median, q1, q3 > 0 in order, samples >= 1, policy}, torch_compiled_us > 0
 * and ratio; mismatch and kernels_unavailable are optional strings. Anything else fails naming the
 * file and JSON path. ea_replay_file_count gives how many captures a valid document replayed and how
 * many of them are ok. */
#ifndef EA_REPLAY_FILE_H
#define EA_REPLAY_FILE_H

#include <cjson/cJSON.h>

#include "error.h"

/* The verdict of a replay whose outputs matched, some within tolerance of their reference samples only. */
#define EA_REPLAY_OK_TOLERANT "ok within tolerance (atomics)"

int ea_replay_file_validate(const char *file, const cJSON *doc, ea_error *err);
void ea_replay_file_count(const cJSON *doc, int *replayed, int *ok);

#endif
