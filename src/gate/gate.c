/* gate.c: the path-by-path comparison of two baselines documents (or of one with today's plans) (contract in
 * gate.h; gate_text.c prints the report, gate_propose.c makes the proposed baselines). */
#include "gate/gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/json_diff.h"
#include "measure/path.h"
#include "target/target_layout.h"

static int same_point(const cJSON *a, const char *family, const char *point)
{
    return !strcmp(ej_text(a, "family"), family) && !strcmp(ej_text(a, "point"), point);
}

/* A result's number among its point's results on its side, for the report's "result". */
static int ordinal(const cJSON *results, const cJSON *r)
{
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, results) {
        if (x == r)
            break;
        k += same_point(x, ej_text(r, "family"), ej_text(r, "point"));
    }
    return k;
}

/* The two sides' results as arrays, and which pairs with which: s2f[i] the fresh result stored result i
 * pairs with, f2s[j] the stored one fresh result j pairs with, -1 for none. */
typedef struct {
    const cJSON **s, **f;
    int ns, nf, *s2f, *f2s;
} pairing;

static int pair_of(const cJSON *a, const cJSON *b)
{
    return same_point(a, ej_text(b, "family"), ej_text(b, "point"));
}

static int unsupported(const cJSON *r)
{
    return cJSON_HasObjectItem(r, "unsupported");
}

/* Does side measure r's point: a result of it that is no refusal? (A refused point has no configurations to
 * count; whether it still is refused, the gate of two runs says.) */
static int measures_point(const cJSON **side, int n, const cJSON *r)
{
    for (int j = 0; j < n; j++)
        if (pair_of(side[j], r) && !unsupported(side[j]))
            return 1;
    return 0;
}

/* The first result of stored result i's point on the fresh side, -1 when it has none or it is paired. */
static int first_fresh(const pairing *p, int i)
{
    for (int j = 0; j < p->nf; j++)
        if (pair_of(p->f[j], p->s[i]))
            return p->f2s[j] < 0 ? j : -1;
    return -1;
}

/* A key of a configuration's plan, not of what it measures: what CONFIG reports changing (kernels, launches, the
 * capture replayed, notes) and what follows from them. */
static int plan_key(const char *key)
{
    static const char *const plan[] = {"notes", "floor_bytes", "floor_written_bytes", "permutation_order",
                                       "sm_count", NULL};
    static const char *const plan_prefix[] = {"current", "oracle", "capture", NULL};
    for (int i = 0; plan[i]; i++)
        if (!strcmp(key, plan[i]))
            return 1;
    for (int i = 0; plan_prefix[i]; i++)
        if (!strncmp(key, plan_prefix[i], strlen(plan_prefix[i])))
            return 1;
    return 0;
}

static const cJSON *config(const cJSON *r)
{
    return cJSON_GetObjectItemCaseSensitive(r, "config");
}

/* Does key tell r apart from another result of its point and scope groups on its side? */
static int tells_apart(const cJSON **side, int n, const cJSON *r, const char *key)
{
    for (int j = 0; j < n; j++)
        if (side[j] != r && pair_of(side[j], r) && ej_same_key(side[j], r, "scope_ids") &&
            cJSON_HasObjectItem(config(side[j]), key) && !ej_same_key(config(side[j]), config(r), key))
            return 1;
    return 0;
}

/* Do stored result s and fresh result f measure one configuration: the same scope groups, and no key of their
 * configs but the plan's that differs and tells the configurations of one side apart (the routing scope's form and
 * distribution)? A key only one side has, or one the point's configurations share, is the plan changing. */
static int same_configuration(const pairing *p, const cJSON *s, const cJSON *f)
{
    const cJSON *k;
    if (!config(s) || !config(f) || !ej_same_key(s, f, "scope_ids"))
        return 0;
    cJSON_ArrayForEach(k, config(s))
        if (!plan_key(k->string) && cJSON_HasObjectItem(config(f), k->string) &&
            !ej_same_key(config(s), config(f), k->string) &&
            (tells_apart(p->s, p->ns, s, k->string) || tells_apart(p->f, p->nf, f, k->string)))
            return 0;
    return 1;
}

/* The one unpaired result on the other side of r's (fresh when stored is set) measuring its configuration, -1
 * when none or several. */
static int one_configuration(const pairing *p, int stored, const cJSON *r)
{
    const cJSON **side = stored ? p->f : p->s;
    const int *paired = stored ? p->f2s : p->s2f;
    int found = -1;
    for (int j = 0, n = stored ? p->nf : p->ns; j < n; j++)
        if (paired[j] < 0 && pair_of(side[j], r) && same_configuration(p, stored ? r : side[j], stored ? side[j] : r)) {
            if (found >= 0)
                return -1;
            found = j;
        }
    return found;
}

/* A point's results are its family's configurations, paired by identity, never by position (a point that lost
 * one configuration and gained another would pair two different ones, and --propose write one of them twice):
 * an unsupported result stands for its whole point and pairs with the other side's first result of it; then a
 * result pairs with the one whose "config" is its own (the reader keeps a point's configs apart, so there is at
 * most one); then with the one left that measures its configuration (same_configuration: planned anew, CONFIG
 * names what changed), where one is left on each side. A result left unpaired is on one side only (MISSING,
 * ADDED). -1 when out of memory. */
static int pair_results(const cJSON *stored, const cJSON *fresh, pairing *p)
{
    const cJSON *x;
    p->ns = cJSON_GetArraySize(stored);
    p->nf = cJSON_GetArraySize(fresh);
    p->s = calloc((size_t)(p->ns + p->nf) + 1, sizeof *p->s);
    p->s2f = malloc(((size_t)(p->ns + p->nf) + 1) * sizeof *p->s2f);
    if (!p->s || !p->s2f)
        return free(p->s), free(p->s2f), -1;
    p->f = p->s + p->ns;
    p->f2s = p->s2f + p->ns;
    int n = 0;
    cJSON_ArrayForEach(x, stored)
        p->s2f[n] = -1, p->s[n++] = x;
    n = 0;
    cJSON_ArrayForEach(x, fresh)
        p->f2s[n] = -1, p->f[n++] = x;
    for (int i = 0; i < p->ns; i++) {
        int j = ordinal(stored, p->s[i]) == 0 ? first_fresh(p, i) : -1;
        if (j >= 0 && (unsupported(p->s[i]) || unsupported(p->f[j])))
            p->s2f[i] = j, p->f2s[j] = i;
    }
    for (int i = 0; i < p->ns; i++)
        for (int j = 0; j < p->nf && p->s2f[i] < 0; j++)
            if (p->f2s[j] < 0 && pair_of(p->f[j], p->s[i]) && ej_same_key(p->f[j], p->s[i], "config"))
                p->s2f[i] = j, p->f2s[j] = i;
    for (int i = 0; i < p->ns; i++) {
        int j = p->s2f[i] < 0 ? one_configuration(p, 1, p->s[i]) : -1;
        if (j >= 0 && one_configuration(p, 0, p->f[j]) == i)
            p->s2f[i] = j, p->f2s[j] = i;
    }
    return 0;
}

static void pairing_free(pairing *p)
{
    free(p->s);
    free(p->s2f);
}

static int path_index(const cJSON *result, const cJSON *path)
{
    int j = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "paths")) {
        if (p == path)
            return j;
        j++;
    }
    return -1;
}

static int in_scope(const cJSON *points, const char *point)
{
    const cJSON *p;
    if (!points)
        return 1;
    cJSON_ArrayForEach(p, points)
        if (!strcmp(cJSON_GetStringValue(p), point))
            return 1;
    return 0;
}

typedef struct {
    cJSON *entries;
    const char *stored_file, *new_file;
    const ea_drift_rule *rule;
    const cJSON *stored, *fresh; /* the "scopes" arrays */
} gate;

/* at: [result, path] on each side, -1 where the side has none. */
static cJSON *add_entry(gate *g, const char *status, const cJSON *r, int k, const cJSON *path, const char *timing,
                        const int at[4], const char *detail)
{
    cJSON *e = cJSON_CreateObject();
    char mode[64];
    snprintf(mode, sizeof mode, "%s%s", path ? ej_text(path, "mode") : "", timing && !strcmp(timing, "time_cold") ? "/cold" : "");
    cJSON_AddStringToObject(e, "status", status);
    cJSON_AddStringToObject(e, "family", ej_text(r, "family"));
    cJSON_AddStringToObject(e, "point", ej_text(r, "point"));
    cJSON_AddStringToObject(e, "alias", ej_text(r, "alias"));
    cJSON_AddNumberToObject(e, "result", k);
    cJSON_AddStringToObject(e, "path", path ? ej_text(path, "name") : "");
    cJSON_AddStringToObject(e, "mode", mode);
    cJSON_AddItemToObject(e, "stored_at", ej_int_array((const int64_t[]){at[0], at[1]}, 2));
    cJSON_AddItemToObject(e, "new_at", ej_int_array((const int64_t[]){at[2], at[3]}, 2));
    char where[600];
    /* the side that has it: an ADDED time (a cold one beside a stored path) lives in the new document */
    int side = at[0] >= 0 && !(timing && !strcmp(status, "ADDED")) ? 0 : 2;
    int n = snprintf(where, sizeof where, "%s $.scopes[%d]", side ? g->new_file : g->stored_file, at[side]);
    if (at[side + 1] >= 0)
        n += snprintf(where + n, sizeof where - (size_t)n, ".paths[%d]", at[side + 1]);
    if (timing)
        snprintf(where + n, sizeof where - (size_t)n, ".%s", timing);
    cJSON_AddStringToObject(e, "where", where);
    cJSON_AddStringToObject(e, "detail", detail);
    cJSON_AddItemToArray(g->entries, e);
    return e;
}

/* Is the path named so, in this mode (its entry's: "/cold" for the cold time), the measured floor's? */
static int floor_path(const char *name, const char *mode)
{
    return !strcmp(name, EA_PATH_FLOOR) &&
           (!strcmp(mode, EA_PATH_FLOOR_MODE) || !strcmp(mode, EA_PATH_FLOOR_MODE "/cold"));
}

static void judge(gate *g, const cJSON *r, int k, const cJSON *sp, const cJSON *fp, const char *timing, const int at[4])
{
    ea_drift_time ts, tn;
    ea_error err;
    ej_val vs = {g->stored_file, cJSON_GetObjectItemCaseSensitive(sp, timing), ""};
    ej_val vn = {g->new_file, cJSON_GetObjectItemCaseSensitive(fp, timing), ""};
    snprintf(vs.path, sizeof vs.path, "$.scopes[%d].paths[%d].%s", at[0], at[1], timing);
    snprintf(vn.path, sizeof vn.path, "$.scopes[%d].paths[%d].%s", at[2], at[3], timing);
    if (ea_drift_time_read(vs, &ts, &err) || ea_drift_time_read(vn, &tn, &err)) {
        add_entry(g, "INVALID", r, k, sp, timing, at, err.msg);
        return;
    }
    ea_drift_rule rule = *g->rule;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(sp, "margin");
    if (cJSON_IsNumber(m))
        rule.margin = m->valuedouble;
    ea_drift d = ea_drift_judge(&ts, &tn, &rule);
    char detail[512];
    const char *pct_word = d.change >= 0 ? "slower" : "faster";
    int n = snprintf(detail, sizeof detail, "%.3f -> %.3f us: %.1f%% %s, tolerance %.1f%% (margin %.1f%%, noise %.1f%%)",
                     ts.median, tn.median, 100 * fabs(d.change), pct_word, 100 * d.tolerance, 100 * rule.margin,
                     100 * d.noise);
    const int moved = d.status == EA_DRIFT_FASTER || d.status == EA_DRIFT_SLOWER;
    if (floor_path(ej_text(sp, "name"), ej_text(sp, "mode")) && moved)
        snprintf(detail + n, sizeof detail - (size_t)n, "; the measured floor moved (the yardstick: reported, not "
                 "gated)");
    else if (d.status == EA_DRIFT_FASTER)
        snprintf(detail + n, sizeof detail - (size_t)n, "; a stale golden: a lowering or kernel change landed, "
                 "review the proposed baselines (--propose FILE) and commit them");
    else if (d.status == EA_DRIFT_SLOWER)
        snprintf(detail + n, sizeof detail - (size_t)n, "; a regression");
    else if (d.status == EA_DRIFT_NOISY)
        snprintf(detail + n, sizeof detail - (size_t)n, "; too noisy to decide (%s%s)", d.noisy,
                 !strcmp(d.noisy, "samples") ? ": too few samples"
                 : !strcmp(d.noisy, "step")  ? ": the margin and the clock step reach the 10% move the gate catches"
                                             : " median's notch takes the noise past the rule's limit");
    cJSON *e = add_entry(g, ea_drift_status_names[d.status], r, k, sp, timing, at, detail);
    cJSON_AddNumberToObject(e, "stored_us", ts.median);
    cJSON_AddNumberToObject(e, "new_us", tn.median);
    cJSON_AddNumberToObject(e, "change", d.change);
    cJSON_AddNumberToObject(e, "tolerance", d.tolerance);
    cJSON_AddNumberToObject(e, "margin", rule.margin);
    if (d.noisy)
        cJSON_AddStringToObject(e, "noisy", d.noisy);
}

/* A path's cold time: judged when both sides have one; on one side only, reported (MISSING with the
 * new path's reason when it gives one, or ADDED, which --propose takes); on neither, nothing. */
static void compare_cold(gate *g, const cJSON *sr, int k, const cJSON *sp, const cJSON *fp, const int at[4])
{
    int in_stored = cJSON_HasObjectItem(sp, "time_cold"), in_new = cJSON_HasObjectItem(fp, "time_cold");
    char detail[700];
    if (in_stored && in_new) {
        judge(g, sr, k, sp, fp, "time_cold", at);
    } else if (in_stored) {
        snprintf(detail, sizeof detail, "a stored cold time the new run does not have: %.600s",
                 *ej_text(fp, "time_cold_note") ? ej_text(fp, "time_cold_note") : "it was not timed cold");
        add_entry(g, "MISSING", sr, k, sp, "time_cold", at, detail);
    } else if (in_new) {
        add_entry(g, "ADDED", sr, k, sp, "time_cold", at, "a new cold time with no stored one");
    }
}

/* The plan a result measured is part of the golden: its "config" (kernels, launches, notes, the capture it
 * replays) and the scope groups it covers (a point whose groups split into configurations otherwise, or join,
 * keeps a config and covers other groups). A run that measured another plan changed what the baseline
 * describes, even where no time moved. */
static void compare_config(gate *g, const cJSON *sr, int si, const cJSON *fr, int fi, int k)
{
    const cJSON *sc = config(sr), *fc = config(fr);
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(sr, "scope_ids"), *fg = cJSON_GetObjectItemCaseSensitive(fr, "scope_ids");
    char diff[600], detail[700];
    if (!(sg && fg && ej_first_difference(sg, fg, "$.scope_ids", diff, sizeof diff)) &&
        !(sc && fc && ej_first_difference(sc, fc, "$.config", diff, sizeof diff)))
        return;
    snprintf(detail, sizeof detail, "the plan measured is not the stored one, %s", diff);
    add_entry(g, "CONFIG", sr, k, NULL, NULL, (const int[]){si, -1, fi, -1}, detail);
}

static void compare_result(gate *g, const cJSON *sr, int si, const cJSON *fr, int fi, int k)
{
    const cJSON *sp, *fp;
    char detail[1100];
    const char *su = ej_str(sr, "unsupported"), *fu = ej_str(fr, "unsupported");
    if (su || fu) { /* a point its family refuses has no class and no paths: its state is the entry */
        if (su && fu && !strcmp(su, fu))
            return;
        snprintf(detail, sizeof detail, "%s: %.1000s",
                 !su ? "unsupported now" : !fu ? "supported now, was unsupported" : "unsupported for another reason",
                 fu ? fu : su);
        add_entry(g, "UNSUPPORTED", fu ? fr : sr, k, NULL, NULL, (const int[]){si, -1, fi, -1}, detail);
        return;
    }
    if (strcmp(ej_text(sr, "class"), ej_text(fr, "class"))) {
        snprintf(detail, sizeof detail, "class %s -> %s", ej_text(sr, "class"), ej_text(fr, "class"));
        add_entry(g, "CLASS", sr, k, NULL, NULL, (const int[]){si, -1, fi, -1}, detail);
    }
    compare_config(g, sr, si, fr, fi, k);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fr, "passed"))) {
        snprintf(detail, sizeof detail, "the new result failed its checks: %s",
                 *ej_text(fr, "failure") ? ej_text(fr, "failure") : "(no reason recorded)");
        add_entry(g, "FAILED", fr, k, NULL, NULL, (const int[]){si, -1, fi, -1}, detail);
    }
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(sr, "paths")) {
        fp = ea_path_named(fr, ej_text(sp, "name"), ej_text(sp, "mode"));
        int at[4] = {si, path_index(sr, sp), fi, fp ? path_index(fr, fp) : -1};
        if (!fp) {
            add_entry(g, "MISSING", sr, k, sp, NULL, at, "a stored path the new run does not have");
            continue;
        }
        judge(g, sr, k, sp, fp, "time", at);
        compare_cold(g, sr, k, sp, fp, at);
    }
    cJSON_ArrayForEach(fp, cJSON_GetObjectItemCaseSensitive(fr, "paths"))
        if (!ea_path_named(sr, ej_text(fp, "name"), ej_text(fp, "mode")))
            add_entry(g, "ADDED", fr, k, fp, NULL, (const int[]){si, -1, fi, path_index(fr, fp)},
                      "a new path with no stored time");
}

/* The report's header (rule NULL: no time is judged, no "rule"); g set up on its entries. NULL (err set) for
 * documents of two GPU models. */
static cJSON *report_for(const char *stored_file, const cJSON *stored, const char *new_file, const char *new_model,
                         const cJSON *fresh_scopes, const ea_drift_rule *rule, gate *g, ea_error *err)
{
    const char *ms = ej_text(cJSON_GetObjectItemCaseSensitive(stored, "gpu"), "model");
    if (strcmp(ms, new_model))
        return ea_fail(err, "%s $.gpu.model is \"%s\" and %s $.gpu.model \"%s\": refused, times compare only on one "
                       "GPU model (golden/targets/<model>-torch<version>/" EA_BASELINES_NAME ")", stored_file, ms, new_file,
                       new_model), NULL;
    cJSON *report = cJSON_CreateObject(), *r = rule ? cJSON_AddObjectToObject(report, "rule") : NULL;
    cJSON_AddStringToObject(report, "schema", EA_GATE_SCHEMA);
    cJSON_AddNumberToObject(report, "schema_version", EA_GATE_VERSION);
    cJSON_AddStringToObject(report, "stored", stored_file);
    cJSON_AddStringToObject(report, "new", new_file);
    cJSON_AddStringToObject(report, "gpu_model", ms);
    if (rule) {
        cJSON_AddNumberToObject(r, "margin", rule->margin);
        cJSON_AddNumberToObject(r, "notch_k", rule->k);
        cJSON_AddNumberToObject(r, "limit", rule->limit);
        cJSON_AddNumberToObject(r, "min_samples", (double)rule->min_samples);
    }
    *g = (gate){cJSON_AddArrayToObject(report, "entries"), stored_file, new_file, rule,
                cJSON_GetObjectItemCaseSensitive(stored, "scopes"), fresh_scopes};
    return report;
}

cJSON *ea_gate_summarize(cJSON *report)
{
    cJSON_DeleteItemFromObjectCaseSensitive(report, "summary");
    cJSON *summary = cJSON_AddObjectToObject(report, "summary");
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(summary, ej_text(x, "status"));
        if (c)
            cJSON_SetNumberValue(c, c->valuedouble + 1);
        else
            cJSON_AddNumberToObject(summary, ej_text(x, "status"), 1);
    }
    return report;
}

cJSON *ea_gate_compare(const char *stored_file, const cJSON *stored, const char *new_file, const cJSON *fresh,
                       const ea_drift_rule *rule, const cJSON *points, ea_error *err)
{
    gate g;
    cJSON *report = report_for(stored_file, stored, new_file,
                               ej_text(cJSON_GetObjectItemCaseSensitive(fresh, "gpu"), "model"),
                               cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), rule, &g, err);
    if (!report)
        return NULL;
    pairing pr;
    if (pair_results(g.stored, g.fresh, &pr))
        return cJSON_Delete(report), ea_fail(err, "%s against %s: out of memory", stored_file, new_file), NULL;
    for (int i = 0; i < pr.ns; i++) {
        const cJSON *x = pr.s[i];
        int k = ordinal(g.stored, x), fi = pr.s2f[i];
        if (!in_scope(points, ej_text(x, "point")))
            ;
        else if (fi < 0)
            add_entry(&g, "MISSING", x, k, NULL, NULL, (const int[]){i, -1, -1, -1}, "a stored result the new run does not have");
        else
            compare_result(&g, x, i, pr.f[fi], fi, k);
    }
    for (int i = 0; i < pr.nf; i++)
        if (in_scope(points, ej_text(pr.f[i], "point")) && pr.f2s[i] < 0)
            add_entry(&g, "ADDED", pr.f[i], ordinal(g.fresh, pr.f[i]), NULL, NULL, (const int[]){-1, -1, i, -1},
                      "a new result with no stored baseline");
    pairing_free(&pr);
    return ea_gate_summarize(report);
}

/* A stored fidelity against the one derive gives from the same result's times under today's plan f (its config
 * and scope ids, as a fresh run would hold them), attached to f, which the proposal takes it from: FIDELITY where
 * they differ; 1 when the fidelity was judged. */
static int compare_fidelity(gate *g, const cJSON *sr, int si, cJSON *f, int fi, int k, ea_gate_derive_fn *derive,
                            void *ctx)
{
    const cJSON *stored_fid = cJSON_GetObjectItemCaseSensitive(sr, "fidelity");
    if (!stored_fid)
        return 0;
    cJSON *today = cJSON_Duplicate(sr, 1);
    const char *const planned[] = {"config", "scope_ids"};
    for (int i = 0; i < 2; i++)
        if (cJSON_HasObjectItem(f, planned[i]))
            cJSON_ReplaceItemInObjectCaseSensitive(today, planned[i],
                                                   cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f, planned[i]), 1));
    cJSON *fid = derive(today, ctx);
    cJSON_Delete(today);
    char diff[600], detail[700];
    if (!fid)
        return 0;
    cJSON_AddItemToObject(f, "fidelity", fid);
    if (ej_first_difference(stored_fid, fid, "$.fidelity", diff, sizeof diff)) {
        snprintf(detail, sizeof detail, "the fidelity recorded is not what its times, the torch timings and captures "
                 "give today, %s", diff);
        add_entry(g, "FIDELITY", sr, k, NULL, NULL, (const int[]){si, -1, fi, -1}, detail);
    }
    return 1;
}

cJSON *ea_gate_compare_plans(const char *stored_file, const cJSON *stored, cJSON *plans, const cJSON *points,
                             ea_gate_derive_fn *derive, void *ctx, ea_error *err)
{
    gate g;
    cJSON *report = report_for(stored_file, stored, "(today's plans)",
                               ej_text(cJSON_GetObjectItemCaseSensitive(stored, "gpu"), "model"), plans, NULL, &g, err);
    if (!report)
        return NULL;
    char detail[1100];
    pairing pr;
    if (pair_results(g.stored, plans, &pr))
        return cJSON_Delete(report), ea_fail(err, "%s against today's plans: out of memory", stored_file), NULL;
    for (int i = 0; i < pr.ns; i++) {
        const cJSON *x = pr.s[i];
        int k = ordinal(g.stored, x), fi = pr.s2f[i];
        cJSON *f = fi < 0 ? NULL : (cJSON *)pr.f[fi];
        const int at[4] = {i, -1, fi, -1};
        int before = cJSON_GetArraySize(g.entries);
        if (!in_scope(points, ej_text(x, "point")) || (f && ej_str(x, "unsupported"))) {
            ; /* a refused point has no plan to compare; whether it still is, the gate of two runs says */
        } else if (!f) {
            add_entry(&g, "MISSING", x, k, NULL, NULL, at, "a stored result today's code does not plan");
        } else if (ej_str(f, "unsupported")) {
            snprintf(detail, sizeof detail, "today's code refuses the point: %.1000s", ej_str(f, "unsupported"));
            add_entry(&g, "MISSING", x, k, NULL, NULL, at, detail);
        } else {
            compare_config(&g, x, i, f, fi, k);
            int judged = compare_fidelity(&g, x, i, f, fi, k, derive, ctx);
            if (cJSON_GetArraySize(g.entries) == before)
                add_entry(&g, "SAME", x, k, NULL, NULL, at,
                          judged ? "the plan it measured is today's, its fidelity what its times give"
                                 : "the plan it measured is today's");
        }
    }
    /* a configuration today's code plans for a point the document measures, which no stored result measures (a
     * point split into more configurations): nothing here to take it from, a plan has no times. A point with no
     * result at all is coverage's (ea_gate_uncovered), a stored refusal is not judged. */
    for (int i = 0; i < pr.nf; i++)
        if (pr.f2s[i] < 0 && in_scope(points, ej_text(pr.f[i], "point")) && measures_point(pr.s, pr.ns, pr.f[i]))
            add_entry(&g, "ADDED", pr.f[i], ordinal(plans, pr.f[i]), NULL, NULL, (const int[]){-1, -1, i, -1},
                      "today's code plans a configuration the stored baselines do not measure: measure it (gate --run "
                      "--propose)");
    pairing_free(&pr);
    return ea_gate_summarize(report);
}

int ea_gate_entry_holds(const cJSON *e)
{
    const char *status = ej_text(e, "status");
    return strcmp(status, "SAME") && !(floor_path(ej_text(e, "path"), ej_text(e, "mode")) && strcmp(status, "INVALID"));
}

int ea_gate_exit(const cJSON *report)
{
    const cJSON *e;
    int rc = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        if (!strcmp(ej_text(e, "status"), "INVALID"))
            return 2;
        rc |= ea_gate_entry_holds(e);
    }
    return rc;
}

cJSON *ea_gate_uncovered(cJSON *const docs[EA_AUDIT_OPS], const cJSON *baselines)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *pt, *x;
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(docs[i], "points")) {
            const char *id = ej_text(pt, "point");
            int seen = 0;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(baselines, "scopes"))
                seen |= !strcmp(ej_text(x, "point"), id);
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(baselines, "unmeasured"))
                seen |= !strcmp(ej_text(x, "point"), id) && *ej_text(x, "reason");
            if (!seen)
                cJSON_AddItemToArray(out, cJSON_CreateString(id));
        }
    return out;
}

cJSON *ea_gate_unsettled_points(const cJSON *report)
{
    cJSON *ids = cJSON_CreateArray();
    const cJSON *e, *id;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        const char *noisy = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "noisy"));
        const char *status = ej_text(e, "status");
        int seen = 0;
        cJSON_ArrayForEach(id, ids)
            seen |= !strcmp(id->valuestring, ej_text(e, "point"));
        /* measuring again can decide a spread on the new side, and confirms or clears a move; the stored
         * side's spread stays what it is */
        int moved = !strcmp(status, "SLOWER") || !strcmp(status, "FASTER");
        if (!seen && (moved || (noisy && strcmp(noisy, "stored"))))
            cJSON_AddItemToArray(ids, cJSON_CreateString(ej_text(e, "point")));
    }
    return ids;
}

void ea_gate_splice(cJSON *fresh, cJSON *again)
{
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), *r, *x, *next;
    while ((r = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(again, "scopes"), 0)) != NULL) {
        int i = 0, last = -1;
        cJSON_AddTrueToObject(r, "remeasured"); /* the next result of the point takes the next place */
        cJSON_ArrayForEach(x, scopes) {
            if (same_point(x, ej_text(r, "family"), ej_text(r, "point"))) {
                if (!cJSON_HasObjectItem(x, "remeasured"))
                    break;
                last = i;
            }
            i++;
        }
        if (x)
            cJSON_ReplaceItemInArray(scopes, i, r);
        else if (last >= 0) /* a configuration more than before: after the point's last result */
            ej_insert(scopes, last + 1, r);
        else
            cJSON_AddItemToArray(scopes, r);
    }
    /* a result of a re-measured point that took no new one is a configuration the point no longer has */
    for (x = scopes ? scopes->child : NULL; x; x = next) {
        next = x->next;
        int stale = 0;
        cJSON_ArrayForEach(r, scopes)
            stale |= !cJSON_HasObjectItem(x, "remeasured") && cJSON_HasObjectItem(r, "remeasured") &&
                     same_point(r, ej_text(x, "family"), ej_text(x, "point"));
        if (stale)
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes, x));
    }
    cJSON_ArrayForEach(r, scopes)
        cJSON_DeleteItemFromObjectCaseSensitive(r, "remeasured");
}
