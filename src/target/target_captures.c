/* target_captures.c: a target's captures, its own and those it inherits from its base (contract in target.h). */
#include "target/target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/json.h"
#include "base/readfile.h"
#include "target/target_layout.h"

int ea_capture_digest(const char *capture_json, char out[EA_DIGEST_LEN], ea_error *err)
{
    char *text;
    size_t len;
    if (ea_read_file(capture_json, &text, &len, err))
        return -1;
    snprintf(out, EA_DIGEST_LEN, "%016" PRIx64, ea_fnv1a64(EA_FNV1A64_INIT, text, len));
    free(text);
    return 0;
}

static int is_digest(const char *s)
{
    return strlen(s) == EA_DIGEST_LEN - 1 && strspn(s, "0123456789abcdef") == EA_DIGEST_LEN - 1;
}

void ea_target_sibling(const char *dir, const char *base, char *out, size_t n)
{
    char d[4200];
    size_t len = (size_t)snprintf(d, sizeof d, "%s", dir);
    while (len > 1 && d[len - 1] == '/')
        d[--len] = '\0';
    const char *slash = strrchr(d, '/'), *last = slash ? slash + 1 : d;
    if (!strcmp(last, ".") || !strcmp(last, ".."))
        snprintf(out, n, "%s/../%s", d, base);
    else if (slash)
        snprintf(out, n, "%.*s/%s", (int)(slash - d), d, base);
    else
        snprintf(out, n, "%s", base);
}

/* "captures_from": {"target": the base's folder name, "captures": {scope: digest, ...}}; base_dir (nbase bytes) the
 * base's folder beside dir; *names (free()d, pointing into doc) the inherited scopes, each checked against
 * <base>/captures/<scope>/capture.json's digest. The shape is checked before the name, so a captures_from that is
 * not an object, or a target that is not a string, is reported as what it is. */
static int inherited(const char *file, const char *dir, ej_val from, char *base_dir, size_t nbase, const char ***names,
                     int *n, ea_error *err)
{
    static const char *const keys[] = {"target", "captures", NULL};
    const char *base;
    ej_val caps;
    int count;
    *names = NULL;
    *n = 0;
    if (ej_object(from, keys, err) || ej_get_string(from, "target", &base, err))
        return -1;
    if (!ea_plain_name(base)) {
        char quoted[300];
        snprintf(quoted, sizeof quoted, "\"%.280s\"", base);
        return ej_bad_field(from, "target", "the base target's folder name (no '/', not starting with '.')", quoted, err);
    }
    ea_target_sibling(dir, base, base_dir, nbase);
    if (ej_field(from, "captures", 1, &caps, err) || ej_map(caps, &count, err))
        return -1;
    if (!count)
        return ea_fail(err, "%s %s: expected the captures inherited from %s (absent when none), got {}", file, caps.path,
                       base);
    if (!(*names = calloc((size_t)count, sizeof **names)))
        return ea_fail(err, "%s: out of memory", file);
    for (int i = 0; i < count; i++) {
        const char *scope, *want;
        char path[4400 + 300], got[EA_DIGEST_LEN];
        ej_val d = ej_member(caps, i, &scope);
        if (ej_as_string(d, &want, err))
            goto bad;
        if (!ea_plain_name(scope)) { /* a folder name under the base's captures/, no more */
            ea_fail(err, "%s %s: expected a capture folder name (no '/', not starting with '.'), got \"%.200s\"", file,
                    d.path, scope);
            goto bad;
        }
        if (!is_digest(want)) {
            ea_fail(err, "%s %s: expected 16 lowercase hex digits (fnv1a64 of the " EA_CAPTURE_NAME " inherited), got \"%.40s\"",
                    file, d.path, want);
            goto bad;
        }
        ea_tf_capture(base_dir, scope, path, sizeof path);
        if (ea_capture_digest(path, got, err)) { /* which entry asked for it, beside why it cannot be read */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            ea_fail(err, "%s %s: expected %s, a capture of the base target, got %s", file, d.path, path, why);
            goto bad;
        }
        if (strcmp(got, want)) {
            ea_fail(err, "%s %s: expected %s as it was when this target was accepted (fnv1a64 %s), got %s: the base "
                    "target was recaptured since, so stage the candidate again (ci/golden-stage --lowering)",
                    file, d.path, path, want, got);
            goto bad;
        }
        (*names)[(*n)++] = scope;
    }
    return 0;
bad:
    free(*names);
    *names = NULL;
    *n = 0;
    return -1;
}

int ea_target_captures_load(const char *dir, ea_captures *out, ea_error *err)
{
    char file[4200], base_dir[4400];
    ej_doc doc;
    ej_val from;
    ea_tf_path(dir, EA_TF_TARGET, file, sizeof file);
    int present = ea_file_present(file, err);
    if (present <= 0)
        return present < 0 ? -1 : ea_captures_load_dir(dir, out, err);
    if (ej_load(file, &doc, err))
        return -1;
    if (ej_field(ej_root(&doc), "captures_from", 0, &from, err)) {
        ej_free(&doc);
        return -1;
    }
    if (!from.v) {
        ej_free(&doc);
        return ea_captures_load_dir(dir, out, err);
    }
    const char **names = NULL;
    int n = 0;
    int rc = inherited(file, dir, from, base_dir, sizeof base_dir, &names, &n, err);
    if (rc == 0)
        rc = ea_captures_load_with(dir, base_dir, names, n, out, err);
    free(names);
    ej_free(&doc);
    return rc;
}
