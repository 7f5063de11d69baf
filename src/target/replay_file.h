/* replay_file.h: the strict reader of golden/targets/<target>/replay.json (docs/reference/schema.md), which only
 * `replay --record` writes. Contract: ea_replay_file_validate accepts an array of one object per
 * capture: scope, verdict (one of the replay's verdicts); a replayed capture also has outputs >= 1,
 * outputs_matching in [0, outputs], outputs_within_tolerance (optional, >= 1: outputs whose checksum
 * differs but which lie within tolerance of the capture's reference samples, as atomics leave them;
 * the two at most outputs), kernels_match, kernels (strings),
 * and, when timed, replay_us {median, q1, q3 > 0 in order, samples >= 1, policy}, torch_compiled_us > 0
 * and ratio; mismatch and kernels_unavailable are optional strings. Anything else fails naming the
 * file and JSON path. Each scope once; ratio = replay_us.median / torch_compiled_us; mismatch exactly
 * when outputs_matching + outputs_within_tolerance < outputs; every output matching (or within
 * tolerance) means it was timed; kernels_unavailable
 * needs kernels_match false; and the verdict must be the one the fields give
 * (ea_replay_verdict, the rule `replay` judges by). ea_replay_file_count gives how many captures a
 * valid document replayed and how many of them are ok (either ok verdict). */
#ifndef EA_REPLAY_FILE_H
#define EA_REPLAY_FILE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"

#define EA_REPLAY_NOT_REPLAYABLE "not replayable (ATen steps)"

/* The verdict of a replay whose outputs matched, some within tolerance of their reference samples only. */
#define EA_REPLAY_OK_TOLERANT "ok within tolerance (atomics)"

/* "output mismatch" when an output neither matches nor lies within tolerance (tolerant: how many only
 * within it), else "kernels differ" when CUPTI gave a list (!unavailable) that is not the capture's,
 * else by ratio (replay / torch): "slower than torch" or "faster than torch" beyond
 * EA_CAPTURE_TOLERANCE, else "ok", or EA_REPLAY_OK_TOLERANT when some output was only within tolerance. */
const char *ea_replay_verdict(int64_t outputs, int64_t matching, int64_t tolerant, int kernels_match, int unavailable,
                              double ratio);
int ea_replay_file_validate(const char *file, const cJSON *doc, ea_error *err);
/* A valid document against the captures it describes (a target's, as target.h's ea_target_captures_load gives
 * them: those it holds and those it inherits from its base): every row's scope is one of theirs and every capture
 * has a row; else -1 naming the file, the row or the capture. */
int ea_replay_file_covers(const char *file, const cJSON *doc, const ea_captures *caps, ea_error *err);
void ea_replay_file_count(const cJSON *doc, int *replayed, int *ok);

#endif
