/* kit_impl.h: the test-only entry point of kit.c: ea_kit_steps, the steps ea_kit_path runs (steps with the
 * runner's policy: the label "<family> <alias> <name>" into label when steps has none, check_only from the
 * run's options, warm_only unless ea_run_times_cold times the path cold). */
#ifndef EA_KIT_IMPL_H
#define EA_KIT_IMPL_H

#include <stddef.h>

#include "measure/kit.h"

ea_path_steps ea_kit_steps(const ea_kit_state *st, const ea_path_steps *steps, const char *name, const char *mode,
                           char *label, size_t n);

#endif
