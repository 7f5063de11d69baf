/* family_points.c: a family's results for one point of a document a test loaded alone, through a run
 * context as run builds it (helpers.h). */
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "base/json.h"
#include "measure/kit.h"
#include "corpus/occurrences_impl.h"
#include "target/target.h"

const ea_captures *test_golden_captures(void)
{
    static ea_captures caps;
    static int loaded;
    ea_error err;
    if (!loaded && ea_captures_load_dir("golden/targets/" TEST_TARGET, &caps, &err) == 0)
        loaded = 1;
    return &caps;
}

cJSON *test_family_points(const ea_repro_family *f, const cJSON *point, const char *file, int index,
                          const ea_run_opts *o, int measure, ea_error *err)
{
    static ea_run_ctx c; /* large: not on the stack */
    char golden[4096];
    ea_target t;
    ej_doc doc;
    int d = ea_repro_doc(f);
    memset(&c, 0, sizeof c);
    /* the target of the document's golden folder, as run picks it without --target; none: no captures */
    if (ea_golden_dir_of(file, golden, sizeof golden) == 0 && ea_target_resolve(golden, test_inherited_target(golden), 0, &t, err) == 0 &&
        ea_captures_load_dir(t.dir, &c.caps, err))
        return NULL;
    snprintf(c.golden, sizeof c.golden, "%s", golden);
    if (d >= 0 && ej_load(file, &doc, err) == 0) { /* for what a family derives from its document */
        c.docs[d] = ej_doc_take_root(&doc);
        snprintf(c.files[d], sizeof c.files[d], "%s", file);
    }
    c.opts = o;
    const ea_scope_ref ref = {f, point, file, index};
    cJSON *arr = ea_repro_points(&c, &ref, measure, err);
    ea_error keep = *err;
    ea_run_ctx_close(&c);
    *err = keep;
    return arr;
}

/* f's golden document (golden/occurrences/<op>.json), loaded once per process. */
static const cJSON *golden_doc(const ea_repro_family *f)
{
    static cJSON *docs[EA_AUDIT_OPS];
    char path[256];
    ej_doc d;
    ea_error err;
    int k = ea_repro_doc(f);
    if (k < 0)
        return NULL;
    snprintf(path, sizeof path, "golden/occurrences/%s.json", ea_audit_ops[k].short_name);
    if (!docs[k] && ej_load(path, &d, &err) == 0)
        docs[k] = ej_doc_take_root(&d);
    return docs[k];
}

const char *test_point_id(const char *family, const char *alias)
{
    const ea_repro_family *f = ea_repro_family_named(family);
    const cJSON *doc = f ? golden_doc(f) : NULL, *p;
    char a[128];
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "points")) {
        if (f->claims && !f->claims(p))
            continue;
        ea_alias_make(doc, p, f->claims, f->alias_stem, f->alias_tag, a, sizeof a);
        if (!strcmp(a, alias))
            return ej_str(p, "point");
    }
    return "(no such alias)";
}

const char *test_alias_of(const char *family, const char *point)
{
    static char a[128];
    const ea_repro_family *f = ea_repro_family_named(family);
    const cJSON *doc = f ? golden_doc(f) : NULL, *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "points"))
        if (ej_str(p, "point") && !strcmp(ej_str(p, "point"), point)) {
            ea_alias_make(doc, p, f->claims, f->alias_stem, f->alias_tag, a, sizeof a);
            return a;
        }
    return NULL;
}
