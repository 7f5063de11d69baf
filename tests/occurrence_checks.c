/* occurrence_checks.c: the per-occurrence checks (contract in occurrence_checks.h). */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmds_impl.h"
#include "occurrence_cache.h"
#include "occurrence_checks.h"

#include "measure/baseline.h"
#include "target/classify.h"
#include "corpus/corpus.h"
#include "gpu/device.h"
#include "corpus/extract.h"
#include "gate/gate.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/run.h"
#include "target/target.h"
#include "target/target_impl.h"

#define GOLDEN OCC_GOLDEN

static void where(const occ_ref *r, char *buf, size_t n)
{
    snprintf(buf, n, "%s (point %s, " GOLDEN "/occurrences/%s.json $.points[%d].scopes[%d].occurrences[%d])", r->id,
             r->point, ea_audit_ops[r->op].short_name, r->p, r->s, r->o);
}

static const ea_target *target(void);

static cJSON *load(const char *file, const char *w)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s: %s", w, err.msg);
    return ej_doc_take_root(&d);
}


static int make_classification(const char *arg, const char *file, ea_error *err)
{
    cJSON *doc;
    if (ea_classify_golden(GOLDEN, target()->dir, &doc, err))
        return -1;
    int rc = ej_write_atomic(file, doc, err);
    cJSON_Delete(doc);
    return rc;
}

/* Every graph of the corpus extracted once, into the folder of file (its summary.json). */
static int make_extraction(const char *corpus, const char *file, ea_error *err)
{
    char dir[4096];
    ea_corpus c;
    ea_extraction x;
    snprintf(dir, sizeof dir, "%s", file);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    if (ea_corpus_open(corpus, &c, err))
        return -1;
    cJSON *cat = NULL;
    ej_doc d;
    if (ej_load(GOLDEN "/occurrences/cat.json", &d, err) == 0)
        cat = ej_doc_take_root(&d);
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(cat, "cat_input_cap");
    if (cat && !cJSON_IsNumber(cap))
        ea_fail(err, GOLDEN "/occurrences/cat.json $.cat_input_cap: expected a number");
    ea_extract_opts o = {cJSON_IsNumber(cap) ? cap->valueint : 0, NULL};
    int rc = cJSON_IsNumber(cap) ? ea_extract(&c, &o, &x, err) : -1;
    cJSON_Delete(cat);
    ea_corpus_free(&c);
    if (rc)
        return -1;
    rc = ea_extraction_write(&x, dir, err);
    ea_extraction_free(&x);
    return rc;
}

/* The run's device probe (occurrence_cache.c): 1 and the GPU model's name when a device is present. */
static int device_model(const char *w, char *model, size_t n, char *why, size_t nwhy)
{
    ea_error err;
    int present = occ_device(model, n, why, nwhy, &err);
    cr_assert_geq(present, 0, "%s: %s", w, err.msg);
    return present;
}

/* Skips without a device, "no CUDA device: <reason>"; else the GPU model's name. */
static void skip_without_gpu(const char *w, char *model, size_t n)
{
    char why[512];
    if (!device_model(w, model, n, why, sizeof why))
        cr_skip_test("no CUDA device: %s", why);
}

/* The target this machine resolves to (target.h: $EXTERN_AUDIT_TARGET as the suite inherited it, this GPU
 * model's, or the only one), from the cached probe. */
static const ea_target *target(void)
{
    static ea_target t;
    char model[64], why[512];
    ea_error err;
    if (t.name[0])
        return &t;
    int gpu = device_model("target", model, sizeof model, why, sizeof why);
    cr_assert_eq(ea_target_select(GOLDEN, NULL, test_inherited_target(GOLDEN), gpu ? model : NULL, 0, &t, &err), 0, "%s",
                 err.msg);
    return &t;
}

static int entry_of(const cJSON *classification, const char *id)
{
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(classification, "occurrences")) {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id")), id))
            return i;
        i++;
    }
    return -1;
}

static const char *text(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : "(none)";
}

/* The first 160 characters of v's JSON, for a message. */
static void brief(const cJSON *v, char *buf, size_t n)
{
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(buf, n, "%.160s%s", s ? s : "(absent)", s && strlen(s) > 160 ? "..." : "");
    free(s);
}

static const cJSON *at(const cJSON *o, const char *key, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, key), i);
}

/* The occurrence in an extracted document: its point, scope group and identity, or 0. */
static int find_occurrence(const cJSON *doc, const char *id, const cJSON **pt, const cJSON **grp, const cJSON **occ)
{
    const cJSON *p, *g, *o;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "points"))
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
            cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences"))
                if (!strcmp(text(o, "id"), id)) {
                    *pt = p, *grp = g, *occ = o;
                    return 1;
                }
    return 0;
}

static void same_part(const char *w, const char *what, const char *golden_path, const cJSON *golden, const cJSON *now)
{
    char a[200], b[200];
    if (cJSON_Compare(golden, now, 1))
        return;
    brief(golden, a, sizeof a);
    brief(now, b, sizeof b);
    cr_assert_fail("%s: re-extracted from the corpus, %s differs from %s: golden %s, extracted %s", w, what, golden_path,
                   a, b);
}

void occ_extraction(const char *corpus, const char *who, char *dir, size_t n)
{
    char file[4200];
    ea_error err;
    cr_assert_eq(occ_cached("extracted/summary.json", make_extraction, corpus, file, sizeof file, &err), 0,
                 "%s: extracting %s: %s", who, corpus, err.msg);
    snprintf(dir, n, "%.*s", (int)(strrchr(file, '/') - file), file);
}

/* ---- slices ----
 * A classification check compares one occurrence's parts of documents the suite shares (classification.json stored
 * and recomputed, 135 KB each; golden/occurrences/<op>.json and its re-extracted copy, 735 KB for cat): parsing them
 * in each of the 279 test processes was most of the classification suite's time. Each document is read once per
 * cache key instead and cut into one slice per occurrence, <set>/<test name>.json beside the set's done marker
 * (written last, so a set cut short is made again); a check reads its slice, the same values at the same JSON
 * paths, and its messages name the documents as before. */

static const char *test_name(const occ_ref *r)
{
    for (const occ_test *o = occ_tests; o->name; o++)
        if (&o->ref == r)
            return o->name;
    return "(not a generated test)";
}

/* The set's folder: done's. */
static void set_dir(const char *done, char *dir, size_t n)
{
    snprintf(dir, n, "%.*s", (int)(strrchr(done, '/') - done), done);
}

static int write_slice(const char *dir, const char *name, cJSON *slice, ea_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    char *text = cJSON_PrintUnformatted(slice);
    cJSON_Delete(slice);
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    free(text);
    return rc ? ea_fail(err, "%s: cannot write: %s", path, strerror(errno)) : 0;
}

/* The slice of r in the set whose marker is done, loaded (who: the check, for a message). */
static cJSON *slice_of(const char *done, const occ_ref *r, const char *who)
{
    char dir[4200], path[4400];
    set_dir(done, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s.json", dir, test_name(r));
    return load(path, who);
}

/* key: {"index": i, "entry": $.occurrences[i]} of doc's entry of id, when it has one. */
static void add_entry(cJSON *slice, const char *key, const cJSON *doc, const char *id)
{
    int i = entry_of(doc, id);
    if (i < 0)
        return;
    cJSON *e = cJSON_AddObjectToObject(slice, key);
    cJSON_AddNumberToObject(e, "index", i);
    cJSON_AddItemToObject(e, "entry", cJSON_Duplicate(at(doc, "occurrences", i), 1));
}

/* Each occurrence's entries in the recomputed classification.json (the cached file) and the stored one. */
static int make_class_slices(const char *recomputed, const char *done, ea_error *err)
{
    char dir[4200], stored[8192];
    set_dir(done, dir, sizeof dir);
    mkdir(dir, 0755);
    snprintf(stored, sizeof stored, "%s/classification.json", target()->dir);
    ej_doc now, st;
    if (ej_load(recomputed, &now, err))
        return -1;
    if (ej_load(stored, &st, err))
        return ej_free(&now), -1;
    int rc = 0;
    for (const occ_test *o = occ_tests; rc == 0 && o->name; o++) {
        cJSON *slice = cJSON_CreateObject();
        add_entry(slice, "recomputed", now.root, o->ref.id);
        add_entry(slice, "stored", st.root, o->ref.id);
        rc = write_slice(dir, o->name, slice, err);
    }
    ej_free(&now);
    ej_free(&st);
    return rc ? -1 : ea_write_file_atomic(done, "", 0, err);
}

/* key: {"signature", "scope", "occurrence"} of a point, one of its scope groups and an occurrence of it. */
static void add_parts(cJSON *slice, const char *key, const cJSON *pt, const cJSON *grp, const cJSON *occ)
{
    cJSON *o = cJSON_AddObjectToObject(slice, key);
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(pt, "signature");
    const cJSON *scope = cJSON_GetObjectItemCaseSensitive(grp, "scope");
    if (sig)
        cJSON_AddItemToObject(o, "signature", cJSON_Duplicate(sig, 1));
    if (scope)
        cJSON_AddItemToObject(o, "scope", cJSON_Duplicate(scope, 1));
    if (occ)
        cJSON_AddItemToObject(o, "occurrence", cJSON_Duplicate(occ, 1));
}

/* Each occurrence's golden parts at its JSON path ("golden") and the parts of the occurrence of its id in the
 * extraction's copy of the document (folder extracted; "extracted", absent when the id is not there). An op whose
 * documents do not load gets slices saying why ("error"), as its checks alone failed before. */
static int make_extract_slices(const char *extracted, const char *done, ea_error *err)
{
    char dir[4200];
    set_dir(done, dir, sizeof dir);
    mkdir(dir, 0755);
    int rc = 0;
    for (int op = 0; rc == 0 && op < EA_AUDIT_OPS; op++) {
        char gp[512], path[4400];
        ej_doc golden = {0}, now = {0};
        ea_error why = {{0}};
        snprintf(gp, sizeof gp, GOLDEN "/occurrences/%s.json", ea_audit_ops[op].short_name);
        snprintf(path, sizeof path, "%s/%s.json", extracted, ea_audit_ops[op].short_name);
        int loaded = -1;
        for (const occ_test *o = occ_tests; rc == 0 && o->name; o++) {
            if (o->ref.op != op)
                continue;
            if (loaded < 0)
                loaded = ej_load(gp, &golden, &why) == 0 && ej_load(path, &now, &why) == 0;
            cJSON *slice = cJSON_CreateObject();
            const cJSON *gpt = at(golden.root, "points", o->ref.p), *ggrp = at(gpt, "scopes", o->ref.s);
            const cJSON *xpt, *xgrp, *xocc;
            if (!loaded)
                cJSON_AddStringToObject(slice, "error", why.msg);
            else
                add_parts(slice, "golden", gpt, ggrp, at(ggrp, "occurrences", o->ref.o));
            if (loaded && find_occurrence(now.root, o->ref.id, &xpt, &xgrp, &xocc))
                add_parts(slice, "extracted", xpt, xgrp, xocc);
            rc = write_slice(dir, o->name, slice, err);
        }
        ej_free(&golden);
        ej_free(&now);
    }
    return rc ? -1 : ea_write_file_atomic(done, "", 0, err);
}

static void reextracted(const occ_ref *r, const char *w, const char *corpus)
{
    char dir[4200], done[4200], path[4400], gp[512];
    ea_error err;
    occ_extraction(corpus, w, dir, sizeof dir);
    cr_assert_eq(occ_cached("extract-slices/done", make_extract_slices, dir, done, sizeof done, &err), 0, "%s: %s", w,
                 err.msg);
    snprintf(gp, sizeof gp, GOLDEN "/occurrences/%s.json", ea_audit_ops[r->op].short_name);
    cJSON *slice = slice_of(done, r, w);
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(slice, "error");
    cr_assert_null(error, "%s: %s", w, cJSON_GetStringValue(error));
    const cJSON *golden = cJSON_GetObjectItemCaseSensitive(slice, "golden");
    const cJSON *now = cJSON_GetObjectItemCaseSensitive(slice, "extracted");
    const cJSON *gocc = cJSON_GetObjectItemCaseSensitive(golden, "occurrence"), *part;
    cr_assert(gocc && !strcmp(text(gocc, "id"), r->id), "%s: not at that JSON path: regenerate the suite", w);
    cr_assert(now, "%s: not found when %s was extracted again", w, corpus);
    cJSON_ArrayForEach(part, cJSON_GetObjectItemCaseSensitive(golden, "signature")) {
        char what[128], jp[640];
        snprintf(what, sizeof what, "signature.%s", part->string);
        snprintf(jp, sizeof jp, "%s $.points[%d].signature.%s", gp, r->p, part->string);
        same_part(w, what, jp, part, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(now, "signature"),
                                                                       part->string));
    }
    snprintf(path, sizeof path, "%s $.points[%d].scopes[%d].scope", gp, r->p, r->s);
    same_part(w, "the scope", path, cJSON_GetObjectItemCaseSensitive(golden, "scope"),
              cJSON_GetObjectItemCaseSensitive(now, "scope"));
    snprintf(path, sizeof path, "%s $.points[%d].scopes[%d].occurrences[%d]", gp, r->p, r->s, r->o);
    same_part(w, "the occurrence's identity", path, gocc, cJSON_GetObjectItemCaseSensitive(now, "occurrence"));
    cJSON_Delete(slice);
}

static int slice_index(const cJSON *e)
{
    return e ? (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "index")) : -1;
}

void occ_classification(const occ_ref *r)
{
    char w[1024], file[4200], done[4200], path[8192];
    ea_error err;
    where(r, w, sizeof w);
    const char *dir = target()->dir;
    cr_assert_eq(occ_cached("classification.json", make_classification, NULL, file, sizeof file, &err), 0,
                 "%s: classifying %s/captures: %s", w, dir, err.msg);
    cr_assert_eq(occ_cached("class-slices/done", make_class_slices, file, done, sizeof done, &err), 0, "%s: %s", w,
                 err.msg);
    snprintf(path, sizeof path, "%s/classification.json", dir);
    cJSON *slice = slice_of(done, r, w);
    const cJSON *stored = cJSON_GetObjectItemCaseSensitive(slice, "stored");
    const cJSON *now = cJSON_GetObjectItemCaseSensitive(slice, "recomputed");
    int i = slice_index(stored);
    cr_assert(i >= 0, "%s: no entry in %s $.occurrences (extern-audit classify --update)", w, path);
    cr_assert(now, "%s: the classification recomputed from %s/captures has no entry", w, dir);
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(stored, "entry");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(now, "entry");
    cr_assert(!strcmp(text(es, "class"), text(en, "class")),
              "%s: %s $.occurrences[%d].class is %s, recomputed from %s/captures (%s): %s, because %s; the old "
              "rule's verdict: %s",
              w, path, i, text(es, "class"), dir, text(en, "capture"), text(en, "class"), text(en, "reason"),
              text(en, "old_rule"));
    cr_assert(strcmp(text(en, "class"), "unclassified"), "%s: unclassified: %s; the old rule's verdict: %s", w,
              text(en, "reason"), text(en, "old_rule"));
    if (!strcmp(text(en, "class"), "not_captured")) { /* stored and recomputed agree: GPU work still to do */
        char why[1024];
        snprintf(why, sizeof why, "%s", text(es, "reason"));
        cJSON_Delete(slice);
        cr_skip_test("%s", why);
    }
    const char *corpus = test_corpus();
    if (corpus)
        reextracted(r, w, corpus);
    cJSON_Delete(slice);
}

/* The run's one measurement (occurrence_cache.h), its file's name in file. */
static cJSON *measured(const char *w, char *file, size_t n)
{
    snprintf(file, n, "%s", occ_measured_file());
    return occ_measured_doc(w);
}

/* An op added to the audit set that no family measures yet (its points are listed unmeasured): said, not failed. */
static void skip_without_family(const occ_ref *r)
{
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++)
        if (!strcmp((*f)->op, ea_audit_ops[r->op].target))
            return;
    cr_skip_test("no repro family measures %s yet", ea_audit_ops[r->op].target);
}

void occ_correctness(const occ_ref *r)
{
    char w[1024], file[4200], model[64];
    where(r, w, sizeof w);
    skip_without_gpu(w, model, sizeof model);
    skip_without_family(r);
    cJSON *doc = measured(w, file, sizeof file);
    const cJSON *res;
    int i = 0, found = 0;
    cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        if (!strcmp(text(res, "point"), r->point)) {
            found++;
            cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "passed")),
                      "%s: %s $.scopes[%d] (%s %s) failed its checks: %s", w, file, i, text(res, "family"),
                      text(res, "alias"), text(res, "failure"));
        }
        i++;
    }
    cr_assert(found, "%s: %s holds no result for the point", w, file);
    cJSON_Delete(doc);
}

void occ_timing(const occ_ref *r)
{
    char w[1024], file[4200], base[8192], model[64];
    ea_error err;
    where(r, w, sizeof w);
    skip_without_gpu(w, model, sizeof model);
    if (strcmp(target()->gpu_model, model))
        cr_skip_test("no target for GPU model %s here (%s is for an %s)", model, target()->name, target()->gpu_model);
    snprintf(base, sizeof base, "%s/baselines.json", target()->dir);
    if (access(base, F_OK) != 0)
        cr_skip_test("no baseline for GPU model %s: %s absent", model, base);
    cJSON *stored = load(base, w), *ids = cJSON_CreateArray(), *x;
    cr_assert_eq(ea_baseline_validate(base, stored, &err), 0, "%s: %s", w, err.msg);
    int has = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(stored, "scopes"))
        has |= !strcmp(text(x, "point"), r->point);
    const char *why = ea_baseline_unmeasured_reason(stored, r->point);
    if (!has && why)
        cr_skip_test("%s lists point %s as unmeasured: %s", base, r->point, why);
    cr_assert(has, "%s: %s has no result for the point, and other points of this GPU model have one", w, base);
    cJSON *fresh = measured(w, file, sizeof file);
    cJSON_AddItemToArray(ids, cJSON_CreateString(r->point));
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *report = ea_gate_compare(base, stored, file, fresh, &rule, ids, &err);
    cr_assert_not_null(report, "%s: %s", w, err.msg);
    if (ea_gate_exit(report)) {
        char msg[4096];
        size_t k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
            if (ea_gate_entry_holds(e) && k < sizeof msg)
                k += (size_t)snprintf(msg + k, sizeof msg - k, "\n  %s %s %s: %s (%s)", text(e, "status"), text(e, "path"),
                                      text(e, "mode"), text(e, "detail"), text(e, "where"));
        char note[1024];
        occ_measure_note(note, sizeof note);
        cr_assert_fail("%s: timing drifted from %s:%s\n  device lock: %s", w, base, msg, note);
    }
    cJSON_Delete(report);
    cJSON_Delete(fresh);
    cJSON_Delete(stored);
    cJSON_Delete(ids);
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    /* inherited by every test, $EXTERN_AUDIT_TARGET would govern the fixture folders the tests build too (each
     * refused: "unknown target"): the tests of the variable set it themselves, the committed folder's helpers
     * read the moved value (test_inherited_target) */
    const char *target = getenv(EA_TARGET_ENV);
    if (target && !getenv(TEST_INHERITED_TARGET_ENV))
        setenv(TEST_INHERITED_TARGET_ENV, target, 1);
    unsetenv(EA_TARGET_ENV);
    occ_cache_prepare(set);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    occ_cache_finish();
}
