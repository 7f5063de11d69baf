/* shard.c: the points of a gate over N shards, longest first onto the least loaded (contract in shard.h). */
#include "gate/shard.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/json.h"

/* The timer's warm-up by time (src/gpu/timer_plan.c, DEFAULT_WARMUP_MS), which every time object paid. */
#define WARMUP_S 0.1

int ea_shard_parse(const char *arg, int *index, int *count, ea_error *err)
{
    char *end;
    long i = strtol(arg, &end, 10), n = 0;
    if (end != arg && *end == '/' && end[1] >= '0' && end[1] <= '9')
        n = strtol(end + 1, &end, 10);
    if (*end || i < 1 || n < i || n > EA_SHARD_MAX)
        return ea_fail(err, "--shard expects I/N with 1 <= I <= N <= %d (shard I of N), got '%s'", EA_SHARD_MAX, arg);
    *index = (int)i;
    *count = (int)n;
    return 0;
}

/* The seconds a time object's measurement took at least: the warm-up, then its replays of its calls. */
static double timing_s(const cJSON *t, int cold)
{
    if (!t)
        return 0;
    return WARMUP_S + (cold ? 1 : ej_num(t, "samples")) * ej_num(t, "calls_per_replay") * ej_num(t, "median_us") * 1e-6;
}

static double estimate_s(const cJSON *result)
{
    const cJSON *p;
    double s = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths"))
        s += timing_s(cJSON_GetObjectItemCaseSensitive(p, "time"), 0) +
             timing_s(cJSON_GetObjectItemCaseSensitive(p, "time_cold"), 1);
    return s;
}

/* Recorded when every measured result records its point's wall seconds. */
static int all_recorded(const cJSON *stored)
{
    const cJSON *r;
    int measured = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(stored, "scopes")) {
        if (ej_str(r, "unsupported"))
            continue;
        measured++;
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "point_wall_s")))
            return 0;
    }
    return measured > 0;
}

/* A point's weight: the recorded wall seconds (one value on each of its results), or the sum of its results'
 * estimates; negative when no measured result has it. */
static double weight(const cJSON *stored, const char *id, int recorded)
{
    const cJSON *r;
    double w = -1;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(stored, "scopes")) {
        if (strcmp(ej_text(r, "point"), id) || ej_str(r, "unsupported"))
            continue;
        double x = recorded ? ej_num(r, "point_wall_s") : estimate_s(r);
        w = recorded ? (x > w ? x : w) : (w < 0 ? 0 : w) + x;
    }
    return w;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const double *sort_w;
static const cJSON *const *sort_ids;

/* Longest first, ties by id: the order every shard computes alike. */
static int longest_first(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_w[i] != sort_w[j])
        return sort_w[i] < sort_w[j] ? 1 : -1;
    return strcmp(sort_ids[i]->valuestring, sort_ids[j]->valuestring);
}

cJSON *ea_shard_plan(const cJSON *stored, const cJSON *ids, int count)
{
    int n = cJSON_GetArraySize(ids), recorded = all_recorded(stored), known = 0, assumed = 0;
    double *w = calloc((size_t)n + 1, sizeof *w), *sorted = calloc((size_t)n + 1, sizeof *sorted);
    double load[EA_SHARD_MAX] = {0};
    int *order = calloc((size_t)n + 1, sizeof *order), *at = calloc((size_t)n + 1, sizeof *at);
    const cJSON **idv = calloc((size_t)n + 1, sizeof *idv), *id;
    cJSON *plan = NULL;
    if (!w || !sorted || !order || !at || !idv)
        goto out;
    int i = 0;
    cJSON_ArrayForEach(id, ids) {
        idv[i] = id;
        order[i] = i;
        w[i] = weight(stored, cJSON_GetStringValue(id), recorded);
        if (w[i] >= 0)
            sorted[known++] = w[i];
        i++;
    }
    qsort(sorted, (size_t)known, sizeof *sorted, by_double);
    double median = !known ? 1 : known % 2 ? sorted[known / 2] : (sorted[known / 2 - 1] + sorted[known / 2]) / 2;
    for (i = 0; i < n; i++)
        if (w[i] < 0) {
            w[i] = median;
            assumed++;
        }
    sort_w = w;
    sort_ids = (const cJSON *const *)idv;
    qsort(order, (size_t)n, sizeof *order, longest_first);
    for (i = 0; i < n; i++) {
        int best = 0;
        for (int s = 1; s < count; s++)
            best = load[s] < load[best] ? s : best;
        at[order[i]] = best;
        load[best] += w[order[i]];
    }
    plan = cJSON_CreateObject();
    cJSON_AddNumberToObject(plan, "count", count);
    cJSON_AddStringToObject(plan, "basis", recorded ? "recorded" : "estimated");
    cJSON_AddNumberToObject(plan, "assumed", assumed);
    cJSON *shards = cJSON_AddArrayToObject(plan, "shards");
    for (int s = 0; s < count; s++) {
        cJSON *sh = cJSON_CreateObject(), *pts = cJSON_AddArrayToObject(sh, "points");
        for (i = 0; i < n; i++)
            if (at[i] == s)
                cJSON_AddItemToArray(pts, cJSON_CreateString(idv[i]->valuestring));
        cJSON_AddNumberToObject(sh, "seconds", load[s]);
        cJSON_AddItemToArray(shards, sh);
    }
out:
    free(w);
    free(sorted);
    free(order);
    free(at);
    free(idv);
    return plan;
}

void ea_shard_digest(const cJSON *doc, char out[17])
{
    char *text = cJSON_PrintUnformatted(doc);
    uint64_t h = text ? ea_fnv1a64(EA_FNV1A64_INIT, text, strlen(text)) : 0;
    snprintf(out, 17, "%016" PRIx64, h);
    free(text);
}
