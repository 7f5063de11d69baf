/* fractions.h: what a result derives from its paths' times, its plan's floor bytes and its run's copy rate: the
 * floor, speedup (current / oracle, warm), speedup_cold, and the floor and bandwidth fractions with their basis.
 * Baselines schema 3 stores none of them (docs/reference/schema.md): every reader derives them here, so no stored
 * number can disagree with the times it comes from, and no proposal has to rewrite one.
 * Contract: ea_result_figures reads result.config.floor_bytes, result.floor ("bytes_per_s", "launch_us": the
 * copy bandwidth and launch time of the run that measured the result) and the "current" (faithful) and "oracle"
 * (else "oracle_general") paths; a figure that does not apply is NaN (no floor, no oracle, no cold times). The
 * fractions are against the oracle's cold time when it has one (a cold call reads its bytes from DRAM, which the
 * copy-bandwidth floor bounds), else its warm time. The measured floor (floor_path.h: the path EA_PATH_FLOOR, in
 * results measured since it was added, where it passed its check) gives measured_us and measured_cold_us, and
 * measured_fraction = its time / the oracle's on the same basis (NaN where the floor path lacks that time).
 * ea_result_floor records a run's rate on a result. */
#ifndef EA_FRACTIONS_H
#define EA_FRACTIONS_H

#include <cjson/cJSON.h>

typedef struct {
    double bytes, bytes_per_s, transfer_us, launch_us, floor_us; /* floor_us = transfer_us + one launch */
    double speedup, speedup_cold, floor_fraction, bandwidth_fraction;
    int basis_cold; /* the fractions' basis: 1 the oracle's cold time, 0 its warm one */
    double measured_us, measured_cold_us, measured_fraction; /* the measured floor's medians, its time / oracle's */
} ea_figures;

void ea_result_figures(const cJSON *result, ea_figures *out);
/* result.floor = {"bytes_per_s", "launch_us"}, replaced in place when present. */
void ea_result_floor(cJSON *result, double bytes_per_s, double launch_us);

#endif
