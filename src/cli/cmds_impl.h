/* cmds_impl.h: test-only entry points of the commands (cmd_*.c).
 * ea_classify_golden: the classification document from golden's occurrences and old rule
 * (old_rule.json) and the target folder's captures (target.h), as `extern-audit classify` computes it. */
#ifndef EA_CMDS_IMPL_H
#define EA_CMDS_IMPL_H

#include <cjson/cJSON.h>

#include "base/error.h"

int ea_classify_golden(const char *golden, const char *target_dir, cJSON **doc, ea_error *err);

#endif
