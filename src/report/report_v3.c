/* report_v3.c: the rollup as PyTorch benchmark-database v3 records (report.h), in the shape
 * better-benchmark's scripts/dashboard_export.py writes: benchmark {name, mode, dtype, extra_info},
 * model {name, type, origins}, metric {name, benchmark_values}. extra_info names the GPU, torch build
 * and class of every figure, so records of different GPUs never merge on the HUD. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"

#define BENCHMARK "extern-audit-rollup"

/* A string field, "" when absent: v3's extra_info holds strings only. */
typedef struct {
    const char *gpu, *torch, *mode, *cls, *record_type;
} v3_info;

static void record(cJSON *out, const char *model, const char *type, const char *metric, double value, const v3_info *i)
{
    if (!isfinite(value))
        return; /* the HUD takes numbers only: an absent figure is no record */
    cJSON *r = cJSON_CreateObject(), *b = cJSON_AddObjectToObject(r, "benchmark"), *x, *m, *v;
    cJSON_AddStringToObject(b, "name", BENCHMARK);
    cJSON_AddStringToObject(b, "mode", !strcmp(i->mode, "train") ? "training" : !strcmp(i->mode, "infer") ? "inference" : i->mode);
    cJSON_AddStringToObject(b, "dtype", "mixed");
    x = cJSON_AddObjectToObject(b, "extra_info");
    cJSON_AddStringToObject(x, "device", "cuda");
    cJSON_AddStringToObject(x, "arch", i->gpu);
    cJSON_AddStringToObject(x, "gpu", i->gpu);
    cJSON_AddStringToObject(x, "torch", i->torch);
    cJSON_AddStringToObject(x, "class", i->cls);
    cJSON_AddStringToObject(x, "record_type", i->record_type);
    m = cJSON_AddObjectToObject(r, "model");
    cJSON_AddStringToObject(m, "name", model);
    cJSON_AddStringToObject(m, "type", type);
    cJSON_AddItemToObject(m, "origins", cJSON_CreateStringArray((const char *const[]){"pytorch"}, 1));
    v = cJSON_AddObjectToObject(r, "metric");
    cJSON_AddStringToObject(v, "name", metric);
    cJSON_AddItemToObject(v, "benchmark_values", cJSON_CreateDoubleArray(&value, 1));
    cJSON_AddItemToArray(out, r);
}

/* An aggregate's after-GPU figures: one record per class bucket, headroom and false externs. */
static void after_records(cJSON *out, const char *name, const char *type, const cJSON *agg, v3_info i)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(agg, "us");
    static const char *const buckets[] = {"lowered", "conditional_fallback", "true_fallback", NULL};
    i.record_type = "after";
    for (const char *const *b = buckets; *b; b++) {
        i.cls = *b;
        record(out, name, type, "scope_time_us", ej_num(u, *b), &i);
    }
    i.cls = "all";
    record(out, name, type, "oracle_headroom_us", ej_num(u, "headroom"), &i);
    record(out, name, type, "false_extern_occurrences", ej_num(agg, "false_extern"), &i);
    record(out, name, type, "occurrences", ej_num(agg, "occurrences"), &i);
}

cJSON *ea_report_v3(const cJSON *doc)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpus"), *o, *m, *s;
    v3_info after = {ej_text(g, "after"), ej_text(g, "after_torch"), "mixed", "", ""};
    v3_info before = {ej_text(g, "before"), ej_text(g, "before_torch"), "mixed", "all", "before"};
    int have_after = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(g, "after"));
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "ops"))
    {
        if (have_after)
            after_records(out, ej_text(o, "op"), "op", o, after);
        record(out, ej_text(o, "op"), "op", "seed_direct_op_us", ej_num(cJSON_GetObjectItemCaseSensitive(o, "seed"), "total_us"),
               &before);
    }
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "models"))
    {
        char name[512];
        snprintf(name, sizeof name, "%s/%s/%s", ej_text(m, "suite"), ej_text(m, "mode"), ej_text(m, "model"));
        after.mode = before.mode = ej_text(m, "mode");
        if (have_after)
            after_records(out, name, "model", m, after);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "corpus");
        v3_info corpus = before;
        corpus.gpu = ej_text(c, "gpu");
        corpus.torch = ej_text(c, "torch");
        record(out, name, "model", "corpus_extern_total_us", ej_num(c, "extern_total_us"), &corpus);
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(m, "seed"))
        {
            v3_info seed = before;
            seed.cls = ej_text(s, "op");
            record(out, name, "model", "seed_direct_op_us", ej_num(s, "total_us"), &seed);
        }
    }
    return out;
}
