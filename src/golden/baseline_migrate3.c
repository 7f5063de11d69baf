/* baseline_migrate3.c: baselines schema 2 -> 3 (contract in baseline_migrate.h): what a result derives or copies
 * is dropped, each value only once it is what its source gives; the header's cache policy and the unmeasured
 * reasons become numbers and ids that render them; every other member, the times first, is kept as read. */
#include "golden/baseline_migrate3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "measure/fractions.h"
#include "measure/path.h"
#include "measure/prose.h"

/* -1: stored, where a number belongs, is something else; the message quotes it. */
static int not_a_number(const char *file, const char *at, const char *key, const cJSON *stored, const char *whose,
                        double want, ea_error *err)
{
    char *got = cJSON_PrintUnformatted(stored);
    ea_fail(err, "%s %s.%s: expected a number, %s, %.17g, got %.60s%s", file, at, key, whose, want, got,
            strlen(got) > 60 ? "..." : "");
    cJSON_free(got);
    return -1;
}

/* A stored number against what schema 3 derives it from (whose), as the schema-2 golden reader held them: within
 * 1e-12 relative. Anything else stored there is refused: dropped, it would vanish unread. */
static int agrees(const char *file, const char *at, const char *key, const cJSON *stored, double derived,
                  const char *whose, ea_error *err)
{
    if (!stored)
        return 0;
    /* cJSON prints a NaN as null: what a schema-2 writer stored for a figure it could not derive */
    if (cJSON_IsNull(stored) && isnan(derived))
        return 0;
    if (!cJSON_IsNumber(stored))
        return not_a_number(file, at, key, stored, whose, derived, err);
    if (fabs(stored->valuedouble - derived) <= 1e-12 * fabs(derived))
        return 0;
    return ea_fail(err, "%s %s.%s: expected %s, %.17g, got %.17g", file, at, key, whose, derived, stored->valuedouble);
}

#define FIGURES "what the result's times and floor give (schema 3 derives it when read)"

/* The floor, speedups and fractions: derived from the times, config.floor_bytes and the floor's run rate. */
static int figures(const char *file, const char *at, cJSON *r, ea_error *err)
{
    static const char *const derived_keys[] = {"speedup", "speedup_cold", "floor_fraction", "bandwidth_fraction",
                                               "fraction_basis"};
    cJSON *fl = cJSON_GetObjectItemCaseSensitive(r, "floor");
    ea_figures x;
    char fat[96];
    ea_result_figures(r, &x);
    snprintf(fat, sizeof fat, "%s.floor", at);
    const char *basis = ej_str(r, "fraction_basis");
    if (agrees(file, fat, "bytes", cJSON_GetObjectItemCaseSensitive(fl, "bytes"), x.bytes, FIGURES, err) ||
        agrees(file, fat, "transfer_us", cJSON_GetObjectItemCaseSensitive(fl, "transfer_us"), x.transfer_us, FIGURES, err) ||
        agrees(file, fat, "us", cJSON_GetObjectItemCaseSensitive(fl, "us"), x.floor_us, FIGURES, err) ||
        agrees(file, at, "speedup", cJSON_GetObjectItemCaseSensitive(r, "speedup"), x.speedup, FIGURES, err) ||
        agrees(file, at, "speedup_cold", cJSON_GetObjectItemCaseSensitive(r, "speedup_cold"), x.speedup_cold, FIGURES, err) ||
        agrees(file, at, "floor_fraction", cJSON_GetObjectItemCaseSensitive(r, "floor_fraction"), x.floor_fraction, FIGURES, err) ||
        agrees(file, at, "bandwidth_fraction", cJSON_GetObjectItemCaseSensitive(r, "bandwidth_fraction"),
               x.bandwidth_fraction, FIGURES, err))
        return -1;
    if (basis && strcmp(basis, x.basis_cold ? "time_cold" : "time"))
        return ea_fail(err, "%s %s.fraction_basis: expected what the oracle's times give, \"%s\", got \"%s\"", file, at,
                       x.basis_cold ? "time_cold" : "time", basis);
    for (size_t i = 0; i < sizeof derived_keys / sizeof derived_keys[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(r, derived_keys[i]);
    cJSON_DeleteItemFromObjectCaseSensitive(fl, "bytes");
    cJSON_DeleteItemFromObjectCaseSensitive(fl, "transfer_us");
    cJSON_DeleteItemFromObjectCaseSensitive(fl, "us");
    return 0;
}

/* o's copy of a number (whose: "the torch-ops file's", "the current path's median"): exactly it, or absent. */
static int same_number(const char *file, const char *at, const char *key, const cJSON *o, double want, const char *whose,
                       ea_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || (cJSON_IsNumber(v) && v->valuedouble == want))
        return 0;
    if (!cJSON_IsNumber(v))
        return not_a_number(file, at, key, v, whose, want, err);
    return ea_fail(err, "%s %s.%s: expected %s %.17g (schema 3 reads it there), got %.17g", file, at, key, whose, want,
                   v->valuedouble);
}

/* fidelity.torch_op's copies of the torch-ops file: each mode's torch times and the kernels. */
static int torch_op(const char *file, const char *at, cJSON *r, const ea_torch_ops *ops, ea_error *err)
{
    static const char *const mode_keys[] = {"torch_us", "torch_q1_us", "torch_q3_us", "replica_us"};
    cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "fidelity"), "torch_op");
    const ea_torch_op *op = ea_torch_ops_find(ops, ej_text(r, "point"));
    char mat[128];
    if (!o)
        return 0;
    for (int i = 0; i < 2; i++) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(o, i ? "fabricated" : "faithful");
        const ea_torch_time *t = op ? (i ? &op->fabricated : &op->faithful) : NULL;
        snprintf(mat, sizeof mat, "%s.fidelity.torch_op.%s", at, i ? "fabricated" : "faithful");
        if (same_number(file, mat, "replica_us", m, ea_path_median(ea_path_named(r, "current", i ? "fabricated" : "faithful")),
                        "the current path's median", err))
            return -1;
        if (t && (same_number(file, mat, "torch_us", m, t->median_us, "the torch-ops file's", err) ||
                  same_number(file, mat, "torch_q1_us", m, t->q1_us, "the torch-ops file's", err) ||
                  same_number(file, mat, "torch_q3_us", m, t->q3_us, "the torch-ops file's", err)))
            return -1;
        for (size_t k = 0; k < sizeof mode_keys / sizeof mode_keys[0]; k++)
            cJSON_DeleteItemFromObjectCaseSensitive(m, mode_keys[k]);
        /* a mode torch did not time is absent (its note id the reader's default) */
        const char *note = ej_str(m, "note");
        if (note && !strcmp(note, "fidelity_no_torch_mode")) {
            if (t && t->timed)
                return ea_fail(err, "%s %s.note: expected a timed mode (the torch-ops file times it), got \"%s\"", file,
                               mat, note);
            cJSON_DeleteItemFromObjectCaseSensitive(o, i ? "fabricated" : "faithful");
        }
    }
    /* its file is the target's torch-ops file (older files name it by its path before the move to targets/) */
    const char *torch = ej_str(o, "torch");
    if (ops && ops->loaded && torch && strcmp(torch, ops->torch))
        return ea_fail(err, "%s %s.fidelity.torch_op.torch: expected the torch-ops file's build %s (schema 3 reads it "
                       "there), got %s", file, at, ops->torch, torch);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kernels");
    int n = cJSON_GetArraySize(k);
    for (int i = 0; op && k && i < (n > op->nkernels ? n : op->nkernels); i++) {
        const char *s = cJSON_GetStringValue(cJSON_GetArrayItem(k, i));
        if (i >= n || i >= op->nkernels || !s || strcmp(s, op->kernels[i]))
            return ea_fail(err, "%s %s.fidelity.torch_op.kernels[%d]: expected the torch-ops file's \"%s\" (schema 3 reads "
                           "it there), got \"%s\"", file, at, i, i < op->nkernels ? op->kernels[i] : "(none)",
                           s ? s : "(none)");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o, "kernels");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "file");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "torch");
    return 0;
}

/* fidelity.replica_us: the current path's time in the fidelity's mode, which the ratio divides. */
static int replica(const char *file, const char *at, cJSON *r, ea_error *err)
{
    cJSON *f = cJSON_GetObjectItemCaseSensitive(r, "fidelity");
    char fat[96];
    snprintf(fat, sizeof fat, "%s.fidelity", at);
    const char *mode = ej_str(f, "mode") ? ej_str(f, "mode") : "faithful";
    if (same_number(file, fat, "replica_us", f, ea_path_median(ea_path_named(r, "current", mode)),
                    "the current path's median", err))
        return -1;
    cJSON_DeleteItemFromObjectCaseSensitive(f, "replica_us");
    /* its capture, where it is the configuration's (ea_fidelity_capture reads that one then) */
    const char *cap = ej_str(f, "capture"), *planned = ej_str(cJSON_GetObjectItemCaseSensitive(r, "config"), "capture");
    if (cap && planned && !strncmp(planned, cap, strlen(cap)) && strchr(" ", planned[strlen(cap)]))
        cJSON_DeleteItemFromObjectCaseSensitive(f, "capture");
    return 0;
}

#define CAT_LAUNCHES "as many as config.current lists (the capture's default run: schema 3 reads it)"

/* cat's config.current, its capture's default run that golden diff judges: schema 3 keeps only its count,
 * current_launches, so the list goes only once the count stands beside it and agrees (else the launches are lost). */
static int cat_current(const char *file, const char *at, cJSON *cfg, ea_error *err)
{
    const cJSON *cur = cJSON_GetObjectItemCaseSensitive(cfg, "current");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(cfg, "current_launches");
    char cat[96];
    if (!cur)
        return 0;
    snprintf(cat, sizeof cat, "%s.config", at);
    if (!n)
        return ea_fail(err, "%s %s.current_launches: expected %s, %d, got nothing (missing key)", file, cat,
                       CAT_LAUNCHES, cJSON_GetArraySize(cur));
    if (agrees(file, cat, "current_launches", n, cJSON_GetArraySize(cur), CAT_LAUNCHES, err))
        return -1;
    cJSON_DeleteItemFromObjectCaseSensitive(cfg, "current");
    return 0;
}

/* A view's copies: view.launches (config's current_launches and oracle.launches), current_emulated's rel_l2 and
 * max_abs (the current path's check: it reports the emulation), and view.block (repros/cat/view.c's, from the
 * golden cats: not checked here, the golden room stands below the families). */
static int view(const char *file, const char *at, cJSON *r, ea_error *err)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "view"), *l = cJSON_GetObjectItemCaseSensitive(v, "launches");
    cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "current_emulated");
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r, "config");
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(ea_path_named(r, "current", "faithful"), "check");
    char vat[96];
    snprintf(vat, sizeof vat, "%s.view.launches", at);
    if (l && (agrees(file, vat, "current", cJSON_GetObjectItemCaseSensitive(l, "current"), ej_num(cfg, "current_launches"),
                     "the configuration's current_launches (schema 3 reads it there)", err) ||
              agrees(file, vat, "oracle", cJSON_GetObjectItemCaseSensitive(l, "oracle"),
                     ej_num(cJSON_GetObjectItemCaseSensitive(cfg, "oracle"), "launches"),
                     "the configuration's oracle.launches (schema 3 reads it there)", err)))
        return -1;
    snprintf(vat, sizeof vat, "%s.view.current_emulated", at);
    if (e && (agrees(file, vat, "rel_l2", cJSON_GetObjectItemCaseSensitive(e, "rel_l2"), ej_num(check, "rel_l2"),
                     "the current path's check (schema 3 reads it there)", err) ||
              agrees(file, vat, "max_abs", cJSON_GetObjectItemCaseSensitive(e, "max_abs"), ej_num(check, "max_abs"),
                     "the current path's check (schema 3 reads it there)", err)))
        return -1;
    cJSON_DeleteItemFromObjectCaseSensitive(v, "launches");
    cJSON_DeleteItemFromObjectCaseSensitive(v, "block");
    cJSON_DeleteItemFromObjectCaseSensitive(e, "rel_l2");
    cJSON_DeleteItemFromObjectCaseSensitive(e, "max_abs");
    return strcmp(ej_text(r, "family"), "cat") ? 0 : cat_current(file, at, cfg, err);
}

/* The configuration terms schema 2 stored as sentences, and their ids (src/measure/prose.c renders each back). */
static const struct {
    const char *in, *key, *id; /* in: the member holding key, "" the config itself */
} v2_terms[] = {
    {"oracle", "kind", "cat_oracle_stream"},
    {"oracle", "kind", "cat_oracle_channel_train"},
    {"oracle", "kind", "cat_oracle_channel_infer"},
    {"", "form", "routing_form_whole"},
    {"", "form", "routing_form_narrow"},
    {"oracle", "scan", "cumsum_scan_ballot"},
    {"oracle", "scan", "cumsum_scan_block"},
    {"current", "fill", "avgpool_fill_memset"},
    {"oracle", "launch", "avgpool_oracle_memcpy"},
    {"staged", "grid", "index_add_staged_grid"},
};

/* o's member key replaced by the members of the object with, in its place (new names keep the order, so the bytes
 * of the rest); with is consumed. */
static void put_in_place(cJSON *o, const char *key, cJSON *with)
{
    cJSON *rebuilt = cJSON_CreateObject(), *m;
    while ((m = o->child) != NULL) {
        cJSON_DetachItemViaPointer(o, m);
        if (strcmp(m->string, key)) {
            cJSON_AddItemToObject(rebuilt, m->string, m);
            continue;
        }
        cJSON_Delete(m);
        while ((m = with->child) != NULL)
            cJSON_AddItemToObject(rebuilt, m->string, cJSON_DetachItemViaPointer(with, m));
    }
    while ((m = rebuilt->child) != NULL)
        cJSON_AddItemToObject(o, m->string, cJSON_DetachItemViaPointer(rebuilt, m));
    cJSON_Delete(rebuilt);
    cJSON_Delete(with);
}

static int sentence_gone(const char *file, const char *at, const char *was, const char *now, ea_error *err)
{
    return ea_fail(err, "%s %s: expected a schema-2 sentence that schema 3 renders from ids and numbers, \"%s\", got "
                   "\"%.200s\"", file, at, now, was);
}

/* cumsum's inputs ("token ids from the capture's generator {...}": the generator; "none: ...": null), its padded
 * view's generator sentence (its seed), index_add's producer sentence (scale, escapes). */
static int parameterized(const char *file, const char *at, cJSON *r, ea_error *err)
{
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r, "config");
    cJSON *padded = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "view"), "padded");
    const char *in = ej_str(cfg, "inputs"), *gen = ej_str(padded, "generator"), *pr = ej_str(cfg, "producer");
    static const char tokens[] = "token ids from the capture's generator ";
    char path[128], now[512];
    if (in) {
        cJSON *g = !strcmp(in, "none: the graph builds its values") ? cJSON_CreateNull()
                   : !strncmp(in, tokens, strlen(tokens))           ? cJSON_Parse(in + strlen(tokens))
                                                                    : NULL;
        snprintf(path, sizeof path, "%s.config.inputs", at);
        if (!g || !(cJSON_IsNull(g) || ej_str(g, "generator")))
            return cJSON_Delete(g), sentence_gone(file, path, in, "token ids from the capture's generator {...}", err);
        cJSON_ReplaceItemInObjectCaseSensitive(cfg, "inputs", g);
    }
    if (gen) {
        unsigned seed = 0;
        const char *h = strstr(gen, "hash(");
        snprintf(path, sizeof path, "%s.view.padded.generator", at);
        if (h)
            sscanf(h, "hash(%u,", &seed);
        snprintf(now, sizeof now, "the capture's ids, right-padded with the pad token %.0f: row 0 full, row r a prefix "
                 "of 1 + hash(%u, r) %% %.0f tokens (reference.h, cs_pad_tails)",
                 ej_num(cJSON_GetObjectItemCaseSensitive(cfg, "literals"), "pad"), seed, ej_num(cfg, "cols"));
        if (strcmp(gen, now))
            return sentence_gone(file, path, gen, now, err);
        cJSON *with = cJSON_CreateObject();
        cJSON_AddNumberToObject(with, "pad_seed", seed);
        put_in_place(padded, "generator", with);
    }
    if (pr) {
        double scale = strncmp(pr, "mul(x, ", 7) ? NAN : strtod(pr + 7, NULL);
        int escapes = strstr(pr, ") escapes the scope") != NULL;
        snprintf(path, sizeof path, "%s.config.producer", at);
        snprintf(now, sizeof now, "mul(x, %g) %s", scale, escapes ? "escapes the scope (materialized): every path reads "
                                                                   "its output" : "folded into the oracles, which read x");
        if (strcmp(pr, now))
            return sentence_gone(file, path, pr, now, err);
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "scale", scale);
        cJSON_AddBoolToObject(p, "escapes", escapes);
        cJSON_ReplaceItemInObjectCaseSensitive(cfg, "producer", p);
    }
    return 0;
}

/* Each configuration term a sentence stood for becomes its id; one with a space that no id renders is refused. */
static int terms(const char *file, const char *at, cJSON *r, ea_error *err)
{
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r, "config"), *orc = cJSON_GetObjectItemCaseSensitive(cfg, "oracle");
    char path[128];
    for (size_t i = 0; i < sizeof v2_terms / sizeof v2_terms[0]; i++) {
        cJSON *o = !*v2_terms[i].in ? cfg
                   : !strcmp(v2_terms[i].in, "staged") ? cJSON_GetObjectItemCaseSensitive(orc, "staged")
                                                       : cJSON_GetObjectItemCaseSensitive(cfg, v2_terms[i].in);
        const char *was = ej_str(o, v2_terms[i].key);
        if (was && !strcmp(was, ea_note_text(v2_terms[i].id)))
            cJSON_ReplaceItemInObjectCaseSensitive(o, v2_terms[i].key, cJSON_CreateString(v2_terms[i].id));
    }
    for (size_t i = 0; i < sizeof v2_terms / sizeof v2_terms[0]; i++) {
        cJSON *o = !*v2_terms[i].in ? cfg
                   : !strcmp(v2_terms[i].in, "staged") ? cJSON_GetObjectItemCaseSensitive(orc, "staged")
                                                       : cJSON_GetObjectItemCaseSensitive(cfg, v2_terms[i].in);
        const char *left = ej_str(o, v2_terms[i].key);
        snprintf(path, sizeof path, "%s.config%s%s%s.%s", at, *v2_terms[i].in ? "." : "",
                 !strcmp(v2_terms[i].in, "staged") ? "oracle." : "", v2_terms[i].in, v2_terms[i].key);
        if (left && strchr(left, ' ') && !ea_note_text(left))
            return sentence_gone(file, path, left, "(a term of src/measure/prose.c)", err);
    }
    return parameterized(file, at, r, err);
}

/* The header's cache policy, the run's warm one: its calls per replay and replays, which prose.h renders back with
 * warmup_ms and gpu.l2_bytes. */
static int header_policy(const char *file, cJSON *doc, ea_error *err)
{
    const char *s = ej_str(doc, "cache_policy");
    char was[640], now[640];
    int calls = 0, replays = 0;
    if (!s)
        return 0; /* schema 2 requires one: the schema-3 reader names what is missing */
    snprintf(was, sizeof was, "%s", s);
    sscanf(was, "warm: %d calls back to back per CUDA graph replay, %d replays", &calls, &replays);
    cJSON *with = cJSON_CreateObject();
    cJSON_AddNumberToObject(with, "calls_per_replay", calls);
    cJSON_AddNumberToObject(with, "replays", replays);
    put_in_place(doc, "cache_policy", with);
    ea_run_policy_text(doc, now, sizeof now);
    return strcmp(was, now) ? sentence_gone(file, "$.cache_policy", was, now, err) : 0;
}

/* Reasons schema 2 stored in an earlier wording, written before the newops captures showed each call (223da71
 * reworded the H200 target's, not the four variant targets' copies): the same reason, whose id renders today's. */
static const struct {
    const char *was, *id;
} v2_reasons[] = {
    {"library: a cuFFT plan behind ATen's _fft_c2c (FNet's fft2 over 512 x 768, complex64); Inductor has no FFT "
     "lowering and no repro replaces cuFFT, so no timing is kept; its class comes from the capture (STEPS=newops "
     "ci/gpu-check)",
     "fft_library"},
    {"a view: c64 storage read as f32 pairs, no bytes moved, so nothing of its own to time; the FFT's capture beside "
     "it shows whether Inductor emits any kernel for it (STEPS=newops ci/gpu-check)",
     "view_as_real_alias"},
    {"a view: the select_scatter's f32 pairs read as c64, no bytes moved, so nothing of its own to time; its capture "
     "shows whether Inductor emits any kernel for it (STEPS=newops ci/gpu-check)",
     "view_as_complex_alias"},
};

/* Each "unmeasured" entry's reason sentence becomes the one id whose text it is (or was). */
static int reasons(const char *file, cJSON *doc, ea_error *err)
{
    cJSON *u;
    int i = 0;
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(doc, "unmeasured")) {
        const char *was = ej_str(u, "reason"), *id = ea_unmeasured_id(was);
        char path[64];
        for (size_t k = 0; !id && was && k < sizeof v2_reasons / sizeof v2_reasons[0]; k++)
            if (!strcmp(was, v2_reasons[k].was))
                id = v2_reasons[k].id;
        snprintf(path, sizeof path, "$.unmeasured[%d].reason", i++);
        if (!id)
            return sentence_gone(file, path, was ? was : "(none)", "(a reason of src/measure/prose.c)", err);
        cJSON_ReplaceItemInObjectCaseSensitive(u, "reason", cJSON_CreateString(id));
    }
    return 0;
}

int ea_baseline_migrate_v3(const char *file, cJSON *doc, const ea_torch_ops *ops, ea_error *err)
{
    cJSON *r;
    int i = 0;
    if (!ops || !ops->loaded)
        fprintf(stderr, "golden migrate: %s: no torch-ops file beside it: the fidelity's copies of it are dropped "
                        "unchecked\n", file);
    if (header_policy(file, doc, err) || reasons(file, doc, err))
        return -1;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        char at[64];
        snprintf(at, sizeof at, "$.scopes[%d]", i++);
        if (cJSON_GetObjectItemCaseSensitive(r, "unsupported"))
            continue;
        if (figures(file, at, r, err) || torch_op(file, at, r, ops, err) || view(file, at, r, err) ||
            terms(file, at, r, err) || replica(file, at, r, err))
            return -1;
        ea_paths_fold_checks(r);
    }
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "schema_version", cJSON_CreateNumber(3));
    return 0;
}
