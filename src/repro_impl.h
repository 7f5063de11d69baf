/* repro_impl.h: test-only entry points of repro.c.
 * - ea_repro_families: the registry itself, NULL-terminated (the library goes through repro.h's calls).
 * - ea_point_of: the point of an alias in a family's table, or NULL (alias.h's ea_alias_of reversed). */
#ifndef EA_REPRO_IMPL_H
#define EA_REPRO_IMPL_H

#include "alias.h"
#include "repro.h"

extern const ea_repro_family *const ea_repro_families[];
const char *ea_point_of(const ea_alias *table, int n, const char *alias);

#endif
