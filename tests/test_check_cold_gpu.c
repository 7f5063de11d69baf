/* run --check-only and cold timing on a GPU (skipped without one), through the index_add family on
 * Longformer B, whose bytes fit in L2: the check-only paths run once and carry no time; a measured
 * path carries its cold time beside the warm one, no faster than warm (a cold call reads from DRAM
 * what a warm one finds in L2), and its per-operation durations, the replica's copy among them; the runner's
 * measured floor (floor_path.h) is one of those paths. */
#include <criterion/criterion.h>
#include <string.h>

#include "measure/baseline.h"
#include "helpers.h"
#include "index_add_points.h"
#include "measure/fractions.h"
#include "measure/path.h"
#include "measure/repro.h"

/* Longformer B through the family (ea_repro_families[0] is index_add), its one result, which passed;
 * skips without a device or a target of its model. The caller deletes the array. */
static cJSON *longformer_b(const ea_run_opts *o, cJSON **result)
{
    test_skip_without_target(NULL);
    cJSON *doc = iap_golden(), *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(doc, "points")) {
        if (!strcmp(cJSON_GetObjectItem(pt, "point")->valuestring, "index_add-31177027c868"))
            break;
        i++;
    }
    cr_assert_not_null(pt);
    ea_error err;
    cr_assert_str_eq(ea_repro_families[0]->name, "index_add");
    cJSON *arr = test_family_points(ea_repro_families[0], pt, IAP_FILE, i, o, 1, &err);
    cr_assert_not_null(arr, "%s", err.msg);
    ea_run_env env = {.kernel_bytes_per_s = 4e12, .launch_us = 0.5}; /* the fractions are not judged here */
    cJSON *r;
    cJSON_ArrayForEach(r, arr)
        ea_run_annotate(r, pt, &env, NULL, NULL, NULL);
    cJSON_Delete(doc);
    *result = cJSON_GetArrayItem(arr, 0);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(*result, "passed")), "%s", cJSON_PrintUnformatted(*result));
    return arr;
}

Test(check_cold_gpu, check_only_runs_each_path_untimed, .timeout = 300)
{
    const ea_run_opts o = {.faithful = 1, .fabricated = 1, .check_only = 1};
    cJSON *r, *arr = longformer_b(&o, &r);
    const cJSON *p;
    int paths = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(r, "paths")) {
        paths++;
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(p, "check_only")), "%s", cJSON_PrintUnformatted(p));
        cr_assert_null(cJSON_GetObjectItem(p, "time"), "nothing timed");
        cr_assert_null(cJSON_GetObjectItem(p, "time_cold"));
        cr_assert_null(cJSON_GetObjectItem(p, "check_after_timing"));
        cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(p, "kernels")) > 0 || cJSON_GetObjectItem(p, "kernels_note"));
    }
    cr_assert_geq(paths, 3, "current faithful and fabricated, the oracle(s)");
    cJSON_Delete(arr);
}

Test(check_cold_gpu, cold_beside_warm_with_kernel_durations, .timeout = 300)
{
    const ea_run_opts o = {.faithful = 1};
    cJSON *r, *arr = longformer_b(&o, &r);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(r, "paths")) {
        const cJSON *cold = cJSON_GetObjectItem(p, "time_cold");
        double warm_us = ea_path_median(p), cold_us = ea_path_median_cold(p);
        const cJSON *ops = cJSON_GetObjectItem(cold, "operations");
        cr_log_info("%s: warm %.2f us, cold %.2f us, %d operations a call", cJSON_GetObjectItem(p, "name")->valuestring,
                    warm_us, cold_us, cJSON_IsNumber(ops) ? ops->valueint : -1);
        cr_assert(cold_us > 0, "a cold time for every path");
        cr_assert(cJSON_IsNumber(ops) && ops->valueint >= 1, "the cold policy's numbers: operations of a call");
        cr_assert_null(cJSON_GetObjectItem(cold, "cache_policy"), "its sentence is rendered, not stored (prose.h)");
        /* 31.5 MB of a 60 MiB L2: warm replays hit, cold ones cannot; 5% as the two read a call differently
         * (a share of a K-call replay, a device span) */
        cr_assert_geq(cold_us, 0.95 * warm_us, "%s: cold %.2f us below warm %.2f us",
                      cJSON_GetObjectItem(p, "name")->valuestring, cold_us, warm_us);
    }
    ea_figures x;
    ea_result_figures(r, &x);
    cr_assert(x.basis_cold, "the fractions' basis is the oracle's cold time");
    const cJSON *fl = test_path(r, EA_PATH_FLOOR, EA_PATH_FLOOR_MODE);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(fl, "passed")), "the measured floor, checked word for word: %s",
              cJSON_PrintUnformatted(fl));
    cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(fl, "kernels"), 0)->valuestring, "floor_copy_kernel");
    cr_assert(x.measured_fraction > 0 && x.measured_cold_us == ea_path_median_cold(fl), "its fraction, cold");
    cr_log_info("measured floor %.2f us warm, %.2f cold: the oracle at %.0f%% of it", x.measured_us,
                x.measured_cold_us, 100 * x.measured_fraction);
    const cJSON *launches = cJSON_GetObjectItem(test_path(r, "current", "faithful"), "kernel_launches"), *l;
    if (!launches) {
        cr_log_warn("no per-kernel durations: %s",
                    cJSON_GetObjectItem(test_path(r, "current", "faithful"), "kernel_launches_note")->valuestring);
    } else {
        int copy = 0, index = 0;
        cJSON_ArrayForEach(l, launches) {
            const char *name = cJSON_GetObjectItem(l, "name")->valuestring;
            cr_log_info("replica: %s %.2f us", name, cJSON_GetObjectItem(l, "median_us")->valuedouble);
            copy += !strcmp(name, "Memcpy DtoD") && cJSON_GetObjectItem(l, "bytes")->valuedouble > 0;
            index += strstr(name, "indexFunc") != NULL;
        }
        cr_assert(copy == 1 && index == 1, "the replica's copy and ATen's kernel, once each per call");
    }
    cJSON_Delete(arr);
}

/* gate --run's choice (ea_run_times_cold): a stored document with a cold time for the faithful current
 * path alone, and the point's other paths warm only, gets that path timed cold and every other path it stores timed
 * warm only, with no "time_cold"; the measured floor, which it does not store, is new: warm and cold. */
Test(check_cold_gpu, warm_only_where_the_stored_document_has_no_cold_time, .timeout = 300)
{
    cJSON *stored = cJSON_Parse("{\"scopes\": [{\"family\": \"index_add\", \"point\": \"index_add-31177027c868\", "
                                "\"paths\": [{\"name\": \"current\", \"mode\": \"faithful\", \"time_cold\": {}}, "
                                "{\"name\": \"oracle\", \"mode\": \"faithful\"}, "
                                "{\"name\": \"oracle_general\", \"mode\": \"faithful\"}, "
                                "{\"name\": \"current\", \"mode\": \"fabricated\"}]}]}");
    const ea_run_opts o = {.faithful = 1, .fabricated = 1, .cold_from = stored};
    cJSON *r, *arr = longformer_b(&o, &r);
    const cJSON *p;
    int warm_only = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(r, "paths")) {
        const char *name = cJSON_GetObjectItem(p, "name")->valuestring, *mode = cJSON_GetObjectItem(p, "mode")->valuestring;
        int cold = (!strcmp(name, "current") && !strcmp(mode, "faithful")) || !strcmp(name, EA_PATH_FLOOR);
        cr_assert(ea_path_median(p) > 0, "%s %s: timed warm", name, mode);
        cr_assert_eq(cJSON_HasObjectItem(p, "time_cold"), cold, "%s %s: time_cold %s", name, mode,
                     cold ? "expected" : "not expected (the stored document has none)");
        warm_only += !cold;
    }
    cr_assert_geq(warm_only, 2, "the fabricated current path and the oracle(s) timed warm only");
    cJSON_Delete(arr);
    cJSON_Delete(stored);
}
