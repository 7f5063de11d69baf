/* fractions.c: a result's speedups and floor fractions (contract in fractions.h). */
#include "measure/fractions.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "measure/path.h"

static void set_number(cJSON *o, const char *key, double v)
{
    if (cJSON_HasObjectItem(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(v));
    else
        cJSON_AddNumberToObject(o, key, v);
}

static void set_string(cJSON *o, const char *key, const char *v)
{
    if (cJSON_HasObjectItem(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(v));
    else
        cJSON_AddStringToObject(o, key, v);
}

void ea_result_fractions(cJSON *result)
{
    cJSON *fl = cJSON_GetObjectItemCaseSensitive(result, "floor");
    double bytes = ej_num(fl, "bytes"), bw = ej_num(fl, "bytes_per_s"), floor_us = ej_num(fl, "us");
    const cJSON *oracle = ea_path_named(result, "oracle", NULL), *current = ea_path_named(result, "current", "faithful");
    oracle = oracle ? oracle : ea_path_named(result, "oracle_general", NULL);
    double cur = ea_path_median(current), orc = ea_path_median(oracle);
    double cur_cold = ea_path_median_cold(current), orc_cold = ea_path_median_cold(oracle);
    int cold = orc_cold > 0; /* false for NaN: files and runs without cold timing */
    if (!isnan(cur) && orc > 0)
        set_number(result, "speedup", cur / orc);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(result, "speedup");
    if (cold && cur_cold > 0)
        set_number(result, "speedup_cold", cur_cold / orc_cold);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(result, "speedup_cold");
    double basis = cold ? orc_cold : orc;
    if (basis > 0 && fl) {
        set_number(result, "floor_fraction", floor_us / basis);
        set_number(result, "bandwidth_fraction", bytes / (basis * 1e-6) / bw);
        set_string(result, "fraction_basis", cold ? "time_cold" : "time");
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(result, "floor_fraction");
        cJSON_DeleteItemFromObjectCaseSensitive(result, "bandwidth_fraction");
        cJSON_DeleteItemFromObjectCaseSensitive(result, "fraction_basis");
    }
}

void ea_result_floor(cJSON *result, double bytes_per_s, double launch_us)
{
    double bytes = ej_num(cJSON_GetObjectItemCaseSensitive(result, "config"), "floor_bytes");
    double transfer = bytes / bytes_per_s * 1e6;
    cJSON *fl = cJSON_GetObjectItemCaseSensitive(result, "floor");
    if (!fl)
        fl = cJSON_AddObjectToObject(result, "floor");
    set_number(fl, "bytes", bytes);
    set_number(fl, "bytes_per_s", bytes_per_s);
    set_number(fl, "transfer_us", transfer);
    set_number(fl, "launch_us", launch_us);
    set_number(fl, "us", transfer + launch_us);
}
