/* gate_merge.c: shard reports joined into one gate report (contract in gate_merge.h). */
#include "gate/gate_merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "gate/gate.h"
#include "base/json.h"
#include "base/readfile.h"
#include "gate/shard.h"

typedef struct {
    const char *file;
    ej_doc doc;
    const cJSON *shard;
    int index, offset; /* offset: where its fresh results start in the joined document */
} shard_report;

static const char *shown(const cJSON *v)
{
    return cJSON_IsString(v) ? v->valuestring : "(none)";
}

/* An entry's [result, path] on one side: -1 where the side has none, else an index (below 2^30: merge shifts it). */
static int side_at(ej_val e, const char *key, ea_error *err)
{
    ej_val at;
    int n;
    int64_t x;
    if (ej_field(e, key, 1, &at, err) || ej_array(at, &n, err))
        return -1;
    if (n != 2)
        return ej_bad_field(e, key, "[result, path], two indices", "another length", err);
    for (int i = 0; i < 2; i++) {
        ej_val v = ej_index(at, i);
        if (ej_as_int(v, &x, err))
            return -1;
        if (x < -1 || x >= (1 << 30))
            return ea_fail(err, "%s %s: expected an index >= -1 (-1: none), got %" PRId64, v.file, v.path, x);
    }
    return 0;
}

/* What merge reads of an entry: its status, point, mode, where and the two sides' indices (the rest is carried
 * as written). */
static int entry(ej_val e, ea_error *err)
{
    static const char *const statuses[] = {"SAME", "SLOWER", "FASTER", "NOISY", "ADDED", "MISSING", "CLASS",
                                           "CONFIG", "FAILED", "FIDELITY", "INVALID", "UNSUPPORTED", NULL};
    const char *s;
    return ej_get_one_of(e, "status", statuses, "a gate status (SAME, SLOWER, FASTER, NOISY, ADDED, MISSING, ...)",
                         &s, err) ||
                   ej_get_string(e, "point", &s, err) || ej_get_string(e, "mode", &s, err) ||
                   ej_get_string(e, "where", &s, err) || side_at(e, "stored_at", err) || side_at(e, "new_at", err)
               ? -1
               : 0;
}

static int read_report(shard_report *r, ea_error *err)
{
    if (ej_load(r->file, &r->doc, err))
        return -1;
    ej_val root = ej_root(&r->doc), sh, entries;
    int64_t count, index;
    const char *s;
    int n;
    if (ej_expect_schema(root, EA_GATE_SCHEMA, EA_GATE_VERSION, err) || ej_field(root, "entries", 1, &entries, err) ||
        ej_array(entries, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (entry(ej_index(entries, i), err))
            return -1;
    if (!cJSON_GetObjectItemCaseSensitive(r->doc.root, "shard"))
        return ea_fail(err, "%s $.shard: expected the report of gate --shard I/N (--json); this gate was not sharded",
                       r->file);
    if (ej_field(root, "shard", 1, &sh, err) || ej_get_int_min(sh, "count", 1, &count, err) ||
        ej_get_int_min(sh, "index", 1, &index, err) || ej_get_string(sh, "stored_digest", &s, err) ||
        ej_get_string(sh, "fresh", &s, err) || ej_field(sh, "points", 1, &root, err) || ej_array(root, &n, err) ||
        ej_field(sh, "plan", 1, &root, err) || ej_map(root, &n, err))
        return -1;
    if (count > EA_SHARD_MAX || index > count) { /* integers, so the casts below are exact */
        char what[64], got[64];
        snprintf(what, sizeof what, "1 <= index <= count <= %d", EA_SHARD_MAX);
        snprintf(got, sizeof got, "%" PRId64 "/%" PRId64, index, count);
        return ej_bad_field(sh, "index", what, got, err);
    }
    r->shard = sh.v;
    r->index = (int)index;
    return 0;
}

/* What every shard must share with the first: the count, target, documents, plan and rule. */
static int same_gate(const shard_report *a, const shard_report *b, ea_error *err)
{
    const cJSON *sa = a->shard, *sb = b->shard;
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(sa, "target"), *tb = cJSON_GetObjectItemCaseSensitive(sb, "target");
    const cJSON *na = cJSON_GetObjectItemCaseSensitive(sa, "new_digest"), *nb = cJSON_GetObjectItemCaseSensitive(sb, "new_digest");
    if (ej_num(sa, "count") != ej_num(sb, "count"))
        return ea_fail(err, "mixed shard counts: %s is shard %d/%d, %s shard %d/%d", a->file, a->index,
                       (int)ej_num(sa, "count"), b->file, b->index, (int)ej_num(sb, "count"));
    if (!cJSON_Compare(ta, tb, 1))
        return ea_fail(err, "mixed targets: %s gates target %s, %s target %s", a->file, shown(ta), b->file, shown(tb));
    if (strcmp(ej_text(a->doc.root, "gpu_model"), ej_text(b->doc.root, "gpu_model")))
        return ea_fail(err, "mixed targets: %s gates GPU model %s, %s GPU model %s", a->file,
                       ej_text(a->doc.root, "gpu_model"), b->file, ej_text(b->doc.root, "gpu_model"));
    if (strcmp(ej_text(sa, "stored_digest"), ej_text(sb, "stored_digest")))
        return ea_fail(err, "mixed baselines: %s judged against %s (digest %s), %s against %s (digest %s)", a->file,
                       ej_text(a->doc.root, "stored"), ej_text(sa, "stored_digest"), b->file,
                       ej_text(b->doc.root, "stored"), ej_text(sb, "stored_digest"));
    if (!cJSON_Compare(na, nb, 1))
        return ea_fail(err, "mixed baselines: %s compared %s (digest %s), %s compared %s (digest %s)", a->file,
                       cJSON_IsString(na) ? ej_text(sa, "fresh") : "a fresh run", shown(na), b->file,
                       cJSON_IsString(nb) ? ej_text(sb, "fresh") : "a fresh run", shown(nb));
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(sa, "plan"), cJSON_GetObjectItemCaseSensitive(sb, "plan"), 1))
        return ea_fail(err, "mixed plans: %s and %s split the points differently (other points or per-point times)",
                       a->file, b->file);
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a->doc.root, "rule"),
                       cJSON_GetObjectItemCaseSensitive(b->doc.root, "rule"), 1))
        return ea_fail(err, "mixed rules: %s and %s judged with other drift rules (--margin)", a->file, b->file);
    return 0;
}

static int in_list(const cJSON *list, const char *s)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, list)
        if (cJSON_IsString(x) && !strcmp(x->valuestring, s))
            return 1;
    return 0;
}

/* One report per shard 1..N, each entry inside its share; by[i]: the report of shard i + 1. */
static int cover(shard_report *r, int n, shard_report **by, ea_error *err)
{
    int count = (int)ej_num(r[0].shard, "count");
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r[0].shard, "plan"), "shards");
    for (int i = 0; i < n; i++) {
        const cJSON *e;
        int k = 0;
        if (r[i].index < 1 || r[i].index > count)
            return ea_fail(err, "%s $.shard.index: expected 1..%d, got %d", r[i].file, count, r[i].index);
        if (by[r[i].index - 1])
            return ea_fail(err, "overlap: %s and %s are both shard %d/%d", by[r[i].index - 1]->file, r[i].file,
                           r[i].index, count);
        by[r[i].index - 1] = &r[i];
        const cJSON *share = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(plan, r[i].index - 1), "points");
        if (!cJSON_Compare(share, cJSON_GetObjectItemCaseSensitive(r[i].shard, "points"), 1))
            return ea_fail(err, "%s $.shard.points: not shard %d/%d's share in its own plan", r[i].file, r[i].index,
                           count);
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r[i].doc.root, "entries")) {
            if (!in_list(share, ej_text(e, "point")))
                return ea_fail(err, "overlap: %s $.entries[%d] judges point %s, outside shard %d/%d's share", r[i].file,
                               k, ej_text(e, "point"), r[i].index, count);
            k++;
        }
    }
    for (int s = 0; s < count; s++)
        if (!by[s]) {
            const cJSON *pts = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(plan, s), "points");
            char *list = cJSON_PrintUnformatted(pts);
            ea_fail(err, "missing: shard %d/%d has no report among the %d given (%s%s); its %d points: %.700s", s + 1,
                    count, n, r[0].file, n > 1 ? ", ..." : "", cJSON_GetArraySize(pts), list ? list : "?");
            free(list);
            return -1;
        }
    return 0;
}

/* A document the shards named, read, validated and checked against the digest they recorded. */
static cJSON *reread(const char *file, const char *digest, const char *what, ea_error *err)
{
    ej_doc d;
    char now[17];
    if (ej_load(file, &d, err) || ea_baseline_validate(file, d.root, err)) {
        ej_free(&d);
        return NULL;
    }
    ea_shard_digest(d.root, now);
    if (strcmp(now, digest)) {
        ea_fail(err, "%s: digest %s, the shards %s digest %s: changed since", file, now, what, digest);
        ej_free(&d);
        return NULL;
    }
    return ej_doc_take_root(&d);
}

/* A --run shard's fresh document: "fresh" as given, else its base name beside the report (artefacts move). */
static cJSON *fresh_of(const shard_report *r, const char *model, ea_error *err)
{
    const char *given = ej_text(r->shard, "fresh"), *base = strrchr(given, '/'), *slash = strrchr(r->file, '/');
    char beside[4200];
    ea_error why;
    ej_doc d;
    snprintf(beside, sizeof beside, "%.*s%s", slash ? (int)(slash - r->file + 1) : 0, r->file, base ? base + 1 : given);
    const char *file = ea_file_present(given, &why) == 1 ? given : beside;
    if (ej_load(file, &d, err) || ea_baseline_validate(file, d.root, err)) {
        ej_free(&d);
        return NULL;
    }
    const cJSON *x, *share = cJSON_GetObjectItemCaseSensitive(r->shard, "points");
    const char *got = ej_text(cJSON_GetObjectItemCaseSensitive(d.root, "gpu"), "model");
    int i = 0, bad = 0;
    if (strcmp(got, model))
        bad = ea_fail(err, "mixed targets: %s $.gpu.model is %s, the stored baselines' %s", file, got, model);
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(d.root, "scopes")) {
        if (!bad && !in_list(share, ej_text(x, "point")))
            bad = ea_fail(err, "overlap: %s $.scopes[%d] measured point %s, outside shard %d's share", file, i,
                          ej_text(x, "point"), r->index);
        i++;
    }
    if (bad) {
        ej_free(&d);
        return NULL;
    }
    return ej_doc_take_root(&d);
}

/* The shards' fresh documents joined, in shard order; by[s]->offset set. */
static cJSON *join_fresh(shard_report **by, int count, const char *model, ea_error *err)
{
    cJSON *out = NULL;
    char cmd[2048];
    size_t k = (size_t)snprintf(cmd, sizeof cmd, "gate merge of %d shards:", count);
    int passed = 1, total = 0;
    for (int s = 0; s < count; s++) {
        cJSON *doc = fresh_of(by[s], model, err), *r;
        if (!doc) {
            cJSON_Delete(out);
            return NULL;
        }
        by[s]->offset = total;
        passed &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "passed"));
        if (k < sizeof cmd)
            k += (size_t)snprintf(cmd + k, sizeof cmd - k, "%s %s", s ? ";" : "", ej_text(doc, "command"));
        if (!out) {
            out = doc;
        } else {
            while ((r = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), 0)) != NULL)
                cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(out, "scopes"), r);
            cJSON_Delete(doc);
        }
        total = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "scopes"));
    }
    cJSON_ReplaceItemInObjectCaseSensitive(out, "command", cJSON_CreateString(cmd));
    cJSON_ReplaceItemInObjectCaseSensitive(out, "passed", cJSON_CreateBool(passed));
    return out;
}

/* An entry of a --run shard moved into the joined fresh document: its new-side index, and its "where" when it
 * names the new side (gate.c's add_entry: no stored result, or an ADDED cold time). */
static void shift(cJSON *e, int offset, const char *new_file)
{
    cJSON *na = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "new_at"), 0);
    int stored = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "stored_at"), 0));
    if (!na || na->valuedouble < 0)
        return;
    cJSON_SetNumberValue(na, na->valuedouble + offset);
    if (!(stored < 0 || (!strcmp(ej_text(e, "status"), "ADDED") && strstr(ej_text(e, "mode"), "/cold"))))
        return;
    const char *w = ej_text(e, "where"), *rest = strchr(w + strlen(new_file), ']');
    char where[700];
    if (strncmp(w, new_file, strlen(new_file)) || !rest)
        return;
    snprintf(where, sizeof where, "%s $.scopes[%d%s", new_file, (int)na->valuedouble, rest);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "where", cJSON_CreateString(where));
}

typedef struct {
    cJSON *e;
    long key, seq;
} keyed;

static int unsharded_order(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The stored document's results in order, then the new side's results it lacks, as ea_gate_compare walks them. */
static int join_entries(cJSON *report, shard_report **by, int count, int from_runs, ea_error *err)
{
    int n = 0, m = 0;
    for (int s = 0; s < count; s++)
        n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(by[s]->doc.root, "entries"));
    keyed *all = calloc((size_t)n + 1, sizeof *all);
    if (!all)
        return ea_fail(err, "gate merge: out of memory for %d entries", n);
    for (int s = 0; s < count; s++) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(by[s]->doc.root, "entries")) {
            cJSON *c = cJSON_Duplicate(e, 1);
            if (from_runs)
                shift(c, by[s]->offset, ej_text(report, "new"));
            double si = cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "stored_at"), 0));
            double fi = cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "new_at"), 0));
            all[m] = (keyed){c, si >= 0 ? (long)si : (1L << 40) + (long)fi, m};
            m++;
        }
    }
    qsort(all, (size_t)m, sizeof *all, unsharded_order);
    cJSON *entries = cJSON_AddArrayToObject(report, "entries");
    for (int i = 0; i < m; i++)
        cJSON_AddItemToArray(entries, all[i].e);
    free(all);
    return 0;
}

static cJSON *joined_report(shard_report **by, int count, int from_runs, ea_error *err)
{
    const cJSON *first = by[0]->doc.root;
    const char *const header[] = {"schema", "schema_version", "stored", "new", "gpu_model", "rule"};
    cJSON *report = cJSON_CreateObject(), *merged, *list;
    for (size_t i = 0; i < sizeof header / sizeof *header; i++)
        if (cJSON_HasObjectItem(first, header[i]))
            cJSON_AddItemToObject(report, header[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(first, header[i]), 1));
    if (join_entries(report, by, count, from_runs, err)) {
        cJSON_Delete(report);
        return NULL;
    }
    ea_gate_summarize(report);
    double again = -1;
    cJSON *failed = cJSON_CreateArray();
    merged = cJSON_AddObjectToObject(report, "merged");
    cJSON_AddNumberToObject(merged, "count", count);
    cJSON_AddItemToObject(merged, "target", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(by[0]->shard, "target"), 1));
    cJSON_AddStringToObject(merged, "basis",
                            ej_text(cJSON_GetObjectItemCaseSensitive(by[0]->shard, "plan"), "basis"));
    list = cJSON_AddArrayToObject(merged, "shards");
    for (int s = 0; s < count; s++) {
        cJSON *x = cJSON_CreateObject();
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(by[s]->doc.root, "remeasurements"), *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(by[s]->doc.root, "remeasure_failed"))
            cJSON_AddItemToArray(failed, cJSON_Duplicate(f, 1));
        cJSON_AddNumberToObject(x, "index", s + 1);
        cJSON_AddStringToObject(x, "report", by[s]->file);
        cJSON_AddNumberToObject(x, "points", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(by[s]->shard, "points")));
        cJSON_AddNumberToObject(x, "entries", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(by[s]->doc.root, "entries")));
        cJSON_AddNumberToObject(x, "predicted_s", ej_num(by[s]->shard, "predicted_s"));
        if (cJSON_IsNumber(r)) {
            cJSON_AddNumberToObject(x, "remeasurements", r->valuedouble);
            again = r->valuedouble > again ? r->valuedouble : again;
        }
        cJSON_AddItemToArray(list, x);
    }
    if (again >= 0)
        cJSON_AddNumberToObject(report, "remeasurements", again);
    if (cJSON_GetArraySize(failed))
        cJSON_AddItemToObject(report, "remeasure_failed", failed);
    else
        cJSON_Delete(failed);
    return report;
}

int ea_gate_merge(const char *const *files, int n, const char *baseline, ea_gate_merged *out, ea_error *err)
{
    shard_report *r = calloc((size_t)n + 1, sizeof *r), **by = NULL;
    int rc = -1, count = 0;
    *out = (ea_gate_merged){0};
    if (!r)
        return ea_fail(err, "gate merge: out of memory for %d reports", n);
    for (int i = 0; i < n; i++) {
        r[i].file = files[i];
        if (read_report(&r[i], err) || (i && same_gate(&r[0], &r[i], err)))
            goto done;
    }
    count = n ? (int)ej_num(r[0].shard, "count") : 0;
    if (!n || count < 1 || count > EA_SHARD_MAX) {
        ea_fail(err, "gate merge: expected the reports of gate --shard I/N, I = 1..N (N <= %d), got %d report(s)",
                EA_SHARD_MAX, n);
        goto done;
    }
    by = calloc((size_t)count, sizeof *by);
    if (!by || cover(r, n, by, err))
        goto done;
    const cJSON *sh = r[0].shard, *nd = cJSON_GetObjectItemCaseSensitive(sh, "new_digest");
    out->from_runs = !cJSON_IsString(nd);
    out->stored = reread(baseline ? baseline : ej_text(r[0].doc.root, "stored"), ej_text(sh, "stored_digest"),
                         "judged against", err);
    if (!out->stored)
        goto done;
    out->fresh = out->from_runs ? join_fresh(by, count, ej_text(r[0].doc.root, "gpu_model"), err)
                                : reread(ej_text(sh, "fresh"), nd->valuestring, "compared", err);
    if (out->fresh && (out->report = joined_report(by, count, out->from_runs, err)) != NULL)
        rc = 0;
done:
    for (int i = 0; i < n; i++)
        ej_free(&r[i].doc);
    free(r);
    free(by);
    if (rc)
        ea_gate_merged_free(out);
    return rc;
}

void ea_gate_merged_free(ea_gate_merged *m)
{
    cJSON_Delete(m->report);
    cJSON_Delete(m->stored);
    cJSON_Delete(m->fresh);
    *m = (ea_gate_merged){0};
}
