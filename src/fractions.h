/* fractions.h: what a result derives from its paths' times and its floor: speedup (current / oracle,
 * warm), speedup_cold, and the floor and bandwidth fractions with their basis and the floor's note.
 * Contract: ea_result_fractions reads result.floor ("us", "bytes", "bytes_per_s") and the "current"
 * (faithful) and "oracle" (else "oracle_general") paths, and sets those keys, replacing the ones it
 * finds in place (so a proposal that changed a time rewrites only them) and removing the ones that no
 * longer apply. The fractions are against the oracle's cold time when it has one (a cold call reads its
 * bytes from DRAM, which the copy-bandwidth floor bounds), else its warm time. A family's "verdict" that
 * quotes the former speedup as "<x.xx>x" quotes the new one. */
#ifndef EA_FRACTIONS_H
#define EA_FRACTIONS_H

#include <stddef.h>

#include <cjson/cJSON.h>

void ea_result_fractions(cJSON *result, size_t l2_bytes);

#endif
