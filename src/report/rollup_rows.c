/* rollup_rows.c: the rollup's rows, one per scope group and model: each golden occurrence in its class
 * bucket, priced from the baselines' measurement of its scope (rollup.h, docs/reference/schema.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "golden/candidate.h"
#include "measure/path.h"
#include "measure/prose.h"
#include "measure/result.h"
#include "report/rollup_impl.h"
#include "target/target_layout.h"

typedef struct {
    int op;
    const cJSON *occ, *entry; /* the occurrence; its classification entry or NULL */
    const char *scope, *point, *capture;
    char graph[512];          /* suite/mode/model/graph: the id before ':' */
    int owner;                /* the op whose row prices a scope this occurrence shares, or -1 */
} occ;

static const cJSON *entry_of(const cJSON *classification, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(classification, "occurrences"))
        if (!strcmp(ej_str(e, "id"), id))
            return e;
    return NULL;
}

int ea_rollup_fallback_class(const char *cls)
{
    return cls && (!strcmp(cls, "conditional_fallback") || !strcmp(cls, "true_fallback"));
}

int ea_rollup_lowered_class(const char *cls)
{
    return cls && (!strcmp(cls, "lowered") || !strcmp(cls, "conditional_lowered"));
}

static int collect(const ea_rollup_inputs *in, occ **out)
{
    int n = 0, cap = 256;
    occ *v = malloc((size_t)cap * sizeof *v);
    for (int op = 0; v && op < EA_AUDIT_OPS; op++) {
        const cJSON *p, *g, *o;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(in->docs[op], "points"))
            cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
                cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences"))
        {
            if (n == cap && !(v = realloc(v, (size_t)(cap *= 2) * sizeof *v)))
                return -1;
            occ *c = &v[n++];
            const char *id = ej_str(o, "id");
            c->op = op;
            c->occ = o;
            c->entry = entry_of(in->classification, id);
            c->scope = ej_str(g, "scope_id");
            c->point = ej_str(p, "point");
            c->capture = c->entry ? ej_str(c->entry, "capture") : NULL;
            snprintf(c->graph, sizeof c->graph, "%.*s", (int)strcspn(id, ":"), id);
            c->owner = -1;
        }
    }
    *out = v;
    return v ? n : -1;
}

/* One capture covering occurrences of several ops in one graph is one scope, run once per set of
 * them: priced under the op that falls back (else the first), when every op has as many there. */
static void mark_shared(occ *v, int n)
{
    for (int i = 0; i < n; i++) {
        int count[EA_AUDIT_OPS] = {0}, fallback = -1, first = -1, ops = 0, equal = 1;
        if (!v[i].capture || v[i].owner >= 0)
            continue;
        for (int k = 0; k < n; k++)
            if (v[k].capture && !strcmp(v[k].capture, v[i].capture) && !strcmp(v[k].graph, v[i].graph)) {
                count[v[k].op]++;
                if (fallback < 0 && ea_rollup_fallback_class(ej_str(v[k].entry, "class")))
                    fallback = v[k].op;
            }
        for (int op = 0; op < EA_AUDIT_OPS; op++)
            if (count[op]) {
                ops++;
                first = first < 0 ? op : first;
                equal &= count[op] == count[first];
            }
        if (ops < 2 || !equal)
            continue;
        for (int k = 0; k < n; k++)
            if (v[k].capture && !strcmp(v[k].capture, v[i].capture) && !strcmp(v[k].graph, v[i].graph))
                v[k].owner = fallback >= 0 ? fallback : first;
    }
}

static const char *bucket_of(const char *cls)
{
    if (ea_rollup_lowered_class(cls))
        return "lowered";
    if (cls && (ea_rollup_fallback_class(cls) || !strcmp(cls, "library_extern") || !strcmp(cls, "not_captured") ||
                !strcmp(cls, "no_device_work")))
        return cls;
    return "unclassified";
}

/* What a candidate's price is keyed by (golden price names the recaptured capture folder): the folder of the
 * occurrence's capture ("captures/<folder>/capture.json" in its classification entry), else its scope id. A capture
 * can cover several scopes' occurrences (the gpt-oss routing capture covers the histc and the cumsum points). */
static const char *candidate_key(const occ *c, char *buf, size_t n)
{
    return ea_tf_capture_scope(c->capture, buf, n) ? buf : c->scope;
}

/* A candidate-lowering target's own price of the scope its lowering recaptured under key (golden price), or NULL. */
static const cJSON *own_price(const ea_rollup_inputs *in, const char *key)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(in->own_price, "scopes"))
        if (!strcmp(ej_str(e, "scope"), key) && isfinite(ej_num(e, "candidate_us")))
            return e;
    return NULL;
}

/* Per-call figures of the row's scope and the reason it is unpriced, if it is. */
static void price(const ea_rollup_inputs *in, const occ *c, cJSON *row)
{
    cJSON *pc = cJSON_AddObjectToObject(row, "per_call");
    const char *bucket = ej_str(row, "bucket"), *why = NULL;
    char buf[512], buf_key[256];
    const char *key = candidate_key(c, buf_key, sizeof buf_key);
    const cJSON *r = in->baselines ? ea_result_for(in->baselines, c->scope) : NULL;
    const ea_torch_op *t = ea_torch_ops_find(&in->ops, c->point);
    /* under a candidate's lowering a recaptured scope costs the candidate's price, priced against the base's result
     * as golden price prices it: the candidate's baselines time the ATen path the lowering replaces, or cannot run
     * its recaptured steps at all (unsupported) */
    const cJSON *lowered = own_price(in, key);
    double cur = lowered ? ej_num(lowered, "candidate_us") : r ? ea_path_median(ea_path_named(r, "current", "faithful")) : NAN;
    double fab = lowered ? ej_num(lowered, "candidate_fabricated_us")
                 : r     ? ea_path_median(ea_path_named(r, "current", "fabricated"))
                         : NAN;
    cJSON_AddItemToObject(row, "priced_by_lowering",
                          lowered ? cJSON_CreateString(ej_str(in->own_price, "lowering")) : cJSON_CreateNull());
    ej_add_number_or_null(pc, "current_us", cur);
    /* the capture's coordinate_descent run replayed as the default one is (path current_tuned); a candidate's price
     * has none */
    ej_add_number_or_null(pc, "current_tuned_us",
                          !lowered && r ? ea_path_median(ea_path_named(r, EA_PATH_CURRENT_TUNED, "faithful")) : NAN);
    ej_add_number_or_null(pc, "fabricated_us", fab);
    ej_add_number_or_null(pc, "oracle_us", lowered ? ej_num(lowered, "oracle_us") : r ? ea_result_oracle_us(r) : NAN);
    const char *lowering = NULL;
    cJSON_AddStringToObject(row, "capture_scope", key);
    ej_add_number_or_null(pc, "candidate_us", ea_candidates_best(in->candidates, key, &lowering));
    cJSON_AddItemToObject(row, "candidate", lowering ? cJSON_CreateString(lowering) : cJSON_CreateNull());
    /* beside our replay of the captured partition, torch.compile's own time of it (the capture's) */
    ej_add_number_or_null(pc, "torch_compiled_us", r ? ej_num(cJSON_GetObjectItemCaseSensitive(r, "fidelity"), "torch_compiled_us") : NAN);
    /* the capture's two Inductor configs as torch.compile timed them, beside current and current_tuned's replays */
    const cJSON *both = in->compiled ? cJSON_GetObjectItemCaseSensitive(in->compiled, key) : NULL;
    ej_add_number_or_null(pc, "compiled_default_us", both ? cJSON_GetArrayItem(both, 0)->valuedouble : NAN);
    ej_add_number_or_null(pc, "compiled_tuned_us", both ? cJSON_GetArrayItem(both, 1)->valuedouble : NAN);
    ej_add_number_or_null(pc, "torch_faithful_us", t && t->faithful.timed ? t->faithful.median_us : NAN);
    ej_add_number_or_null(pc, "pipeline_min_us", t && t->pipeline.timed ? t->pipeline.min_us : NAN);
    ej_add_number_or_null(pc, "pipeline_steady_us", t && t->pipeline.timed ? t->pipeline.steady_us : NAN);
    char verdict[256] = ""; /* the result's verdict id, rendered (prose.h) */
    if (r && !lowered)
        ea_verdict_text(r, verdict, sizeof verdict);
    cJSON_AddItemToObject(row, "verdict", verdict[0] ? cJSON_CreateString(verdict) : cJSON_CreateNull());
    const char *label = r ? ej_str(r, "class") : NULL;
    cJSON_AddItemToObject(row, "label", label ? cJSON_CreateString(label) : cJSON_CreateNull());
    if (!strcmp(bucket, "library_extern"))
        why = "library extern (mm/conv/sdpa): a correct extern, listed, not priced";
    else if (!strcmp(bucket, "unclassified"))
        why = "unclassified: no capture covers it";
    else if (!strcmp(bucket, "not_captured"))
        why = "not yet captured: the op joined the audit set after this target's captures";
    else if (!strcmp(bucket, "no_device_work"))
        why = "no device work (a view, or host SymInt arithmetic): nothing to price; its extern count is false";
    else if (!in->baselines)
        why = in->note_baselines;
    else if (lowered)
        why = isfinite(cur) ? NULL : "the candidate's price has no figure";
    else if (!r && ea_baseline_unmeasured_reason(in->baselines, c->point)) {
        snprintf(buf, sizeof buf, "unmeasured: %.400s", ea_baseline_unmeasured_reason(in->baselines, c->point));
        why = buf;
    }
    else if (r && ej_str(r, "unsupported")) {
        snprintf(buf, sizeof buf, "unsupported by its family: %.400s", ej_str(r, "unsupported"));
        why = buf;
    } else if (r && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "passed"))) {
        snprintf(buf, sizeof buf, "the measurement failed: %.400s", ej_str(r, "failure") ? ej_str(r, "failure") : "?");
        why = buf;
    } else if (r && !isfinite(cur))
        why = "the baseline has no faithful current path";
    cJSON_AddItemToObject(row, "unpriced", why ? cJSON_CreateString(why) : cJSON_CreateNull());
    cJSON_AddBoolToObject(row, "priced", (r || lowered) && !why && isfinite(cur));
}

static cJSON *new_row(const ea_rollup_inputs *in, const occ *c)
{
    cJSON *row = cJSON_CreateObject();
    const char *cls = c->entry ? ej_str(c->entry, "class") : NULL;
    cJSON_AddStringToObject(row, "op", ea_audit_ops[c->op].target);
    cJSON_AddStringToObject(row, "point", c->point);
    cJSON_AddStringToObject(row, "scope", c->scope);
    cJSON_AddStringToObject(row, "suite", ej_str(c->occ, "suite"));
    cJSON_AddStringToObject(row, "mode", ej_str(c->occ, "mode"));
    cJSON_AddStringToObject(row, "model", ej_str(c->occ, "model"));
    cJSON_AddNumberToObject(row, "occurrences", 0);
    cJSON_AddStringToObject(row, "class", cls ? cls : "unclassified");
    cJSON_AddNumberToObject(row, "old_rule_extern", 0);
    cJSON_AddNumberToObject(row, "false_extern", 0);
    cJSON_AddStringToObject(row, "bucket", bucket_of(cls));
    cJSON_AddItemToObject(row, "shared_with",
                          c->owner >= 0 && c->owner != c->op ? cJSON_CreateString(ea_audit_ops[c->owner].target)
                                                               : cJSON_CreateNull());
    price(in, c, row);
    return row;
}

static cJSON *find_row(cJSON *rows, const ea_rollup_inputs *in, const occ *c)
{
    cJSON *r;
    const char *cls = c->entry ? ej_str(c->entry, "class") : "unclassified";
    int shared = c->owner >= 0 && c->owner != c->op;
    cJSON_ArrayForEach(r, rows)
        if (!strcmp(ej_str(r, "scope"), c->scope) && !strcmp(ej_str(r, "suite"), ej_str(c->occ, "suite")) &&
            !strcmp(ej_str(r, "mode"), ej_str(c->occ, "mode")) && !strcmp(ej_str(r, "model"), ej_str(c->occ, "model")) &&
            !strcmp(ej_str(r, "class"), cls) && shared == !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "shared_with")))
            return r;
    cJSON_AddItemToArray(rows, r = new_row(in, c));
    return r;
}

static void add(cJSON *o, const char *key, double v)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    cJSON_SetNumberValue(x, x->valuedouble + v);
}

/* The row's totals: per-call figures times its occurrences; a shared row's time is its owner's. */
static void totals(cJSON *row)
{
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(row, "per_call");
    double n = cJSON_GetObjectItemCaseSensitive(row, "occurrences")->valuedouble;
    int shared = !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with"));
    int priced = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "priced")) && !shared;
    const char *verdict = ej_str(row, "verdict");
#define PC(k) (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pc, k)) ? cJSON_GetObjectItemCaseSensitive(pc, k)->valuedouble : NAN)
    double cur = PC("current_us"), fab = PC("fabricated_us"), orc = PC("oracle_us"), tf = PC("torch_faithful_us");
    double pmin = PC("pipeline_min_us"), steady = PC("pipeline_steady_us"), cand = PC("candidate_us");
    double cdef = PC("compiled_default_us"), ctun = PC("compiled_tuned_us"), tuned = PC("current_tuned_us");
#undef PC
    cJSON *us = cJSON_AddObjectToObject(row, "us");
    double after = priced ? n * cur : shared ? 0 : NAN;
    ej_add_number_or_null(us, "after", after);
    /* a candidate slower than today's path would not land: the row keeps today's time */
    ej_add_number_or_null(us, "after_candidate", priced && isfinite(cand) && cand < cur ? n * cand : after);
    ej_add_number_or_null(us, "fabricated", priced ? n * fab : NAN);
    ej_add_number_or_null(us, "oracle", priced ? n * orc : shared ? 0 : NAN);
    /* a family's "no material headroom" verdict and an oracle no faster both carry zero */
    double head = priced && isfinite(orc) ? n * (cur > orc ? cur - orc : 0) : shared ? 0 : NAN;
    if (priced && verdict && !strcmp(verdict, ea_verdict_template("no_material_headroom")))
        head = 0;
    ej_add_number_or_null(us, "headroom", head);
    ej_add_number_or_null(us, "fabricated_over_faithful", priced && isfinite(fab) ? n * (fab - cur) : NAN);
    /* both configs or neither: a sum of one beside a sum of the other would compare different scopes */
    int both = priced && isfinite(cdef) && isfinite(ctun);
    ej_add_number_or_null(us, "compiled_default", both ? n * cdef : NAN);
    ej_add_number_or_null(us, "compiled_tuned", both ? n * ctun : NAN);
    /* the two replayed configs, and the oracle, over the same rows: the speedups against each current */
    int paired = priced && isfinite(tuned) && isfinite(orc);
    ej_add_number_or_null(us, "current_paired", paired ? n * cur : NAN);
    ej_add_number_or_null(us, "current_tuned", paired ? n * tuned : NAN);
    ej_add_number_or_null(us, "oracle_paired", paired ? n * orc : NAN);
    /* the pipeline's price and the gap to the faithful in-scope price, term by term (they add up) */
    cJSON *gap = cJSON_AddObjectToObject(row, "gap");
    int have = isfinite(pmin) && isfinite(steady) && isfinite(after);
    ej_add_number_or_null(gap, "pipeline", have ? n * pmin : NAN);
    ej_add_number_or_null(gap, "lone_op_launch", have ? n * (pmin - steady) : NAN);
    ej_add_number_or_null(gap, "fabricated_contention", have && isfinite(tf) ? n * (steady - tf) : NAN);
    ej_add_number_or_null(gap, "scope", have ? (isfinite(tf) ? n * tf : n * steady) - after : NAN);
}

cJSON *ea_rollup_rows(const ea_rollup_inputs *in)
{
    occ *v;
    int n = collect(in, &v);
    if (n < 0)
        return NULL;
    mark_shared(v, n);
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *row = find_row(rows, in, &v[i]);
        const cJSON *e = v[i].entry;
        add(row, "occurrences", 1);
        add(row, "old_rule_extern", e && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "old_rule")));
        add(row, "false_extern", e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "false_extern")));
    }
    cJSON *row;
    cJSON_ArrayForEach(row, rows)
        totals(row);
    free(v);
    return rows;
}
