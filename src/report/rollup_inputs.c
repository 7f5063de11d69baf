/* rollup_inputs.c: what the rollup reads, each file validated by its own strict reader (rollup.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "measure/baseline_derived.h"
#include "golden/candidate.h"
#include "golden/golden_target.h"
#include "target/classify.h"
#include "corpus/occurrences.h"
#include "report/oracle_rule.h"
#include "report/rollup.h"
#include "base/readfile.h"
#include "report/rollup_corpus.h"
#include "target/target.h"
#include "target/target_layout.h"

/* Loads path and checks it with validate; *out stays NULL when the file is absent. */
static int optional_doc(const char *path, int (*validate)(const char *, const cJSON *, ea_error *), cJSON **out,
                        ea_error *err)
{
    ej_doc d;
    *out = NULL;
    int present = ea_file_present(path, err); /* a dangling link is an error, not an absent file */
    if (present <= 0)
        return present;
    if (ej_load(path, &d, err) || validate(path, d.root, err)) {
        ej_free(&d);
        return -1;
    }
    *out = ej_doc_take_root(&d);
    return 0;
}

/* The target's baselines.json, and its GPU model for the torch timings; none: a note says so. */
static int load_baselines(ea_rollup_inputs *in, const ea_target *t, ea_error *err)
{
    if (!t->name[0]) {
        snprintf(in->note_baselines, sizeof in->note_baselines, "no baselines: %s/targets holds no target",
                 in->o.golden);
        return 0;
    }
    snprintf(in->gpu_model, sizeof in->gpu_model, "%s", t->gpu_model);
    ea_tf_path(t->dir, EA_TF_BASELINES, in->baselines_file, sizeof in->baselines_file);
    if (optional_doc(in->baselines_file, ea_baseline_golden_validate, &in->baselines, err) ||
        (in->baselines && ea_baseline_occurrences_check(in->baselines_file, in->baselines, in->docs, err)))
        return -1;
    if (!in->baselines)
        snprintf(in->note_baselines, sizeof in->note_baselines, "no baselines for %s: %s absent", t->name,
                 in->baselines_file);
    return 0;
}

/* Per capture folder, torch.compile's per-call medians of the default and the coordinate-descent tuned run, where
 * the capture timed both: beside the replayed ones (current, current_tuned), and the only figure for a fallback's. */
static cJSON *compiled_runs(const ea_captures *caps)
{
    cJSON *m = cJSON_CreateObject();
    for (int i = 0; m && i < caps->n; i++) {
        const ea_capture_run *d = ea_capture_run_named(&caps->items[i], "default"),
                             *t = ea_capture_run_named(&caps->items[i], "coordinate_descent");
        if (d && t && ea_capture_stats_timed(&d->compiled) && ea_capture_stats_timed(&t->compiled))
            cJSON_AddItemToObject(m, caps->items[i].scope,
                                  cJSON_CreateDoubleArray((const double[]){d->compiled.median_us, t->compiled.median_us}, 2));
    }
    return m;
}

/* A candidate-lowering target's own price against the base it was accepted beside: what its lowering makes of the
 * scopes it recaptured. A base that cannot be read, or a price that cannot be made, is a note (the rows keep the
 * target's own baselines), as a staged candidate that cannot be priced is for the base's rollup. */
static int load_own_price(ea_rollup_inputs *in, const ea_target *t)
{
    char dir[4400];
    ea_target base;
    ej_doc bl = {0};
    ea_error why;
    if (!in->baselines || !t->lowering[0])
        return 0;
    if (ea_target_base_dir(t->dir, dir, sizeof dir, &why) || ea_target_read(dir, &base, &why) ||
        ea_target_baselines_load(dir, &bl, &why) || ea_candidate_price(t->dir, &base, bl.root, &in->own_price, &why)) {
        snprintf(in->note_own_price, sizeof in->note_own_price, "%s", why.msg);
        in->own_price = NULL;
    } else {
        ea_tf_path(dir, EA_TF_BASELINES, in->own_price_base, sizeof in->own_price_base);
    }
    ej_free(&bl);
    return 0;
}

/* The oracle's rule on the target's baselines, with its captures (torch.compile's times, the lowering's scopes), and
 * the compiled times of both Inductor configs. */
static int load_oracle_rule(ea_rollup_inputs *in, const ea_target *t, ea_error *err)
{
    ea_captures caps;
    if (ea_oracle_allowlist_load(in->o.golden, &in->oracle_allowed, in->oracle_allowlist, sizeof in->oracle_allowlist,
                                 err))
        return -1;
    if (!in->baselines)
        return 0;
    if (ea_target_captures_load(t->dir, &caps, err))
        return -1;
    int rc = ea_oracle_rule_breaches(t, in->baselines_file, in->baselines, &caps, &in->oracle_rule, err);
    if (rc == 0 && !(in->compiled = compiled_runs(&caps)))
        rc = ea_fail(err, "rollup: out of memory");
    ea_captures_free(&caps);
    return rc;
}

int ea_rollup_load(const ea_rollup_opts *o, ea_rollup_inputs *in, ea_error *err)
{
    char path[4352];
    struct stat st;
    memset(in, 0, sizeof *in);
    in->o = *o;
    snprintf(path, sizeof path, "%s/occurrences", o->golden);
    if (ea_occurrences_load(path, in->docs, err))
        return -1;
    ea_target t;
    if (ea_target_find(o->golden, o->target, &t, err))
        goto fail;
    ea_tf_path(t.dir, EA_TF_CLASSIFICATION, in->classification_file, sizeof in->classification_file);
    /* its captures as audit and golden price check them, so --check passes nothing they refuse */
    if ((t.name[0] && ea_target_captures_check(t.dir, in->docs, err)) ||
        (t.name[0] && optional_doc(in->classification_file, ea_classification_validate, &in->classification, err)) ||
        load_baselines(in, &t, err) || (t.name[0] && ea_torch_ops_load_dir(t.dir, t.gpu_model, &in->ops, err)) ||
        (in->baselines && !t.lowering[0] && ea_candidates_staged(o->golden, &t, in->baselines, &in->candidates, err)) ||
        load_oracle_rule(in, &t, err) || load_own_price(in, &t))
        goto fail;
    snprintf(in->target_name, sizeof in->target_name, "%s", t.name);
    snprintf(in->seed_file, sizeof in->seed_file, "%s/seed_totals.json", o->golden);
    int seed = ea_file_present(in->seed_file, err);
    if (seed < 0)
        goto fail;
    if (seed) {
        if (ea_seed_totals_load(in->seed_file, &in->seed, err))
            goto fail;
        in->have_seed = 1;
    }
    in->have_corpus = o->corpus && stat(o->corpus, &st) == 0 && S_ISDIR(st.st_mode);
    if (!in->have_corpus)
        snprintf(in->note_corpus, sizeof in->note_corpus,
                 "corpus before column unavailable: no corpus at %.4000s (pass --corpus DIR or set EXTERN_AUDIT_CORPUS)",
                 o->corpus ? o->corpus : "(none given)");
    return 0;
fail:
    ea_rollup_free(in);
    return -1;
}

void ea_rollup_free(ea_rollup_inputs *in)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cJSON_Delete(in->docs[i]);
        in->docs[i] = NULL;
    }
    cJSON_Delete(in->classification);
    cJSON_Delete(in->baselines);
    cJSON_Delete(in->candidates);
    cJSON_Delete(in->own_price);
    cJSON_Delete(in->oracle_rule);
    cJSON_Delete(in->oracle_allowed);
    cJSON_Delete(in->compiled);
    in->classification = in->baselines = in->candidates = in->own_price = in->oracle_rule = in->oracle_allowed = in->compiled = NULL;
    ea_torch_ops_free(&in->ops);
    if (in->have_seed)
        ea_seed_totals_free(&in->seed);
    in->have_seed = 0;
}
