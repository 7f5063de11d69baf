/* baseline_migrate.c: baselines schema 1 -> 2, then 2 -> 3 (baseline_migrate3.c; contract in baseline_migrate.h). */
#include "golden/baseline_migrate.h"

#include <stdio.h>
#include <string.h>

#include "measure/baseline.h"
#include "base/json.h"
#include "golden/baseline_migrate3.h"
#include "measure/prose.h"

/* What identifies each note sentence schema 1 stored, and its id; a NULL id: the note is dropped (its text
 * lives in docs/). The first row whose text the sentence holds wins. */
static const struct {
    const char *holds, *id;
} v1_notes[] = {
    {"an identity pool's backward is its grad", "avgpool_identity_copy"},
    {"ATen (AdaptiveAveragePooling.cu", "avgpool_aten_atomic"},
    {"the current path zeroes with cudaMemsetAsync", "avgpool_memset_fill"},
    {"block densenet", "cat_block"},
    {"current: the captured Inductor kernels replayed", "cat_current_replayed"},
    {"tolerance: the cat bit-exact", "cat_tolerance"},
    {"create_position_ids_from_input_ids:", "cumsum_mask"},
    {"find_packed_sequence_indices:", "cumsum_packed"},
    {"the attention mask is full(", "cumsum_const"},
    {"current: the capture's \"", "cumsum_current_replayed"},
    {"no capture covers this point", "no_capture_unsupported"},
    {"whose WarpMergeSort<128> sorts", "routing_sort_warp"},
    {"sortKeyValueInplace's MediumRadixSort", "routing_sort_medium"},
    {"past should_use_small_sort's 4096", "routing_sort_cub"},
    {"histc: kernelHistogram1D in SHARED mode", "routing_histc_shared"},
    {"histc source: ", NULL}, /* docs/evidence/routing_sort.md, "histc" */
    {"topk_ids_skewed has no capture", "routing_skewed_reference"}, /* before the next: it holds its text */
    {"no capture: checked against the CPU reference only", "routing_checked_reference"},
    {"the capture's own input (topk_ids seed 0)", "routing_checked_capture"},
    {"current starts from the sorted ids", "routing_narrow"},
};

static int unmapped(const char *file, const char *path, const char *was, ea_error *err)
{
    return ea_fail(err, "%s %s: expected a schema-1 note sentence (src/golden/baseline_migrate.c), got \"%.120s%s\"", file, path,
                   was, strlen(was) > 120 ? "..." : "");
}

static int notes(const char *file, const char *at, cJSON *cfg, ea_error *err)
{
    cJSON *was = cJSON_GetObjectItemCaseSensitive(cfg, "notes"), *ids = cJSON_CreateArray();
    const cJSON *n;
    int i = 0;
    char path[320];
    cJSON_ArrayForEach(n, was) {
        size_t k = 0;
        while (k < sizeof v1_notes / sizeof v1_notes[0] && !(cJSON_IsString(n) && strstr(n->valuestring, v1_notes[k].holds)))
            k++;
        snprintf(path, sizeof path, "%s.config.notes[%d]", at, i++);
        if (k == sizeof v1_notes / sizeof v1_notes[0]) {
            cJSON_Delete(ids);
            return unmapped(file, path, cJSON_IsString(n) ? n->valuestring : "(not a string)", err);
        }
        if (v1_notes[k].id)
            cJSON_AddItemToArray(ids, cJSON_CreateString(v1_notes[k].id));
    }
    cJSON_ReplaceItemInObjectCaseSensitive(cfg, "notes", ids);
    return 0;
}

static int rendered(const char *file, const char *path, const char *was, const char *now, ea_error *err)
{
    return strcmp(was, now) ? ea_fail(err, "%s %s: expected the sentence schema 2 renders, \"%s\", got \"%s\"", file, path,
                                      now, was)
                            : 0;
}

/* s with its first "<d>.<dd>x" (the quoted speedup) made "N.NNx": what a verdict says besides its number. */
static void unquoted(const char *s, char *out, size_t n)
{
    const char *x = s;
    size_t len = 0;
    while (*x && !(x[0] >= '0' && x[0] <= '9' && strspn(x, "0123456789.") > 0 && x[strspn(x, "0123456789.")] == 'x'))
        x++;
    if (*x)
        len = strspn(x, "0123456789.");
    snprintf(out, n, "%.*s%s%s", (int)(x - s), s, *x ? "N.NN" : "", *x ? x + len : "");
}

/* A verdict becomes its id. Schema 1 quoted a speedup that gate --propose edited in place, and missed where the
 * stored sentence had drifted from the result's speedup; schema 2 renders the speedup itself, so such a sentence is
 * accepted (and said, on stderr) when it differs from the rendering only in that number. */
static int verdict(const char *file, const char *at, cJSON *result, ea_error *err)
{
    const char *was = ej_str(result, "verdict");
    char old[512], now[512], path[320], a[512], b[512];
    if (!was)
        return 0;
    snprintf(old, sizeof old, "%s", was);
    snprintf(path, sizeof path, "%s.verdict", at);
    const char *id = !strcmp(old, "measured, no material headroom") ? "no_material_headroom"
                     : !strncmp(old, "headroom: ", 10)                ? "headroom"
                     : !strncmp(old, "speedup ", 8) && strstr(old, " over the current path (") ? "fused_kernel"
                                                                                               : NULL;
    if (!id)
        return ea_fail(err, "%s %s: expected a schema-1 verdict, got \"%s\"", file, path, old);
    cJSON_ReplaceItemInObjectCaseSensitive(result, "verdict", cJSON_CreateString(id));
    ea_verdict_text(result, now, sizeof now);
    unquoted(old, a, sizeof a);
    unquoted(now, b, sizeof b);
    if (strcmp(old, now) && !strcmp(a, b))
        fprintf(stderr, "golden migrate: %s %s: the stored sentence quoted a stale speedup (\"%s\"); the result's "
                        "speedup renders \"%s\"\n", file, path, old, now);
    return rendered(file, path, a, b, err);
}

/* The floor's note is derived (prose.h): dropped once it is what the numbers give. */
static int floor_note(const char *file, const char *at, const cJSON *doc, cJSON *result, ea_error *err)
{
    cJSON *fl = cJSON_GetObjectItemCaseSensitive(result, "floor");
    const char *was = ej_str(fl, "note"), *now = ea_floor_note_text(doc, result);
    char path[320];
    snprintf(path, sizeof path, "%s.floor.note", at);
    if (rendered(file, path, was ? was : "(none)", now ? now : "(none)", err))
        return -1;
    cJSON_DeleteItemFromObjectCaseSensitive(fl, "note");
    return 0;
}

static int time_policy(const char *file, const char *at, const cJSON *doc, cJSON *path_obj, int cold, ea_error *err)
{
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_obj, cold ? "time_cold" : "time");
    const char *was = ej_str(t, "cache_policy"), *ops;
    char old[1024], now[1024], path[320];
    int n;
    if (!t)
        return 0;
    snprintf(path, sizeof path, "%s.%s.cache_policy", at, cold ? "time_cold" : "time");
    if (!was)
        return ea_fail(err, "%s %s: expected a string, got nothing", file, path);
    snprintf(old, sizeof old, "%s", was);
    if (cold) {
        if (!(ops = strstr(old, "the last of its ")) || sscanf(ops, "the last of its %d operations", &n) != 1)
            return ea_fail(err, "%s %s: expected a cold policy naming \"the last of its N operations\", got \"%s\"", file,
                           path, old);
        cJSON_AddNumberToObject(t, "operations", n);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(t, "cache_policy");
    ea_time_policy_text(doc, t, cold, now, sizeof now);
    return rendered(file, path, old, now, err);
}

/* The timer's warm-up, as the header's sentence (the copy bandwidth's warm timing) quotes it. */
static int warmup(const char *file, cJSON *doc, ea_error *err)
{
    const char *s = ej_str(doc, "cache_policy"), *at = s ? strstr(s, " timed after ") : NULL;
    double ms;
    if (!at || sscanf(at, " timed after %lf ms of warm-up", &ms) != 1 || !(ms > 0))
        return ea_fail(err, "%s $.cache_policy: expected a warm policy quoting \"timed after N ms of warm-up\", got "
                       "\"%s\"", file, s ? s : "(none)");
    /* beside the sentence, where a fresh run's header has it: every member after it moves behind */
    cJSON *w = cJSON_AddNumberToObject(doc, "warmup_ms", ms), *c = cJSON_GetObjectItemCaseSensitive(doc, "cache_policy");
    for (c = c->next; c && c != w;) {
        cJSON *next = c->next;
        cJSON_AddItemToArray(doc, cJSON_DetachItemViaPointer(doc, c));
        c = next;
    }
    return 0;
}

/* A routing configuration's sentences (docs/evidence/routing_sort.md, "What the plan's ids stand for") and their ids. */
static const struct {
    const char *key, *starts, *id;
} v1_routing[] = {
    {"permutation_order", "ascending id, then ascending flat position (stable); torch's ", "stable"},
    {"kind", "stable counting sort in one cluster of CTAs: ", "counting_sort_cluster"},
    {"kind", "boundary search: each boundary of the sorted ids writes its offsets", "boundary_search"},
};

static void routing(cJSON *cfg)
{
    for (size_t k = 0; k < sizeof v1_routing / sizeof v1_routing[0]; k++) {
        cJSON *o = strcmp(v1_routing[k].key, "kind") ? cfg : cJSON_GetObjectItemCaseSensitive(cfg, "oracle");
        const char *v = ej_str(o, v1_routing[k].key);
        if (v && !strncmp(v, v1_routing[k].starts, strlen(v1_routing[k].starts)))
            cJSON_ReplaceItemInObjectCaseSensitive(o, v1_routing[k].key, cJSON_CreateString(v1_routing[k].id));
    }
}

/* The fidelity's sentences (baseline.c wrote them) and their note ids. */
static const struct {
    const char *starts, *id;
} v1_fidelity[] = {
    {"no torch measurement in this mode", "fidelity_no_torch_mode"},
    {"the replica did not run in this mode", "fidelity_replica_not_run"},
    {"no torch measurement: ", "fidelity_torch_ops_"}, /* + "absent" or "no_entry", by its end */
    {"no capture", "fidelity_no_capture"},
    {"the replica did not run in the capture's mode", "fidelity_replica_not_run_capture_mode"},
    {"another form of the scope or other inputs than the capture's run", "fidelity_capture_not_comparable"},
    {"the capture times a larger partition than the replica", "fidelity_capture_larger_partition"},
};

static int fidelity_note(const char *file, const char *at, cJSON *o, ea_error *err)
{
    const char *was = ej_str(o, "note");
    char id[64];
    if (!was)
        return 0;
    for (size_t k = 0; k < sizeof v1_fidelity / sizeof v1_fidelity[0]; k++)
        if (!strncmp(was, v1_fidelity[k].starts, strlen(v1_fidelity[k].starts))) {
            snprintf(id, sizeof id, "%s%s", v1_fidelity[k].id,
                     strcmp(v1_fidelity[k].id, "fidelity_torch_ops_") ? ""
                     : strstr(was, "has no entry for this point")   ? "no_entry"
                                                                    : "absent");
            cJSON_ReplaceItemInObjectCaseSensitive(o, "note", cJSON_CreateString(id));
            return 0;
        }
    return ea_fail(err, "%s %s.note: expected a schema-1 fidelity sentence (src/golden/baseline_migrate.c), got \"%.120s\"",
                   file, at, was);
}

static int fidelity(const char *file, const char *at, cJSON *r, ea_error *err)
{
    cJSON *f = cJSON_GetObjectItemCaseSensitive(r, "fidelity"), *t = cJSON_GetObjectItemCaseSensitive(f, "torch_op");
    char path[320];
    snprintf(path, sizeof path, "%s.fidelity", at);
    if (fidelity_note(file, path, f, err))
        return -1;
    snprintf(path, sizeof path, "%s.fidelity.torch_op", at);
    if (fidelity_note(file, path, t, err))
        return -1;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s.fidelity.torch_op.%s", at, i ? "fabricated" : "faithful");
        if (fidelity_note(file, path, cJSON_GetObjectItemCaseSensitive(t, i ? "fabricated" : "faithful"), err))
            return -1;
    }
    return 0;
}

static int result(const char *file, int i, const cJSON *doc, cJSON *r, ea_error *err)
{
    char at[64], p_at[96];
    int j = 0;
    cJSON *p;
    snprintf(at, sizeof at, "$.scopes[%d]", i);
    if (cJSON_GetObjectItemCaseSensitive(r, "unsupported"))
        return 0;
    if (!strncmp(ej_str(r, "family") ? ej_str(r, "family") : "", "routing_", 8))
        routing(cJSON_GetObjectItemCaseSensitive(r, "config"));
    if (notes(file, at, cJSON_GetObjectItemCaseSensitive(r, "config"), err) || verdict(file, at, r, err) ||
        floor_note(file, at, doc, r, err) || fidelity(file, at, r, err))
        return -1;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths")) {
        snprintf(p_at, sizeof p_at, "%s.paths[%d]", at, j++);
        if (time_policy(file, p_at, doc, p, 0, err) || time_policy(file, p_at, doc, p, 1, err))
            return -1;
    }
    return 0;
}

int ea_baseline_migrate(const char *file, cJSON *doc, const ea_torch_ops *ops, ea_error *err)
{
    ej_val root = {file, doc, "$"};
    int64_t version;
    cJSON *r;
    int i = 0;
    if (ej_get_int(root, "schema_version", &version, err))
        return -1;
    if (version == EA_BASELINES_VERSION)
        return 1;
    if (version != 1 && version != 2)
        return ea_fail(err, "%s $.schema_version: expected 1 or 2 (to migrate) or %d, got %lld", file, EA_BASELINES_VERSION,
                       (long long)version);
    if (version == 1 && warmup(file, doc, err))
        return -1;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        if (version == 1 && result(file, i++, doc, r, err))
            return -1;
    return ea_baseline_migrate_v3(file, doc, ops, err) ? -1 : ea_baseline_validate(file, doc, err);
}
