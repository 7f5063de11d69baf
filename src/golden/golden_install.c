/* golden_install.c: copy a target beside its destination, then rename it in (contract in golden_install.h). */
#include "golden/golden_install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/landing.h"
#include "base/readfile.h"
#include "target/target.h"
#include "target/target_layout.h"

static int copy_file(const char *from, const char *to, ea_error *err)
{
    char *text;
    size_t len, done = 0;
    if (ea_read_file(from, &text, &len, err))
        return -1;
    int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int rc = fd >= 0 && done == len && fsync(fd) == 0 ? 0 : ea_fail(err, "%s: cannot write: %s", to, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = ea_fail(err, "%s: cannot write: %s", to, strerror(errno));
    free(text);
    return rc;
}

/* from (a file or a folder) to to, which must not exist. A link is refused, never followed: golden data is the
 * bytes of the stage, not of whatever a link points to (outside the tree, /etc, ...). */
static int copy_tree(const char *from, const char *to, ea_error *err)
{
    struct stat st;
    if (lstat(from, &st) != 0)
        return ea_fail(err, "%s: cannot read: %s", from, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return ea_fail(err, "%s: a link, refused (golden accept installs files and folders, never follows a link: "
                            "replace it with what it points to)", from);
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return ea_fail(err, "%s: not a regular file or folder, refused", from);
    if (!S_ISDIR(st.st_mode))
        return copy_file(from, to, err);
    if (mkdir(to, 0755) != 0)
        return ea_fail(err, "%s: cannot create: %s", to, strerror(errno));
    DIR *d = opendir(from);
    if (!d)
        return ea_fail(err, "%s: cannot read: %s", from, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char a[4200], b[4200];
        if (e->d_name[0] == '.')
            continue;
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/%s", to, e->d_name);
        rc = copy_tree(a, b, err);
    }
    closedir(d);
    return rc;
}

/* The captures of staged whose capture.json is byte for byte base's ({scope: digest}, NULL when none is): what an
 * installed candidate inherits instead of copying; with those an installed candidate accepted again already
 * inherits from base (its captures_from, whose digests the accept check verified: its folder does not hold them). */
static int inherited(const char *staged, const char *base, const char *base_dir, cJSON **out, ea_error *err)
{
    char root[4200], **names;
    int n, rc = 0;
    ej_doc doc;
    *out = NULL;
    ea_tf_path(staged, EA_TF_TARGET, root, sizeof root);
    if (ej_load(root, &doc, err))
        return -1;
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(doc.root, "captures_from");
    if (from && !strcmp(ej_text(from, "target"), base))
        *out = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(from, "captures"), 1);
    ej_free(&doc);
    ea_tf_path(staged, EA_TF_CAPTURES, root, sizeof root);
    if (ea_list_folder(root, &names, &n, err)) {
        cJSON_Delete(*out);
        *out = NULL;
        return -1;
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        char mine[4600], theirs[4600], a[EA_DIGEST_LEN], b[EA_DIGEST_LEN];
        ea_tf_capture(staged, names[i], mine, sizeof mine);
        ea_tf_capture(base_dir, names[i], theirs, sizeof theirs);
        int there = ea_file_present(theirs, err);
        if (there < 0 || (rc = ea_capture_digest(mine, a, err)) != 0) {
            rc = -1;
        } else if (there && (rc = ea_capture_digest(theirs, b, err)) == 0 && !strcmp(a, b)) {
            if (!*out)
                *out = cJSON_CreateObject();
            cJSON_AddStringToObject(*out, names[i], a);
        }
    }
    ea_list_folder_free(names, n);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

/* captures/ without the inherited ones. */
static int copy_captures(const char *from, const char *to, const cJSON *inherit, ea_error *err)
{
    char **names;
    int n, rc = mkdir(to, 0755) ? ea_fail(err, "%s: cannot create: %s", to, strerror(errno)) : 0;
    if (rc || ea_list_folder(from, &names, &n, err))
        return -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        char a[4800], b[4900];
        snprintf(a, sizeof a, "%s/%s", from, names[i]);
        snprintf(b, sizeof b, "%s/%s", to, names[i]);
        if (!cJSON_GetObjectItemCaseSensitive(inherit, names[i]))
            rc = copy_tree(a, b, err);
    }
    ea_list_folder_free(names, n);
    return rc;
}

/* The stage's target.json with "captures_from": {"target": base, "captures": inherit}. */
static int write_target(const char *from, const char *to, const char *base, const cJSON *inherit, ea_error *err)
{
    ej_doc doc;
    if (ej_load(from, &doc, err))
        return -1;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "target", base);
    cJSON_AddItemToObject(f, "captures", cJSON_Duplicate(inherit, 1));
    cJSON_DeleteItemFromObjectCaseSensitive(doc.root, "captures_from"); /* an installed candidate accepted again */
    cJSON_AddItemToObject(doc.root, "captures_from", f);
    int rc = ej_write_atomic(to, doc.root, err);
    ej_free(&doc);
    return rc;
}

/* The stage's files (target.json with what it inherits from base, if any) and the records into the work folder. */
static int install_into(const char *tmp, const char *staged, const char *dest, const char *base, const cJSON *inherit,
                        ea_error *err)
{
    int rc = 0;
    /* every entry a complete target holds (target_layout.h), captures/ the one folder */
    for (ea_target_file f = 0; rc == 0 && f < EA_TF_FIRST_RECORD; f++) {
        char a[4400], b[4600];
        ea_tf_path(staged, f, a, sizeof a);
        ea_tf_path(tmp, f, b, sizeof b);
        if (inherit && f == EA_TF_TARGET)
            rc = write_target(a, b, base, inherit, err);
        else if (inherit && f == EA_TF_CAPTURES)
            rc = copy_captures(a, b, inherit, err);
        else
            rc = copy_tree(a, b, err);
    }
    struct stat st;
    /* records measured on the target's GPU and torch by their own steps, which a stage need not repeat: the
     * stage's when it has one, else the old target's */
    for (ea_target_file f = EA_TF_FIRST_RECORD; rc == 0 && f < EA_TF_COUNT; f++) {
        char a[4500], b[4600];
        ea_tf_path(staged, f, a, sizeof a);
        if (lstat(a, &st) != 0)
            ea_tf_path(dest, f, a, sizeof a);
        ea_tf_path(tmp, f, b, sizeof b);
        if (lstat(a, &st) == 0)
            rc = copy_tree(a, b, err);
    }
    return rc;
}

int ea_golden_install(const char *staged, const char *golden, const char *name, const char *base, ea_error *err)
{
    char targets[4096], tmp[4400] = "", dest[4400], base_dir[4400];
    cJSON *inherit = NULL;
    ea_lock lock = {.fd = -1};
    int rc;
    snprintf(targets, sizeof targets, "%s/targets", golden);
    snprintf(dest, sizeof dest, "%s/%s", targets, name);
    snprintf(base_dir, sizeof base_dir, "%s/%s", targets, base ? base : "");
    if (ea_make_dirs(targets, err) || ea_landing_lock(targets, name, &lock, err))
        return -1;
    rc = (base && inherited(staged, base, base_dir, &inherit, err)) ||
                 ea_landing_work(targets, name, "accept", tmp, sizeof tmp, err)
             ? -1
             : install_into(tmp, staged, dest, base, inherit, err);
    if (rc == 0)
        rc = ea_landing_swap(tmp, dest, err);
    else if (tmp[0])
        ea_remove_tree(tmp);
    cJSON_Delete(inherit);
    ea_landing_unlock(&lock);
    return rc;
}
