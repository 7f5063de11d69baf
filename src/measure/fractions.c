/* fractions.c: a result's floor, speedups and floor fractions (contract in fractions.h). */
#include "measure/fractions.h"

#include <math.h>

#include "base/json.h"
#include "measure/path.h"

void ea_result_figures(const cJSON *result, ea_figures *f)
{
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(result, "floor");
    const cJSON *oracle = ea_path_named(result, "oracle", NULL), *current = ea_path_named(result, "current", "faithful");
    oracle = oracle ? oracle : ea_path_named(result, "oracle_general", NULL);
    double cur = ea_path_median(current), orc = ea_path_median(oracle);
    double cur_cold = ea_path_median_cold(current), orc_cold = ea_path_median_cold(oracle);
    int cold = orc_cold > 0; /* false for NaN: files and runs without cold timing */
    f->bytes = fl ? ej_num(cJSON_GetObjectItemCaseSensitive(result, "config"), "floor_bytes") : NAN;
    f->bytes_per_s = ej_num(fl, "bytes_per_s");
    f->launch_us = ej_num(fl, "launch_us");
    f->transfer_us = f->bytes / f->bytes_per_s * 1e6;
    f->floor_us = f->transfer_us + f->launch_us;
    f->speedup = !isnan(cur) && orc > 0 ? cur / orc : NAN;
    f->speedup_cold = cold && cur_cold > 0 ? cur_cold / orc_cold : NAN;
    double basis = cold ? orc_cold : orc;
    f->basis_cold = cold;
    f->floor_fraction = basis > 0 ? f->floor_us / basis : NAN;
    f->bandwidth_fraction = basis > 0 ? f->bytes / (basis * 1e-6) / f->bytes_per_s : NAN;
    const cJSON *measured = ea_path_named(result, EA_PATH_FLOOR, EA_PATH_FLOOR_MODE);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(measured, "passed"))) /* a copy that failed its check */
        measured = NULL;
    f->measured_us = ea_path_median(measured);
    f->measured_cold_us = ea_path_median_cold(measured);
    double m = cold ? f->measured_cold_us : f->measured_us;
    f->measured_fraction = m > 0 && basis > 0 ? m / basis : NAN;
}

void ea_result_floor(cJSON *result, double bytes_per_s, double launch_us)
{
    cJSON *fl = cJSON_CreateObject();
    cJSON_AddNumberToObject(fl, "bytes_per_s", bytes_per_s);
    cJSON_AddNumberToObject(fl, "launch_us", launch_us);
    if (cJSON_HasObjectItem(result, "floor"))
        cJSON_ReplaceItemInObjectCaseSensitive(result, "floor", fl);
    else
        cJSON_AddItemToObject(result, "floor", fl);
}
