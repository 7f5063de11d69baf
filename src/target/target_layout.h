/* target_layout.h: the one owner of a target folder's layout, golden/targets/<name>/ (docs/reference/schema.md): the
 * only file that spells its entries' names; every other file builds their paths here.
 * Contract:
 * - ea_tf_name(f): entry f's name inside the folder ("baselines.json"; "captures" for the folder of captures).
 * - ea_tf_path(dir, f, buf, n): "<dir>/<name>"; -1 when it does not fit n bytes (buf then holds a cut copy).
 * - ea_tf_capture(dir, scope, buf, n): "<dir>/captures/<scope>/capture.json"; dir NULL gives the form the
 *   documents record relative to their target folder, "captures/<scope>/capture.json"; -1 when cut.
 * - ea_tf_capture_scope(rel, buf, n): the <scope> of a relative "captures/<scope>/..." path into buf; 0 (buf
 *   "") when rel is NULL or not of that form.
 * - Entries before EA_TF_FIRST_RECORD are what a complete target holds, in the order golden accept installs
 *   them; from it on, the records measured by their own steps (ci/gpu-check STEPS=sanitize, replica_gap),
 *   installed when present.
 * - The EA_*_NAME macros spell the names for help texts and messages (string concatenation), nothing else. */
#ifndef EA_TARGET_LAYOUT_H
#define EA_TARGET_LAYOUT_H

#include <stddef.h>

#define EA_TARGET_NAME "target.json"
#define EA_CLASSIFICATION_NAME "classification.json"
#define EA_BASELINES_NAME "baselines.json"
#define EA_TORCH_OPS_NAME "torch_ops.json"
#define EA_REPLAY_NAME "replay.json"
#define EA_CAPTURES_NAME "captures"
#define EA_CAPTURE_NAME "capture.json" /* in each folder of captures/ */
#define EA_SANITIZE_NAME "sanitize.json"
#define EA_REPLICA_GAP_NAME "replica_gap.json"

typedef enum {
    EA_TF_TARGET,
    EA_TF_CLASSIFICATION,
    EA_TF_BASELINES,
    EA_TF_TORCH_OPS,
    EA_TF_REPLAY,
    EA_TF_CAPTURES,
    EA_TF_SANITIZE, /* EA_TF_FIRST_RECORD */
    EA_TF_REPLICA_GAP,
    EA_TF_COUNT
} ea_target_file;

#define EA_TF_FIRST_RECORD EA_TF_SANITIZE

const char *ea_tf_name(ea_target_file f);
int ea_tf_path(const char *dir, ea_target_file f, char *buf, size_t n);
int ea_tf_capture(const char *dir, const char *scope, char *buf, size_t n);
int ea_tf_capture_scope(const char *rel, char *buf, size_t n);

#endif
