/* rollup.c: rows summed per op, per model and in total; the questions the totals answer; the check
 * (contract in rollup.h). Every sum stays within one GPU's figures. */
#include "report/rollup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/launch_floor.h"
#include "report/baseline_table.h"
#include "measure/prose.h"
#include "measure/result.h"
#include "report/oracle_rule.h"
#include "report/rollup_corpus.h"
#include "report/rollup_impl.h"
#include "target/target_layout.h"

/* The after-GPU sums an aggregate carries, each a key under "us" (rows' "us" keys, and buckets). */
static const char *const sums[] = {"after", "fabricated", "oracle", "headroom", "fabricated_over_faithful",
                                   "after_candidate", "compiled_default", "compiled_tuned", "current_paired",
                                   "current_tuned", "oracle_paired", NULL};
static const char *const buckets[] = {"lowered", "conditional_fallback", "true_fallback", NULL};
static const char *const gap_terms[] = {"pipeline", "lone_op_launch", "fabricated_contention", "scope", NULL};

/* v added to o's key; a key that is null (nothing summed yet) becomes v. */
static void add(cJSON *o, const char *key, double v)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x)
        cJSON_AddNumberToObject(o, key, v);
    else if (cJSON_IsNull(x))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(v));
    else
        cJSON_SetNumberValue(x, x->valuedouble + v);
}

static cJSON *new_agg(void)
{
    cJSON *a = cJSON_CreateObject(), *us, *gap;
    const char *const counts[] = {"occurrences", "old_rule_extern", "false_extern", "shared", "unpriced", "compiled_both",
                                  "tuned_both", NULL};
    for (const char *const *k = counts; *k; k++)
        cJSON_AddNumberToObject(a, *k, 0);
    cJSON_AddObjectToObject(a, "classes");
    cJSON *b = cJSON_AddObjectToObject(a, "buckets");
    us = cJSON_AddObjectToObject(a, "us");
    /* null until a row gives the figure: an aggregate none of whose rows is priced is unpriced, not 0 us */
    for (const char *const *k = sums; *k; k++)
        cJSON_AddNullToObject(us, *k);
    for (const char *const *k = buckets; *k; k++) {
        cJSON_AddNumberToObject(b, *k, 0);
        cJSON_AddNullToObject(us, *k);
    }
    gap = cJSON_AddObjectToObject(a, "gap");
    for (const char *const *k = gap_terms; *k; k++)
        cJSON_AddNullToObject(gap, *k);
    return a;
}

/* Once every row is in: a bucket that holds no occurrence is 0 us (nothing there), one whose occurrences
 * are all unpriced stays null. */
static void finish(cJSON *a)
{
    cJSON *us = cJSON_GetObjectItemCaseSensitive(a, "us");
    for (const char *const *k = buckets; *k; k++)
        if (ej_num(cJSON_GetObjectItemCaseSensitive(a, "buckets"), *k) == 0)
            cJSON_ReplaceItemInObjectCaseSensitive(us, *k, cJSON_CreateNumber(0));
}

/* A row into an aggregate. A sum a row cannot give (unpriced, not measured) is left out and the row
 * counted under "unpriced" (after) or leaves the gap term null only when no row had it. */
static void fold(cJSON *a, const cJSON *row)
{
    const cJSON *rus = cJSON_GetObjectItemCaseSensitive(row, "us"), *rgap = cJSON_GetObjectItemCaseSensitive(row, "gap");
    cJSON *us = cJSON_GetObjectItemCaseSensitive(a, "us"), *gap = cJSON_GetObjectItemCaseSensitive(a, "gap");
    double n = ej_num(row, "occurrences"), after = ej_num(rus, "after");
    add(a, "occurrences", n);
    add(a, "old_rule_extern", ej_num(row, "old_rule_extern"));
    add(a, "false_extern", ej_num(row, "false_extern"));
    add(a, "shared", cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with")) ? 0 : n);
    add(a, "unpriced", isfinite(after) ? 0 : n);
    add(a, "compiled_both", isfinite(ej_num(rus, "compiled_tuned")) ? n : 0);
    add(a, "tuned_both", isfinite(ej_num(rus, "current_tuned")) ? n : 0);
    add(cJSON_GetObjectItemCaseSensitive(a, "classes"), ej_str(row, "class"), n);
    for (const char *const *k = sums; *k; k++)
        if (isfinite(ej_num(rus, *k)))
            add(us, *k, ej_num(rus, *k));
    for (const char *const *k = buckets; *k; k++)
        if (!strcmp(ej_str(row, "bucket"), *k)) {
            add(cJSON_GetObjectItemCaseSensitive(a, "buckets"), *k, n);
            if (isfinite(after))
                add(us, *k, after);
        }
    for (const char *const *k = gap_terms; *k; k++)
        if (isfinite(ej_num(rgap, *k)))
            add(gap, *k, ej_num(rgap, *k));
}

/* The launch-bound scopes (launch_floor.h), each with the mode and variant that tell an alias's rows apart, as
 * audit's table says them (baseline_table.h). */
static cJSON *launch_floor(const ea_rollup_inputs *in)
{
    cJSON *f = ea_launch_floor_fractions(in->baselines), *table = ea_baseline_table(in->baselines_file, in->baselines), *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "scopes")) {
        const cJSON *r, *row = NULL, *results = cJSON_GetObjectItemCaseSensitive(in->baselines, "scopes");
        int i = 0;
        cJSON_ArrayForEach(r, results) {
            if (!strcmp(ej_text(r, "family"), ej_text(s, "family")) && !strcmp(ej_text(r, "point"), ej_text(s, "point")) &&
                ea_result_order(results, r) == (int)ej_num(s, "result"))
                row = cJSON_GetArrayItem(table, i);
            i++;
        }
        cJSON_AddStringToObject(s, "mode", row ? ej_text(row, "mode") : "-");
        cJSON_AddStringToObject(s, "variant", row ? ej_text(row, "variant") : "");
    }
    cJSON_Delete(table);
    return f;
}

static cJSON *seed_json(const ea_seed_op *s, const char *gpu)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "gpu", gpu);
    cJSON_AddNumberToObject(j, "occurrences", (double)s->occurrences);
    cJSON_AddNumberToObject(j, "total_us", s->total_us);
    cJSON_AddBoolToObject(j, "summed_from_parts", s->summed);
    return j;
}

static cJSON *per_op(const ea_rollup_inputs *in, const cJSON *rows)
{
    cJSON *ops = cJSON_CreateArray();
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cJSON *a = new_agg();
        const cJSON *r;
        cJSON_AddItemToObject(a, "op", cJSON_CreateString(ea_audit_ops[i].target));
        cJSON_ArrayForEach(r, rows)
            if (!strcmp(ej_str(r, "op"), ea_audit_ops[i].target))
                fold(a, r);
        finish(a);
        cJSON_AddItemToObject(a, "seed", in->have_seed && in->seed.ops[i].occurrences ? seed_json(&in->seed.ops[i], in->seed.gpu)
                                                                                 : cJSON_CreateNull());
        cJSON_AddItemToArray(ops, a);
    }
    return ops;
}

static int same_model(const cJSON *a, const cJSON *b)
{
    return !strcmp(ej_str(a, "suite"), ej_str(b, "suite")) && !strcmp(ej_str(a, "mode"), ej_str(b, "mode")) &&
           !strcmp(ej_str(a, "model"), ej_str(b, "model"));
}

/* The seed's figures for one model (its per-op parts naming the model). */
static cJSON *seed_parts(const ea_rollup_inputs *in, const cJSON *m)
{
    cJSON *parts = cJSON_CreateArray();
    for (int i = 0; in->have_seed && i < EA_AUDIT_OPS; i++)
        for (int k = 0; k < in->seed.ops[i].nparts; k++) {
            const ea_seed_part *p = &in->seed.ops[i].parts[k];
            if (strcmp(p->suite, ej_str(m, "suite")) || strcmp(p->mode, ej_str(m, "mode")) || strcmp(p->model, ej_str(m, "model")))
                continue;
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "op", ea_audit_ops[i].target);
            cJSON_AddStringToObject(j, "label", p->label);
            cJSON_AddNumberToObject(j, "occurrences", (double)p->occurrences);
            cJSON_AddNumberToObject(j, "total_us", p->total_us);
            cJSON_AddItemToArray(parts, j);
        }
    return parts;
}

/* The model's corpus accounting; a malformed file is recorded in errors (and the model's "corpus"
 * names it) and the other models go on. */
static void corpus_json(const ea_rollup_inputs *in, cJSON *m, cJSON *errors)
{
    ea_model_accounting a;
    ea_error err;
    cJSON *c;
    if (!in->have_corpus) {
        cJSON_AddNullToObject(m, "corpus");
        return;
    }
    c = cJSON_AddObjectToObject(m, "corpus");
    if (ea_corpus_accounting(in->o.corpus, ej_str(m, "suite"), ej_str(m, "mode"), ej_str(m, "model"), &a, &err)) {
        cJSON_AddStringToObject(c, "note", err.msg);
        cJSON_AddItemToArray(errors, cJSON_CreateString(err.msg));
        return;
    }
    if (!a.found) {
        cJSON_AddStringToObject(c, "note", "no model accounting file in the corpus");
        return;
    }
    cJSON_AddStringToObject(c, "gpu", a.hardware);
    cJSON_AddStringToObject(c, "torch", a.torch);
    cJSON_AddNumberToObject(c, "extern_total_us", a.extern_total_us);
    cJSON_AddNumberToObject(c, "extern_occurrences", (double)a.extern_occurrences);
    cJSON_AddNumberToObject(c, "unpriced_extern_occurrences", (double)a.unpriced_extern_occurrences);
}

static cJSON *per_model(const ea_rollup_inputs *in, const cJSON *rows, cJSON *errors)
{
    cJSON *models = cJSON_CreateArray(), *m;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        cJSON_ArrayForEach(m, models)
            if (same_model(m, r))
                break;
        if (!m) {
            cJSON_AddItemToArray(models, m = new_agg());
            for (const char *const *k = (const char *const[]){"suite", "mode", "model", NULL}; *k; k++)
                cJSON_AddStringToObject(m, *k, ej_str(r, *k));
        }
        fold(m, r);
    }
    cJSON_ArrayForEach(m, models)
    {
        finish(m);
        cJSON_AddItemToObject(m, "seed", seed_parts(in, m));
        corpus_json(in, m, errors);
    }
    return models;
}

/* The one-screen answers. "before" sums only B200 figures (seed, corpus), "after" only the baselines' GPU. */
static cJSON *totals(const ea_rollup_inputs *in, const cJSON *ops, const cJSON *models)
{
    cJSON *t = new_agg(), *before = cJSON_CreateObject();
    const cJSON *o, *m;
    double seed = 0, seed_false = 0, corpus = 0;
    int corpus_models = 0;
    cJSON_ArrayForEach(o, ops)
    {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "seed");
        if (cJSON_IsNull(s)) /* an op the seed did not price */
            continue;
        seed += ej_num(s, "total_us");
        /* an op whose every occurrence is a false extern leaves the extern bucket whole */
        if (ej_num(o, "false_extern") == ej_num(o, "occurrences"))
            seed_false += ej_num(s, "total_us");
    }
    cJSON_ArrayForEach(m, models)
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "corpus");
        if (isfinite(ej_num(c, "extern_total_us"))) {
            corpus += ej_num(c, "extern_total_us");
            corpus_models++;
        }
    }
    cJSON_AddStringToObject(before, "gpu", in->have_seed ? in->seed.gpu : "NVIDIA B200");
    cJSON_AddItemToObject(before, "seed_total_us", in->have_seed ? cJSON_CreateNumber(seed) : cJSON_CreateNull());
    cJSON_AddItemToObject(before, "seed_false_extern_us", in->have_seed ? cJSON_CreateNumber(seed_false) : cJSON_CreateNull());
    cJSON_AddItemToObject(before, "corpus_extern_total_us", corpus_models ? cJSON_CreateNumber(corpus) : cJSON_CreateNull());
    cJSON_AddNumberToObject(before, "corpus_models", corpus_models);
    cJSON_AddItemToObject(t, "before", before);
    return t;
}

static cJSON *sources(const ea_rollup_inputs *in)
{
    cJSON *s = cJSON_CreateObject();
    char path[4352];
    snprintf(path, sizeof path, "%s/occurrences", in->o.golden);
    cJSON_AddStringToObject(s, "occurrences", path);
    cJSON_AddItemToObject(s, "classification",
                          in->classification ? cJSON_CreateString(in->classification_file) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "baselines", in->baselines ? cJSON_CreateString(in->baselines_file) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "baselines_note", in->baselines ? cJSON_CreateNull() : cJSON_CreateString(in->note_baselines));
    cJSON_AddItemToObject(s, "lowering_base",
                          in->own_price ? cJSON_CreateString(in->own_price_base) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "lowering_base_note",
                          in->note_own_price[0] ? cJSON_CreateString(in->note_own_price) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "torch_ops", in->ops.loaded ? cJSON_CreateString(in->ops.file) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "seed", in->have_seed ? cJSON_CreateString(in->seed_file) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "seed_source", in->have_seed ? cJSON_CreateString(in->seed.source) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "corpus", in->have_corpus ? cJSON_CreateString(in->o.corpus) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "corpus_note", in->have_corpus ? cJSON_CreateNull() : cJSON_CreateString(in->note_corpus));
    return s;
}

/* Which GPU each column was measured on, and what is missing for the pipeline column. */
static cJSON *gpus(const ea_rollup_inputs *in)
{
    cJSON *g = cJSON_CreateObject();
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(in->baselines, "gpu");
    char note[512];
    int pipeline = 0;
    for (int i = 0; in->ops.loaded && i < in->ops.n; i++)
        pipeline |= in->ops.ops[i].pipeline.timed;
    cJSON_AddStringToObject(g, "before", in->have_seed ? in->seed.gpu : "NVIDIA B200");
    cJSON_AddItemToObject(g, "after", gpu ? cJSON_CreateString(ej_str(gpu, "name")) : cJSON_CreateNull());
    cJSON_AddItemToObject(g, "after_model", in->gpu_model[0] ? cJSON_CreateString(in->gpu_model) : cJSON_CreateNull());
    const cJSON *torch = cJSON_GetObjectItemCaseSensitive(in->baselines, "torch");
    cJSON_AddItemToObject(g, "after_torch", cJSON_IsString(torch) ? cJSON_CreateString(torch->valuestring) : cJSON_CreateNull());
    snprintf(note, sizeof note, "git %s", in->have_seed ? in->seed.pytorch_commit : "?");
    cJSON_AddItemToObject(g, "before_torch", in->have_seed ? cJSON_CreateString(note) : cJSON_CreateNull());
    char policy[640];
    if (in->baselines)
        ea_paths_policy_text(in->baselines, policy, sizeof policy);
    cJSON_AddItemToObject(g, "cache_policy", in->baselines ? cJSON_CreateString(policy) : cJSON_CreateNull());
    snprintf(note, sizeof note, "not measured on %s: %s has no pipeline timing (tools/capture/op_timing.py on that GPU)",
             in->gpu_model[0] ? in->gpu_model : "this GPU", in->ops.loaded ? in->ops.rel : "the target's " EA_TORCH_OPS_NAME);
    cJSON_AddItemToObject(g, "pipeline_note", pipeline ? cJSON_CreateNull() : cJSON_CreateString(note));
    return g;
}

/* How many times the rollup's rows run the partition a candidate recaptured: the occurrences of the priced rows of
 * it (not those sharing a row's scope: the routing capture covers 24 histc and 24 cumsum occurrences of one scope,
 * run 24 times), else, when no row prices it, the occurrences the capture covers. */
static double executions(const cJSON *rows, const cJSON *scope_entry)
{
    const cJSON *r;
    double n = 0;
    cJSON_ArrayForEach(r, rows)
        if (!strcmp(ej_text(r, "capture_scope"), ej_text(scope_entry, "scope")) &&
            cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "shared_with")) &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "priced")))
            n += ej_num(r, "occurrences");
    return n > 0 ? n : ej_num(scope_entry, "occurrences");
}

/* note[from..to), less the "; " that joins it to the one before, as the next of lines (to past the buffer:
 * the sentence was cut there). */
static void line(cJSON *lines, const char *note, size_t from, size_t to)
{
    size_t len = strlen(note);
    from += from ? 2 : 0;
    to = to < len ? to : len;
    if (to > from) {
        char b[2048];
        snprintf(b, sizeof b, "%.*s", (int)(to - from), note + from);
        cJSON_AddItemToArray(lines, cJSON_CreateString(b));
    }
}

/* The committed candidate targets priced, and one sentence on them for the totals (rows: the rollup's). */
static cJSON *candidates(const ea_rollup_inputs *in, const cJSON *rows)
{
    cJSON *c = cJSON_CreateObject(), *staged = in->candidates ? cJSON_Duplicate(in->candidates, 1) : cJSON_CreateArray();
    const cJSON *doc, *e;
    char note[2048] = "";
    size_t k = 0, was;
    cJSON *lines = cJSON_CreateArray(); /* one sentence a candidate: the note cut at its "; " */
    cJSON_AddItemToObject(c, "staged", staged);
    cJSON_ArrayForEach(doc, staged)
    {
        double aten = 0, cand = 0, oracle = 0;
        int priced = 0, unprofitable = 0, n = 0;
        was = k;
        if (ej_str(doc, "unreadable")) {
            if (k < sizeof note)
                k += (size_t)snprintf(note + k, sizeof note - k, "%s%s: cannot be priced (%s)", k ? "; " : "",
                                      ej_str(doc, "lowering"), ej_str(doc, "unreadable"));
            line(lines, note, was, k);
            continue;
        }
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        {
            double occ = executions(rows, e);
            n++;
            if (!isfinite(ej_num(e, "candidate_us")) || !isfinite(ej_num(e, "oracle_us")))
                continue;
            priced++;
            unprofitable += !strcmp(ej_str(e, "label"), "measured, not profitable");
            aten += occ * ej_num(e, "aten_us");
            /* a slower candidate leaves today's path in place, as the after-candidate column does */
            cand += occ * fmin(ej_num(e, "candidate_us"), ej_num(e, "aten_us"));
            oracle += occ * ej_num(e, "oracle_us");
        }
        if (k < sizeof note)
            k += (size_t)snprintf(note + k, sizeof note - k,
                                  "%s%s: %d of %d scopes priced, their occurrences %.1f -> %.1f us (oracle %.1f us), "
                                  "%.0f%% of the oracle's headroom recovered; %d measured, not profitable",
                                  k ? "; " : "", ej_str(doc, "lowering"), priced, n, aten, cand, oracle,
                                  aten > oracle ? 100 * (aten - cand) / (aten - oracle) : 0, unprofitable);
        line(lines, note, was, k);
    }
    cJSON_AddStringToObject(c, "note", k ? note : "no staged candidate-lowering targets in the golden folder");
    cJSON_AddItemToObject(c, "lines", lines);
    return c;
}

/* Appends {"kind", "row", "why"} to failures for every breach; returns how many. */
static int ea_rollup_check(const cJSON *doc, cJSON *failures);

/* -1 only when out of memory. */
static int ea_rollup_build(const ea_rollup_inputs *in, cJSON **doc, ea_error *err)
{
    cJSON *rows = ea_rollup_rows(in), *d, *ops, *models, *t;
    if (!rows)
        return ea_fail(err, "rollup: out of memory");
    cJSON *errors = cJSON_CreateArray();
    ops = per_op(in, rows);
    models = per_model(in, rows, errors);
    t = totals(in, ops, models);
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
        fold(t, r);
    finish(t);
    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", EA_ROLLUP_SCHEMA);
    cJSON_AddNumberToObject(d, "schema_version", EA_ROLLUP_VERSION);
    cJSON_AddItemToObject(d, "sources", sources(in));
    cJSON_AddItemToObject(d, "gpus", gpus(in));
    cJSON_AddItemToObject(d, "ops", ops);
    cJSON_AddItemToObject(d, "models", models);
    cJSON_AddItemToObject(d, "totals", t);
    cJSON_AddItemToObject(d, "candidates", candidates(in, rows));
    if (in->baselines)
        cJSON_AddItemToObject(d, "launch_floor", launch_floor(in));
    cJSON_AddItemToObject(d, "rows", rows);
    cJSON_AddItemToObject(d, "input_errors", errors);
    cJSON *failures = cJSON_CreateArray();
    ea_rollup_check(d, failures);
    if (in->oracle_rule) {
        cJSON *rule = cJSON_Duplicate(in->oracle_rule, 1);
        cJSON_AddStringToObject(rule, "allowlist", in->oracle_allowlist);
        ea_oracle_rule_apply(rule, in->oracle_allowed, in->target_name, in->oracle_allowlist, failures);
        cJSON_AddItemToObject(d, "oracle_rule", rule);
    }
    cJSON_AddItemToObject(d, "check", failures);
    *doc = d;
    return 0;
}

int ea_rollup_run(const ea_rollup_opts *o, cJSON **doc, ea_error *err)
{
    ea_rollup_inputs in;
    if (ea_rollup_load(o, &in, err))
        return -1;
    int rc = ea_rollup_build(&in, doc, err);
    ea_rollup_free(&in);
    return rc;
}

/* {"kind", "row", "why"} into list; row: a row's scope and model, or a candidate target's name. */
static void breach(cJSON *list, const char *kind, const char *row, const char *why)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "kind", kind);
    cJSON_AddStringToObject(f, "row", row);
    cJSON_AddStringToObject(f, "why", why);
    cJSON_AddItemToArray(list, f);
}

static void failure(cJSON *list, const char *kind, const cJSON *row, const char *why)
{
    char id[512];
    snprintf(id, sizeof id, "%s %s/%s/%s", ej_str(row, "scope"), ej_str(row, "suite"), ej_str(row, "mode"), ej_str(row, "model"));
    breach(list, kind, id, why);
}

static int ea_rollup_check(const cJSON *doc, cJSON *failures)
{
    const cJSON *row;
    int n = 0;
    char why[640];
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows"))
    {
        const char *cls = ej_str(row, "class"), *bucket = ej_str(row, "bucket"), *label = ej_str(row, "label");
        int shared = !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "shared_with"));
        int after = isfinite(ej_num(cJSON_GetObjectItemCaseSensitive(row, "us"), "after"));
        if (ea_rollup_lowered_class(cls) && (strcmp(bucket, "lowered") || (label && ea_rollup_fallback_class(label)))) {
            snprintf(why, sizeof why, "class %s, but counted as %s%s%s", cls, bucket, label ? ", labelled " : "",
                     label ? label : "");
            failure(failures, "lowered_counted_extern", row, why);
            n++;
        }
        if (ea_rollup_fallback_class(cls) ? strcmp(bucket, cls) || (label && strcmp(label, cls))
                                          : !strcmp(cls, "unclassified")) {
            snprintf(why, sizeof why, "class %s in bucket %s, the measurement labels it %s", cls, bucket,
                     label ? label : "nothing");
            failure(failures, "fallback_unlabelled", row, why);
            n++;
        }
        if (!after && !shared && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "unpriced")) &&
            strcmp(bucket, "library_extern")) {
            failure(failures, "unpriced_without_reason", row, "no baselines result prices this scope");
            n++;
        }
    }
    const cJSON *doc_c, *f;
    cJSON_ArrayForEach(doc_c, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "candidates"), "staged")) {
        if (ej_str(doc_c, "unreadable")) {
            breach(failures, "candidate_unreadable", ej_text(doc_c, "target"), ej_str(doc_c, "unreadable"));
            n++;
        }
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc_c, "failures"))
        {
            breach(failures, "oracle_slower_than_candidate", ej_text(doc_c, "target"), f->valuestring);
            n++;
        }
    }
    return n;
}
