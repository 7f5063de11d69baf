/* golden_diff.c: two targets compared occurrence by occurrence, capture by capture and path by path
 * (contract in golden_diff.h). Timings go through the gate (gate.c, drift.c): one rule, one code path. */
#include "golden/golden_diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "base/json.h"
#include "target/target_layout.h"

const char *const ea_golden_diff_kinds[] = {"class", "point_added", "point_removed", "partition", "boundary", "timing", NULL};

typedef struct {
    const char *id, *op, *point, *scope;
    char model[256];       /* suite/mode/model: the id without its graph:node */
    char capture[2][160];   /* scope of the capture covering it in old / new (classification "capture") */
} occ;

typedef struct {
    const ea_golden_target *t[2];
    occ *occs;
    int nocc, capocc;
    cJSON *changes, *points[2];
    int not_staged_occ, not_staged_points;
} differ;

static occ *find_occ(differ *d, const char *id)
{
    for (int i = 0; i < d->nocc; i++)
        if (!strcmp(d->occs[i].id, id))
            return &d->occs[i];
    return NULL;
}

static occ *add_occ(differ *d, const char *id, const char *op, const char *point, const char *scope)
{
    occ *o = find_occ(d, id);
    if (o)
        return o;
    if (d->nocc == d->capocc) {
        d->capocc = d->capocc ? 2 * d->capocc : 256;
        occ *bigger = realloc(d->occs, sizeof *bigger * (size_t)d->capocc);
        if (!bigger)
            abort();
        d->occs = bigger;
    }
    o = &d->occs[d->nocc++];
    *o = (occ){.id = id, .op = op, .point = point, .scope = scope};
    const char *slash = strrchr(id, '/');
    snprintf(o->model, sizeof o->model, "%.*s", slash ? (int)(slash - id) : 0, id);
    return o;
}


static const cJSON *class_entry(const ea_golden_target *t, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t->classification.root, "occurrences"))
        if (!strcmp(ej_text(e, "id"), id))
            return e;
    return NULL;
}

static const ea_capture *capture_named(const ea_golden_target *t, const char *scope)
{
    for (int i = 0; i < t->caps.n; i++)
        if (!strcmp(t->caps.items[i].scope, scope))
            return &t->caps.items[i];
    return NULL;
}

static int in_stage(const differ *d, const char *scope)
{
    return scope && *scope && ea_target_staged(&d->t[0]->info, scope) && ea_target_staged(&d->t[1]->info, scope);
}

static int occ_staged(const differ *d, const occ *o)
{
    return in_stage(d, o->scope) || in_stage(d, o->capture[0]) || in_stage(d, o->capture[1]);
}

/* The occurrences of the shared golden documents, then any other either classification lists. */
static void index_occurrences(differ *d, cJSON *const docs[EA_AUDIT_OPS])
{
    const cJSON *p, *g, *o, *e;
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[i], "points"))
            cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
                cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences"))
                    add_occ(d, ej_text(o, "id"), ea_audit_ops[i].target, ej_text(p, "point"), ej_text(g, "scope_id"));
    for (int s = 0; s < 2; s++)
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d->t[s]->classification.root, "occurrences"))
        {
            occ *x = add_occ(d, ej_text(e, "id"), ej_text(e, "op"), ej_text(e, "point"), ej_text(e, "scope"));
            ea_tf_capture_scope(ej_str(e, "capture"), x->capture[s], sizeof x->capture[s]);
        }
}

/* The audit op a point or scope id names by its prefix ("index_add-..." -> aten.index_add.default). */
static const char *op_of(const char *id)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        size_t n = strlen(ea_audit_ops[i].short_name);
        if (!strncmp(id, ea_audit_ops[i].short_name, n) && id[n] == '-')
            return ea_audit_ops[i].target;
    }
    return "(unknown op)";
}

static void add_model(cJSON *models, const char *model)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, models)
        if (!strcmp(m->valuestring, model))
            return;
    cJSON_AddItemToArray(models, cJSON_CreateString(model));
}

static int by_string(const cJSON *a, const cJSON *b)
{
    return strcmp(a->valuestring, b->valuestring);
}

/* A change with the fields every kind has; models from the occurrences of point (or scope, or id). */
static cJSON *add_change(differ *d, const char *kind, const char *op, const char *point, const char *scope,
                         const char *id, const char *detail)
{
    cJSON *c = cJSON_CreateObject(), *models = cJSON_CreateArray();
    cJSON_AddStringToObject(c, "kind", kind);
    cJSON_AddStringToObject(c, "op", op);
    cJSON_AddStringToObject(c, "point", point);
    cJSON_AddItemToObject(c, "scope", scope ? cJSON_CreateString(scope) : cJSON_CreateNull());
    for (int i = 0; i < d->nocc; i++) {
        const occ *o = &d->occs[i];
        if (id ? !strcmp(o->id, id)
               : scope ? !strcmp(o->scope, scope) || !strcmp(o->capture[0], scope) || !strcmp(o->capture[1], scope)
                       : !strcmp(o->point, point))
            add_model(models, o->model);
    }
    ej_sort(models, by_string);
    cJSON_AddItemToObject(c, "models", models);
    cJSON_AddStringToObject(c, "detail", detail);
    cJSON_AddItemToArray(d->changes, c);
    return c;
}

static void diff_classes(differ *d)
{
    for (int i = 0; i < d->nocc; i++) {
        const occ *o = &d->occs[i];
        const cJSON *a = class_entry(d->t[0], o->id), *b = class_entry(d->t[1], o->id);
        if (!occ_staged(d, o)) {
            d->not_staged_occ++;
            continue;
        }
        if (!a || !b || !strcmp(ej_text(a, "class"), ej_text(b, "class")))
            continue; /* an occurrence on one side only is its point's addition or removal */
        int fa = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "false_extern"));
        int fb = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "false_extern"));
        const char *rule = ej_str(b, "old_rule") ? ej_str(b, "old_rule") : "fusible";
        char detail[512];
        snprintf(detail, sizeof detail, "%s -> %s (old rule: %s; false extern: %s -> %s)", ej_text(a, "class"),
                 ej_text(b, "class"), rule, fa ? "yes" : "no", fb ? "yes" : "no");
        cJSON *c = add_change(d, "class", o->op, o->point, o->scope, o->id, detail);
        cJSON_AddStringToObject(c, "id", o->id);
        cJSON_AddStringToObject(c, "from", ej_text(a, "class"));
        cJSON_AddStringToObject(c, "to", ej_text(b, "class"));
        cJSON_AddItemToObject(c, "old_rule", ej_str(b, "old_rule") ? cJSON_CreateString(rule) : cJSON_CreateNull());
        cJSON_AddItemToObject(c, "false_extern", cJSON_CreateIntArray((const int[]){fa, fb}, 2));
    }
}

/* Point sets are objects keyed by point id. */
static int listed(const cJSON *set, const char *point)
{
    return cJSON_GetObjectItemCaseSensitive(set, point) != NULL;
}

static void add_point(cJSON *set, const char *point)
{
    if (*point && !listed(set, point))
        cJSON_AddTrueToObject(set, point);
}

/* A target's points: its classification's and its baselines' (measured or listed unmeasured). */
static cJSON *points_of(const ea_golden_target *t)
{
    cJSON *points = cJSON_CreateObject();
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t->classification.root, "occurrences"))
        add_point(points, ej_text(x, "point"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t->baselines.root, "scopes"))
        add_point(points, ej_text(x, "point"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t->baselines.root, "unmeasured"))
        add_point(points, ej_text(x, "point"));
    return points;
}

/* A point is in the stage when one of its occurrences is (or when neither side is partial). */
static int point_staged(const differ *d, const char *point)
{
    if (!d->t[0]->info.scopes && !d->t[1]->info.scopes)
        return 1;
    for (int i = 0; i < d->nocc; i++)
        if (!strcmp(d->occs[i].point, point) && occ_staged(d, &d->occs[i]))
            return 1;
    return 0;
}

static void diff_points(differ *d)
{
    const cJSON *p;
    for (int s = 0; s < 2; s++)
        cJSON_ArrayForEach(p, d->points[s])
        {
            if (listed(d->points[!s], p->string))
                continue;
            if (s == 0 && !point_staged(d, p->string)) {
                d->not_staged_points++;
                continue;
            }
            add_change(d, s ? "point_added" : "point_removed", op_of(p->string), p->string, NULL, NULL,
                       s ? "in the new target only" : "in the old target only");
        }
}

/* Appends printf output to buf (n bytes), truncating. */
static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t k = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (k < n)
        vsnprintf(buf + k, n - k, fmt, ap);
    va_end(ap);
}

/* The run's device work in order: Triton kernels by name, ATen calls by call. */
static void step_list(const ea_capture_run *r, char *buf, size_t n)
{
    *buf = '\0';
    for (int i = 0; i < r->nsteps; i++)
        append(buf, n, "%s%s", i ? ", " : "", r->steps[i].triton ? r->steps[i].kernel : r->steps[i].call);
}

static void dims_change(char *out, size_t n, const char *what, const int64_t *x, const int64_t *y)
{
    if (memcmp(x, y, 3 * sizeof *x))
        append(out, n, ", %s [%lld, %lld, %lld] -> [%lld, %lld, %lld]", what, (long long)x[0], (long long)x[1],
               (long long)x[2], (long long)y[0], (long long)y[1], (long long)y[2]);
}

/* The launch shapes that differ between two runs with the same steps: "; <config> <kernel>: grid ..., ...". */
static void launch_changes(const ea_capture_run *a, const ea_capture_run *b, char *out, size_t n)
{
    for (int i = 0; i < a->nsteps; i++) {
        const ea_capture_step *x = &a->steps[i], *y = &b->steps[i];
        char what[1024] = "";
        if (!x->triton)
            continue;
        dims_change(what, sizeof what, "grid", x->grid, y->grid);
        dims_change(what, sizeof what, "block", x->block, y->block);
        if (x->num_warps != y->num_warps)
            append(what, sizeof what, ", warps %lld -> %lld", (long long)x->num_warps, (long long)y->num_warps);
        if (x->shared != y->shared)
            append(what, sizeof what, ", shared %lld -> %lld", (long long)x->shared, (long long)y->shared);
        if (*what)
            append(out, n, "; %s %s: %s", a->config, x->kernel, what + 2);
    }
}

/* What differs between the runs of two captures of one scope ("" when nothing). */
static void partition_changes(const ea_capture *a, const ea_capture *b, char *out, size_t n)
{
    char la[2048], lb[2048];
    *out = '\0';
    for (int i = 0; i < a->nruns; i++) {
        const ea_capture_run *ra = &a->runs[i], *rb = ea_capture_run_named(b, ra->config);
        if (!rb) {
            append(out, n, "; run %s only in the old capture", ra->config);
            continue;
        }
        step_list(ra, la, sizeof la);
        step_list(rb, lb, sizeof lb);
        if (strcmp(la, lb))
            append(out, n, "; %s: kernels [%s] -> [%s]", ra->config, la, lb);
        else
            launch_changes(ra, rb, out, n);
    }
    for (int i = 0; i < b->nruns; i++)
        if (!ea_capture_run_named(a, b->runs[i].config))
            append(out, n, "; run %s only in the new capture", b->runs[i].config);
}

static void tensors_text(const ea_capture_tensor *v, int n, char *out, size_t cap)
{
    *out = '\0';
    for (int i = 0; i < n; i++) {
        char t[512];
        ea_tensor_format(&v[i].t, t, sizeof t);
        append(out, cap, "%s%s %s", i ? ", " : "", v[i].name, t);
    }
}

static int among(const char *const *v, int n, const char *s)
{
    while (n-- > 0)
        if (!strcmp(v[n], s))
            return 1;
    return 0;
}

static void covers_changes(const ea_capture *a, const ea_capture *b, char *out, size_t n)
{
    for (int i = 0; i < a->ncovers; i++)
        if (!among(b->covers, b->ncovers, a->covers[i]))
            append(out, n, "; no longer covers %s", a->covers[i]);
    for (int j = 0; j < b->ncovers; j++)
        if (!among(a->covers, a->ncovers, b->covers[j]))
            append(out, n, "; now covers %s", b->covers[j]);
}

/* Covered occurrences, inputs and outputs: where the partition starts and ends. */
static void boundary_changes(const ea_capture *a, const ea_capture *b, char *out, size_t n)
{
    char ta[2048], tb[2048];
    *out = '\0';
    covers_changes(a, b, out, n);
    const struct {
        const char *what;
        const ea_capture_tensor *x, *y;
        int nx, ny;
    } sides[] = {{"inputs", a->inputs, b->inputs, a->ninputs, b->ninputs},
                 {"outputs", a->outputs, b->outputs, a->noutputs, b->noutputs}};
    for (int s = 0; s < 2; s++) {
        tensors_text(sides[s].x, sides[s].nx, ta, sizeof ta);
        tensors_text(sides[s].y, sides[s].ny, tb, sizeof tb);
        if (strcmp(ta, tb))
            append(out, n, "; %s [%s] -> [%s]", sides[s].what, ta, tb);
    }
}

static void scope_change(differ *d, const char *kind, const char *scope, const char *detail)
{
    char point[160];
    const char *dash = strrchr(scope, '-');
    snprintf(point, sizeof point, "%.*s", dash ? (int)(dash - scope) : (int)strlen(scope), scope);
    add_change(d, kind, op_of(scope), point, scope, NULL, detail);
}

static void diff_captures(differ *d)
{
    char detail[8192];
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < d->t[s]->caps.n; i++) {
            const ea_capture *c = &d->t[s]->caps.items[i], *other = capture_named(d->t[!s], c->scope);
            if (!in_stage(d, c->scope))
                continue;
            if (!other) {
                scope_change(d, "partition", c->scope, s ? "captured in the new target only" : "captured in the old target only");
                continue;
            }
            if (s)
                continue; /* a pair is compared once */
            partition_changes(c, other, detail, sizeof detail);
            if (*detail)
                scope_change(d, "partition", c->scope, detail + 2);
            boundary_changes(c, other, detail, sizeof detail);
            if (*detail)
                scope_change(d, "boundary", c->scope, detail + 2);
        }
}

/* The staged points (NULL when neither side is partial): the gate compares only those. */
static cJSON *staged_points(const differ *d)
{
    if (!d->t[0]->info.scopes && !d->t[1]->info.scopes)
        return NULL;
    cJSON *ids = cJSON_CreateArray(), *seen = cJSON_CreateObject();
    const cJSON *p;
    for (int s = 0; s < 2; s++)
        cJSON_ArrayForEach(p, d->points[s])
            if (!listed(seen, p->string) && point_staged(d, p->string)) {
                add_point(seen, p->string);
                cJSON_AddItemToArray(ids, cJSON_CreateString(p->string));
            }
    cJSON_Delete(seen);
    return ids;
}

static void diff_timings(differ *d, const ea_drift_rule *rule, cJSON *report)
{
    char fa[4200], fb[4200];
    ea_error err;
    ea_tf_path(d->t[0]->dir, EA_TF_BASELINES, fa, sizeof fa);
    ea_tf_path(d->t[1]->dir, EA_TF_BASELINES, fb, sizeof fb);
    cJSON *ids = staged_points(d);
    cJSON *gate = ea_gate_compare(fa, d->t[0]->baselines.root, fb, d->t[1]->baselines.root, rule, ids, &err);
    cJSON_Delete(ids);
    if (!gate) {
        cJSON_AddStringToObject(report, "timings_note", err.msg);
        return;
    }
    cJSON_AddItemToObject(report, "rule", cJSON_DetachItemFromObjectCaseSensitive(gate, "rule"));
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(gate, "entries"))
    {
        const char *status = ej_text(e, "status"), *point = ej_text(e, "point");
        int whole = !*ej_text(e, "path"); /* a result, not a path */
        if (!strcmp(status, "SAME") || !strcmp(status, "CLASS") || !strcmp(status, "CONFIG") ||
            (whole && (!strcmp(status, "ADDED") || !strcmp(status, "MISSING")) &&
             listed(d->points[0], point) != listed(d->points[1], point)))
            continue; /* classes are the class changes; a plan follows the partition it replays (the partition
                       * changes); a point on one side only is its addition or removal */
        /* the gate's advice on a FASTER path (propose new baselines) is what accept does here */
        const char *why = ej_text(e, "detail"), *advice = strstr(why, "; a stale golden");
        int len = advice ? (int)(advice - why) : (int)strlen(why);
        char detail[1400];
        if (whole)
            snprintf(detail, sizeof detail, "%s %s: %.*s", status, ej_text(e, "alias"), len, why);
        else
            snprintf(detail, sizeof detail, "%s %s %s %s: %.*s", status, ej_text(e, "alias"), ej_text(e, "path"),
                     ej_text(e, "mode"), len, why);
        cJSON *c = add_change(d, "timing", op_of(point), point, NULL, NULL, detail);
        const char *const keep[] = {"status", "family", "alias", "result", "path", "mode", "where",
                                    "stored_us", "new_us", "change", "tolerance", "margin", "noisy"};
        for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
            if (cJSON_HasObjectItem(e, keep[k]))
                cJSON_AddItemToObject(c, keep[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, keep[k]), 1));
    }
    cJSON_Delete(gate);
}

static int kind_rank(const char *kind)
{
    int i = 0;
    while (ea_golden_diff_kinds[i] && strcmp(ea_golden_diff_kinds[i], kind))
        i++;
    return i;
}

static int by_change(const cJSON *a, const cJSON *b)
{
    int c = kind_rank(ej_text(a, "kind")) - kind_rank(ej_text(b, "kind"));
    const char *const keys[] = {"op", "point", "scope", "id", "detail"};
    for (size_t k = 0; !c && k < sizeof keys / sizeof keys[0]; k++)
        c = strcmp(ej_text(a, keys[k]), ej_text(b, keys[k]));
    return c;
}

/* One more change of kind in the row of table whose key is name (a row of zero counts made on first use). */
static void tally(cJSON *table, const char *key, const char *name, const char *kind)
{
    cJSON *r = table->child;
    while (r && strcmp(ej_text(r, key), name))
        r = r->next;
    if (!r) {
        cJSON_AddItemToArray(table, r = cJSON_CreateObject());
        cJSON_AddStringToObject(r, key, name);
        for (int k = 0; ea_golden_diff_kinds[k]; k++)
            cJSON_AddNumberToObject(r, ea_golden_diff_kinds[k], 0);
    }
    cJSON *n = cJSON_GetObjectItemCaseSensitive(r, kind);
    cJSON_SetNumberValue(n, n->valuedouble + 1);
}

static int by_op(const cJSON *a, const cJSON *b)
{
    return strcmp(ej_text(a, "op"), ej_text(b, "op"));
}

static int by_model(const cJSON *a, const cJSON *b)
{
    return strcmp(ej_text(a, "model"), ej_text(b, "model"));
}

static cJSON *summary(const differ *d)
{
    cJSON *s = cJSON_CreateObject(), *ops = cJSON_AddArrayToObject(s, "by_op"),
          *models = cJSON_AddArrayToObject(s, "by_model");
    const cJSON *c, *m;
    cJSON_ArrayForEach(c, d->changes)
    {
        tally(ops, "op", ej_text(c, "op"), ej_text(c, "kind"));
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(c, "models"))
            tally(models, "model", m->valuestring, ej_text(c, "kind"));
    }
    ej_sort(ops, by_op);
    ej_sort(models, by_model);
    cJSON *ns = cJSON_AddObjectToObject(s, "not_staged");
    cJSON_AddNumberToObject(ns, "occurrences", d->not_staged_occ);
    cJSON_AddNumberToObject(ns, "points", d->not_staged_points);
    cJSON_AddNumberToObject(s, "changes", cJSON_GetArraySize(d->changes));
    return s;
}

static cJSON *side(const ea_golden_target *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dir", t->dir);
    cJSON_AddStringToObject(o, "name", t->info.target.name);
    cJSON_AddStringToObject(o, "gpu_model", t->info.target.gpu_model);
    cJSON_AddStringToObject(o, "torch", t->info.target.torch);
    cJSON_AddItemToObject(o, "lowering", t->info.lowering ? cJSON_CreateString(t->info.lowering) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "scopes", t->info.scopes ? cJSON_Duplicate(t->info.scopes, 1) : cJSON_CreateNull());
    return o;
}

cJSON *ea_golden_diff(cJSON *const docs[EA_AUDIT_OPS], const ea_golden_target *old, const ea_golden_target *fresh,
                      const ea_drift_rule *rule)
{
    differ d = {.t = {old, fresh}, .changes = cJSON_CreateArray()};
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "schema", EA_GOLDEN_DIFF_SCHEMA);
    cJSON_AddNumberToObject(report, "schema_version", EA_GOLDEN_DIFF_VERSION);
    cJSON_AddItemToObject(report, "old", side(old));
    cJSON_AddItemToObject(report, "new", side(fresh));
    index_occurrences(&d, docs);
    d.points[0] = points_of(old);
    d.points[1] = points_of(fresh);
    diff_classes(&d);
    diff_points(&d);
    diff_captures(&d);
    diff_timings(&d, rule, report);
    ej_sort(d.changes, by_change);
    cJSON_AddItemToObject(report, "summary", summary(&d));
    cJSON_AddItemToObject(report, "changes", d.changes);
    cJSON_Delete(d.points[0]);
    cJSON_Delete(d.points[1]);
    free(d.occs);
    return report;
}

int ea_golden_diff_exit(const cJSON *report)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "changes"))
        if (!strcmp(ej_text(c, "status"), "INVALID"))
            return 2;
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "changes")) ? 1 : 0;
}
