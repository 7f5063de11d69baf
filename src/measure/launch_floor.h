/* launch_floor.h: the launch floor, what k operations cost with nothing in them: a chain of k empty kernels as
 * CUDA-graph nodes, timed warm and cold by the timer (run measures it, the baselines record it), and the floor
 * fractions of launch-bound scopes against bytes + launches.
 * Contract:
 * - ea_launch_floor_measure (a GPU, the caller holding the device lock): the chains of 1..n (<= EA_LAUNCH_FLOOR_MAX)
 *   empty kernels, each timed warm and cold (ea_time_warm_cold, the timer's defaults); cold_us[k] NaN with
 *   cold_note saying why where CUPTI cannot record. -1 (err) when a timing fails.
 * - ea_launch_floor_json: the baselines document's "launch_floor": {"chains": [{"kernels": k, "warm_us",
 *   "cold_us" (null: no cold time, "cold_note" says why)}]} for k = 1..n: numbers, no sentence (baselines since v2:
 *   how the chains are timed is docs/reference/schema.md's and the report's to say).
 * - ea_launch_floor_validate reads one strictly (optional in a baselines document): kernels 1, 2, ... in order,
 *   warm_us > 0, cold_us > 0 or null with a cold_note.
 * - ea_launch_floor_carry: fresh's "launch_floor" into out (replacing out's, else after "launch_us", where
 *   ea_baseline_doc writes it) when fresh has one that out's is not; 1 when it took it, else 0 (gate --propose
 *   and run --keep-from: the chains are this run's environment, as its copy bandwidth, and no entry judges them).
 * - ea_launch_floor_moved: 1 when fresh has a "launch_floor" and stored none, or another number of chains, or a
 *   chain whose warm or cold time moved by more than margin (relative to stored's; a cold time there on one side
 *   only counts as moved); else 0. gate --propose takes a fresh floor only then, so that a floor measured
 *   again within the gate's margin keeps its bytes.
 * - ea_launch_floor_fractions(baselines): per result, its oracle's (the fastest faithful oracle* path that
 *   passed) and current path's operation count (a call's "kernel_launches", else its cold time's "operations",
 *   else its "kernels") and, where the chain of the oracle's count costs at least the result's transfer time
 *   (fractions.h's transfer_us: launch-bound), floor = transfer_us + chain(k), warm and cold, and fraction = floor / the
 *   path's time, for the oracle, the current path and the measured floor's path ("floor_copy": one kernel copying
 *   the scope's bytes, what moving the bytes alone reaches of bytes + launches) each with its own count.
 *   {"chains", "scopes": [{"family", "point", "result", "alias", "transfer_us", "oracle": {"kernels", "launch_us",
 *   "floor_us", "us", "fraction", "launch_cold_us", "floor_cold_us", "cold_us", "fraction_cold"}, "current": {...},
 *   "floor_copy": {...}}]}, "current" and "floor_copy" absent where the result has no such path; a count over the
 *   chains measured, or a time not there, is null. No "launch_floor" in the document: {"note": why}. */
#ifndef EA_LAUNCH_FLOOR_H
#define EA_LAUNCH_FLOOR_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "base/json.h"

/* The longest chain run measures: the most operations a measured path runs per call (routing's current path: 8,
 * its memsets counted, in the committed H200 baselines' cold times). */
#define EA_LAUNCH_FLOOR_MAX 8

int ea_launch_floor_measure(double *warm_us, double *cold_us, int n, char *cold_note, size_t note_n, ea_error *err);
cJSON *ea_launch_floor_json(const double *warm_us, const double *cold_us, int n, const char *cold_note);
int ea_launch_floor_validate(ej_val v, ea_error *err);
int ea_launch_floor_carry(cJSON *out, const cJSON *fresh);
int ea_launch_floor_moved(const cJSON *stored, const cJSON *fresh, double margin);
cJSON *ea_launch_floor_fractions(const cJSON *baselines);

#endif
