#include "target/classify.h"
#include "target/classify_impl.h"

#include "base/readfile.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "target/target_layout.h"
#include "target/target.h"

const char *const ea_class_names[EA_CLASSES + 1] = {
    "lowered", "conditional_lowered", "conditional_fallback", "true_fallback", "library_extern", "unclassified",
    "not_captured", "no_device_work", NULL};

#define REASON_LEN 2048
#define FINDING_NOTE "ATen fallback inside an audited scope, outside the audit set"

/* One golden occurrence; strings point into the occurrence documents. */
typedef struct {
    const char *id, *op, *point, *scope;
    const char *dtype; /* the first tensor argument's, naming the default side of a conditional class */
    int list_inputs;   /* tensors in args[0]: what the old rule counts for cat */
    int op_index;      /* in ea_audit_ops */
    const ea_capture *capture;
} occ;

typedef struct {
    occ *v;
    int n;
} occ_list;

/* ---- the golden occurrences, flattened ---- */

static int is_tensor(const cJSON *t)
{
    return cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "dtype")) &&
           (cJSON_GetObjectItemCaseSensitive(t, "sizes") || cJSON_GetObjectItemCaseSensitive(t, "symbolic"));
}

static void describe_args(const cJSON *args, occ *o)
{
    const cJSON *a, *t;
    cJSON_ArrayForEach(a, args) {
        t = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, 0) : a;
        if (!o->dtype && is_tensor(t))
            o->dtype = cJSON_GetObjectItemCaseSensitive(t, "dtype")->valuestring;
    }
    const cJSON *list = cJSON_GetArrayItem(args, 0);
    if (cJSON_IsArray(list))
        cJSON_ArrayForEach(t, list)
            o->list_inputs += is_tensor(t);
}

static const char *field_str(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key)->valuestring;
}

static int by_op_then_id(const void *a, const void *b)
{
    const occ *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    return c ? c : strcmp(x->id, y->id);
}

static int collect(cJSON *const docs[EA_AUDIT_OPS], occ_list *l, ea_error *err)
{
    int cap = 0;
    const cJSON *p, *sc, *o;
    l->v = NULL;
    l->n = 0;
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cap += cJSON_GetObjectItemCaseSensitive(docs[i], "occurrences")->valueint;
    if (!(l->v = calloc((size_t)(cap ? cap : 1), sizeof *l->v)))
        return ea_fail(err, "classify: out of memory");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(docs[i], "points"))
            cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
                cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(sc, "occurrences")) {
                    if (l->n == cap) /* the validator keeps counts equal to the listed occurrences */
                        return ea_fail(err, "classify: occurrence counts disagree with the listed occurrences");
                    occ *x = &l->v[l->n++];
                    x->id = field_str(o, "id");
                    x->op = ea_audit_ops[i].target;
                    x->op_index = i;
                    x->point = field_str(p, "point");
                    x->scope = field_str(sc, "scope_id");
                    describe_args(
                        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "signature"), "args"), x);
                }
    qsort(l->v, (size_t)l->n, sizeof *l->v, by_op_then_id);
    return 0;
}

static occ *find(const occ_list *l, const char *id)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].id, id))
            return &l->v[i];
    return NULL;
}

/* Each covered id must be a golden occurrence covered by no other capture. A capture may cover
 * occurrences of other scope groups and other ops: tools/capture compiles identical subgraphs once. */
static int attach(occ_list *l, const ea_captures *caps, ea_error *err)
{
    for (int ci = 0; ci < caps->n; ci++) {
        const ea_capture *c = &caps->items[ci];
        for (int k = 0; k < c->ncovers; k++) {
            occ *o = find(l, c->covers[k]);
            if (!o)
                return ea_fail(err, "%s $.covers[%d]: expected an id of the golden occurrences, got \"%s\"", c->file, k,
                               c->covers[k]);
            if (o->capture)
                return ea_fail(err,
                               "%s $.covers[%d]: expected each occurrence covered once, got \"%s\", also covered by %s",
                               c->file, k, o->id, o->capture->file);
            o->capture = c;
        }
    }
    return 0;
}

/* Classes and timings are only comparable within one torch build on one GPU. */
static int same_environment(const ea_captures *caps, ea_error *err)
{
    for (int i = 1; i < caps->n; i++) {
        const cJSON *a = caps->items[0].environment, *b = caps->items[i].environment, *x;
        cJSON_ArrayForEach(x, a) {
            const char *other = field_str(b, x->string);
            if (strcmp(x->valuestring, other))
                return ea_fail(
                    err,
                    "%s $.environment.%s: expected \"%s\" as in %s (one environment for every capture), got \"%s\"",
                    caps->items[i].file, x->string, x->valuestring, caps->items[0].file, other);
        }
    }
    return 0;
}

/* ---- one run's verdict ---- */

static void addf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, REASON_LEN - len, fmt, ap);
    va_end(ap);
}

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

static int has_call(const ea_capture_run *r, const char *call)
{
    for (int i = 0; i < r->ev.naten_calls; i++)
        if (!strcmp(r->ev.aten_calls[i], call))
            return 1;
    return 0;
}

static int64_t launches(const ea_capture_run *r)
{
    int64_t n = 0;
    for (int k = 0; k < EA_LAUNCH_KINDS; k++)
        n += r->ev.launches[k];
    return n;
}

/* " (poi: 2, per: 1)": the launch kinds that occur. */
static void add_kinds(char *buf, const ea_capture_run *r)
{
    const char *sep = " (";
    for (int k = 0; k < EA_LAUNCH_KINDS; k++)
        if (r->ev.launches[k]) {
            addf(buf, "%s%s: %" PRId64, sep, ea_launch_kinds[k], r->ev.launches[k]);
            sep = ", ";
        }
    addf(buf, ")");
}

/* The marker that shows Inductor lowered the op itself, most specific first. */
static void add_lowered(char *buf, const ea_capture_run *r, const char *op)
{
    const ea_capture_evidence *e = &r->ev;
    int64_t n = launches(r);
    if (n == 0) {
        addf(buf, "no kernel of its own: all inputs aliased");
    } else if (!strcmp(op, "aten.cat.default") && e->alias_slices > 0) {
        /* producers write into alias slices of the cat buffer; the launches are the scope's copies
         * and its fused consumer, not a cat kernel */
        addf(buf, "no aten call; ConcatKernel: %" PRId64 " alias slice%s, %" PRId64 " Triton kernel%s in the scope",
             e->alias_slices, plural(e->alias_slices), n, plural(n));
        add_kinds(buf, r);
    } else if (e->scan_kernels > 0) {
        addf(buf, "tl.associative_scan in %" PRId64 " Triton kernel%s", e->scan_kernels, plural(e->scan_kernels));
        add_kinds(buf, r);
    } else if (e->atomic_kernels > 0) {
        addf(buf, "tl.atomic_add in %" PRId64 " Triton kernel%s", e->atomic_kernels, plural(e->atomic_kernels));
        add_kinds(buf, r);
    } else {
        addf(buf, "%" PRId64 " Triton launch%s", n, n == 1 ? "" : "es");
        add_kinds(buf, r);
    }
}

/* "; probe f32: lowered (2 atomic_add kernels, no aten call)" */
static void add_probe(char *buf, const ea_capture_run *p, const char *call)
{
    int64_t n = launches(p);
    addf(buf, "; probe %s: ", p->probe_dtype);
    if (has_call(p, call))
        addf(buf, "aten fallback call %s", call);
    else if (p->ev.atomic_kernels)
        addf(buf, "lowered (%" PRId64 " atomic_add kernel%s, no aten call)", p->ev.atomic_kernels,
             plural(p->ev.atomic_kernels));
    else if (p->ev.scan_kernels)
        addf(buf, "lowered (%" PRId64 " associative_scan kernel%s, no aten call)", p->ev.scan_kernels,
             plural(p->ev.scan_kernels));
    else
        addf(buf, "lowered (%" PRId64 " Triton launch%s, no aten call)", n, n == 1 ? "" : "es");
}

/* The second column of the row of table (n rows of {op, text}) whose op is op, or NULL. */
static const char *text_of(const char *const (*table)[2], size_t n, const char *op)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(op, table[i][0]))
            return table[i][1];
    return NULL;
}

/* Ops whose ATen CUDA kernel is a vendor library's: a fallback to one is a correct extern, as mm is. */
static const char *library_of(const char *op)
{
    static const char *const libraries[][2] = {{"aten._fft_c2c.default", "cuFFT"}};
    return text_of(libraries, sizeof libraries / sizeof libraries[0], op);
}

/* Ops that do no device work whatever Inductor makes of them, so their class needs no capture: views of a
 * tensor's bytes and host arithmetic on SymInts (docs/evidence/newops.md reads each from the graphs). An
 * extern count of them is a count of nothing to price. */
static const char *no_device_work(const char *op)
{
    static const char *const ops[][2] = {
        {"aten.view_as_real.default", "a view of a complex tensor's bytes as (real, imaginary) pairs: no bytes move"},
        {"aten.view_as_complex.default", "a view of (real, imaginary) pairs as a complex tensor: no bytes move"},
        {"_operator.mul", "host arithmetic on SymInts (a product of sizes for a reshape): no tensor, no kernel"},
    };
    return text_of(ops, sizeof ops / sizeof ops[0], op);
}

/* The class base (default or coordinate_descent) gives o, with the capture's probe runs deciding
 * whether the behaviour is conditional on the dtype. */
static ea_class decide(const ea_capture_run *base, const occ *o, const char *old, char *reason)
{
    const ea_capture *c = o->capture;
    char call[256], probes[REASON_LEN] = "";
    int fb, flipped = 0;
    ea_class cls;
    snprintf(call, sizeof call, "torch.ops.%s", o->op);
    fb = has_call(base, call);
    for (int i = 0; i < c->nruns; i++)
        if (c->runs[i].probe_dtype) {
            flipped |= has_call(&c->runs[i], call) != fb;
            add_probe(probes, &c->runs[i], call);
        }
    reason[0] = '\0';
    if (flipped)
        addf(reason, "%s: ", o->dtype ? o->dtype : base->config);
    if (fb && !flipped && library_of(o->op)) {
        cls = EA_CLASS_LIBRARY_EXTERN;
        addf(reason, "aten fallback call %s: a %s call (Inductor has no lowering; nothing for it to replace)", call,
             library_of(o->op));
    } else if (fb) {
        cls = flipped ? EA_CLASS_CONDITIONAL_FALLBACK : EA_CLASS_TRUE_FALLBACK;
        addf(reason, "aten fallback call %s", call);
    } else if (old && !strcmp(old, "flop_counted") && base->ev.nextern_kernels) {
        cls = EA_CLASS_LIBRARY_EXTERN;
        for (int i = 0; i < base->ev.nextern_kernels; i++)
            addf(reason, "%s%s", i ? ", " : "extern kernel call ", base->ev.extern_kernels[i]);
    } else {
        cls = flipped ? EA_CLASS_CONDITIONAL_LOWERED : EA_CLASS_LOWERED;
        add_lowered(reason, base, o->op);
    }
    addf(reason, "%s", probes);
    return cls;
}

/* ---- the document ---- */

static cJSON *str_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* Whether captures cover some occurrence of each op, and of any op. */
static void ops_captured(const occ_list *l, int captured[EA_AUDIT_OPS], int *any)
{
    memset(captured, 0, sizeof(int) * EA_AUDIT_OPS);
    *any = 0;
    for (int i = 0; i < l->n; i++)
        if (l->v[i].capture)
            captured[l->v[i].op_index] = *any = 1;
}

/* op_captured: some occurrence of o's op has a capture; any_captured: some occurrence of any op has. */
static cJSON *entry(const occ *o, const ea_old_rule *rule, int op_captured, int any_captured, ea_class *cls)
{
    const char *old = ea_old_rule_verdict_op(rule, o->op, o->list_inputs);
    char reason[REASON_LEN] = "no capture covers it", cd_reason[REASON_LEN], path[1024];
    cJSON *e = cJSON_CreateObject(), *agree = cJSON_CreateNull();
    *cls = EA_CLASS_UNCLASSIFIED;
    if (!o->capture && !op_captured && any_captured && ea_audit_ops[o->op_index].added) {
        /* an op added to the audit set since, none of it captured yet (a lost capture stays unclassified) */
        *cls = EA_CLASS_NOT_CAPTURED;
        snprintf(reason, sizeof reason,
                 "not yet captured: no capture of this target covers an occurrence of %s (run its scopes through "
                 "tools/capture on a GPU: STEPS=newops ci/gpu-check)",
                 o->op);
    }
    if (o->capture)
        ea_tf_capture(NULL, o->capture->scope, path, sizeof path);
    if (no_device_work(o->op)) {
        *cls = EA_CLASS_NO_DEVICE_WORK;
        snprintf(reason, sizeof reason, "%s", no_device_work(o->op));
    } else if (o->capture) {
        ea_class cd = decide(ea_capture_run_named(o->capture, "coordinate_descent"), o, old, cd_reason);
        *cls = decide(ea_capture_run_named(o->capture, "default"), o, old, reason);
        if (cd != *cls)
            addf(reason, "; coordinate_descent: %s: %s", ea_class_names[cd], cd_reason);
        cJSON_Delete(agree);
        agree = cJSON_CreateBool(cd == *cls);
    }
    cJSON_AddStringToObject(e, "id", o->id);
    cJSON_AddStringToObject(e, "op", o->op);
    cJSON_AddStringToObject(e, "point", o->point);
    cJSON_AddStringToObject(e, "scope", o->scope);
    cJSON_AddStringToObject(e, "class", ea_class_names[*cls]);
    cJSON_AddStringToObject(e, "reason", reason);
    cJSON_AddItemToObject(e, "old_rule", str_or_null(old));
    cJSON_AddBoolToObject(e, "false_extern", old && (*cls == EA_CLASS_LOWERED || *cls == EA_CLASS_CONDITIONAL_LOWERED));
    cJSON_AddItemToObject(e, "capture", str_or_null(o->capture ? path : NULL));
    cJSON_AddItemToObject(e, "configs_agree", agree);
    return e;
}

/* op's index in ea_audit_ops, -1 when it is none of them. */
int ea_classify_op_index(const char *op)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, op))
            return i;
    return -1;
}

/* The summary of entries (each of a known op and class): what classify writes and what a stored one must say. */
cJSON *ea_classification_summary(const cJSON *entries)
{
    int64_t counts[EA_AUDIT_OPS][EA_CLASSES] = {{0}}, false_externs[EA_AUDIT_OPS] = {0};
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
        int op = ea_classify_op_index(field_str(e, "op")), cls = 0;
        while (strcmp(ea_class_names[cls], field_str(e, "class")))
            cls++;
        counts[op][cls]++;
        false_externs[op] += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "false_extern"));
    }
    cJSON *s = cJSON_CreateObject();
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cJSON *op = cJSON_AddObjectToObject(s, ea_audit_ops[i].target);
        for (int k = 0; k < EA_CLASSES; k++)
            if (counts[i][k])
                cJSON_AddNumberToObject(op, ea_class_names[k], (double)counts[i][k]);
        cJSON_AddNumberToObject(op, "false_extern", (double)false_externs[i]);
    }
    return s;
}

static int audited_call(const char *call)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strncmp(call, "torch.ops.", 10) && !strcmp(call + 10, ea_audit_ops[i].target))
            return 1;
    return 0;
}

/* The finding for call, inserted in call order when new. */
static cJSON *finding(cJSON *list, const char *call)
{
    cJSON *f;
    int at = 0;
    cJSON_ArrayForEach(f, list) {
        int c = strcmp(field_str(f, "call"), call);
        if (c == 0)
            return f;
        if (c > 0)
            break;
        at++;
    }
    f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "call", call);
    cJSON_AddArrayToObject(f, "scopes");
    cJSON_AddNumberToObject(f, "occurrences", 0);
    cJSON_AddStringToObject(f, "note", FINDING_NOTE);
    ej_insert(list, at, f);
    return f;
}

/* Fallback calls of ops outside the audit set in each scope's default run (captures are in scope
 * order, so each finding's scopes come out sorted). */
static cJSON *findings(const ea_captures *caps)
{
    cJSON *list = cJSON_CreateArray();
    for (int ci = 0; ci < caps->n; ci++) {
        const ea_capture *c = &caps->items[ci];
        const ea_capture_run *r = ea_capture_run_named(c, "default");
        for (int i = 0; i < r->ev.naten_calls; i++) {
            if (audited_call(r->ev.aten_calls[i]))
                continue;
            cJSON *f = finding(list, r->ev.aten_calls[i]), *scopes = cJSON_GetObjectItemCaseSensitive(f, "scopes"), *s;
            int seen = 0;
            cJSON_ArrayForEach(s, scopes)
                seen |= !strcmp(s->valuestring, c->scope);
            if (seen)
                continue;
            cJSON_AddItemToArray(scopes, cJSON_CreateString(c->scope));
            cJSON *n = cJSON_GetObjectItemCaseSensitive(f, "occurrences");
            cJSON_SetNumberValue(n, n->valuedouble + c->ncovers);
        }
    }
    return list;
}

int ea_target_captures_check(const char *target_dir, cJSON *const docs[EA_AUDIT_OPS], ea_error *err)
{
    occ_list l = {0};
    ea_captures caps;
    if (ea_target_captures_load(target_dir, &caps, err))
        return -1;
    int rc = collect(docs, &l, err) || attach(&l, &caps, err) || same_environment(&caps, err) ? -1 : 0;
    free(l.v);
    ea_captures_free(&caps);
    return rc;
}

int ea_classify(cJSON *const docs[EA_AUDIT_OPS], const ea_captures *caps, const ea_old_rule *rule, cJSON **out,
                ea_error *err)
{
    occ_list l;
    *out = NULL;
    if (collect(docs, &l, err) || attach(&l, caps, err) || same_environment(caps, err)) {
        free(l.v);
        return -1;
    }
    cJSON *doc = cJSON_CreateObject(), *entries;
    cJSON_AddStringToObject(doc, "schema", EA_CLASSIFICATION_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", EA_CLASSIFICATION_VERSION);
    cJSON_AddItemToObject(doc, "environment",
                          caps->n ? cJSON_Duplicate(caps->items[0].environment, 1) : cJSON_CreateNull());
    cJSON_AddStringToObject(doc, "rule_recorded_for", rule->recorded_for);
    entries = cJSON_AddArrayToObject(doc, "occurrences");
    int captured[EA_AUDIT_OPS], any;
    ops_captured(&l, captured, &any);
    for (int i = 0; i < l.n; i++) {
        ea_class cls;
        cJSON_AddItemToArray(entries, entry(&l.v[i], rule, captured[l.v[i].op_index], any, &cls));
    }
    cJSON_AddItemToObject(doc, "summary", ea_classification_summary(entries));
    cJSON_AddItemToObject(doc, "findings", findings(caps));
    free(l.v);
    *out = doc;
    return 0;
}

int ea_classification_record_uncaptured(cJSON *doc)
{
    int n = 0;
    cJSON *e, *entries = cJSON_GetObjectItemCaseSensitive(doc, "occurrences");
    cJSON_ArrayForEach(e, entries) {
        if (strcmp(field_str(e, "class"), ea_class_names[EA_CLASS_UNCLASSIFIED]))
            continue;
        n++;
        cJSON_ReplaceItemInObjectCaseSensitive(e, "class", cJSON_CreateString(ea_class_names[EA_CLASS_NOT_CAPTURED]));
        cJSON_ReplaceItemInObjectCaseSensitive(e, "reason",
                                               cJSON_CreateString("not captured: no capture of this target covers "
                                                                  "it (run its scope through tools/capture on a GPU)"));
    }
    if (n)
        cJSON_ReplaceItemInObjectCaseSensitive(doc, "summary", ea_classification_summary(entries));
    return n;
}
