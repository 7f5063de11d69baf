/* golden_install.h: a staged target folder put in place as <golden>/targets/<name> in one step.
 * Contract: ea_golden_install copies the target's files (target.json, classification.json, baselines.json,
 * torch_ops.json, replay.json and captures/; step markers, logs and hidden entries stay in the stage; a link
 * anywhere among them is refused, naming it, never followed) into <golden>/targets/.<name>.accept-<pid>
 * beside the destination, then swaps it in with one rename (landing.h: under the lock <golden>/targets/.<name>.lock,
 * so a second accept of that target is refused while one runs; work folders of killed accepts are removed first; an exchange
 * when a target of that name exists, whose old folder is removed only after the swap succeeded). Any failure
 * before the swap removes the temp folder and leaves the old target as it was; the message names the file
 * that could not be copied or the rename that failed.
 * base (NULL: none) names a target beside it that a candidate was staged from: the stage's captures whose
 * capture.json is byte for byte that target's are not copied but recorded in target.json's "captures_from" with
 * their digests (target.h's ea_target_captures_load reads them from there), so a candidate adds only what it
 * recaptured. */
#ifndef EA_GOLDEN_INSTALL_H
#define EA_GOLDEN_INSTALL_H

#include "base/error.h"

int ea_golden_install(const char *staged, const char *golden, const char *name, const char *base, ea_error *err);

#endif
