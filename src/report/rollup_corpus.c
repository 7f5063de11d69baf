/* rollup_corpus.c: one model's accounting file from the corpus, read strictly (rollup_corpus.h). */
#include "report/rollup_corpus.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"

static int count(ej_val obj, const char *key, int64_t *v, ea_error *err)
{
    char got[32];
    if (ej_get_int(obj, key, v, err))
        return -1;
    snprintf(got, sizeof got, "%" PRId64, *v);
    return *v >= 0 ? 0 : ej_bad_field(obj, key, "a non-negative integer", got, err);
}

static int read_doc(const ej_doc *doc, const char *identity, ea_model_accounting *a, ea_error *err)
{
    static const char *const keys[] = {"hardware", "identity", "model", "schema_version", "source",
                                       "source_manifest_digest", "source_provenance", NULL};
    static const char *const model_keys[] = {"extern_occurrences", "extern_total_us", "fusible", "mode", "model",
                                             "suite", "trace_errors", "unpriced_extern_occurrences", NULL};
    ej_val root = ej_root(doc), m, prov, hw, tv;
    const char *s;
    char got[320];
    if (ej_object(root, keys, err) || ej_expect_schema(root, NULL, 2, err) ||
        ej_get_string(root, "identity", &s, err))
        return -1;
    if (strcmp(s, identity)) {
        snprintf(got, sizeof got, "\"%.300s\"", s);
        char what[512];
        snprintf(what, sizeof what, "\"%.500s\"", identity);
        return ej_bad_field(root, "identity", what, got, err);
    }
    if (ej_get_string(root, "hardware", &s, err))
        return -1;
    snprintf(a->hardware, sizeof a->hardware, "%s", s);
    if (ej_field(root, "model", 1, &m, err) || ej_object(m, model_keys, err) ||
        ej_get_number(m, "extern_total_us", &a->extern_total_us, err) ||
        count(m, "extern_occurrences", &a->extern_occurrences, err) ||
        count(m, "unpriced_extern_occurrences", &a->unpriced_extern_occurrences, err))
        return -1;
    if (!(a->extern_total_us >= 0)) {
        snprintf(got, sizeof got, "%g", a->extern_total_us);
        return ej_bad_field(m, "extern_total_us", "a non-negative number", got, err);
    }
    /* the torch build is provenance: optional, as better-benchmark writes it only when it knew it */
    if (ej_field(root, "source_provenance", 0, &prov, err) ||
        (prov.v && ej_field(prov, "hardware", 0, &hw, err)) || (prov.v && hw.v && ej_field(hw, "torch_version", 0, &tv, err)))
        return -1;
    if (prov.v && hw.v && tv.v) {
        if (ej_as_string(tv, &s, err))
            return -1;
        snprintf(a->torch, sizeof a->torch, "%s", s);
    }
    return 0;
}

int ea_corpus_accounting(const char *corpus, const char *suite, const char *mode, const char *model,
                         ea_model_accounting *a, ea_error *err)
{
    char identity[512];
    memset(a, 0, sizeof *a);
    snprintf(identity, sizeof identity, "%s/%s/%s", suite, mode, model);
    snprintf(a->file, sizeof a->file, "%s/" EA_ACCOUNTING_DIR "/%s.json", corpus, identity);
    if (access(a->file, F_OK) != 0)
        return 0;
    ej_doc doc;
    if (ej_load(a->file, &doc, err))
        return -1;
    int rc = read_doc(&doc, identity, a, err);
    ej_free(&doc);
    a->found = rc == 0;
    return rc;
}
