/* run_report.c: the plan table and the check-only document of `extern-audit run` (contract in
 * run_report.h). */
#include "measure/run_report.h"

#include "base/json.h"
#include "measure/prose.h"
#include "target/target_layout.h"

#include <string.h>

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A configuration's term as printed: an id's text (prose.h), else the term itself (a kernel's name). */
static const char *said(const char *s)
{
    return ea_note_text(s) ? ea_note_text(s) : s;
}

/* A grid or block: 128, or [8, 4] as "8x4". */
static void dims(const cJSON *d, FILE *f)
{
    const cJSON *e;
    const char *sep = "";
    if (cJSON_IsNumber(d)) {
        fprintf(f, "%d", d->valueint);
        return;
    }
    cJSON_ArrayForEach(e, d) {
        fprintf(f, "%s%d", sep, e->valueint);
        sep = "x";
    }
}

/* "kernel <<<grid, block>>>", a plain step's text, or a variant "row u2 <<<...>>>". */
static void launch(const cJSON *l, FILE *f)
{
    const cJSON *u = get(l, "unroll");
    if (cJSON_IsString(l)) {
        fputs(said(l->valuestring), f);
        return;
    }
    if (ej_str(l, "variant"))
        fprintf(f, "%s", ej_str(l, "variant"));
    if (ej_str(l, "variant") && cJSON_IsNumber(u))
        fprintf(f, " u%d", u->valueint);
    if (ej_str(l, "kernel"))
        fprintf(f, "%s%s", ej_str(l, "variant") ? ": " : "", ej_str(l, "kernel"));
    if (get(l, "grid") && get(l, "block")) {
        fputs(" <<<", f);
        dims(get(l, "grid"), f);
        fputs(", ", f);
        dims(get(l, "block"), f);
        fputs(">>>", f);
    }
}

static void launches(const char *label, const cJSON *arr, FILE *f)
{
    const cJSON *l;
    const char *sep = "";
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return;
    fprintf(f, "  %s: ", label);
    cJSON_ArrayForEach(l, arr) {
        fputs(sep, f);
        launch(l, f);
        sep = "; ";
    }
    fputc('\n', f);
}

/* The capture's default run, whose steps are the current path of a configuration that lists none. */
static void capture_launches(const char *label, const cJSON *cfg, const ea_captures *caps, FILE *f)
{
    char scope[256];
    const char *rel = ej_str(cfg, "capture");
    if (get(cfg, "current") || !rel || !ea_tf_capture_scope(rel, scope, sizeof scope))
        return;
    for (int i = 0; caps && i < caps->n; i++) {
        const ea_capture_run *run = strcmp(caps->items[i].scope, scope) ? NULL : ea_capture_run_named(&caps->items[i], "default");
        if (!run || !run->nsteps)
            continue;
        fprintf(f, "  %s: ", label);
        for (int k = 0; k < run->nsteps; k++)
            fprintf(f, "%s%s <<<%lldx%lld, %lld>>>", k ? "; " : "", run->steps[k].function, (long long)run->steps[k].grid[0],
                    (long long)run->steps[k].grid[1], (long long)run->steps[k].block[0]);
        fputc('\n', f);
    }
}

void ea_run_plan_print(const cJSON *plans, const ea_captures *caps, FILE *f)
{
    const cJSON *r, *n;
    cJSON_ArrayForEach(r, plans) {
        if (ej_str(r, "unsupported")) { /* refused by its family: nothing would run */
            fprintf(f, "%s %s (%s): UNSUPPORTED: %s\n", ej_str(r, "family"), ej_str(r, "alias"), ej_str(r, "point"),
                    ej_str(r, "unsupported"));
            continue;
        }
        const cJSON *cfg = get(r, "config"), *orc = get(cfg, "oracle");
        /* the part written, which the measured floor's copy writes (floor_path.h): routing's offsets are 128 bytes */
        double wr = ej_num(cfg, "floor_written_bytes");
        char written[48];
        snprintf(written, sizeof written, wr < 1e4 ? "%.0f bytes" : "%.3f MB", wr < 1e4 ? wr : wr / 1e6);
        fprintf(f, "%s %s (%s, %d occurrences): floor %.3f MB, %s of it written; ATen grids for %d multiprocessors\n",
                ej_str(r, "family"), ej_str(r, "alias"), ej_str(r, "point"),
                get(r, "occurrences") ? get(r, "occurrences")->valueint : 0, ej_num(cfg, "floor_bytes") / 1e6, written,
                get(r, "sm_count") ? get(r, "sm_count")->valueint : 0);
        /* what tells a point's configurations apart (routing's form and ids, cat's mode, cumsum's kind) */
        const char *form[] = {ej_str(cfg, "form"), ej_str(get(cfg, "distribution"), "generator"), ej_str(cfg, "mode"),
                              ej_str(cfg, "kind")};
        for (size_t i = 0; i < sizeof form / sizeof form[0]; i++)
            if (form[i])
                fprintf(f, "  %s\n", said(form[i]));
        const cJSON *co = get(cfg, "consumer"); /* a scope that ends in a scalar op of the op's output */
        if (co)
            fprintf(f, "  consumer: %s by %g through %d views, the scope's output %s\n", ej_str(co, "op"),
                    ej_num(co, "by"), get(co, "views") ? get(co, "views")->valueint : 0, ej_str(co, "output"));
        char label[64];
        snprintf(label, sizeof label, "current (%s)", ej_str(cfg, "current_source") ? ej_str(cfg, "current_source") : "?");
        launches(label, get(cfg, "current"), f);
        launches("current_tuned (where it differs)", get(cfg, "current_tuned"), f);
        capture_launches(label, cfg, caps, f);
        if (ej_str(orc, "kind") || ej_str(orc, "kernel"))
            fprintf(f, "  oracle: %s\n", said(ej_str(orc, "kind") ? ej_str(orc, "kind") : ej_str(orc, "kernel")));
        if (get(orc, "launch")) {
            fputs("  oracle launch: ", f);
            launch(get(orc, "launch"), f);
            fputc('\n', f);
        }
        launches("oracle launches", get(orc, "launches"), f);
        launches("oracle variants", get(orc, "variants"), f);
        cJSON_ArrayForEach(n, get(cfg, "notes")) /* note ids, rendered (prose.h) */
            if (cJSON_IsString(n))
                fprintf(f, "  note: %s\n", said(n->valuestring));
    }
}

cJSON *ea_run_check_doc(cJSON *results, const char *command, const char *gpu)
{
    cJSON *d = cJSON_CreateObject(), *t;
    const cJSON *r, *p;
    int paths = 0, failed = 0, kernels = 0, without = 0, passed = 1;
    cJSON_ArrayForEach(r, results) {
        passed &= cJSON_IsTrue(get(r, "passed"));
        cJSON_ArrayForEach(p, get(r, "paths")) {
            int k = cJSON_GetArraySize(get(p, "kernels"));
            paths++;
            failed += !cJSON_IsTrue(get(p, "passed"));
            kernels += k;
            without += k == 0;
        }
    }
    cJSON_AddStringToObject(d, "command", command);
    cJSON_AddStringToObject(d, "gpu", gpu);
    cJSON_AddBoolToObject(d, "check_only", 1);
    cJSON_AddItemToObject(d, "results", results);
    t = cJSON_AddObjectToObject(d, "totals");
    cJSON_AddNumberToObject(t, "results", cJSON_GetArraySize(results));
    cJSON_AddNumberToObject(t, "paths", paths);
    cJSON_AddNumberToObject(t, "failed_paths", failed);
    cJSON_AddNumberToObject(t, "kernels", kernels);
    cJSON_AddNumberToObject(t, "paths_without_kernels", without);
    cJSON_AddBoolToObject(d, "passed", passed);
    return d;
}

static int total(const cJSON *doc, const char *key)
{
    const cJSON *v = get(get(doc, "totals"), key);
    return cJSON_IsNumber(v) ? v->valueint : 0;
}

void ea_run_check_print(const cJSON *doc, FILE *f)
{
    const cJSON *r, *p;
    fprintf(f, "check only (%s): every path once on its inputs, checked, not timed\n", ej_str(doc, "gpu"));
    cJSON_ArrayForEach(r, get(doc, "results")) {
        if (ej_str(r, "unsupported")) {
            fprintf(f, "%s %s (%s): UNSUPPORTED: %s\n", ej_str(r, "family"), ej_str(r, "alias"), ej_str(r, "point"),
                    ej_str(r, "unsupported"));
            continue;
        }
        fprintf(f, "%s %s (%s): %s\n", ej_str(r, "family"), ej_str(r, "alias"), ej_str(r, "point"),
                cJSON_IsTrue(get(r, "passed")) ? "passed" : "FAILED");
        cJSON_ArrayForEach(p, get(r, "paths")) {
            int k = cJSON_GetArraySize(get(p, "kernels"));
            const char *note = k == 0 ? ej_str(p, "kernels_note") : NULL;
            fprintf(f, "  %-16s %-10s %3d kernels", ej_str(p, "name"), ej_str(p, "mode"), k);
            if (note)
                fprintf(f, " (%s)", note);
            if (!cJSON_IsTrue(get(p, "passed")))
                fprintf(f, ", FAILED: %s", ej_str(p, "failure") ? ej_str(p, "failure") : "no verdict");
            fputc('\n', f);
        }
    }
    fprintf(f, "%d results, %d paths, %d failed; %d kernels in the checked calls (%d paths without a CUPTI list)\n",
            total(doc, "results"), total(doc, "paths"), total(doc, "failed_paths"), total(doc, "kernels"),
            total(doc, "paths_without_kernels"));
}
