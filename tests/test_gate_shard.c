/* gate --shard I/N and gate merge on the CPU: the plan, shards merged into the unsharded verdicts (--against,
 * and --run shards' reports built from the fresh documents they save), every refusal, --shard-plan and the
 * recorded per-point seconds. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "gate/gate.h"
#include "helpers.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "gate/shard.h"

#define H200 "golden/targets/H200-torch2.11.0+cu130/baselines.json"
#define OTHER "golden/targets/H200-torch2.11.0+cu130-index_add_iota_gather/baselines.json"

static cJSON *load(const char *file)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

static char *save(const char *dir, const char *name, const cJSON *doc)
{
    char *text = cJSON_Print(doc), *path = test_write(dir, name, text);
    free(text);
    return path;
}

/* A copy of file's document as dir/name. */
static char *copy(const char *dir, const char *name, const char *file)
{
    cJSON *doc = load(file);
    char *path = save(dir, name, doc);
    cJSON_Delete(doc);
    return path;
}

static cJSON *scopes(cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(doc, "scopes");
}

static cJSON *path_of(cJSON *doc, int s, int p)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes(doc), s), "paths"), p);
}

/* A pair with every kind of entry: the stored file lacks result 5 (ADDED on the new side) and a cold time
 * (ADDED cold, whose "where" is the new document's), the new one is 10% slower on one path (SLOWER) and lacks
 * result 7 (MISSING). */
static void pair(const char *dir, char **stored, char **fresh)
{
    cJSON *s = load(H200), *n = load(H200);
    /* results of points with one result each: a point's results pair by order, and a shifted order would pair
     * other plans (CONFIG) and leave a proposal holding one result twice, which no document may */
    cJSON_DeleteItemFromArray(scopes(s), 11);
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(s, 2, 0), "time_cold");
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(n, 0, 0), "time");
    const char *const keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (int i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keys[i]);
        cJSON_SetNumberValue(v, v->valuedouble * 1.1);
    }
    cJSON_DeleteItemFromArray(scopes(n), 20);
    *stored = save(dir, "stored.json", s);
    *fresh = save(dir, "new.json", n);
    cJSON_Delete(s);
    cJSON_Delete(n);
}

static cJSON *parsed(const cli_run *r)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_parse("report", r->out, &d, &err), 0, "%s\n%s", err.msg, r->err);
    return ej_doc_take_root(&d);
}

/* gate --against's report, of shard i of n when n > 0; the exit status in *status. */
static cJSON *gate_against(const char *stored, const char *fresh, int i, int n, const char *margin, int *status)
{
    char shard[32];
    snprintf(shard, sizeof shard, "%d/%d", i, n);
    cli_run r = n ? test_cli("gate", "--baseline", stored, "--against", fresh, "--shard", shard, "--json", "--margin",
                             margin, NULL)
                  : test_cli("gate", "--baseline", stored, "--against", fresh, "--json", "--margin", margin, NULL);
    cr_assert(r.status == 0 || r.status == 1, "gate exit %d: %s", r.status, r.err);
    cJSON *report = parsed(&r);
    *status = r.status;
    cli_run_free(&r);
    return report;
}

/* The shard reports of n shards written under dir; their paths in files (the caller frees them). */
static void shard_reports(const char *dir, const char *stored, const char *fresh, int n, char **files)
{
    for (int i = 1; i <= n; i++) {
        char name[32];
        int status;
        cJSON *r = gate_against(stored, fresh, i, n, "0.05", &status);
        snprintf(name, sizeof name, "shard-%d.json", i);
        files[i - 1] = save(dir, name, r);
        cJSON_Delete(r);
    }
}

static cli_run merge(char **files, int n, const char *extra1, const char *extra2)
{
    const char *a[16] = {0};
    int k = 0;
    for (int i = 0; i < n; i++)
        a[k++] = files[i];
    if (extra1)
        a[k++] = extra1;
    if (extra2)
        a[k++] = extra2;
    return test_cli("gate", "merge", "--json", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], NULL);
}

static void assert_same_entries(const cJSON *want, const cJSON *got, const char *what)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(want, "entries"), *g = cJSON_GetObjectItemCaseSensitive(got, "entries");
    cr_assert_eq(cJSON_GetArraySize(w), cJSON_GetArraySize(g), "%s: %d entries unsharded, %d merged", what,
                 cJSON_GetArraySize(w), cJSON_GetArraySize(g));
    for (int i = 0; i < cJSON_GetArraySize(w); i++) {
        char *a = cJSON_PrintUnformatted(cJSON_GetArrayItem(w, i)), *b = cJSON_PrintUnformatted(cJSON_GetArrayItem(g, i));
        cr_assert_str_eq(a, b, "%s: entry %d differs", what, i);
        free(a);
        free(b);
    }
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(want, "summary"),
                            cJSON_GetObjectItemCaseSensitive(got, "summary"), 1), "%s: summaries differ", what);
}

static void free_all(char **files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i]);
}

Test(gate_shard, merged_verdicts_and_proposal_equal_the_unsharded_gate_for_1_to_8_shards)
{
    const char *dir = test_tmpdir();
    char *stored, *fresh, *files[8], prop[512], merged_prop[512];
    pair(dir, &stored, &fresh);
    const char *const pairs[][2] = {{stored, fresh}, {H200, OTHER}};
    for (int p = 0; p < 2; p++) {
        int status;
        cJSON *whole = gate_against(pairs[p][0], pairs[p][1], 0, 0, "0.05", &status);
        snprintf(prop, sizeof prop, "%s/proposed-%d.json", dir, p);
        cli_run u = test_cli("gate", "--baseline", pairs[p][0], "--against", pairs[p][1], "--propose", prop, NULL);
        cli_run_free(&u);
        const cJSON *sum = cJSON_GetObjectItemCaseSensitive(whole, "summary");
        if (p == 0) /* the crafted pair holds what a merge must place: both sides' results and indices */
            cr_assert(cJSON_HasObjectItem(sum, "SLOWER") && cJSON_HasObjectItem(sum, "MISSING") &&
                      cJSON_HasObjectItem(sum, "ADDED") && status == 1, "%s", cJSON_PrintUnformatted(sum));
        for (int n = 1; n <= 8; n++) {
            char what[64];
            snprintf(what, sizeof what, "pair %d, %d shards", p, n);
            shard_reports(dir, pairs[p][0], pairs[p][1], n, files);
            snprintf(merged_prop, sizeof merged_prop, "%s/merged-%d-%d.json", dir, p, n);
            cli_run m = merge(files, n, "--propose", merged_prop);
            cr_assert_eq(m.status, status, "%s: merge exit %d, unsharded %d: %s", what, m.status, status, m.err);
            cJSON *joined = parsed(&m);
            assert_same_entries(whole, joined, what);
            char *a = test_read(prop), *b = test_read(merged_prop);
            cr_assert_str_eq(a, b, "%s: the merged proposal is not the unsharded one", what);
            cr_assert_eq(ej_num(cJSON_GetObjectItemCaseSensitive(joined, "merged"), "count"), n, "%s", what);
            free(a);
            free(b);
            cJSON_Delete(joined);
            cli_run_free(&m);
            free_all(files, n);
        }
        cJSON_Delete(whole);
    }
    free(stored);
    free(fresh);
}

/* Every result of stored records its point's wall seconds: 10 s for the first point, 1 s for the others. */
static cJSON *recorded(void)
{
    cJSON *doc = load(H200), *r;
    const char *first = ej_text(cJSON_GetArrayItem(scopes(doc), 0), "point");
    cJSON_ArrayForEach(r, scopes(doc)) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "point_wall_s"); /* the committed file records its own */
        cJSON_AddNumberToObject(r, "point_wall_s", strcmp(ej_text(r, "point"), first) ? 1.0 : 10.0);
    }
    return doc;
}

static cJSON *ids_of(const cJSON *doc)
{
    cJSON *ids = cJSON_CreateArray();
    const cJSON *r, *x;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        int seen = 0;
        cJSON_ArrayForEach(x, ids)
            seen |= !strcmp(x->valuestring, ej_text(r, "point"));
        if (!seen)
            cJSON_AddItemToArray(ids, cJSON_CreateString(ej_text(r, "point")));
    }
    return ids;
}

Test(gate_shard, every_point_falls_in_exactly_one_shard_longest_first_onto_the_least_loaded)
{
    cJSON *doc = recorded(), *ids = ids_of(doc);
    int n = cJSON_GetArraySize(ids);
    for (int count = 1; count <= 8; count++) {
        cJSON *plan = ea_shard_plan(doc, ids, count), *again = ea_shard_plan(doc, ids, count);
        const cJSON *sh, *id, *x;
        int seen = 0;
        cr_assert(cJSON_Compare(plan, again, 1), "%d shards: two plans of the same input differ", count);
        cr_assert_str_eq(ej_text(plan, "basis"), "recorded");
        cJSON_ArrayForEach(id, ids) {
            int in = 0;
            cJSON_ArrayForEach(sh, cJSON_GetObjectItemCaseSensitive(plan, "shards"))
                cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sh, "points"))
                    in += !strcmp(x->valuestring, id->valuestring);
            cr_assert_eq(in, 1, "%d shards: point %s is in %d shards", count, id->valuestring, in);
            seen++;
        }
        cr_assert_eq(seen, n);
        /* 10 s, then 1 s each: the long point opens the first shard, the others level every shard within one
         * point (the mean stays above 10 s up to 8 shards) */
        const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "shards"), 0);
        cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(first, "points"), 0)->valuestring,
                         cJSON_GetArrayItem(ids, 0)->valuestring, "%d shards", count);
        double hi = 0, lo = 1e30, total = 0;
        cJSON_ArrayForEach(sh, cJSON_GetObjectItemCaseSensitive(plan, "shards")) {
            hi = ej_num(sh, "seconds") > hi ? ej_num(sh, "seconds") : hi;
            lo = ej_num(sh, "seconds") < lo ? ej_num(sh, "seconds") : lo;
            total += ej_num(sh, "seconds");
        }
        cr_assert(hi - lo <= 1.0 + 1e-9, "%d shards: %g .. %g s", count, lo, hi);
        cr_assert_float_eq(total, 10.0 + (n - 1), 1e-9, "%d shards: %g s in all", count, total);
        cJSON_Delete(plan);
        cJSON_Delete(again);
    }
    /* one result without a recorded time: every point estimated alike, one scale */
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(scopes(doc), 3), "point_wall_s");
    cJSON *plan = ea_shard_plan(doc, ids, 2);
    cr_assert_str_eq(ej_text(plan, "basis"), "estimated");
    cJSON_Delete(plan);
    /* a point no result measured weighs the median of the others */
    cJSON_AddItemToArray(ids, cJSON_CreateString("cat-000000000000"));
    plan = ea_shard_plan(doc, ids, 2);
    cr_assert_eq(ej_num(plan, "assumed"), 1);
    cJSON_Delete(plan);
    cJSON_Delete(ids);
    cJSON_Delete(doc);
}

/* A --run shard's report as gate --run --shard I/N --save FRESH writes it: the comparison with its own fresh
 * document (the shard's results only), named "(this run)", and the shard object of the same --against shard
 * with the fresh document in place of the compared one. */
static char *run_shard(const char *dir, const cJSON *stored, const char *stored_file, const cJSON *whole,
                       const cJSON *against_shard, int i)
{
    cJSON *share = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(against_shard, "shard"), "points");
    cJSON *fresh = cJSON_Duplicate(whole, 1), *r, *next;
    for (r = scopes(fresh)->child; r; r = next) {
        next = r->next;
        const cJSON *id;
        int in = 0;
        cJSON_ArrayForEach(id, share)
            in |= !strcmp(id->valuestring, ej_text(r, "point"));
        if (!in)
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes(fresh), r));
    }
    char name[64];
    snprintf(name, sizeof name, "run/fresh-%d.json", i);
    char *fresh_file = save(dir, name, fresh);
    ea_drift_rule rule = ea_drift_default_rule(0.05);
    ea_error err;
    cJSON *report = ea_gate_compare(stored_file, stored, "(this run)", fresh, &rule, share, &err);
    cr_assert_not_null(report, "%s", err.msg);
    cJSON *sh = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(against_shard, "shard"), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(sh, "new_digest", cJSON_CreateNull());
    snprintf(name, sizeof name, "elsewhere/fresh-%d.json", i); /* not there: found beside the report */
    cJSON_ReplaceItemInObjectCaseSensitive(sh, "fresh", cJSON_CreateString(name));
    cJSON_AddItemToObject(report, "shard", sh);
    cJSON_AddNumberToObject(report, "remeasurements", i % 2);
    if (i == 2) { /* a point this shard could not measure again (gate_run.h) */
        cJSON *f = cJSON_CreateObject();
        cJSON_AddItemToObject(f, "point", cJSON_Duplicate(cJSON_GetArrayItem(share, 0), 1));
        cJSON_AddStringToObject(f, "error", "no CUDA device: injected");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(report, "remeasure_failed"), f);
    }
    snprintf(name, sizeof name, "run/report-%d.json", i);
    char *file = save(dir, name, report);
    cJSON_Delete(report);
    cJSON_Delete(fresh);
    free(fresh_file);
    return file;
}

Test(gate_shard, run_shards_merge_into_the_gate_of_their_joined_fresh_documents)
{
    const char *dir = test_tmpdir();
    char *stored_file, *fresh_file, *files[8] = {0}, saved[512], prop[512], whole_prop[512];
    pair(dir, &stored_file, &fresh_file);
    cJSON *stored = load(stored_file), *fresh = load(fresh_file);
    for (int n = 2; n <= 8; n += 3) {
        for (int i = 1; i <= n; i++) {
            int status;
            cJSON *a = gate_against(stored_file, fresh_file, i, n, "0.05", &status);
            files[i - 1] = run_shard(dir, stored, stored_file, fresh, a, i);
            cJSON_Delete(a);
        }
        snprintf(saved, sizeof saved, "%s/run/joined-%d.json", dir, n);
        snprintf(prop, sizeof prop, "%s/run/proposed-%d.json", dir, n);
        cli_run m = test_cli("gate", "merge", "--json", "--save", saved, "--propose", prop, files[0], files[1],
                             n > 2 ? files[2] : NULL, files[3], files[4], NULL);
        cr_assert_eq(m.status, 1, "%d shards: %s", n, m.err);
        cJSON *joined = parsed(&m), *saved_doc = load(saved);
        /* the unsharded gate of the joined document: the same entries, new-side indices and all */
        ea_drift_rule rule = ea_drift_default_rule(0.05);
        ea_error err;
        cJSON *whole = ea_gate_compare(stored_file, stored, "(this run)", saved_doc, &rule, NULL, &err);
        char what[32];
        snprintf(what, sizeof what, "%d run shards", n);
        assert_same_entries(whole, joined, what);
        cr_assert(strstr(m.out, "\"where\":\t\"(this run) $.scopes["), "%s", m.out);
        cr_assert_eq(ej_num(joined, "remeasurements"), 1, "the largest of the shards'");
        const cJSON *failed = cJSON_GetObjectItemCaseSensitive(joined, "remeasure_failed");
        cr_assert_eq(cJSON_GetArraySize(failed), 1, "shard 2's failed point is in the merged report");
        cr_assert_str_eq(ej_text(cJSON_GetArrayItem(failed, 0), "error"), "no CUDA device: injected");
        cr_assert_eq(cJSON_GetArraySize(scopes(saved_doc)), cJSON_GetArraySize(scopes(fresh)));
        cJSON *p = ea_gate_propose(stored, saved_doc, whole);
        snprintf(whole_prop, sizeof whole_prop, "%s/run/whole-%d.json", dir, n);
        cr_assert_eq(ea_baseline_record(whole_prop, p, &err), 0, "%s", err.msg);
        char *a = test_read(whole_prop), *b = test_read(prop);
        cr_assert_str_eq(a, b, "%s: the proposals differ", what);
        free(a);
        free(b);
        cJSON_Delete(p);
        cJSON_Delete(whole);
        cJSON_Delete(saved_doc);
        cJSON_Delete(joined);
        cli_run_free(&m);
        free_all(files, n);
        if (n == 5)
            break;
    }
    cJSON_Delete(stored);
    cJSON_Delete(fresh);
    free(stored_file);
    free(fresh_file);
}

/* merge of files, expected to exit 2 with want in its message. */
static void refused(char **files, int n, const char *want, const char *what)
{
    cli_run m = merge(files, n, NULL, NULL);
    cr_assert_eq(m.status, 2, "%s: exit %d: %s", what, m.status, m.err);
    cr_assert(strstr(m.err, want), "%s: expected '%s' in: %s", what, want, m.err);
    cli_run_free(&m);
}

/* Report i of files with shard.key replaced by v (taken), written back. */
static void edit(char **files, int i, const char *key, cJSON *v)
{
    cJSON *r = load(files[i]);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "shard"), key, v);
    char *text = cJSON_Print(r);
    FILE *f = fopen(files[i], "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    cJSON_Delete(r);
}

Test(gate_shard, merge_refuses_overlaps_missing_shards_and_mixed_gates_naming_them)
{
    const char *dir = test_tmpdir();
    char *stored, *fresh, *f[4], *g[4], sub[512];
    pair(dir, &stored, &fresh);
    snprintf(sub, sizeof sub, "%s/a", dir);
    shard_reports(sub, stored, fresh, 3, f);
    char *two[2] = {f[0], f[0]};
    refused(two, 2, "overlap: ", "one shard twice");
    refused(f, 2, "missing: shard 3/3 has no report among the 2 given (", "a missing shard");
    char *unsharded[1];
    cli_run u = test_cli("gate", "--baseline", stored, "--against", fresh, "--json", NULL);
    unsharded[0] = test_write(dir, "whole.json", u.out);
    cli_run_free(&u);
    refused(unsharded, 1, "whole.json $.shard: expected the report of gate --shard I/N", "an unsharded report");
    free(unsharded[0]);
    /* --save joins fresh runs: --against shards have none */
    cli_run m = test_cli("gate", "merge", "--save", "x.json", f[0], f[1], f[2], NULL);
    cr_assert(m.status == 2 && strstr(m.err, "no fresh run to join"), "%s", m.err);
    cli_run_free(&m);
    refused(f, 0, "expected the shard reports", "no report");
    /* another shard count */
    snprintf(sub, sizeof sub, "%s/b", dir);
    shard_reports(sub, stored, fresh, 2, g);
    char *counts[3] = {f[0], g[1], f[2]};
    refused(counts, 3, "mixed shard counts: ", "1/3 beside 2/2");
    free_all(g, 2);
    /* other stored baselines, another compared document */
    snprintf(sub, sizeof sub, "%s/c", dir);
    shard_reports(sub, H200, fresh, 3, g);
    char *bases[3] = {f[0], f[1], g[2]};
    refused(bases, 3, "mixed baselines: ", "two stored documents");
    free_all(g, 3);
    snprintf(sub, sizeof sub, "%s/d", dir);
    shard_reports(sub, stored, OTHER, 3, g);
    char *news[3] = {f[0], f[1], g[2]};
    refused(news, 3, "mixed baselines: ", "two compared documents");
    free_all(g, 3);
    /* another drift rule */
    int status;
    cJSON *r = gate_against(stored, fresh, 3, 3, "0.07", &status);
    char *rules[3] = {f[0], f[1], save(dir, "rule.json", r)};
    cJSON_Delete(r);
    refused(rules, 3, "mixed rules: ", "two margins");
    free(rules[2]);
    /* another target, another plan, an entry outside the share: edited copies */
    char *t[3] = {f[0], f[1], copy(dir, "target.json", f[2])};
    edit(t, 2, "target", cJSON_CreateString("B200-torch2.11.0+cu130"));
    refused(t, 3, "mixed targets: ", "two targets");
    edit(t, 2, "target", cJSON_CreateNull());
    cJSON *third = load(f[2]);
    cJSON *plan = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(third, "shard"), "plan"), 1);
    cJSON_Delete(third);
    cJSON_ReplaceItemInObjectCaseSensitive(plan, "basis",
                                           cJSON_CreateString(strcmp(ej_text(plan, "basis"), "recorded") ? "recorded" : "estimated"));
    edit(t, 2, "plan", plan);
    refused(t, 3, "mixed plans: ", "two plans");
    free(t[2]);
    char *o[3] = {f[0], f[1], copy(dir, "outside.json", f[2])};
    cJSON *mine = load(f[0]);
    edit(o, 2, "points", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(mine, "shard"), "points"), 1));
    cJSON_Delete(mine);
    refused(o, 3, "not shard 3/3's share in its own plan", "a share edited");
    free(o[2]);
    /* the stored file changed since the shards read it */
    cJSON *s = load(stored);
    cJSON_ReplaceItemInObjectCaseSensitive(s, "driver", cJSON_CreateString("0.0"));
    char *text = cJSON_Print(s);
    FILE *w = fopen(stored, "w");
    fputs(text, w);
    fclose(w);
    free(text);
    cJSON_Delete(s);
    refused(f, 3, "changed since", "a stored file changed");
    free_all(f, 3);
    free(stored);
    free(fresh);
}

Test(gate_shard, a_run_shard_whose_fresh_document_holds_another_shards_point_is_refused)
{
    const char *dir = test_tmpdir();
    char *stored_file, *fresh_file, *files[2];
    pair(dir, &stored_file, &fresh_file);
    cJSON *stored = load(stored_file), *fresh = load(fresh_file);
    for (int i = 1; i <= 2; i++) {
        int status;
        cJSON *a = gate_against(stored_file, fresh_file, i, 2, "0.05", &status);
        files[i - 1] = run_shard(dir, stored, stored_file, fresh, a, i);
        cJSON_Delete(a);
    }
    /* shard 2's fresh document replaced by the whole measurement */
    char path[512];
    snprintf(path, sizeof path, "%s/run/fresh-2.json", dir);
    char *text = cJSON_Print(fresh);
    FILE *w = fopen(path, "w");
    fputs(text, w);
    fclose(w);
    free(text);
    refused(files, 2, "outside shard 2's share", "a fresh document with other points");
    free_all(files, 2);
    cJSON_Delete(stored);
    cJSON_Delete(fresh);
    free(stored_file);
    free(fresh_file);
}

Test(gate_shard, shard_options_are_checked)
{
    const char *const bad[] = {"0/2", "3/2", "x", "1/65", "1/", "1/2x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cli_run r = test_cli("gate", "--baseline", H200, "--against", H200, "--shard", bad[i], NULL);
        cr_assert(r.status == 2 && strstr(r.err, "--shard expects I/N"), "%s: %s", bad[i], r.err);
        cli_run_free(&r);
    }
    cli_run r = test_cli("gate", "--baseline", H200, "--plan", "--shard", "1/2", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--shard needs --run or --against"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--baseline", H200, "--run", "--shard", "1/2", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--shard with --run needs --save FILE"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--target", TEST_TARGET, "--shard-plan", "1,,2", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--shard-plan expects counts 1..64"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--target", TEST_TARGET, "--shard-plan", "2,", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--shard-plan expects counts"), "%s", r.err);
    cli_run_free(&r);
    r = test_cli("gate", "--target", TEST_TARGET, "--shard-plan", "2", "--run", NULL);
    cr_assert(r.status == 2 && strstr(r.err, "--shard-plan LIST judges nothing"), "%s", r.err);
    cli_run_free(&r);
}

Test(gate_shard, shard_plan_predicts_each_count_from_the_recorded_point_seconds)
{
    const char *dir = test_tmpdir();
    cJSON *doc = recorded();
    char *file = save(dir, "recorded.json", doc);
    cli_run r = test_cli("gate", "--target", TEST_TARGET, "--baseline", file, "--shard-plan", "1,2,4,8", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *out = parsed(&r), *p;
    cr_assert_str_eq(ej_text(out, "basis"), "recorded");
    double one = 0;
    int k = 0;
    const int counts[] = {1, 2, 4, 8};
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(out, "predictions")) {
        cr_assert_eq((int)ej_num(p, "count"), counts[k]);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "seconds")), counts[k]);
        if (k == 0)
            one = ej_num(p, "largest_s");
        else /* never below the longest point, never above one shard */
            cr_assert(ej_num(p, "largest_s") >= 10.0 && ej_num(p, "largest_s") <= one, "%d shards: %g s", counts[k],
                      ej_num(p, "largest_s"));
        k++;
    }
    cr_assert_eq(k, 4);
    cr_assert_float_eq(one, ej_num(out, "points") - 1 + 10.0, 1e-9, "one shard: every point, %g s", one);
    cJSON_Delete(out);
    cli_run_free(&r);
    r = test_cli("gate", "--target", TEST_TARGET, "--shard-plan", "1,2", NULL);
    cr_assert(r.status == 0 && strstr(r.out, "recorded (point_wall_s)") && strstr(r.out, "largest"), "the committed "
              "file records its point times: %s%s", r.out, r.err);
    cli_run_free(&r);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(scopes(doc), 0), "point_wall_s");
    char *partly = save(dir, "partly.json", doc);
    r = test_cli("gate", "--target", TEST_TARGET, "--baseline", partly, "--shard-plan", "1,2", NULL);
    cr_assert(r.status == 0 && strstr(r.out, "estimated") && strstr(r.out, "largest"), "%s%s", r.out, r.err);
    cli_run_free(&r);
    cJSON_Delete(doc);
    free(partly);
    free(file);
}

Test(gate_shard, point_wall_s_is_validated_and_ignored_by_the_comparison)
{
    const char *dir = test_tmpdir();
    cJSON *doc = recorded();
    char *file = save(dir, "recorded.json", doc);
    cli_run r = test_cli("gate", "--baseline", H200, "--against", file, NULL);
    cr_assert_eq(r.status, 0, "a recorded wall time is no verdict: %s%s", r.out, r.err);
    cli_run_free(&r);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(scopes(doc), 4), "point_wall_s", cJSON_CreateNumber(-1));
    free(file);
    file = save(dir, "negative.json", doc);
    r = test_cli("gate", "--baseline", H200, "--against", file, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "$.scopes[4].point_wall_s") && strstr(r.err, "seconds >= 0"), "%s", r.err);
    cli_run_free(&r);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(scopes(doc), 4), "point_wall_s", cJSON_CreateString("1"));
    free(file);
    file = save(dir, "string.json", doc);
    r = test_cli("gate", "--baseline", H200, "--against", file, NULL);
    cr_assert(r.status == 2 && strstr(r.err, "$.scopes[4].point_wall_s"), "%s", r.err);
    cli_run_free(&r);
    cJSON_Delete(doc);
    free(file);
}

Test(gate_shard, junit_has_a_testcase_per_entry_and_a_failure_per_entry_that_holds)
{
    const char *dir = test_tmpdir();
    char *stored, *fresh, *files[2], xml[512], want[64];
    pair(dir, &stored, &fresh);
    shard_reports(dir, stored, fresh, 2, files);
    snprintf(xml, sizeof xml, "%s/gate.xml", dir);
    cli_run m = test_cli("gate", "merge", "--json", "--junit", xml, files[0], files[1], NULL);
    cr_assert_eq(m.status, 1, "%s", m.err);
    cJSON *report = parsed(&m), *c;
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "entries")), holding = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "entries")) /* a measured floor's move fails none */
        holding += ea_gate_entry_holds(c);
    char *text = test_read(xml);
    snprintf(want, sizeof want, "tests=\"%d\" failures=\"%d\"", n, holding);
    cr_assert(strstr(text, want), "expected %s in %.400s", want, text);
    int testcases = 0, failures = 0;
    for (const char *p = text; (p = strstr(p, "<testcase ")) != NULL; p++)
        testcases++;
    for (const char *p = text; (p = strstr(p, "<failure message=\"")) != NULL; p++)
        failures++;
    cr_assert(testcases == n && failures == holding, "%d testcases, %d failures for %d entries, %d holding", testcases,
              failures, n, holding);
    cr_assert(strstr(text, "<failure message=\"SLOWER\">") && !strstr(text, "->"), "escaped: %.600s", text);
    /* the measured floor's NOISY entry (distilgpt2's cold floor) holds nothing: said, not failed */
    cr_assert_lt(holding, n - (int)ej_num(cJSON_GetObjectItemCaseSensitive(report, "summary"), "SAME"),
                 "an entry neither SAME nor holding: %.400s", text);
    cr_assert(strstr(text, "<system-out>NOISY: ") && !strstr(text, "<failure message=\"NOISY\""), "%.600s", text);
    free(text);
    cJSON_Delete(report);
    cli_run_free(&m);
    free_all(files, 2);
    free(stored);
    free(fresh);
}

/* A FILE of - is standard output, which then carries that output alone (docs/reference/cli.md), in gate and in
 * gate merge: no file named "-", no table before it; two outputs on standard output are refused. */
Test(gate_shard, a_file_of_dash_is_standard_output_alone)
{
    const char *dir = test_tmpdir();
    char *stored, *fresh, *files[2];
    pair(dir, &stored, &fresh);
    shard_reports(dir, stored, fresh, 2, files);
    cli_run r[4] = {test_cli("gate", "--baseline", stored, "--against", fresh, "--junit", "-", NULL),
                    test_cli("gate", "merge", "--junit", "-", files[0], files[1], NULL),
                    test_cli("gate", "merge", "--markdown", "-", files[0], files[1], NULL),
                    test_cli("gate", "merge", "--propose", "-", files[0], files[1], NULL)};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(r[i].status, 1, "%d: %s", i, r[i].err);
    cr_assert(!strncmp(r[0].out, "<?xml", 5) && !strncmp(r[1].out, "<?xml", 5), "%.200s", r[1].out);
    cr_assert_str_eq(r[0].out, r[1].out, "the merged shards' XML is the unsharded gate's");
    cr_assert(!strncmp(r[2].out, "### extern-audit gate: ", 23), "the markdown alone: %.200s", r[2].out);
    cJSON *doc = cJSON_Parse(r[3].out);
    cr_assert_not_null(doc, "the proposal alone on stdout: %.200s", r[3].out);
    cJSON_Delete(doc);
    cr_assert_neq(access("-", F_OK), 0, "a file named - was written");
    for (int i = 0; i < 4; i++)
        cli_run_free(&r[i]);
    cli_run two = test_cli("gate", "merge", "--json", "--markdown", "-", files[0], files[1], NULL);
    cr_assert(two.status == 2 && strstr(two.err, "one output at most on standard output"), "%s", two.err);
    cli_run_free(&two);
    free_all(files, 2);
    free(stored);
    free(fresh);
}
