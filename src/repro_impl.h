/* repro_impl.h: test-only entry points of repro.c.
 * - ea_point_of: the point of an alias in a family's table, or NULL (alias.h's ea_alias_of reversed). */
#ifndef EA_REPRO_IMPL_H
#define EA_REPRO_IMPL_H

#include "alias.h"
#include "repro.h"

const char *ea_point_of(const ea_alias *table, int n, const char *alias);

#endif
