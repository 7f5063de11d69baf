/* target_fixture.h: the fixture target (tests/fixtures/targets/H200, the golden_small points) copied into
 * a temp folder and edited, for the golden diff and accept suites. */
#ifndef EA_TEST_TARGET_FIXTURE_H
#define EA_TEST_TARGET_FIXTURE_H

#include <cjson/cJSON.h>

#define FIXTURE_TARGET "tests/fixtures/targets/H200"
#define FIXTURE_GOLDEN "tests/fixtures/golden_small"

#define XL_ID "hf/train/TinyXL/full_graph_001:index_add"
#define XL_SCOPE "index_add-fcf4e79883c4-b5ffb7c7e6f8"
#define CAT_ID "torchbench/infer/tinydense/full_graph_000:cat"
#define CAT_POINT "cat-3facd8d0d5a4"
#define CAT_SCOPE "cat-3facd8d0d5a4-6466840f7b14"
#define LF_CUMSUM_SCOPE "cumsum-824fbb15db5d-2cfdbbbf0541"
#define MOE_SCOPE "cumsum-df3f66bbe718-a2a8c692c76c"
#define MOE_HISTC_ID "hf/infer/tiny/moe/full_graph_000:histc"

/* A copy of the fixture target (links resolved, so captures can be edited) at <tmp>/<name>; the path lives
 * until the test process ends. */
const char *target_copy(const char *name);
/* dir/file parsed (asserts it reads); target_save writes it back and deletes it. */
cJSON *target_load(const char *dir, const char *file);
void target_save(const char *dir, const char *file, cJSON *doc);
/* The classification entry of occurrence id in dir's classification.json, set to class cls (and
 * false_extern fe). */
void target_set_class(const char *dir, const char *id, const char *cls, int fe);
/* Removes the baselines results of point from dir/baselines.json. */
void target_drop_result(const char *dir, const char *point);
/* Sets top-level string key of dir/file's object at the JSON object path obj ("gpu", "environment" or "" for
 * the root) to value. */
void target_set_string(const char *dir, const char *file, const char *obj, const char *key, const char *value);
/* A golden folder for accept: links to the fixture's occurrences and old rule, and an empty targets/. */
const char *target_golden(void);

#endif
