/* Which paths a run times cold (ea_run_times_cold): all of them for `run`; for `gate --run`, which passes
 * the stored baselines document, the paths whose stored result carries "time_cold" and those it does not
 * store at all (new: --propose adds them with both times); the committed
 * golden/targets/H200-torch2.11.0+cu130/baselines.json has a cold time on every path it stores, so it asks for
 * them all. */
#include <criterion/criterion.h>

#include "base/json.h"
#include "measure/path.h"
#include "measure/repro.h"

static const char stored[] =
    "{\"scopes\": ["
    " {\"family\": \"cat\", \"point\": \"cat-1\", \"paths\": ["
    "   {\"name\": \"current\", \"mode\": \"faithful\", \"time\": {}, \"time_cold\": {}},"
    "   {\"name\": \"oracle\", \"mode\": \"faithful\", \"time\": {}}]},"
    " {\"family\": \"index_add\", \"point\": \"ia-1\", \"paths\": ["
    "   {\"name\": \"current\", \"mode\": \"faithful\", \"time\": {}}]},"
    " {\"family\": \"index_add\", \"point\": \"ia-1\", \"paths\": ["
    "   {\"name\": \"current\", \"mode\": \"fabricated\", \"time\": {}, \"time_cold\": {}}]}]}";

Test(run_cold, run_times_every_path_cold)
{
    const ea_run_opts o = {.faithful = 1};
    cr_assert(ea_run_times_cold(&o, "cat", "cat-1", "oracle", "faithful"));
    cr_assert(ea_run_times_cold(&o, "routing_cumsum", "nowhere", "current", "faithful"));
}

Test(run_cold, gate_times_cold_what_the_document_has_cold_or_lacks)
{
    cJSON *doc = cJSON_Parse(stored);
    const ea_run_opts o = {.faithful = 1, .cold_from = doc};
    cr_assert(ea_run_times_cold(&o, "cat", "cat-1", "current", "faithful"));
    cr_assert_not(ea_run_times_cold(&o, "cat", "cat-1", "oracle", "faithful"), "stored warm only");
    /* a point's second result carries the cold time: the point's paths of that name and mode share it */
    cr_assert(ea_run_times_cold(&o, "index_add", "ia-1", "current", "fabricated"));
    cr_assert_not(ea_run_times_cold(&o, "index_add", "ia-1", "current", "faithful"), "stored warm only");
    /* what the document does not store is new: its first entry has both times */
    cr_assert(ea_run_times_cold(&o, "cat", "cat-1", "current", "fabricated"), "another mode");
    cr_assert(ea_run_times_cold(&o, "cat", "cat-1", EA_PATH_CURRENT_TUNED, "faithful"), "another path");
    cr_assert(ea_run_times_cold(&o, "cat", "cat-2", "current", "faithful"), "a point the document lacks");
    cr_assert(ea_run_times_cold(&o, "cumsum", "cat-1", "current", "faithful"), "another family's point");
    cJSON_Delete(doc);
}

Test(run_cold, committed_baselines_ask_for_no_cold_timing)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load("golden/targets/H200-torch2.11.0+cu130/baselines.json", &d, &err), 0, "%s", err.msg);
    const ea_run_opts o = {.faithful = 1, .fabricated = 1, .cold_from = d.root};
    const cJSON *r, *p;
    int paths = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d.root, "scopes"))
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths")) {
            const char *family = cJSON_GetObjectItem(r, "family")->valuestring, *point = cJSON_GetObjectItem(r, "point")->valuestring;
            const char *name = cJSON_GetObjectItem(p, "name")->valuestring, *mode = cJSON_GetObjectItem(p, "mode")->valuestring;
            cr_assert_eq(ea_run_times_cold(&o, family, point, name, mode), cJSON_HasObjectItem(p, "time_cold"),
                         "%s %s %s %s", family, point, name, mode);
            paths++;
        }
    cr_assert_gt(paths, 100, "the committed document's paths were walked");
    ej_free(&d);
}
