/* scope_impl.h: test-only entry point of the cumsum family's scope.c.
 * cs_kind_of: the kind of one scope group's node list (scope.h's contract); CS_NONE when not a
 * position-id scope. */
#ifndef CS_SCOPE_IMPL_H
#define CS_SCOPE_IMPL_H

#include "scope.h"

cs_kind cs_kind_of(const cJSON *group);

#endif
