/* replay_file.h: the strict reader of golden/targets/<target>/replay.json (docs/schema.md), which only
 * `replay --record` writes. Contract: ea_replay_file_validate accepts an array of one object per
 * capture: scope, verdict (one of the replay's verdicts); a replayed capture also has outputs >= 1,
 * outputs_matching in [0, outputs] (equal when the verdict is ok), kernels_match, kernels (strings),
 * and, when timed, replay_us {median, q1, q3 > 0 in order, samples >= 1, policy}, torch_compiled_us > 0
 * and ratio; mismatch and kernels_unavailable are optional strings. Anything else fails naming the
 * file and JSON path. Each scope once; ratio = replay_us.median / torch_compiled_us; mismatch exactly
 * when outputs_matching < outputs; every output matching means it was timed; kernels_unavailable
 * needs kernels_match false; and the verdict must be the one the fields give
 * (ea_replay_verdict, the rule `replay` judges by). ea_replay_file_count gives how many captures a
 * valid document replayed and how many of them are ok. */
#ifndef EA_REPLAY_FILE_H
#define EA_REPLAY_FILE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"

#define EA_REPLAY_NOT_REPLAYABLE "not replayable (ATen steps)"

/* "output mismatch" when an output differs, else "kernels differ" when CUPTI gave a list
 * (!unavailable) that is not the capture's, else by ratio (replay / torch): "ok" within
 * EA_CAPTURE_TOLERANCE, "slower than torch" or "faster than torch". */
const char *ea_replay_verdict(int64_t outputs, int64_t matching, int kernels_match, int unavailable, double ratio);
int ea_replay_file_validate(const char *file, const cJSON *doc, ea_error *err);
/* A valid document against the captures folder it describes (<target>/captures): every row's scope has
 * <captures>/<scope>/capture.json and every capture there has a row; else -1 naming the file, the row or
 * the capture. */
int ea_replay_file_covers(const char *file, const cJSON *doc, const char *captures, ea_error *err);
void ea_replay_file_count(const cJSON *doc, int *replayed, int *ok);

#endif
