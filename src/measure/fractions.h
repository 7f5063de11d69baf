/* fractions.h: what a result derives from its paths' times and its plan's floor: speedup (current / oracle,
 * warm), speedup_cold, and the floor and bandwidth fractions with their basis.
 * Contract: ea_result_fractions reads result.floor ("us", "bytes", "bytes_per_s") and the "current"
 * (faithful) and "oracle" (else "oracle_general") paths, and sets those keys, replacing the ones it
 * finds in place (so a proposal that changed a time rewrites only them) and removing the ones that no
 * longer apply. The fractions are against the oracle's cold time when it has one (a cold call reads its
 * bytes from DRAM, which the copy-bandwidth floor bounds), else its warm time. A family's "verdict" is an id
 * (prose.h): its sentence quotes the speedup when printed, so nothing stored quotes a former one. */
#ifndef EA_FRACTIONS_H
#define EA_FRACTIONS_H

#include <stddef.h>

#include <cjson/cJSON.h>

void ea_result_fractions(cJSON *result);
/* result.floor from its config's "floor_bytes" at bytes_per_s plus launch_us: "bytes", "bytes_per_s",
 * "transfer_us", "launch_us", "us", replaced in place where the floor has them (run writes a result's floor
 * with it; a proposal that took a new plan rewrites the floor it derives). */
void ea_result_floor(cJSON *result, double bytes_per_s, double launch_us);

#endif
