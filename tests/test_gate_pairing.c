/* The gate pairs a point's stored and new results by what they measure, never by their position: a point that
 * lost a configuration, gained one, or both, is reported result by result, and its proposal holds each
 * configuration once (the committed H200 baselines against copies with results taken out). */
#include <criterion/criterion.h>

#include <string.h>

#include "base/json.h"
#include "gate/gate.h"
#include "helpers.h"
#include "measure/baseline.h"
#include "measure/baseline_derived.h"

static cJSON *scopes(const cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(doc, "scopes");
}

/* The index in doc of the k-th result of the first point of family that has at least n results. */
static int nth_result(const cJSON *doc, const char *family, int n, int k)
{
    const cJSON *x, *y;
    cJSON_ArrayForEach(x, scopes(doc)) {
        int count = 0, at = -1, j = 0;
        cJSON_ArrayForEach(y, scopes(doc)) {
            if (!strcmp(ej_text(y, "family"), family) && !strcmp(ej_text(y, "point"), ej_text(x, "point")) &&
                count++ == k)
                at = j;
            j++;
        }
        if (!strcmp(ej_text(x, "family"), family) && count >= n)
            return at;
    }
    cr_assert_fail("no %s point with %d results", family, n);
    return -1;
}

static cJSON *compare(const cJSON *stored, const cJSON *fresh)
{
    ea_error err;
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *r = ea_gate_compare("stored.json", stored, "new.json", fresh, &rule, NULL, &err);
    cr_assert_not_null(r, "%s", err.msg);
    return r;
}

static int count(const cJSON *report, const char *status)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "summary"), status);
    return c ? (int)c->valuedouble : 0;
}

/* Field key of the report's first entry of that status. */
static const char *entry_text(const cJSON *report, const char *status, const char *key)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (!strcmp(ej_text(e, "status"), status))
            return ej_text(e, key);
    cr_assert_fail("no %s entry", status);
    return NULL;
}

static const char *where(const cJSON *report, const char *status)
{
    return entry_text(report, status, "where");
}

/* How many results of doc have r's family, point and config. */
static int copies(const cJSON *doc, const cJSON *r)
{
    const cJSON *x;
    int n = 0;
    cJSON_ArrayForEach(x, scopes(doc))
        n += !strcmp(ej_text(x, "point"), ej_text(r, "point")) &&
             cJSON_Compare(cJSON_GetObjectItemCaseSensitive(x, "config"), cJSON_GetObjectItemCaseSensitive(r, "config"), 1);
    return n;
}

/* The proposal reads back and holds every configuration of want's point once. */
static void proposal_holds_each_once(const cJSON *proposal, const cJSON *want, int first, int n)
{
    ea_error err;
    cr_assert_eq(ea_baseline_validate("proposed.json", proposal, &err), 0, "the proposal does not read back: %s", err.msg);
    for (int k = 0; k < n; k++)
        cr_assert_eq(copies(proposal, cJSON_GetArrayItem(scopes(want), first + k)), 1, "configuration %d of the point", k);
}

/* The routing point's four configurations (form x distribution) share their scope ids: the stored side has the
 * first three, the new side the last three. The two in common pair with themselves (SAME), the first is MISSING and
 * the fourth ADDED; paired by position, every one would be judged against its neighbour. */
Test(gate_pairing, a_point_that_lost_one_configuration_and_gained_another_pairs_the_rest_by_identity)
{
    cJSON *all = test_committed_baselines(), *a = test_committed_baselines(), *b = test_committed_baselines();
    int r0 = nth_result(all, "routing_histc", 4, 0);
    cr_assert_eq(nth_result(all, "routing_histc", 4, 3), r0 + 3, "the point's four results are adjacent");
    cJSON_DeleteItemFromArray(scopes(a), r0 + 3);
    cJSON_DeleteItemFromArray(scopes(b), r0);
    cJSON *r = compare(a, b);
    cr_assert_eq(count(r, "MISSING"), 1);
    cr_assert_eq(count(r, "ADDED"), 1);
    cr_assert_eq(count(r, "CONFIG") + count(r, "SLOWER") + count(r, "FASTER") + count(r, "CLASS"), 0,
                 "no configuration judged against another");
    char want[64];
    snprintf(want, sizeof want, "stored.json $.scopes[%d]", r0);
    cr_assert_str_eq(where(r, "MISSING"), want);
    snprintf(want, sizeof want, "new.json $.scopes[%d]", r0 + 2);
    cr_assert_str_eq(where(r, "ADDED"), want);
    cJSON *p = ea_gate_propose(a, b, r);
    proposal_holds_each_once(p, all, r0, 4);
    cJSON_Delete(p);
    cJSON_Delete(r);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(all);
}

/* A cumsum point's two results cover two scope groups; the new run lost the first. The second is judged against
 * its own stored result and the first is MISSING; the proposal keeps both once (paired by position, the
 * first took the second's plan and the proposal held that plan twice). The other way round the first is ADDED. */
Test(gate_pairing, a_point_that_lost_its_first_configuration_keeps_each_once_in_the_proposal)
{
    cJSON *all = test_committed_baselines(), *a = test_committed_baselines(), *b = test_committed_baselines();
    int r0 = nth_result(all, "cumsum", 2, 0);
    cJSON_DeleteItemFromArray(scopes(b), r0);
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "MISSING"), 1);
    cr_assert_eq(count(r, "CONFIG") + count(r, "ADDED"), 0);
    proposal_holds_each_once(p, all, r0, 2);
    cJSON *back = compare(b, a), *pb = ea_gate_propose(b, a, back);
    cr_assert_eq(count(back, "ADDED"), 1);
    cr_assert_eq(count(back, "CONFIG") + count(back, "MISSING"), 0);
    char want[64];
    snprintf(want, sizeof want, "new.json $.scopes[%d]", r0);
    cr_assert_str_eq(where(back, "ADDED"), want);
    proposal_holds_each_once(pb, all, r0, 2);
    cJSON_Delete(pb);
    cJSON_Delete(back);
    cJSON_Delete(p);
    cJSON_Delete(r);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(all);
}

/* The four items of arr from r0 on in the reverse order. */
static void reverse4(cJSON *arr, int r0)
{
    cJSON *was[4];
    for (int k = 0; k < 4; k++)
        was[k] = cJSON_Duplicate(cJSON_GetArrayItem(arr, r0 + k), 1);
    for (int k = 0; k < 4; k++)
        cJSON_ReplaceItemInArray(arr, r0 + k, was[3 - k]);
}

/* Every configuration of the routing point planned anew (a note id added to each) and listed in the reverse
 * order: each pairs with its own configuration, one CONFIG apiece, and the proposal takes the new plans. */
Test(gate_pairing, configurations_planned_anew_pair_by_what_they_measure_in_any_order)
{
    cJSON *a = test_committed_baselines(), *b = test_committed_baselines();
    int r0 = nth_result(a, "routing_histc", 4, 0);
    for (int k = 0; k < 4; k++) {
        cJSON *notes = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes(b), r0 + k), "config"), "notes");
        cJSON_AddItemToArray(notes, cJSON_CreateString("routing_checked_capture"));
    }
    reverse4(scopes(b), r0);
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "CONFIG"), 4);
    cr_assert_eq(count(r, "MISSING") + count(r, "ADDED") + count(r, "SLOWER") + count(r, "FASTER"), 0);
    for (int k = 0; k < 4; k++)
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes(p), r0 + k), "config"),
                                cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes(b), r0 + 3 - k), "config"), 1),
                  "configuration %d took its own new plan", k);
    cJSON_Delete(p);
    cJSON_Delete(r);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static cJSON *no_fidelity(const cJSON *stored_result, void *ctx)
{
    (void)stored_result, (void)ctx;
    return NULL;
}

/* What run --plan gives for doc's results: each one's planned fields, no times. */
static cJSON *plans_of(const cJSON *doc)
{
    static const char *const planned[] = {"family", "point", "alias", "occurrences", "scope_ids", "config", "unsupported"};
    cJSON *plans = cJSON_CreateArray();
    const cJSON *x;
    cJSON_ArrayForEach(x, scopes(doc)) {
        cJSON *p = cJSON_CreateObject();
        for (size_t k = 0; k < sizeof planned / sizeof *planned; k++)
            if (cJSON_HasObjectItem(x, planned[k]))
                cJSON_AddItemToObject(p, planned[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(x, planned[k]), 1));
        cJSON_AddItemToArray(plans, p);
    }
    return plans;
}

/* gate --plan pairs the same way: today's plans of the routing point listed in the reverse order, one of them
 * gone, are three SAME and one MISSING, every other stored result SAME against its own plan. */
Test(gate_pairing, plans_pair_with_the_stored_results_they_describe_in_any_order)
{
    cJSON *a = test_committed_baselines(), *plans = plans_of(a);
    int r0 = nth_result(a, "routing_histc", 4, 0), i = cJSON_GetArraySize(plans);
    reverse4(plans, r0);
    cJSON_DeleteItemFromArray(plans, r0); /* the point's last configuration: no plan today */
    ea_error err;
    cJSON *r = ea_gate_compare_plans("stored.json", a, plans, NULL, no_fidelity, NULL, &err);
    cr_assert_not_null(r, "%s", err.msg);
    cr_assert_eq(count(r, "MISSING"), 1);
    char want[64];
    snprintf(want, sizeof want, "stored.json $.scopes[%d]", r0 + 3);
    cr_assert_str_eq(where(r, "MISSING"), want);
    cr_assert_eq(count(r, "SAME"), i - 1, "every other result against its own plan");
    cJSON_Delete(r);
    cJSON_Delete(plans);
    cJSON_Delete(a);
}

/* The index of the result of doc whose point is the golden point of index_add's alias. */
static int result_of(const cJSON *doc, const char *alias)
{
    const cJSON *x;
    int i = 0;
    cJSON_ArrayForEach(x, scopes(doc)) {
        if (!strcmp(ej_text(x, "point"), test_point_id("index_add", alias)))
            return i;
        i++;
    }
    cr_assert_fail("no result for %s", alias);
    return -1;
}

/* Result r narrowed to scope groups [from, from + n) of its own, with the occurrences they cover (Longformer's
 * 6291456 point: groups of 1, 1, 11 and 11). */
static void narrow(cJSON *r, int from, int n, int occurrences)
{
    cJSON *ids = cJSON_CreateArray();
    for (int k = from; k < from + n; k++)
        cJSON_AddItemToArray(ids, cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "scope_ids"), k), 1));
    cJSON_ReplaceItemInObjectCaseSensitive(r, "scope_ids", ids);
    cJSON_ReplaceItemInObjectCaseSensitive(r, "occurrences", cJSON_CreateNumber(occurrences));
}

/* The committed baselines with Longformer's 6291456 point as one configuration over its four scope groups, as
 * stored before the consumer fold split it (golden's group order; the second configuration's result gone): the
 * stored side of the split tests below. */
static cJSON *joined_baselines(void)
{
    static const char *const groups[] = {"335f7d6b05cb", "cbe0d184b798", "c06b114e6a86", "25eb7967d6d2"};
    cJSON *doc = test_committed_baselines();
    int r = result_of(doc, "longformer-bf16-6291456");
    int last = cJSON_GetArraySize(scopes(doc)) - 1;
    cJSON *first = cJSON_GetArrayItem(scopes(doc), r), *ids = cJSON_CreateArray();
    const cJSON *second = cJSON_GetArrayItem(scopes(doc), last);
    cr_assert(!strcmp(ej_text(second, "point"), ej_text(first, "point")) &&
                  cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(second, "config"), "consumer"),
              "the committed point's div-folded configuration is the last result");
    for (int k = 0; k < 4; k++) {
        char id[64];
        snprintf(id, sizeof id, "%s-%s", ej_text(first, "point"), groups[k]);
        cJSON_AddItemToArray(ids, cJSON_CreateString(id));
    }
    cJSON_ReplaceItemInObjectCaseSensitive(first, "scope_ids", ids);
    cJSON_ReplaceItemInObjectCaseSensitive(first, "occurrences", cJSON_CreateNumber(24));
    cJSON_DeleteItemFromArray(scopes(doc), last);
    return doc;
}

/* Longformer's 6291456 point split into two configurations, as a plan that tells two of its scope groups apart (a
 * consumer the scope takes in) makes it: the first keeps the stored config but covers two groups, the second is a
 * new config for the other two, listed last. */
static void split_point(cJSON *doc, int r)
{
    cJSON *second = cJSON_Duplicate(cJSON_GetArrayItem(scopes(doc), r), 1);
    narrow(cJSON_GetArrayItem(scopes(doc), r), 0, 2, 2);
    narrow(second, 2, 2, 22);
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(second, "config"), "consumer", cJSON_CreateObject());
    cJSON_AddItemToArray(scopes(doc), second);
}

/* The proposal reads back and each result's occurrences are its scope groups' golden counts. */
static void proposal_reads_back(const cJSON *p)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS];
    char buf[EA_AUDIT_OPS][128];
    ea_error err;
    test_golden_docs(docs, files, buf);
    cr_assert_eq(ea_baseline_validate("proposed.json", p, &err), 0, "the proposal does not read back: %s", err.msg);
    cr_assert_eq(ea_baseline_occurrences_check("proposed.json", p, docs, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

static const char *detail(const cJSON *report, const char *status)
{
    return entry_text(report, status, "detail");
}

/* A new run that measured the split point: its first configuration is a CONFIG (the same config, other scope
 * groups: paired by config, it would otherwise be SAME and the stored result would still claim all four groups),
 * the second ADDED; the proposal holds both, with the groups and occurrences each measured. */
Test(gate_pairing, a_point_split_into_two_configurations_is_a_config_and_an_added)
{
    cJSON *a = joined_baselines(), *b = joined_baselines();
    int r = result_of(a, "longformer-bf16-6291456");
    split_point(b, r);
    cJSON *rep = compare(a, b), *p = ea_gate_propose(a, b, rep);
    cr_assert_eq(count(rep, "CONFIG"), 1);
    cr_assert_eq(count(rep, "ADDED"), 1);
    cr_assert_eq(count(rep, "MISSING"), 0);
    cr_assert(strstr(detail(rep, "CONFIG"), "first at $.scope_ids[2]: \"index_add-"), "%s", detail(rep, "CONFIG"));
    char want[64];
    snprintf(want, sizeof want, "new.json $.scopes[%d]", cJSON_GetArraySize(scopes(b)) - 1);
    cr_assert_str_eq(where(rep, "ADDED"), want);
    proposal_reads_back(p);
    cr_assert_eq(cJSON_GetArraySize(scopes(p)), cJSON_GetArraySize(scopes(b)));
    for (int k = 0; k < 2; k++) { /* the ADDED result is appended to the proposal, as to b */
        int at = k ? cJSON_GetArraySize(scopes(b)) - 1 : r;
        const cJSON *got = cJSON_GetArrayItem(scopes(p), at), *w = cJSON_GetArrayItem(scopes(b), at);
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(got, "scope_ids"),
                                cJSON_GetObjectItemCaseSensitive(w, "scope_ids"), 1) &&
                      cJSON_GetObjectItemCaseSensitive(got, "occurrences")->valueint == (k ? 22 : 2),
                  "configuration %d: %s", k, cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(got, "scope_ids")));
    }
    cJSON_Delete(p);
    cJSON_Delete(rep);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* gate --plan on the same split: the stored result's groups are a CONFIG, the new configuration ADDED (no stored
 * result measures it: check-golden fails until a run measures it), and the proposal takes the plan and groups of
 * the first but adds no result without times. A point the document does not measure at all is not ADDED here. */
Test(gate_pairing, plans_that_split_a_point_are_a_config_and_an_added_the_proposal_cannot_take)
{
    cJSON *a = joined_baselines(), *plans = plans_of(a);
    cJSON *wrapped = cJSON_CreateObject();
    cJSON_AddItemToObject(wrapped, "scopes", plans);
    int r = result_of(a, "longformer-bf16-6291456"), xl = result_of(a, "xlnet");
    cr_assert_gt(xl, r, "xlnet's result after Longformer's: removing it keeps r");
    split_point(wrapped, r);
    cJSON_DeleteItemFromArray(scopes(a), xl); /* xlnet: stored nowhere now */
    ea_error err;
    cJSON *rep = ea_gate_compare_plans("stored.json", a, plans, NULL, no_fidelity, NULL, &err);
    cr_assert_not_null(rep, "%s", err.msg);
    cr_assert_eq(count(rep, "CONFIG"), 1);
    cr_assert_eq(count(rep, "ADDED"), 1, "the split's new configuration, not the unmeasured xlnet point");
    cr_assert(strstr(detail(rep, "ADDED"), "measure it (gate --run --propose)"), "%s", detail(rep, "ADDED"));
    cr_assert_eq(ea_gate_exit(rep), 1);
    cJSON *p = ea_gate_propose(a, wrapped, rep);
    cr_assert_eq(cJSON_GetArraySize(scopes(p)), cJSON_GetArraySize(scopes(a)), "no result without times added");
    const cJSON *got = cJSON_GetArrayItem(scopes(p), r);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(got, "scope_ids")), 2);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(got, "occurrences")->valueint, 2);
    proposal_reads_back(p);
    cJSON_Delete(p);
    cJSON_Delete(rep);
    cJSON_Delete(wrapped);
    cJSON_Delete(a);
}

/* A point the stored document records as refused (one unsupported result) is not judged by gate --plan, however
 * many configurations today's code plans for it: no ADDED, whatever a run would say of it. */
Test(gate_pairing, plans_of_a_stored_refusal_are_not_added)
{
    cJSON *a = test_committed_baselines(), *plans = plans_of(a);
    int r0 = nth_result(a, "routing_histc", 4, 0);
    cJSON *refused = cJSON_GetArrayItem(scopes(a), r0);
    static const char *const dropped[] = {"config", "paths", "class", "fidelity", "view", "verdict", "point_wall_s"};
    for (size_t k = 0; k < sizeof dropped / sizeof *dropped; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(refused, dropped[k]);
    cJSON_AddStringToObject(refused, "unsupported", "routing: a refusal recorded in the baselines");
    for (int k = 0; k < 3; k++)
        cJSON_DeleteItemFromArray(scopes(a), r0 + 1);
    ea_error err;
    cJSON *rep = ea_gate_compare_plans("stored.json", a, plans, NULL, no_fidelity, NULL, &err);
    cr_assert_not_null(rep, "%s", err.msg);
    cr_assert_eq(count(rep, "ADDED"), 0, "%s", cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rep, "summary")));
    cr_assert_eq(ea_gate_exit(rep), 0);
    cJSON_Delete(rep);
    cJSON_Delete(plans);
    cJSON_Delete(a);
}
