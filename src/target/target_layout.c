/* target_layout.c: a target folder's entries named and their paths built (contract in target_layout.h). */
#include "target/target_layout.h"

#include <stdio.h>
#include <string.h>

static const char *const names[EA_TF_COUNT] = {
    [EA_TF_TARGET] = EA_TARGET_NAME,       [EA_TF_CLASSIFICATION] = EA_CLASSIFICATION_NAME,
    [EA_TF_BASELINES] = EA_BASELINES_NAME, [EA_TF_TORCH_OPS] = EA_TORCH_OPS_NAME,
    [EA_TF_REPLAY] = EA_REPLAY_NAME,       [EA_TF_CAPTURES] = EA_CAPTURES_NAME,
    [EA_TF_SANITIZE] = EA_SANITIZE_NAME,   [EA_TF_REPLICA_GAP] = EA_REPLICA_GAP_NAME,
};

const char *ea_tf_name(ea_target_file f)
{
    return names[f];
}

/* snprintf's verdict: -1 when the text did not fit. */
static int fits(int len, size_t n)
{
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

int ea_tf_path(const char *dir, ea_target_file f, char *buf, size_t n)
{
    return fits(snprintf(buf, n, "%s/%s", dir, names[f]), n);
}

int ea_tf_capture(const char *dir, const char *scope, char *buf, size_t n)
{
    if (!dir)
        return fits(snprintf(buf, n, "%s/%s/%s", EA_CAPTURES_NAME, scope, EA_CAPTURE_NAME), n);
    return fits(snprintf(buf, n, "%s/%s/%s/%s", dir, EA_CAPTURES_NAME, scope, EA_CAPTURE_NAME), n);
}

int ea_tf_capture_scope(const char *rel, char *buf, size_t n)
{
    const size_t k = strlen(EA_CAPTURES_NAME);
    const char *end = rel && !strncmp(rel, EA_CAPTURES_NAME "/", k + 1) ? strchr(rel + k + 1, '/') : NULL;
    *buf = '\0';
    if (!end || end == rel + k + 1)
        return 0;
    snprintf(buf, n, "%.*s", (int)(end - rel - k - 1), rel + k + 1);
    return 1;
}
