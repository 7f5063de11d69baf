/* rollup_impl.h: the rollup's internal steps, shared by its files and the tests. */
#ifndef EA_ROLLUP_IMPL_H
#define EA_ROLLUP_IMPL_H

#include "report/rollup.h"

/* One row per scope group, model, class and sharing (docs/reference/schema.md "rollup row"); NULL on no memory. */
cJSON *ea_rollup_rows(const ea_rollup_inputs *in);
int ea_rollup_fallback_class(const char *cls); /* conditional_fallback, true_fallback */
int ea_rollup_lowered_class(const char *cls);  /* lowered, conditional_lowered */

#endif
