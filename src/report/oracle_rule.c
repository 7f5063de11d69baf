/* oracle_rule.c: the oracle against every implementation measured beside it, and the allowlist (contract in
 * oracle_rule.h). */
#include "report/oracle_rule.h"
#include "target/target_layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/baseline.h"
#include "measure/drift.h"
#include "measure/result.h"
#include "base/json.h"

static const ea_capture *capture_named(const ea_captures *caps, const char *scope)
{
    for (int i = 0; caps && scope && i < caps->n; i++)
        if (!strcmp(caps->items[i].scope, scope))
            return &caps->items[i];
    return NULL;
}

/* The capture a result's fidelity compared with (ea_fidelity_capture), or NULL. */
static const ea_capture *fidelity_capture(const ea_captures *caps, const cJSON *result)
{
    char rel[512], scope[256];
    return ea_fidelity_capture(result, rel, sizeof rel) && ea_tf_capture_scope(rel, scope, sizeof scope)
               ? capture_named(caps, scope)
               : NULL;
}

/* A candidate target's own result: one of its scopes was captured under the lowering. */
static int made_under_lowering(const cJSON *result, const ea_captures *caps)
{
    const cJSON *id;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(result, "scope_ids"))
    {
        const ea_capture *c = capture_named(caps, cJSON_IsString(id) ? id->valuestring : NULL);
        if (c && c->lowering)
            return 1;
    }
    return 0;
}

typedef struct {
    const char *name;
    ea_drift_time t;
} timed;

/* The path's time of mode (key "time" or "time_cold"); 0 when it has none, -1 on a time the rule cannot read. */
static int path_time(const char *file, const cJSON *path, const char *key, const char *where, timed *out, ea_error *err)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(path, key);
    if (!t)
        return 0;
    ej_val v = {file, t, ""};
    snprintf(v.path, sizeof v.path, "%s.%s", where, key);
    out->name = ej_str(path, "name");
    return ea_drift_time_read(v, &out->t, err) ? -1 : 1;
}

static int faithful_passed(const cJSON *p)
{
    return !strcmp(ej_text(p, "mode"), "faithful") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "passed"));
}

static int is_oracle(const cJSON *p)
{
    return !strncmp(ej_text(p, "name"), "oracle", 6);
}

typedef struct {
    const char *file;
    const cJSON *result;
    int index, order; /* the result's index in the document; its order among its point's results */
    const char *mode;
    timed oracle;
    cJSON *rule;
} judging;

/* One rival against the oracle, by the drift rule without margin. */
static void judge(judging *j, const char *rival, const ea_drift_time *t)
{
    ea_drift_rule rule = ea_drift_default_rule(0);
    rule.margin = 0;
    ea_drift d = ea_drift_judge(t, &j->oracle.t, &rule);
    cJSON *counts = j->rule;
    cJSON *n = cJSON_GetObjectItemCaseSensitive(counts, d.status == EA_DRIFT_NOISY ? "unjudged" : "judged");
    cJSON_SetNumberValue(n, n->valuedouble + 1);
    if (d.status != EA_DRIFT_SLOWER)
        return;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "family", ej_text(j->result, "family"));
    cJSON_AddStringToObject(b, "point", ej_text(j->result, "point"));
    cJSON_AddNumberToObject(b, "result", j->order);
    cJSON_AddStringToObject(b, "alias", ej_text(j->result, "alias"));
    cJSON_AddStringToObject(b, "mode", j->mode);
    cJSON_AddStringToObject(b, "winner", rival);
    cJSON_AddNumberToObject(b, "winner_us", t->median);
    cJSON_AddStringToObject(b, "oracle", j->oracle.name ? j->oracle.name : "oracle");
    cJSON_AddNumberToObject(b, "oracle_us", j->oracle.t.median);
    cJSON_AddNumberToObject(b, "ratio", t->median / j->oracle.t.median);
    cJSON_AddNumberToObject(b, "change", d.change);
    cJSON_AddNumberToObject(b, "tolerance", d.tolerance);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(counts, "breaches"), b);
}

/* torch.compile's own times of the capture's Inductor runs, where the fidelity says it prices this scope. */
static void judge_compiled(judging *j, const ea_captures *caps)
{
    const cJSON *fid = cJSON_GetObjectItemCaseSensitive(j->result, "fidelity");
    const ea_capture *c = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fid, "comparable")) ? fidelity_capture(caps, j->result)
                                                                                           : NULL;
    for (int i = 0; c && i < c->nruns; i++) {
        const ea_capture_run *r = &c->runs[i];
        const ea_capture_stats *s = &r->compiled;
        if (r->probe_dtype || !ea_capture_stats_timed(s))
            continue;
        char name[160];
        snprintf(name, sizeof name, "torch compiled %s", r->config);
        ea_drift_time t = {s->median_us, s->q1_us, s->q3_us, s->q3_us - s->q1_us, s->samples, 0};
        judge(j, name, &t);
    }
}

/* Every rival of one result in one mode. */
static int judge_mode(judging *j, const char *key, const ea_captures *caps, ea_error *err)
{
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(j->result, "paths"), *p;
    char where[96];
    int k = 0, have = 0;
    timed t;
    cJSON_ArrayForEach(p, paths) /* the oracle: the fastest that passed */
    {
        snprintf(where, sizeof where, "$.scopes[%d].paths[%d]", j->index, k++);
        int rc = faithful_passed(p) && is_oracle(p) ? path_time(j->file, p, key, where, &t, err) : 0;
        if (rc < 0)
            return -1;
        if (rc && (!have || t.t.median < j->oracle.t.median))
            j->oracle = t, have = 1;
    }
    if (!have)
        return 0;
    k = 0;
    cJSON_ArrayForEach(p, paths)
    {
        snprintf(where, sizeof where, "$.scopes[%d].paths[%d]", j->index, k++);
        int rc = faithful_passed(p) && !is_oracle(p) ? path_time(j->file, p, key, where, &t, err) : 0;
        if (rc < 0)
            return -1;
        if (rc)
            judge(j, t.name, &t.t);
    }
    if (!strcmp(key, "time"))
        judge_compiled(j, caps);
    return 0;
}


int ea_oracle_rule_breaches(const ea_target *t, const char *file, const cJSON *baselines, const ea_captures *caps,
                            cJSON **out, ea_error *err)
{
    cJSON *rule = cJSON_CreateObject();
    cJSON_AddNumberToObject(rule, "judged", 0);
    cJSON_AddNumberToObject(rule, "unjudged", 0);
    cJSON_AddArrayToObject(rule, "breaches");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(baselines, "scopes"), *r;
    int index = 0;
    cJSON_ArrayForEach(r, results)
    {
        judging j = {file, r, index++, ea_result_order(results, r), "warm", {0}, rule};
        if (t->lowering[0] && !made_under_lowering(r, caps))
            continue;
        if (judge_mode(&j, "time", caps, err) || (j.mode = "cold", judge_mode(&j, "time_cold", caps, err))) {
            cJSON_Delete(rule);
            return -1;
        }
    }
    *out = rule;
    return 0;
}

/* Entry i's keys and values, each checked. */
static int read_entry(ej_val e, const char *golden, ea_error *err)
{
    static const char *const keys[] = {"target", "family", "point", "result", "alias", "mode", "winner", "ratio",
                                       "issue", "reason", NULL};
    static const char *const modes[] = {"warm", "cold", NULL};
    const char *s, *target;
    int64_t n;
    double ratio;
    char dir[4352], got[64];
    struct stat st;
    if (ej_object(e, keys, err) || ej_get_string(e, "target", &target, err) || ej_get_string(e, "family", &s, err) ||
        ej_get_string(e, "point", &s, err) || ej_get_int_min(e, "result", 0, &n, err) ||
        ej_get_string(e, "alias", &s, err) || ej_get_one_of(e, "mode", modes, "\"warm\" or \"cold\"", &s, err) ||
        ej_get_string(e, "winner", &s, err) || ej_get_number(e, "ratio", &ratio, err) ||
        ej_get_int_min(e, "issue", 1, &n, err) || ej_get_string(e, "reason", &s, err))
        return -1;
    snprintf(got, sizeof got, "%.6g", ratio);
    if (!(ratio > 0 && ratio < 1))
        return ej_bad_field(e, "ratio", "the winner's time over the oracle's, in (0, 1)", got, err);
    if (!s[0])
        return ej_bad_field(e, "reason", "why the breach is known and what will fix it", "\"\"", err);
    snprintf(dir, sizeof dir, "%s/targets/%s", golden, target);
    if (!target[0] || strchr(target, '/') || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        char q[192];
        snprintf(q, sizeof q, "\"%.160s\"", target);
        return ej_bad_field(e, "target", "a target folder under <golden>/targets", q, err);
    }
    return 0;
}

static int same_breach(const cJSON *a, const cJSON *b)
{
    static const char *const keys[] = {"family", "point", "mode", "winner", NULL};
    for (const char *const *k = keys; *k; k++)
        if (strcmp(ej_text(a, *k), ej_text(b, *k)))
            return 0;
    return ej_num(a, "result") == ej_num(b, "result");
}

int ea_oracle_allowlist_load(const char *golden, cJSON **entries, char *file, size_t nfile, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "note", "allowed", NULL};
    struct stat st;
    ej_doc d;
    ej_val arr;
    int n = 0; /* read before ej_array sets it when an earlier check fails */
    *entries = NULL;
    snprintf(file, nfile, "%s/%s", golden, EA_ORACLE_ALLOWLIST);
    if (lstat(file, &st)) { /* a dangling link is there: ej_load names it */
        *entries = cJSON_CreateArray();
        return 0;
    }
    if (ej_load(file, &d, err))
        return -1;
    ej_val root = ej_root(&d);
    int rc = ej_expect_schema(root, EA_ORACLE_ALLOWLIST_SCHEMA, EA_ORACLE_ALLOWLIST_VERSION, err) ||
             ej_object(root, keys, err) || ej_field(root, "allowed", 1, &arr, err) || ej_array(arr, &n, err);
    for (int i = 0; i < n && !rc; i++) {
        ej_val e = ej_index(arr, i);
        rc = read_entry(e, golden, err);
        for (int k = 0; k < i && !rc; k++)
            if (same_breach(ej_index(arr, k).v, e.v) && !strcmp(ej_text(ej_index(arr, k).v, "target"), ej_text(e.v, "target"))) {
                char first[64];
                snprintf(first, sizeof first, "another breach than $.allowed[%d]'s", k);
                rc = ej_bad_field(e, "point", first, "the same target, point, result, mode and winner", err);
            }
    }
    if (!rc)
        *entries = cJSON_Duplicate(arr.v, 1);
    ej_free(&d);
    return rc ? -1 : 0;
}

static void fail(cJSON *failures, const char *kind, const char *target, const cJSON *b, const char *why)
{
    char row[512];
    snprintf(row, sizeof row, "%s %s %s #%d %s (%s)", target, ej_text(b, "family"), ej_text(b, "point"),
             (int)ej_num(b, "result"), ej_text(b, "mode"), ej_text(b, "alias"));
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "kind", kind);
    cJSON_AddStringToObject(f, "row", row);
    cJSON_AddStringToObject(f, "why", why);
    cJSON_AddItemToArray(failures, f);
}

int ea_oracle_rule_apply(cJSON *rule, const cJSON *entries, const char *target, const char *allowlist_file,
                         cJSON *failures)
{
    const cJSON *e;
    cJSON *b;
    char why[768];
    int n = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(rule, "breaches"))
    {
        const cJSON *hit = NULL;
        cJSON_ArrayForEach(e, entries)
            if (!strcmp(ej_text(e, "target"), target) && same_breach(e, b))
                hit = e;
        int len = snprintf(why, sizeof why, "%s %.3f us beats %s %.3f us beyond noise: %.2fx",
                           ej_text(b, "winner"), ej_num(b, "winner_us"), ej_text(b, "oracle"), ej_num(b, "oracle_us"),
                           ej_num(b, "ratio"));
        if (!hit) {
            snprintf(why + len, sizeof why - (size_t)len, "; %s does not list it: make the oracle at least as fast "
                     "(issue 25)", allowlist_file);
            fail(failures, "oracle_beaten", target, b, why), n++;
            continue;
        }
        cJSON *allowed = cJSON_AddObjectToObject(b, "allowed");
        cJSON_AddNumberToObject(allowed, "issue", ej_num(hit, "issue"));
        cJSON_AddNumberToObject(allowed, "ratio", ej_num(hit, "ratio"));
        cJSON_AddStringToObject(allowed, "reason", ej_text(hit, "reason"));
        if (ej_num(b, "ratio") < ej_num(hit, "ratio") - EA_ORACLE_RATIO_SLACK) {
            snprintf(why + len, sizeof why - (size_t)len, ", worse than the %.2fx %s allows", ej_num(hit, "ratio"),
                     allowlist_file);
            fail(failures, "oracle_allowlist_worse", target, b, why), n++;
        }
    }
    cJSON_ArrayForEach(e, entries)
    {
        int found = 0;
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(rule, "breaches"))
            found |= same_breach(e, b);
        if (strcmp(ej_text(e, "target"), target) || found)
            continue;
        snprintf(why, sizeof why, "%s lists %s beating the oracle at %.2fx, which the measurement no longer shows: "
                 "delete the entry (the list only shrinks)", allowlist_file, ej_text(e, "winner"), ej_num(e, "ratio"));
        fail(failures, "oracle_allowlist_stale", target, e, why), n++;
    }
    return n;
}
