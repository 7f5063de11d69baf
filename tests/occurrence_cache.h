/* occurrence_cache.h: what the per-occurrence checks compute once and share (tests/occurrence_checks.c).
 * Contract:
 * - Before any test runs (the suite's PRE_ALL hook, in the runner process), occ_cache_prepare:
 *   - makes the cache: $EA_OCC_CACHE, else occ-cache/ beside the suite binary (build/occ-cache). What does not
 *     change between runs (the classification, the corpus extraction) lives in a folder named by a key of the
 *     suite binary, the golden tree and the corpus, so a second run with nothing changed reuses it; what belongs
 *     to one run (the device probe, the measurement, failures) lives in a folder of that run, removed at its end;
 *   - probes the device in a child process (the runner must not start CUDA: its test processes could not);
 *   - without a device, disables the correctness and timing checks before they start a process each: they are
 *     reported skipped with the reason (occ_skip_reason), never passed;
 *   - with a device, measures every point of the selected correctness and timing checks once, in a child process
 *     (extern-audit run --mode both, cold where the stored baselines are), unless $EA_OCC_MEASURED names a
 *     measurement made on this GPU in this CI run (ci/gpu-gate passes the gate's).
 * - occ_cached(name, make, arg, file): file is name in the cache, made by make(arg, file) under a lock on that
 *   file alone, once; a failure is kept beside it for the run, so no other test repeats it.
 * - occ_device: the run's probe: 1 and the GPU model when a device is present, else 0 and why not.
 * - occ_measured_file: the run's measurement (or $EA_OCC_MEASURED); occ_measured_doc loads and validates it (a
 *   failed measurement fails the caller, who names itself in the message); occ_measure_note says whether another
 *   process took the device's lock while it was measured (device_lock.h), for a timing failure's message.
 * - occ_shared_results(op): for a family GPU test listed in occurrence_cache.c's consumers (the runner then
 *   measures every point of op): the measurement's results for op's points, a new array the caller deletes. */
#ifndef EA_OCCURRENCE_CACHE_H
#define EA_OCCURRENCE_CACHE_H

#include <stddef.h>

#include <criterion/criterion.h>

#include "base/error.h"
#include "base/json.h"

#define OCC_GOLDEN "golden"

typedef int (*occ_make_fn)(const char *arg, const char *file, ea_error *err);

void occ_cache_prepare(struct criterion_test_set *set);
void occ_cache_finish(void);
int occ_cached(const char *name, occ_make_fn make, const char *arg, char *file, size_t n, ea_error *err);
int occ_device(char *model, size_t n, char *why, size_t nwhy, ea_error *err);
const char *occ_measured_file(void);
cJSON *occ_measured_doc(const char *who);
cJSON *occ_shared_results(const char *op);
void occ_measure_note(char *buf, size_t n);
/* Why a disabled check did not run ("" when it ran or was not selected). */
const char *occ_skip_reason(const struct criterion_test *t);

#endif
