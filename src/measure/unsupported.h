/* unsupported.h: a golden point that its family refuses (a shape, dtype or capture the repro does not
 * implement), as one result of `extern-audit run`, so that the refusal is reported and the run goes on.
 * Contract: ea_unsupported_result builds {"family", "point", "alias", "occurrences", "scope_ids",
 * "unsupported": <the family's message>, "passed": false} (docs/reference/schema.md, baselines) from the golden
 * point itself, whatever the family could parse of it: the point id (else "<file> $.points[i]"), the
 * family's alias for it (ea_repro_alias in c), "count" (else 0) and every group's "scope_id".
 * ea_unsupported_reason is such a result's reason, NULL for a measured or planned result. */
#ifndef EA_UNSUPPORTED_H
#define EA_UNSUPPORTED_H

#include <cjson/cJSON.h>

#include "measure/repro.h"

cJSON *ea_unsupported_result(const ea_run_ctx *c, const ea_scope_ref *ref, const char *reason);
const char *ea_unsupported_reason(const cJSON *result);

#endif
