/* The audit set, extracted from the real corpus, must match the seed's counts exactly; the committed
 * golden files must be what this corpus produces. Skipped (with the reason) where the corpus is not
 * unpacked; .ci/run unpacks it. */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "corpus/extract.h"
#include "helpers.h"
#include "base/json.h"
#include "occurrence_checks.h"
#include "corpus/inventory.h"
#include "corpus/occurrences.h"

static cJSON *docs[EA_AUDIT_OPS], *summary; /* the run's one extraction, read back */

/* The suite's one extraction of the corpus (occurrence_checks.h: shared with the classification checks and
 * kept while neither the binary, the golden tree nor the corpus changes), as extract --out wrote it. One test
 * below extracts again, to time it. */
static void extracted(void)
{
    const char *corpus = test_corpus();
    if (!corpus)
        return;
    char dir[4200], file[4400];
    ea_error err;
    ej_doc d;
    occ_extraction(corpus, "corpus", dir, sizeof dir);
    cr_assert_eq(ea_occurrences_load(dir, docs, &err), 0, "%s", err.msg);
    snprintf(file, sizeof file, "%s/summary.json", dir);
    cr_assert_eq(ej_load(file, &d, &err), 0, "%s", err.msg);
    summary = ej_doc_take_root(&d);
    /* made with the golden cat document's cap: the seed's 8, so what it finds is not the cap's doing */
    int cat = 0;
    while (cat < EA_AUDIT_OPS && strcmp(ea_audit_ops[cat].short_name, "cat"))
        cat++;
    cr_assert(cat < EA_AUDIT_OPS, "cat is an audited op");
    cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(docs[cat], "cat_input_cap")), 8,
                 "%s/cat.json $.cat_input_cap: expected the seed's 8", dir);
}

static void extracted_free(void)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    cJSON_Delete(summary);
}

#define NEED_CORPUS()                                                                                         \
    do {                                                                                                      \
        if (!test_corpus())                                                                                   \
            cr_skip_test("corpus not unpacked: set EXTERN_AUDIT_CORPUS or unpack ../shared/corpus into build/corpus"); \
    } while (0)

typedef void (*occ_fn)(const cJSON *point, const cJSON *occ, void *ctx);

static void each_occurrence(int op, occ_fn fn, void *ctx)
{
    const cJSON *p, *s, *o;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(docs[op], "points"))
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(p, "scopes"))
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(s, "occurrences")) fn(p, o, ctx);
}

static const cJSON *sig(const cJSON *p, const char *key)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(p, "signature"), key);
}

static int ints_eq(const cJSON *arr, const int64_t *v, int n)
{
    if (cJSON_GetArraySize(arr) != n)
        return 0;
    for (int i = 0; i < n; i++)
        if ((int64_t)cJSON_GetArrayItem(arr, i)->valuedouble != v[i])
            return 0;
    return 1;
}

typedef struct {
    int infer, train, min_inputs, max_inputs, not_bf16, bad_batch;
} cat_tally;

static void count_cat(const cJSON *p, const cJSON *o, void *ctx)
{
    cat_tally *t = ctx;
    const cJSON *out = sig(p, "output");
    int n = cJSON_GetArraySize(cJSON_GetArrayItem(sig(p, "args"), 0));
    int infer = !strcmp(cJSON_GetObjectItem(o, "mode")->valuestring, "infer");
    int batch = cJSON_GetArrayItem(cJSON_GetObjectItem(out, "sizes"), 0)->valueint;
    t->infer += infer;
    t->train += !infer;
    t->min_inputs = n < t->min_inputs ? n : t->min_inputs;
    t->max_inputs = n > t->max_inputs ? n : t->max_inputs;
    t->not_bf16 += strcmp(cJSON_GetObjectItem(out, "dtype")->valuestring, "bf16") != 0;
    t->bad_batch += batch != (infer ? 64 : 4) || strcmp(cJSON_GetObjectItem(o, "model")->valuestring, "densenet121");
}

Test(corpus, cats, .init = extracted, .fini = extracted_free)
{
    NEED_CORPUS();
    cat_tally t = {0, 0, 1000, 0, 0, 0};
    each_occurrence(0, count_cat, &t);
    cr_assert_eq(t.infer, 31);
    cr_assert_eq(t.train, 31);
    cr_assert_eq(t.min_inputs, 9);
    cr_assert_eq(t.max_inputs, 25);
    cr_assert_eq(t.not_bf16, 0);
    cr_assert_eq(t.bad_batch, 0, "densenet121, batch 64 infer / 4 train");
}

typedef struct {
    int total, gptoss, pairs;
    char seen[64][160];
} cumsum_tally;

static void count_cumsum(const cJSON *p, const cJSON *o, void *ctx)
{
    cumsum_tally *t = ctx;
    char pair[160];
    snprintf(pair, sizeof pair, "%s/%s", cJSON_GetObjectItem(o, "model")->valuestring, cJSON_GetObjectItem(o, "mode")->valuestring);
    int k = 0;
    while (k < t->pairs && strcmp(t->seen[k], pair))
        k++;
    if (k == t->pairs && t->pairs < 64)
        strcpy(t->seen[t->pairs++], pair);
    t->total++;
    if (strcmp(cJSON_GetObjectItem(o, "model")->valuestring, "openai/gpt-oss-20b"))
        return;
    const int64_t n32[] = {32};
    const cJSON *out = sig(p, "output"), *dt = cJSON_GetObjectItem(sig(p, "kwargs"), "dtype");
    if (!strcmp(cJSON_GetObjectItem(out, "dtype")->valuestring, "i32") && ints_eq(cJSON_GetObjectItem(out, "sizes"), n32, 1) &&
        dt && !strcmp(cJSON_GetObjectItem(dt, "dtype")->valuestring, "i32"))
        t->gptoss++;
}

Test(corpus, cumsums, .init = extracted, .fini = extracted_free)
{
    NEED_CORPUS();
    cumsum_tally t = {0};
    each_occurrence(1, count_cumsum, &t);
    cr_assert_eq(t.total, 44);
    cr_assert_eq(t.pairs, 20, "model/mode pairs");
    cr_assert_eq(t.gptoss, 24, "gpt-oss i32[32] with dtype=torch.int32");
}

static void check_histc(const cJSON *p, const cJSON *o, void *ctx)
{
    int *n = ctx;
    const int64_t n4000[] = {4000}, n32[] = {32};
    const cJSON *args = sig(p, "args"), *in = cJSON_GetArrayItem(args, 0);
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetArrayItem(sig(p, "value_properties"), 0), "derived");
    cr_assert_str_eq(cJSON_GetObjectItem(in, "dtype")->valuestring, "i32");
    cr_assert(ints_eq(cJSON_GetObjectItem(in, "sizes"), n4000, 1));
    cr_assert_eq(cJSON_GetArrayItem(args, 1)->valueint, 32);
    cr_assert_eq(cJSON_GetArrayItem(args, 2)->valueint, 0);
    cr_assert_eq(cJSON_GetArrayItem(args, 3)->valueint, 31);
    cr_assert(ints_eq(cJSON_GetObjectItem(sig(p, "output"), "sizes"), n32, 1));
    cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "sorted_topk_ids");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(d, "sorted")));
    const int64_t range[] = {0, 31};
    cr_assert(ints_eq(cJSON_GetObjectItem(d, "range"), range, 2));
    cr_assert_str_eq(cJSON_GetObjectItem(o, "model")->valuestring, "openai/gpt-oss-20b");
    (*n)++;
}

Test(corpus, histc, .init = extracted, .fini = extracted_free)
{
    NEED_CORPUS();
    int n = 0;
    each_occurrence(2, check_histc, &n);
    cr_assert_eq(n, 24);
}

typedef struct {
    int long_a, long_b, xlnet, other;
} index_add_tally;

/* index_add(self, dim, index, source): the index is argument 2 */
static const cJSON *index_props(const cJSON *p)
{
    const cJSON *vp;
    cJSON_ArrayForEach(vp, sig(p, "value_properties"))
        if (cJSON_GetObjectItem(vp, "arg")->valueint == 2)
            return cJSON_GetObjectItem(vp, "derived");
    cr_assert_fail("index_add point without index properties");
    return NULL;
}

static void check_index_add(const cJSON *p, const cJSON *o, void *ctx)
{
    index_add_tally *t = ctx;
    const cJSON *args = sig(p, "args"), *self = cJSON_GetArrayItem(args, 0), *index = cJSON_GetArrayItem(args, 2);
    const cJSON *d = index_props(p), *h = cJSON_GetObjectItem(d, "multiplicity_histogram");
    const char *model = cJSON_GetObjectItem(o, "model")->valuestring;
    cr_assert_str_eq(cJSON_GetObjectItem(self, "dtype")->valuestring, "bf16");
    cr_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "train");
    const int64_t a[] = {9437184}, ai[] = {18874368}, b[] = {6291456}, bi[] = {9437184};
    if (!strcmp(model, "AllenaiLongformerBase")) {
        int is_a = ints_eq(cJSON_GetObjectItem(self, "sizes"), a, 1);
        cr_assert(is_a || ints_eq(cJSON_GetObjectItem(self, "sizes"), b, 1));
        cr_assert(ints_eq(cJSON_GetObjectItem(index, "sizes"), is_a ? ai : bi, 1));
        cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "as_strided_iota");
        cr_assert_null(cJSON_GetObjectItem(h, "0"), "every slot covered");
        cr_assert_eq(cJSON_GetObjectItem(d, "max_multiplicity")->valueint, is_a ? 3 : 2);
        *(is_a ? &t->long_a : &t->long_b) += 1;
        return;
    }
    const int64_t xs[] = {16, 16, 512, 1023}, xst[] = {8380416, 523776, 1023, 1}, src[] = {16, 16, 512, 512};
    if (!strcmp(model, "XLNetLMHeadModel") && ints_eq(cJSON_GetObjectItem(self, "sizes"), xs, 4) &&
        ints_eq(cJSON_GetObjectItem(self, "strides"), xst, 4) && cJSON_GetArrayItem(args, 1)->valueint == 3 &&
        ints_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(args, 3), "sizes"), src, 4) &&
        !strcmp(cJSON_GetObjectItem(d, "kind")->valuestring, "iota") &&
        cJSON_GetObjectItem(cJSON_GetObjectItem(d, "iota"), "length")->valueint == 512) {
        t->xlnet++;
        return;
    }
    t->other++;
}

Test(corpus, bf16_index_add, .init = extracted, .fini = extracted_free)
{
    NEED_CORPUS();
    index_add_tally t = {0};
    each_occurrence(3, check_index_add, &t);
    cr_assert_eq(t.long_a, 12);
    cr_assert_eq(t.long_b, 24);
    cr_assert_eq(t.xlnet, 24);
    cr_assert_eq(t.other, 0);
    cr_assert_eq(cJSON_GetObjectItem(summary, "bf16_index_add")->valueint, 60);
}

Test(corpus, golden_is_this_corpus_extraction, .init = extracted, .fini = extracted_free)
{
    NEED_CORPUS();
    cJSON *golden[EA_AUDIT_OPS];
    ea_error err;
    cr_assert_eq(ea_occurrences_load("golden/occurrences", golden, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cr_assert(cJSON_Compare(golden[i], docs[i], 1),
                  "golden/occurrences/%s.json is stale: run extern-audit extract --out golden/occurrences",
                  ea_audit_ops[i].short_name);
        cJSON_Delete(golden[i]);
    }
}

#if !defined(EA_COVERAGE) && !defined(EA_SANITIZE) /* instrumented builds are slower */
static ea_extraction x;
static double seconds;

static void extract_corpus(void)
{
    const char *dir = test_corpus();
    if (!dir)
        return;
    ea_corpus c;
    ea_error err;
    /* CPU seconds of this process's threads: the suite runs other tests beside it, which stretch its wall
     * time (13.3 s of wall for 4.4 s of CPU on a loaded 2-core machine) but not its own work */
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    cr_assert_eq(ea_corpus_open(dir, &c, &err), 0, "%s", err.msg);
    ea_extract_opts o = {8, NULL};
    cr_assert_eq(ea_extract(&c, &o, &x, &err), 0, "%s", err.msg);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    seconds = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    ea_corpus_free(&c);
}

static void done(void)
{
    ea_extraction_free(&x);
}

Test(corpus, extraction_under_10_cpu_seconds, .init = extract_corpus, .fini = done)
{
    NEED_CORPUS();
    cr_log_info("whole-corpus extraction: %.2f s of CPU", seconds);
    cr_assert_lt(seconds, 10.0, "extraction took %.2f s of CPU", seconds);
}
#endif

Test(corpus, inventory_matches_every_meta)
{
    NEED_CORPUS();
    ea_old_rule rule;
    ea_corpus c;
    ea_error err;
    cJSON *inv;
    cr_assert_eq(ea_old_rule_load("golden/old_rule.json", &rule, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_corpus_open(test_corpus(), &c, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_inventory(&c, &rule, NULL, &inv, &err), 0, "%s", err.msg);
    cr_assert_eq(cJSON_GetObjectItem(inv, "graphs")->valueint, 364);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(inv, "mismatches")), 0);
    cJSON_Delete(inv);
    ea_corpus_free(&c);
    ea_old_rule_free(&rule);
}
