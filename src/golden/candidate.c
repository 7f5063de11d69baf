/* candidate.c: a staged candidate-lowering target priced against its base target (contract in candidate.h). */
#include "golden/candidate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/capture.h"
#include "measure/drift.h"
#include "measure/fractions.h"
#include "golden/golden_target.h"
#include "base/json.h"
#include "measure/path.h"
#include "measure/result.h"
#include "target/replay_file.h"
#include "target/target_layout.h"

/* <stage>/replay.json validated into doc, doc->root NULL when the stage has none (a stage stopped before its
 * replay step). */
static int load_replay(const char *dir, ej_doc *doc, ea_error *err)
{
    char path[4200];
    FILE *f;
    memset(doc, 0, sizeof *doc);
    ea_tf_path(dir, EA_TF_REPLAY, path, sizeof path);
    if (!(f = fopen(path, "r")))
        return 0;
    fclose(f);
    int rc = ej_load(path, doc, err) || ea_replay_file_validate(path, doc->root, err) ? -1 : 0;
    if (rc)
        ej_free(doc);
    return rc;
}

static cJSON *replay_witness(const cJSON *replay, const char *scope)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, replay)
        if (!strcmp(ej_str(r, "scope"), scope)) {
            cJSON *w = cJSON_CreateObject();
            cJSON_AddStringToObject(w, "verdict", ej_str(r, "verdict"));
            ej_add_number_or_null(w, "replay_us", ej_num(cJSON_GetObjectItemCaseSensitive(r, "replay_us"), "median"));
            ej_add_number_or_null(w, "ratio", ej_num(r, "ratio"));
            return w;
        }
    return cJSON_CreateNull();
}

/* A median's notch half-width, EA_DRIFT_NOTCH_K x IQR / sqrt(n) (drift.h: where the median lies at about
 * 95%, the gate's measure of a median's uncertainty); NaN without quartiles or samples. */
static double notch(double q1, double q3, double n)
{
    return q3 >= q1 ? ea_drift_notch(EA_DRIFT_NOTCH_K, q3 - q1, n) : NAN;
}

static double stats_notch(const ea_capture_stats *s)
{
    return notch(s->q1_us, s->q3_us, (double)s->samples);
}

static double run_notch(const ea_capture_run *r)
{
    return r ? stats_notch(&r->compiled) : NAN;
}

static double path_notch(const cJSON *path)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(path, "time");
    return notch(ej_num(t, "q1_us"), ej_num(t, "q3_us"), ej_num(t, "samples"));
}

/* The largest of a capture's per-output errors against its fp64 reference (NaN: none, or no floating output). */
static double worst_error(const double *e, int n)
{
    double worst = NAN;
    for (int i = 0; e && i < n; i++)
        if (isfinite(e[i]) && !(worst >= e[i]))
            worst = e[i];
    return worst;
}

/* "fp64": the partition's outputs against the scope in float64 (capture "fp64"), worst output of each: eager's
 * (ATen's scope), today's compiled code and the candidate's; null with "fp64_note" saying why when absent. */
static void add_fp64(cJSON *e, const ea_capture *c)
{
    const ea_capture_run *w = ea_capture_run_named(c, "default"), *wo = ea_capture_run_named(c, "without_lowering");
    if (!c->fp64_eager) {
        cJSON_AddNullToObject(e, "fp64");
        cJSON_AddStringToObject(e, "fp64_note", c->fp64_error ? c->fp64_error
                                                              : "the capture has no fp64 reference (captured before it)");
        return;
    }
    cJSON *f = cJSON_AddObjectToObject(e, "fp64");
    ej_add_number_or_null(f, "eager", worst_error(c->fp64_eager, c->noutputs));
    ej_add_number_or_null(f, "without_lowering", wo ? worst_error(wo->fp64_error, c->noutputs) : NAN);
    ej_add_number_or_null(f, "candidate", w ? worst_error(w->fp64_error, c->noutputs) : NAN);
}

/* The candidate's fabricated price, derived as the faithful one from the capture's "fabricated" timings (the
 * partition on the pipeline's randint index, with and without the lowering); null with "fabricated_note". */
static void add_fabricated(cJSON *e, const ea_capture *c, const cJSON *r, double fab, const char *unpriced)
{
    const ea_capture_run *w = ea_capture_run_named(c, "default");
    const char *why = c->fabricated_error    ? c->fabricated_error
                      : unpriced             ? "the faithful price is unpriced (above)"
                      : !isfinite(fab)       ? "the base result has no fabricated current path (the family has no "
                                               "fabricated mode for this scope)"
                      : !c->has_fabricated && w && !(w->compiled.median_us > 0)
                          ? "the capture was not timed (--no-timing)"
                      : !c->has_fabricated ? "the capture has no fabricated timing (captured before it)"
                                           : NULL;
    double saving = c->fab_without.median_us - c->fab_default.median_us;
    double pm = path_notch(ea_path_named(r, "current", "fabricated")) + stats_notch(&c->fab_default) +
                stats_notch(&c->fab_without);
    ej_add_number_or_null(e, "candidate_fabricated_us", why ? NAN : fab - saving);
    ej_add_number_or_null(e, "candidate_fabricated_pm_us", why ? NAN : pm);
    if (why)
        cJSON_AddStringToObject(e, "fabricated_note", why);
}

/* Why the capture's partition cannot be priced, or NULL; *with and *without its two times. */
static const char *partition_times(const ea_capture *c, double *with, double *without)
{
    const ea_capture_run *w = ea_capture_run_named(c, "default"), *wo = ea_capture_run_named(c, "without_lowering");
    *with = w ? w->compiled.median_us : NAN;
    *without = wo ? wo->compiled.median_us : NAN;
    if (!wo)
        return "the capture has no \"without_lowering\" run: nothing timed today's code beside the candidate";
    if (!(*with > 0) || !(*without > 0))
        return "the capture's runs were not timed (captured with --no-timing)";
    /* every candidate so far replaces an ATen fallback; one that left them all did not fire */
    if (w->ev.naten_calls >= wo->ev.naten_calls)
        return "the candidate's partition makes as many ATen calls as today's: the lowering did not apply";
    return NULL;
}

/* One scope's entry; a failure is appended when the oracle is slower than the candidate. */
static cJSON *price_scope(const ea_capture *c, const char *lowering, const cJSON *baselines, const cJSON *replay,
                          cJSON *failures)
{
    cJSON *e = cJSON_CreateObject();
    const cJSON *r = ea_result_for(baselines, c->scope);
    const ea_capture_run *run = ea_capture_run_named(c, "default");
    double with, without;
    const char *why = partition_times(c, &with, &without);
    double aten = r ? ea_path_median(ea_path_named(r, "current", "faithful")) : NAN;
    double fab = r ? ea_path_median(ea_path_named(r, "current", "fabricated")) : NAN;
    double oracle = r ? ea_result_oracle_us(r) : NAN;
    ea_figures fig = {.floor_us = NAN};
    if (r)
        ea_result_figures(r, &fig);
    double floor_us = fig.floor_us;
    double saving = without - with, cand = aten - saving, recovered = saving / (aten - oracle);
    /* the price is a sum of three medians (aten - without + with): its half-width the sum of their notches */
    double n_with = run_notch(run), n_without = run_notch(ea_capture_run_named(c, "without_lowering"));
    double n_aten = r ? path_notch(ea_path_named(r, "current", "faithful")) : NAN, pm = n_aten + n_with + n_without;
    cJSON_AddStringToObject(e, "scope", c->scope);
    cJSON_AddStringToObject(e, "point", ej_text(r, "point"));
    cJSON_AddStringToObject(e, "alias", ej_text(r, "alias"));
    cJSON_AddNumberToObject(e, "occurrences", c->ncovers);
    cJSON_AddNumberToObject(e, "atomic_kernels", run ? (double)run->ev.atomic_kernels : 0);
    if (!why && !r)
        why = "no result for the scope in the base target's " EA_BASELINES_NAME;
    else if (!why && !isfinite(aten))
        why = "the base result has no faithful current path";
    cJSON *part = cJSON_AddObjectToObject(e, "partition");
    ej_add_number_or_null(part, "with_us", with);
    ej_add_number_or_null(part, "without_us", without);
    ej_add_number_or_null(part, "saving_us", why ? NAN : saving);
    ej_add_number_or_null(part, "with_notch_us", n_with);
    ej_add_number_or_null(part, "without_notch_us", n_without);
    ej_add_number_or_null(e, "aten_us", aten);
    ej_add_number_or_null(e, "aten_notch_us", n_aten);
    ej_add_number_or_null(e, "aten_fabricated_us", fab);
    ej_add_number_or_null(e, "candidate_us", why ? NAN : cand);
    ej_add_number_or_null(e, "candidate_pm_us", why ? NAN : pm);
    add_fabricated(e, c, r, fab, why);
    add_fp64(e, c);
    ej_add_number_or_null(e, "oracle_us", oracle);
    ej_add_number_or_null(e, "floor_us", floor_us);
    ej_add_number_or_null(e, "recovered", why || !(aten > oracle) ? NAN : recovered);
    cJSON_AddItemToObject(e, "replay", replay ? replay_witness(replay, c->scope) : cJSON_CreateNull());
    if (why) {
        cJSON_AddStringToObject(e, "label", "unpriced");
        cJSON_AddStringToObject(e, "unpriced", why);
        return e;
    }
    cJSON_AddStringToObject(e, "label", aten > oracle && recovered >= EA_CANDIDATE_PROFITABLE
                                            ? "profitable"
                                            : "measured, not profitable");
    if (isfinite(oracle) && oracle > cand) {
        char msg[600];
        snprintf(msg, sizeof msg,
                 "%s: the oracle (%.2f us) is slower than candidate %s (%.2f +- %.2f us: ATen path %.2f us less the "
                 "partition's saving %.2f us): improve the oracle until it is at least as fast",
                 c->scope, oracle, lowering, cand, pm, aten, saving);
        cJSON_AddItemToArray(failures, cJSON_CreateString(msg));
    }
    return e;
}

int ea_candidate_price(const char *stage_dir, const ea_target *base, const cJSON *base_baselines, cJSON **out,
                       ea_error *err)
{
    ea_target_info info;
    ea_captures caps = {0};
    ej_doc replay;
    *out = NULL;
    if (ea_target_info_load(stage_dir, &info, err))
        return -1;
    int rc = 0;
    if (!info.lowering)
        rc = ea_fail(err, "%s/" EA_TARGET_NAME ": expected a candidate lowering's stage (\"lowering\": NAME), got none",
                     stage_dir);
    else if (strcmp(info.target.gpu_model, base->gpu_model) || strcmp(info.target.torch, base->torch))
        rc = ea_fail(err, "%s: staged for the %s with torch %s, but the base target %s is the %s with torch %s: "
                          "a candidate is priced only against its own GPU model and torch",
                     stage_dir, info.target.gpu_model, info.target.torch, base->name, base->gpu_model, base->torch);
    if (rc || ea_target_captures_load(stage_dir, &caps, err) || load_replay(stage_dir, &replay, err)) {
        ea_captures_free(&caps);
        ea_target_info_free(&info);
        return -1;
    }
    cJSON *doc = cJSON_CreateObject(), *scopes = cJSON_CreateArray(), *failures = cJSON_CreateArray();
    const char *stands_for = NULL;
    for (int i = 0; i < caps.n; i++) {
        if (!caps.items[i].lowering || strcmp(caps.items[i].lowering, info.lowering))
            continue; /* a capture copied from the base: the candidate does not change its scope */
        const cJSON *low = cJSON_GetObjectItemCaseSensitive(caps.items[i].doc.root, "lowering");
        stands_for = stands_for ? stands_for : ej_str(low, "stands_for");
        cJSON_AddItemToArray(scopes, price_scope(&caps.items[i], info.lowering, base_baselines, replay.root, failures));
    }
    cJSON_AddStringToObject(doc, "target", info.target.name);
    cJSON_AddStringToObject(doc, "lowering", info.lowering);
    cJSON_AddItemToObject(doc, "stands_for", stands_for ? cJSON_CreateString(stands_for) : cJSON_CreateNull());
    cJSON_AddStringToObject(doc, "base", base->name);
    cJSON_AddItemToObject(doc, "scopes", scopes);
    cJSON_AddItemToObject(doc, "failures", failures);
    ej_free(&replay);
    ea_captures_free(&caps);
    ea_target_info_free(&info);
    *out = doc;
    return 0;
}

int ea_candidates_staged(const char *golden, const ea_target *base, const cJSON *base_baselines, cJSON **out,
                         ea_error *err)
{
    ea_target *ts;
    int n;
    *out = NULL;
    if (ea_targets_list(golden, &ts, &n, err))
        return -1;
    cJSON *all = cJSON_CreateArray(), *one;
    for (int i = 0; i < n; i++) {
        if (!ts[i].lowering[0] || strcmp(ts[i].gpu_model, base->gpu_model) || strcmp(ts[i].torch, base->torch))
            continue;
        ea_error why;
        if (ea_candidate_price(ts[i].dir, base, base_baselines, &one, &why)) {
            /* a candidate that no longer reads (its base recaptured since) is said, and hides neither the
             * base's own results nor the other candidates */
            one = cJSON_CreateObject();
            cJSON_AddStringToObject(one, "target", ts[i].name);
            cJSON_AddStringToObject(one, "lowering", ts[i].lowering);
            cJSON_AddStringToObject(one, "base", base->name);
            cJSON_AddItemToObject(one, "scopes", cJSON_CreateArray());
            cJSON_AddItemToObject(one, "failures", cJSON_CreateArray());
            cJSON_AddStringToObject(one, "unreadable", why.msg);
        }
        cJSON_AddItemToArray(all, one);
    }
    free(ts);
    *out = all;
    return 0;
}

int ea_candidates_check(const char *golden, const ea_target *base, const cJSON *results, FILE *log, ea_error *err)
{
    cJSON *staged;
    const cJSON *doc, *f;
    int n = 0;
    const char *model = ej_text(cJSON_GetObjectItemCaseSensitive(results, "gpu"), "model");
    if (base->lowering[0] || strcmp(model, base->gpu_model))
        return 0;
    if (ea_candidates_staged(golden, base, results, &staged, err))
        return -1;
    cJSON_ArrayForEach(doc, staged) {
        if (ej_str(doc, "unreadable")) {
            fprintf(log, "candidate %s: cannot be priced: %s\n", ej_str(doc, "target"), ej_str(doc, "unreadable"));
            n++;
        }
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "failures"))
        {
            fprintf(log, "candidate %s: %s\n", ej_str(doc, "target"), f->valuestring);
            n++;
        }
    }
    cJSON_Delete(staged);
    return n;
}

double ea_candidates_best(const cJSON *staged, const char *scope, const char **name)
{
    double best = NAN;
    const cJSON *doc, *e;
    cJSON_ArrayForEach(doc, staged)
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        {
            double t = ej_num(e, "candidate_us");
            if (!strcmp(ej_str(e, "scope"), scope) && isfinite(t) && (isnan(best) || t < best)) {
                best = t;
                *name = ej_str(doc, "lowering");
            }
        }
    return best;
}
