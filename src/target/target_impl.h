/* target_impl.h: test-only entry points of target.c, as target.h's contract describes them
 * (ea_target_load, ea_target_select). */
#ifndef EA_TARGET_IMPL_H
#define EA_TARGET_IMPL_H

#include "target/target.h"

int ea_target_load(const char *dir, ea_target *t, ea_error *err);
int ea_target_select(const char *golden, const char *name, const char *env, const char *gpu_model, int check_gpu,
                     ea_target *out, ea_error *err);

#endif
