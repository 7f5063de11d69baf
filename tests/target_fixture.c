/* The fixture target copied and edited (contract in target_fixture.h). */
#include "target_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "base/json.h"

const char *target_copy(const char *name)
{
    static char paths[16][4200];
    static int next;
    char *dir = paths[next++ % 16], cmd[8600];
    snprintf(dir, sizeof paths[0], "%s/%s", test_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "cp -rL '%s' '%s'", FIXTURE_TARGET, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

cJSON *target_load(const char *dir, const char *file)
{
    char path[4400];
    ej_doc d;
    ea_error err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

void target_save(const char *dir, const char *file, cJSON *doc)
{
    char path[4400];
    ea_error err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cr_assert_eq(ej_write_atomic(path, doc, &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
}

void target_set_class(const char *dir, const char *id, const char *cls, int fe)
{
    cJSON *doc = target_load(dir, "classification.json"), *e;
    int found = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "occurrences"))
        if (!strcmp(ej_str(e, "id"), id)) {
            cJSON_ReplaceItemInObjectCaseSensitive(e, "class", cJSON_CreateString(cls));
            cJSON_ReplaceItemInObjectCaseSensitive(e, "false_extern", cJSON_CreateBool(fe));
            found = 1;
        }
    cr_assert(found, "no classification entry %s", id);
    test_resummarize(doc);
    target_save(dir, "classification.json", doc);
}

void target_drop_result(const char *dir, const char *point)
{
    cJSON *doc = target_load(dir, "baselines.json"), *scopes = cJSON_GetObjectItemCaseSensitive(doc, "scopes");
    for (int i = cJSON_GetArraySize(scopes) - 1; i >= 0; i--)
        if (!strcmp(ej_str(cJSON_GetArrayItem(scopes, i), "point"), point))
            cJSON_DeleteItemFromArray(scopes, i);
    target_save(dir, "baselines.json", doc);
}

void target_set_string(const char *dir, const char *file, const char *obj, const char *key, const char *value)
{
    cJSON *doc = target_load(dir, file), *o = *obj ? cJSON_GetObjectItemCaseSensitive(doc, obj) : doc;
    cr_assert_not_null(o, "%s/%s has no %s", dir, file, obj);
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddStringToObject(o, key, value);
    target_save(dir, file, doc);
}

const char *target_golden(void)
{
    const char *dir = test_tmpdir();
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "cp -r " FIXTURE_GOLDEN "/occurrences " FIXTURE_GOLDEN "/old_rule.json '%s'/ && mkdir '%s/targets'",
             dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}
