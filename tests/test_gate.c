/* The gate on the CPU: the committed H200 baselines against copies that differ in known ways. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/baseline.h"
#include "measure/fractions.h"
#include "gate/gate.h"
#include "target/target.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/path.h"
#include "measure/prose.h"
#include "corpus/occurrences.h"
#include "target/target_impl.h"
#include "target/target_layout.h"

#define H200 "golden/targets/H200-torch2.11.0+cu130/baselines.json"

/* A cold time made of a path's warm one: the same numbers, and the operations of a call a cold time records. */
static cJSON *cold_of(const cJSON *path)
{
    cJSON *t = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(path, "time"), 1);
    cJSON_AddNumberToObject(t, "operations", 1);
    return t;
}

/* The committed baselines without the measured floor's paths: the tests below judge the gated paths, and the
 * floor's are not gated (one of its cold times, about 1.1 us, is even too noisy to judge against itself). */
static cJSON *committed(void)
{
    cJSON *d = test_committed_baselines(), *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(d, "scopes")) {
        cJSON *paths = cJSON_GetObjectItemCaseSensitive(s, "paths");
        for (int i = cJSON_GetArraySize(paths) - 1; i >= 0; i--)
            if (!strcmp(ej_text(cJSON_GetArrayItem(paths, i), "name"), EA_PATH_FLOOR))
                cJSON_DeleteItemFromArray(paths, i);
    }
    return d;
}

/* The committed baselines without their cold times: the document the cold tests add cold times to. */
static cJSON *golden_warm(void)
{
    cJSON *d = committed(), *s, *p;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(d, "scopes"))
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "paths"))
            cJSON_DeleteItemFromObjectCaseSensitive(p, "time_cold");
    return d;
}

static cJSON *path_of(cJSON *doc, int scope, int path)
{
    cJSON *p = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), scope),
                                         "paths"),
        path);
    cr_assert_not_null(p);
    return p;
}

/* Every time statistic of a path's timing object key times f: the same spread, another median. */
static void scale(cJSON *doc, int scope, int path, const char *key, double f)
{
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(doc, scope, path), key);
    const char *const fields[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (int i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(t, fields[i]);
        cJSON_SetNumberValue(v, v->valuedouble * f);
    }
}

static cJSON *compare(const cJSON *stored, const cJSON *fresh)
{
    ea_error err;
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *r = ea_gate_compare("stored.json", stored, "new.json", fresh, &rule, NULL, &err);
    cr_assert_not_null(r, "%s", err.msg);
    return r;
}

/* The committed baselines (*a) against a copy (*b) whose result s, path p takes f times as long. */
static cJSON *compare_scaled(cJSON **a, cJSON **b, int s, int p, double f)
{
    *a = committed();
    *b = committed();
    scale(*b, s, p, "time", f);
    return compare(*a, *b);
}

/* Deletes each of the n documents (NULL ones too). */
static void release(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    while (n--)
        cJSON_Delete(va_arg(ap, cJSON *));
    va_end(ap);
}

/* got equals want, both freed; a difference is shown around its first byte (a whole baselines document
 * in one assertion message stalls Criterion's reporting). */
static void same_text(char *got, char *want)
{
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    size_t from = i > 80 ? i - 80 : 0;
    int same = got[i] == want[i];
    char g[200], w[200];
    snprintf(g, sizeof g, "%.160s", got + from);
    snprintf(w, sizeof w, "%.160s", want + from);
    free(got);
    free(want);
    cr_assert(same, "differ at byte %zu:\n got: %s\nwant: %s", i, g, w);
}

static int count(const cJSON *report, const char *status)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "summary"), status);
    return c ? (int)c->valuedouble : 0;
}

static const cJSON *first(const cJSON *report, const char *status)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "status")->valuestring, status))
            return e;
    cr_assert_fail("no %s entry", status);
    return NULL;
}

static const char *field(const cJSON *e, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(e, key)->valuestring;
}

/* Every gated entry SAME; the measured floor's gate nothing, and one may be too noisy to judge even against
 * itself (NOISY), which neither fails the gate nor moves a proposal. */
Test(gate, committed_baselines_against_themselves_are_all_same)
{
    cJSON *a = test_committed_baselines(), *b = test_committed_baselines(), *r = compare(a, b);
    int paths = 0, floors = 0; /* a path's time and, where it has one, its cold time: an entry each */
    const cJSON *s, *p, *e;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(a, "scopes"))
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "paths"))
            paths += 1 + cJSON_HasObjectItem(p, "time_cold");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "entries"))
        if (strcmp(field(e, "status"), "SAME")) {
            cr_assert(!strcmp(field(e, "status"), "NOISY") && !ea_gate_entry_holds(e) &&
                      !strcmp(field(e, "path"), EA_PATH_FLOOR), "%s", field(e, "detail"));
            floors++;
        }
    cr_assert_gt(paths, 100);
    cr_assert_eq(count(r, "SAME") + floors, paths);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")), paths);
    cr_assert_eq(ea_gate_exit(r), 0);
    release(3, r, a, b);
}

Test(gate, proposal_against_itself_reproduces_the_committed_file_byte_for_byte)
{
    cJSON *a = test_committed_baselines(), *b = test_committed_baselines(), *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    ea_error err;
    char out[512];
    snprintf(out, sizeof out, "%s/proposed.json", test_tmpdir());
    cr_assert_eq(ea_baseline_record(out, p, &err), 0, "%s", err.msg);
    same_text(test_read(out), test_read(H200));
    release(4, p, r, a, b);
}

Test(gate, a_proposal_records_each_points_wall_seconds_once_and_keeps_recorded_ones)
{
    cJSON *a = committed(), *b = committed(), *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(a, "scopes")) /* the committed file records them */
        cJSON_DeleteItemFromObjectCaseSensitive(s, "point_wall_s");
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(b, "scopes")) {
        cJSON_DeleteItemFromObjectCaseSensitive(s, "point_wall_s");
        cJSON_AddNumberToObject(s, "point_wall_s", 2.5);
    }
    cJSON_AddNumberToObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), 0), "point_wall_s", 7.0);
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "scopes"));
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "SAME"), cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")));
    cr_assert_eq(ej_num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), 0), "point_wall_s"), 7.0,
                 "a recorded time stays");
    cr_assert_eq(ej_num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), n - 1), "point_wall_s"), 2.5);
    char want[64];
    snprintf(want, sizeof want, "took 0 entries and %d point times", n - 1);
    cr_assert(strstr(cJSON_GetObjectItemCaseSensitive(p, "command")->valuestring, want), "%s",
              cJSON_GetObjectItemCaseSensitive(p, "command")->valuestring);
    cJSON *again = ea_gate_propose(p, b, r); /* every point recorded: nothing more to take, the header stays */
    cr_assert(cJSON_Compare(again, p, 1));
    release(5, again, p, r, a, b);
}

/* A staged target's result its lowering could not capture is unsupported: nothing timed, no point_wall_s in the
 * schema. A proposal of another point (gate --scope) against a document that timed them all gives it none and
 * reads back. */
Test(gate, an_unsupported_result_takes_no_point_wall_seconds)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load("golden/targets/" TEST_TARGET "-histc_scatter/" EA_BASELINES_NAME, &d, &err), 0, "%s",
                 err.msg);
    cJSON *a = ej_doc_take_root(&d), *b = committed(), *s, *points = cJSON_CreateArray();
    int unsupported = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(a, "scopes")) {
        unsupported += cJSON_HasObjectItem(s, "unsupported");
        if (!strcmp(ej_text(s, "alias"), "densenet121-infer-7x7-k17"))
            cJSON_AddItemToArray(points, cJSON_CreateString(ej_text(s, "point")));
    }
    cr_assert_gt(unsupported, 0, "the staged target's routing results are unsupported");
    cr_assert_eq(cJSON_GetArraySize(points), 1);
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *r = ea_gate_compare("stored.json", a, "new.json", b, &rule, points, &err), *p;
    cr_assert_not_null(r, "%s", err.msg);
    p = ea_gate_propose(a, b, r);
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(p, "scopes"))
        cr_assert(!cJSON_HasObjectItem(s, "unsupported") || !cJSON_HasObjectItem(s, "point_wall_s"), "%s",
                  ej_text(s, "point"));
    cr_assert_eq(ea_baseline_validate("p.json", p, &err), 0, "%s", err.msg);
    release(5, p, r, a, b, points);
}

Test(gate, a_proposed_new_result_drops_its_points_unmeasured_entry)
{
    cJSON *a = committed(), *b = committed();
    const char *point = "fft_c2c-dd4e6e67403c"; /* listed unmeasured (a cuFFT call) */
    cJSON *added = cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), 0), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(added, "family", cJSON_CreateString("avgpool_backward"));
    cJSON_ReplaceItemInObjectCaseSensitive(added, "point", cJSON_CreateString(point));
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(b, "scopes"), added);
    int before = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "unmeasured"));
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r), *x;
    cr_assert_eq(count(r, "ADDED"), 1);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(p, "unmeasured");
    cr_assert_eq(cJSON_GetArraySize(u), before - 1, "only the measured point's entry goes");
    cJSON_ArrayForEach(x, u)
        cr_assert_str_neq(cJSON_GetObjectItemCaseSensitive(x, "point")->valuestring, point);
    release(4, p, r, a, b);
}

Test(gate, ten_percent_slower_is_a_regression_and_only_it_moves_in_the_proposal)
{
    cJSON *a, *b, *r = compare_scaled(&a, &b, 3, 1, 1.10);
    cr_assert_eq(count(r, "SLOWER"), 1);
    cr_assert_eq(ea_gate_exit(r), 1);
    const cJSON *e = first(r, "SLOWER");
    cr_assert_str_eq(field(e, "where"), "stored.json $.scopes[3].paths[1].time");
    cr_assert(strstr(field(e, "detail"), "10.0% slower"), "%s", field(e, "detail"));
    cJSON *p = ea_gate_propose(a, b, r);
    /* the moved path carries the new time; put the old one back and the rest is the stored document
     * but for the header's command, which names where the numbers came from */
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(p, 3, 1), "time"),
                            cJSON_GetObjectItemCaseSensitive(path_of(b, 3, 1), "time"), 1));
    cr_assert(strstr(cJSON_GetObjectItemCaseSensitive(p, "command")->valuestring, "gate --propose took 1 entries"));
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(p, 3, 1), "time",
                                           cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(path_of(a, 3, 1), "time"), 1));
    cJSON_ReplaceItemInObjectCaseSensitive(p, "command", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(a, "command"), 1));
    /* nothing derived is stored (fractions.h): with the old time back, the proposal is the stored document */
    same_text(cJSON_Print(p), cJSON_Print(a));
    release(4, p, r, a, b);
}

/* The first path of doc with a variant table: result *s, path *k. */
static void first_tuned(const cJSON *doc, int *s, int *k)
{
    *s = 0;
    for (const cJSON *r = cJSON_GetObjectItemCaseSensitive(doc, "scopes")->child; r; r = r->next, ++*s) {
        *k = 0;
        for (const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "paths")->child; p; p = p->next, ++*k)
            if (cJSON_HasObjectItem(p, "candidates"))
                return;
    }
    cr_assert_fail("a committed path with a variant table");
}

/* A tuned path's moved warm time comes with the variant table of the run that chose it; a cold time alone, not. */
Test(gate, a_taken_warm_time_takes_the_variant_table_it_was_kept_from)
{
    cJSON *a = committed(), *b = committed();
    int s, k;
    first_tuned(a, &s, &k);
    scale(b, s, k, "time", 0.8);
    scale(b, s, k, "time_cold", 0.8);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(path_of(b, s, k), "candidates"))
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "median_us"),
                             0.8 * cJSON_GetObjectItemCaseSensitive(c, "median_us")->valuedouble);
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(p, s, k), "candidates"),
                            cJSON_GetObjectItemCaseSensitive(path_of(b, s, k), "candidates"), 1),
              "the fresh table beside the fresh time");
    release(2, p, r);
    /* only the cold time moved: the warm time and its table stay the stored ones */
    cJSON *warm = committed();
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(b, s, k), "time",
                                           cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(path_of(warm, s, k), "time"), 1));
    r = compare(a, b);
    p = ea_gate_propose(a, b, r);
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(p, s, k), "candidates"),
                            cJSON_GetObjectItemCaseSensitive(path_of(a, s, k), "candidates"), 1));
    release(3, p, r, warm);
    /* a stored path that was not tuned, whose fresh one was: the moved time brings the table, the variant kept
     * and the kernels it ran */
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, s, k), "candidates");
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, s, k), "variant");
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, s, k), "unroll");
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(a, s, k), "kernels", cJSON_Parse("[\"untuned_kernel\"]"));
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, s, k), "kernel_launches");
    cJSON_AddStringToObject(path_of(a, s, k), "kernel_launches_note", "calls differed");
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(b, s, k), "kernel_launches");
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(b, s, k), "kernel_launches_note");
    cJSON_AddItemToObject(path_of(b, s, k), "kernel_launches", cJSON_Parse("[{\"name\": \"fresh_kernel\"}]"));
    scale(b, s, k, "time", 0.8);
    r = compare(a, b);
    p = ea_gate_propose(a, b, r);
    const char *const keys[] = {"candidates", "variant", "unroll", "kernels", "kernel_launches", NULL};
    for (const char *const *key = keys; *key; key++)
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(p, s, k), *key),
                                cJSON_GetObjectItemCaseSensitive(path_of(b, s, k), *key), 1),
                  "%s: the fresh one", *key);
    cr_assert_not(cJSON_HasObjectItem(path_of(p, s, k), "kernel_launches_note"), "the fresh path has none");
    release(2, p, r);
    /* a stored tuned path whose fresh one is not tuned (the family dropped its variants): the moved time drops
     * the stored table and variant */
    cJSON *tuned = committed();
    for (const char *const *key = (const char *const[]){"candidates", "variant", "unroll", NULL}; *key; key++)
        cJSON_DeleteItemFromObjectCaseSensitive(path_of(b, s, k), *key);
    scale(b, s, k, "time", 0.8);
    r = compare(tuned, b);
    p = ea_gate_propose(tuned, b, r);
    for (const char *const *key = (const char *const[]){"candidates", "variant", "unroll", NULL}; *key; key++)
        cr_assert_not(cJSON_HasObjectItem(path_of(p, s, k), *key), "%s: the stored one beside a time it did not give",
                      *key);
    release(5, p, r, a, b, tuned);
}

/* A time taken into a result brings the verdict its family's rule gives from the times the result then holds: the
 * cumsum oracle of GPT-2's position ids moved 2.67 -> 1.51 us on the H200 and the proposal kept "no material
 * headroom" beside it. A result the proposal takes nothing into keeps its verdict. */
Test(gate, a_taken_time_brings_the_familys_verdict)
{
    cJSON *a = committed(), *b = committed(), *s;
    int gpt2 = -1, oracle = -1, i = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(a, "scopes")) {
        if (gpt2 < 0 && !strcmp(ej_text(s, "alias"), "gpt2-seqcls"))
            gpt2 = i;
        i++;
    }
    cr_assert_geq(gpt2, 0);
    i = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"),
                                                                              gpt2), "paths")) {
        if (!strcmp(ej_text(s, "name"), "oracle"))
            oracle = i;
        i++;
    }
    cJSON *stored = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), gpt2);
    cr_assert_str_eq(ej_text(stored, "verdict"), "headroom");
    scale(a, gpt2, oracle, "time", 1.8); /* the stored oracle as slow as current: no material headroom */
    cJSON_ReplaceItemInObjectCaseSensitive(stored, "verdict", cJSON_CreateString("no_material_headroom"));
    /* the next result (the train graph's) moves nothing: its verdict, wrong as it is, is not the proposal's to fix */
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), gpt2 + 1),
                                           "verdict", cJSON_CreateString("no_material_headroom"));
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "FASTER"), 1);
    cr_assert_str_eq(ej_text(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), gpt2), "verdict"),
                     "headroom");
    cr_assert_str_eq(ej_text(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), gpt2 + 1), "verdict"),
                     "no_material_headroom");
    release(4, p, r, a, b);
}

Test(gate, ten_percent_faster_is_a_stale_golden)
{
    cJSON *a, *b, *r = compare_scaled(&a, &b, 0, 0, 0.90);
    cr_assert_eq(count(r, "FASTER"), 1);
    cr_assert(strstr(field(first(r, "FASTER"), "detail"), "stale golden"));
    cr_assert_eq(ea_gate_exit(r), 1);
    release(3, r, a, b);
}

Test(gate, a_noisy_new_path_is_noisy_not_same)
{
    cJSON *a = committed(), *b = committed();
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(b, 5, 0), "time");
    double m = cJSON_GetObjectItemCaseSensitive(t, "median_us")->valuedouble;
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q1_us"), m * 0.8);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q3_us"), m * 1.2);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "iqr_us"), m * 0.4);
    cJSON *r = compare(a, b);
    cr_assert_eq(count(r, "NOISY"), 1);
    cr_assert_str_eq(field(first(r, "NOISY"), "noisy"), "new");
    cr_assert_eq(ea_gate_exit(r), 1);
    cJSON *p = ea_gate_propose(a, b, r); /* a NOISY path is not taken */
    cr_assert(cJSON_Compare(p, a, 1));
    release(4, p, r, a, b);
}

Test(gate, a_path_margin_in_the_stored_document_wins)
{
    cJSON *a = committed(), *b = committed();
    cJSON_AddNumberToObject(path_of(a, 3, 1), "margin", 0.15);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("stored.json", a, &err), 0, "%s", err.msg);
    scale(b, 3, 1, "time", 1.10);
    cJSON *r = compare(a, b);
    cr_assert_eq(ea_gate_exit(r), 0);
    release(3, r, a, b);
}

Test(gate, class_change_failed_result_missing_and_added_points)
{
    cJSON *a = committed(), *b = committed();
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(s0, "class", cJSON_CreateString("lowered"));
    cJSON_ReplaceItemInObjectCaseSensitive(s0, "passed", cJSON_CreateFalse());
    cJSON_AddStringToObject(s0, "failure", "oracle: 3 elements unwritten");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(b, "scopes"), 1);
    cJSON *r = compare(a, b);
    cr_assert(strstr(field(first(r, "CLASS"), "detail"), "class conditional_fallback -> lowered"),
              "%s", field(first(r, "CLASS"), "detail"));
    cr_assert(strstr(field(first(r, "FAILED"), "detail"), "3 elements unwritten"));
    cr_assert_eq(count(r, "MISSING"), 1);
    cr_assert_str_eq(field(first(r, "MISSING"), "where"), "stored.json $.scopes[1]");
    cr_assert_eq(count(r, "ADDED"), 0);
    cJSON *back = compare(b, a); /* the other way round the point is new */
    cr_assert_eq(count(back, "ADDED"), 1);
    cr_assert_str_eq(field(first(back, "ADDED"), "where"), "new.json $.scopes[1]");
    cJSON *p = ea_gate_propose(b, a, back);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "scopes")),
                 cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "scopes")));
    release(5, p, back, r, a, b);
}

/* A point its family refused (no class, no paths) on one side: one UNSUPPORTED entry naming the reason,
 * and the proposal takes the whole measured result in its place. */
Test(gate, an_unsupported_point_is_one_entry_and_the_proposal_takes_the_whole_result)
{
    cJSON *a = committed(), *b = committed();
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(b, "scopes"), *s0 = cJSON_GetArrayItem(scopes, 0);
    cJSON *u = cJSON_CreateObject();
    static const char *const keep[] = {"family", "point", "alias", "occurrences", "scope_ids"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        cJSON_AddItemToObject(u, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(s0, keep[i]), 1));
    cJSON_AddStringToObject(u, "unsupported", "no capture of this shape");
    cJSON_AddFalseToObject(u, "passed");
    cJSON_ReplaceItemInArray(scopes, 0, u);
    cJSON *r = compare(b, a); /* stored unsupported, measured now */
    cr_assert_eq(count(r, "UNSUPPORTED"), 1);
    cr_assert(strstr(field(first(r, "UNSUPPORTED"), "detail"), "supported now, was unsupported: no capture"));
    cr_assert_eq(count(r, "CLASS") + count(r, "ADDED") + count(r, "MISSING"), 0);
    cr_assert_eq(ea_gate_exit(r), 1);
    cJSON *p = ea_gate_propose(b, a, r);
    cr_assert(cJSON_Compare(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), 0),
                            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), 0), 1));
    cJSON *back = compare(a, b), *same = compare(b, b);
    cr_assert(strstr(field(first(back, "UNSUPPORTED"), "detail"), "unsupported now: no capture of this shape"));
    cr_assert_eq(count(same, "UNSUPPORTED"), 0, "still unsupported for the same reason: nothing moved");
    release(6, p, r, back, same, a, b);
}

Test(gate, a_missing_and_an_added_path)
{
    cJSON *a = committed(), *b = committed();
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(b, 0, 1), "name", cJSON_CreateString("oracle_new"));
    cJSON *r = compare(a, b);
    cr_assert_eq(count(r, "MISSING"), 1);
    cr_assert_eq(count(r, "ADDED"), 1);
    cr_assert_str_eq(field(first(r, "ADDED"), "path"), "oracle_new");
    cJSON *p = ea_gate_propose(a, b, r);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), 0), "paths")),
                 cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), 0), "paths")) + 1);
    release(4, p, r, a, b);
}

/* The measured floor (floor_path.h) is the yardstick, not what the gate guards: its addition and its moves, warm and
 * cold, are reported, measured again and proposed, but hold no gate (exit, JUnit failures), while a floor that fails
 * its check fails its result, which gates, and a path of another name with the floor's mode gates as any. */
Test(gate, the_measured_floors_moves_are_reported_and_proposed_but_gate_nothing)
{
    cJSON *a = committed(), *b = committed();
    cJSON *fl = cJSON_Duplicate(path_of(b, 0, 1), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(fl, "name", cJSON_CreateString(EA_PATH_FLOOR));
    cJSON_ReplaceItemInObjectCaseSensitive(fl, "mode", cJSON_CreateString(EA_PATH_FLOOR_MODE));
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), 0),
                                                          "paths"), fl);
    cJSON *r = compare(a, b);
    cr_assert_eq(count(r, "ADDED"), 1);
    cr_assert(!ea_gate_entry_holds(first(r, "ADDED")) && ea_gate_exit(r) == 0, "a new floor gates nothing");
    char *md = ea_gate_markdown(r), *xml = ea_gate_junit(r);
    cr_assert(strstr(md, "ADDED 1; not gated: 1 entry of the measured floor") &&
              strstr(md, "| ADDED | index_add |") && strstr(md, "| SAME | every gated path |"), "%s", md);
    cr_assert(strstr(xml, "failures=\"0\"") && strstr(xml, "<system-out>ADDED: "), "%.600s", xml);
    free(md), free(xml);
    cJSON *p = ea_gate_propose(a, b, r), *q = cJSON_Duplicate(p, 1);
    cr_assert_not_null(ea_path_named(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), 0), EA_PATH_FLOOR,
                                     EA_PATH_FLOOR_MODE), "proposed whole");
    cJSON_Delete(r);
    int last = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(q, "scopes"), 0), "paths")) - 1;
    scale(q, 0, last, "time", 1.2);
    scale(q, 0, last, "time_cold", 0.8);
    r = compare(p, q);
    cr_assert(count(r, "SLOWER") == 1 && count(r, "FASTER") == 1, "warm and cold");
    cr_assert_str_eq(field(first(r, "FASTER"), "mode"), "floor/cold");
    cr_assert(strstr(field(first(r, "FASTER"), "detail"), "the measured floor moved (the yardstick: reported, not gated)"),
              "no stale golden to commit: %s", field(first(r, "FASTER"), "detail"));
    cJSON *again = ea_gate_unsettled_points(r);
    cr_assert(ea_gate_exit(r) == 0 && cJSON_GetArraySize(again) == 1, "a moved floor: measured again, not gated");
    cJSON_Delete(again);
    /* the same move on a path of another name that claims the floor's mode gates */
    cJSON *odd = cJSON_Duplicate(p, 1), *odd_q = cJSON_Duplicate(q, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(odd, 0, last), "name", cJSON_CreateString("oracle_floorlike"));
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(odd_q, 0, last), "name", cJSON_CreateString("oracle_floorlike"));
    cJSON *odd_r = compare(odd, odd_q);
    cr_assert_eq(ea_gate_exit(odd_r), 1);
    release(3, odd_r, odd, odd_q);
    cJSON_Delete(r);
    /* a cold time on the fresh side alone: ADDED floor/cold, not gated */
    cJSON *warm_only = cJSON_Duplicate(p, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(warm_only, 0, last), "time_cold");
    r = compare(warm_only, p);
    cr_assert(count(r, "ADDED") == 1 && !strcmp(field(first(r, "ADDED"), "mode"), "floor/cold") && ea_gate_exit(r) == 0);
    release(2, r, warm_only);
    /* what the runner makes of a floor that fails its check (kit.c) */
    cJSON_ReplaceItemInObjectCaseSensitive(path_of(q, 0, last), "passed", cJSON_CreateFalse());
    cJSON *q0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(q, "scopes"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(q0, "passed", cJSON_CreateFalse());
    cJSON_AddStringToObject(q0, "failure", EA_PATH_FLOOR " failed its check");
    r = compare(p, q);
    cr_assert_eq(count(r, "FAILED"), 1, "%s", cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "summary")));
    cr_assert(ea_gate_entry_holds(first(r, "FAILED")) && ea_gate_exit(r) == 1, "a floor that failed its check gates");
    release(5, r, p, q, a, b);
}

Test(gate, another_gpu_model_is_refused)
{
    cJSON *a = committed(), *b = committed();
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "gpu"), "model", cJSON_CreateString("B200"));
    ea_error err;
    ea_drift_rule rule = ea_drift_default_rule(0);
    cr_assert_null(ea_gate_compare("stored.json", a, "new.json", b, &rule, NULL, &err));
    cr_assert(strstr(err.msg, "stored.json $.gpu.model is \"H200\" and new.json $.gpu.model \"B200\": refused"), "%s",
              err.msg);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* The cold-cache timing another family adds: judged as its own entry when both sides carry it. */
Test(gate, time_cold_is_a_separate_entry_when_both_sides_have_it)
{
    cJSON *a = golden_warm(), *b = golden_warm();
    for (int i = 0; i < 2; i++) {
        cJSON *p = path_of(i ? b : a, 2, 0);
        cJSON_AddItemToObject(p, "time_cold", cold_of(p));
    }
    cJSON *p1 = path_of(a, 2, 1);
    cJSON_AddItemToObject(p1, "time_cold", cold_of(p1));
    ea_error err;
    cr_assert_eq(ea_baseline_validate("stored.json", a, &err), 0, "%s", err.msg);
    scale(b, 2, 0, "time_cold", 1.2);
    cJSON *r = compare(a, b);
    const cJSON *e = first(r, "SLOWER");
    cr_assert_str_eq(field(e, "mode"), "faithful/cold");
    cr_assert_str_eq(field(e, "where"), "stored.json $.scopes[2].paths[0].time_cold");
    cr_assert_eq(count(r, "SLOWER"), 1);
    int paths = 0; /* one side only (path 1): reported, test below */
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(a, "scopes"))
        paths += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "paths"));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")), paths + 2);
    cr_assert_eq(count(r, "MISSING"), 1);
    cJSON *prop = ea_gate_propose(a, b, r);
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(prop, 2, 0), "time_cold"),
                            cJSON_GetObjectItemCaseSensitive(path_of(b, 2, 0), "time_cold"), 1));
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(path_of(prop, 2, 0), "time"),
                            cJSON_GetObjectItemCaseSensitive(path_of(a, 2, 0), "time"), 1));
    release(4, prop, r, a, b);
}

/* Cold numbers differing in known ways, judged by the drift rule like warm ones: 10% faster is FASTER,
 * a wide new spread NOISY, and the warm times beside them stay SAME. */
Test(gate, cold_numbers_are_judged_like_warm_ones)
{
    cJSON *a = golden_warm(), *b = golden_warm();
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            cJSON *p = path_of(i ? b : a, 2, j);
            cJSON_AddItemToObject(p, "time_cold", cold_of(p));
        }
    scale(b, 2, 0, "time_cold", 0.9);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(b, 2, 1), "time_cold");
    double median = cJSON_GetObjectItemCaseSensitive(t, "median_us")->valuedouble;
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q1_us"), 0.8 * median);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q3_us"), 1.2 * median);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "iqr_us"), 0.4 * median);
    cJSON *r = compare(a, b);
    const cJSON *e = first(r, "FASTER");
    cr_assert_str_eq(field(e, "mode"), "faithful/cold");
    cr_assert_str_eq(field(e, "where"), "stored.json $.scopes[2].paths[0].time_cold");
    e = first(r, "NOISY");
    cr_assert_str_eq(field(e, "where"), "stored.json $.scopes[2].paths[1].time_cold");
    cr_assert_str_eq(field(e, "noisy"), "new");
    cr_assert_eq(count(r, "FASTER") + count(r, "NOISY"), 2);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")) - count(r, "SAME"), 2,
                 "every warm time and the other cold ones SAME");
    release(3, r, a, b);
}

/* Documents with and without cold times (files before cold timing, a run without CUPTI): a stored cold
 * time the new run lacks is MISSING with the run's reason; a new one is ADDED and --propose takes it,
 * every other byte as stored. */
Test(gate, cold_time_on_one_side_is_reported)
{
    cJSON *a = golden_warm(), *b = golden_warm(), *p = path_of(a, 2, 1);
    cJSON_AddItemToObject(p, "time_cold", cold_of(p));
    cJSON_AddStringToObject(path_of(b, 2, 1), "time_cold_note", "no cold time: CUPTI not found");
    cJSON *r = compare(a, b);
    const cJSON *e = first(r, "MISSING");
    cr_assert_str_eq(field(e, "mode"), "faithful/cold");
    cr_assert_str_eq(field(e, "where"), "stored.json $.scopes[2].paths[1].time_cold");
    cr_assert_str_eq(field(e, "detail"), "a stored cold time the new run does not have: no cold time: CUPTI not found");
    cr_assert_eq(count(r, "MISSING"), 1);
    cr_assert_eq(ea_gate_exit(r), 1);
    cJSON *prop = ea_gate_propose(a, b, r);
    cr_assert(cJSON_Compare(prop, a, 1), "a MISSING cold time keeps the stored one");
    release(3, prop, r, b);

    b = a, a = golden_warm(); /* now the new side has it */
    cJSON_AddStringToObject(path_of(a, 2, 1), "time_cold_note", "no cold time: CUPTI not found");
    r = compare(a, b);
    e = first(r, "ADDED");
    cr_assert_str_eq(field(e, "mode"), "faithful/cold");
    cr_assert_str_eq(field(e, "where"), "new.json $.scopes[2].paths[1].time_cold");
    cr_assert_eq(count(r, "ADDED"), 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")) - count(r, "SAME"), 1);
    prop = ea_gate_propose(a, b, r);
    cr_assert(strstr(cJSON_GetObjectItemCaseSensitive(prop, "command")->valuestring, "gate --propose took 1 entries"));
    cJSON_ReplaceItemInObjectCaseSensitive(prop, "command", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(b, "command"), 1));
    cr_assert(cJSON_Compare(prop, b, 1), "the proposal is the stored file with the new cold time, its note gone");
    char *pa = cJSON_Print(path_of(prop, 2, 0)), *pb = cJSON_Print(path_of(a, 2, 0));
    same_text(pa, pb);
    release(4, prop, r, a, b);
}

Test(gate, an_unreadable_time_is_invalid_and_hides_nothing_else)
{
    cJSON *a = committed(), *b = committed();
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(path_of(b, 4, 0), "time"),
                                                          "median_us"), 0);
    scale(b, 6, 0, "time", 1.10);
    cJSON *r = compare(a, b);
    cr_assert(strstr(field(first(r, "INVALID"), "detail"), "new.json $.scopes[4].paths[0].time.median_us: expected a positive"),
              "%s", field(first(r, "INVALID"), "detail"));
    cr_assert_eq(count(r, "SLOWER"), 1);
    cr_assert_eq(ea_gate_exit(r), 2);
    release(3, r, a, b);
}

Test(gate, table_and_markdown_name_what_moved)
{
    cJSON *a, *b, *r = compare_scaled(&a, &b, 3, 1, 1.10);
    char *md = ea_gate_markdown(r), *buf = NULL;
    size_t n = 0;
    cr_assert(strstr(md, "### extern-audit gate: SAME "));
    cr_assert(strstr(md, "| SLOWER | routing_histc | histc-5eac6acf8c20 | 0 | oracle | faithful | "), "%s", md);
    cr_assert(strstr(md, "us: 10.0% slower, tolerance 5.0%"), "%s", md);
    FILE *f = open_memstream(&buf, &n);
    cJSON_AddNumberToObject(r, "remeasurements", 1); /* as --run records it */
    ea_gate_print(r, f);
    fclose(f);
    cr_assert(strstr(buf, "measured again 1 time(s)"), "%s", buf);
    cr_assert(strstr(buf, "SLOWER   routing_histc histc-5eac6acf8c20 #0 oracle faithful"), "%s", buf);
    cr_assert(strstr(buf, "SLOWER 1"), "%s", buf);
    free(md);
    free(buf);
    cJSON_Delete(r);
    cr_assert_eq(ea_gate_exit(r = compare(a, a)), 0);
    cr_assert(strstr(md = ea_gate_markdown(r), "| SAME | every path |"));
    free(md);
    release(3, r, a, b);
}

/* The document's "unmeasured" list (the committed file has one: the points not captured yet), made when absent. */
static cJSON *unmeasured_of(cJSON *doc)
{
    cJSON *u = cJSON_GetObjectItemCaseSensitive(doc, "unmeasured");
    return u ? u : cJSON_AddArrayToObject(doc, "unmeasured");
}

Test(gate, reader_refuses_a_bad_margin_time_cold_or_unmeasured_entry)
{
    cJSON *a = golden_warm();
    ea_error err;
    cJSON_AddNumberToObject(path_of(a, 0, 0), "margin", 1.5);
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.scopes[0].paths[0].margin: expected a relative margin in (0, 1), got 1.5"), "%s",
              err.msg);
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, 0, 0), "margin");
    cJSON_AddItemToObject(path_of(a, 0, 0), "time_cold", cJSON_CreateObject());
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.scopes[0].paths[0].time_cold"), "%s", err.msg);
    cJSON_DeleteItemFromObjectCaseSensitive(path_of(a, 0, 0), "time_cold");
    cJSON *u = unmeasured_of(a), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "point", "cat-0");
    cJSON_InsertItemInArray(u, 0, e);
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.unmeasured[0]"), "%s", err.msg);
    cJSON_AddStringToObject(e, "reason", "needs a B200");
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1, "a sentence is no reason id");
    cr_assert(strstr(err.msg, "b.json $.unmeasured[0].reason: expected a reason id (src/measure/prose.c; a sentence is "
                              "no id), got \"needs a B200\""), "%s", err.msg);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "reason", cJSON_CreateString("fft_library"));
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), 0, "%s", err.msg);
    /* the header's run policy is its numbers: schema 2's sentence is a key schema 3 does not know */
    cJSON_AddStringToObject(a, "cache_policy", "warm: 3 calls back to back per CUDA graph replay");
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1);
    cr_assert(strstr(err.msg, "b.json $: unknown key 'cache_policy'"), "%s", err.msg);
    cJSON_DeleteItemFromObjectCaseSensitive(a, "cache_policy");
    cJSON_ReplaceItemInObjectCaseSensitive(a, "replays", cJSON_CreateNumber(0));
    cr_assert_eq(ea_baseline_validate("b.json", a, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.replays"), "%s", err.msg);
    cJSON_Delete(a);
}

static void load_occurrences(cJSON *docs[EA_AUDIT_OPS])
{
    ea_error err;
    cr_assert_eq(ea_occurrences_load("golden/occurrences", docs, &err), 0, "%s", err.msg);
}

/* CI's check: every golden point has a result in every committed baselines file, or is listed there as
 * unmeasured with the reason. */
Test(gate, every_golden_point_is_in_every_committed_baselines_file)
{
    cJSON *docs[EA_AUDIT_OPS];
    load_occurrences(docs);
    ea_target *ts;
    int n, files = 0;
    ea_error err;
    cr_assert_eq(ea_targets_list("golden", &ts, &n, &err), 0, "%s", err.msg);
    for (int t = 0; t < n; t++) {
        char file[4400];
        ej_doc doc;
        ea_tf_path(ts[t].dir, EA_TF_BASELINES, file, sizeof file);
        if (access(file, F_OK) != 0) /* a target not measured yet */
            continue;
        cr_assert_eq(ej_load(file, &doc, &err), 0, "%s", err.msg);
        cr_assert_eq(ea_baseline_validate(file, doc.root, &err), 0, "%s", err.msg);
        cJSON *missing = ea_gate_uncovered(docs, doc.root);
        char *list = cJSON_PrintUnformatted(missing);
        cr_expect_eq(cJSON_GetArraySize(missing), 0,
                     "%s: no result and no \"unmeasured\" entry with a reason for the golden points %s", file, list);
        free(list);
        cJSON_Delete(missing);
        ej_free(&doc);
        files++;
    }
    free(ts);
    cr_assert_gt(files, 0, "no committed baselines.json in golden/targets");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

Test(gate, uncovered_points_are_named_and_an_unmeasured_reason_covers_them)
{
    cJSON *docs[EA_AUDIT_OPS], *a = committed();
    load_occurrences(docs);
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(a, "scopes");
    char point[64];
    snprintf(point, sizeof point, "%s", cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes, 0), "point")->valuestring);
    cJSON_DeleteItemFromArray(scopes, 0);
    cJSON *missing = ea_gate_uncovered(docs, a);
    cr_assert_eq(cJSON_GetArraySize(missing), 1);
    cr_assert_str_eq(cJSON_GetArrayItem(missing, 0)->valuestring, point);
    cJSON_Delete(missing);
    cJSON *u = unmeasured_of(a), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "point", point);
    cJSON_AddStringToObject(e, "reason", "");
    cJSON_AddItemToArray(u, e);
    missing = ea_gate_uncovered(docs, a);
    cr_assert_eq(cJSON_GetArraySize(missing), 1, "an empty reason is no reason");
    cJSON_Delete(missing);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "reason", cJSON_CreateString("avgpool_backward_not_recorded"));
    missing = ea_gate_uncovered(docs, a);
    cr_assert_eq(cJSON_GetArraySize(missing), 0);
    cJSON_Delete(missing);
    cJSON_Delete(a);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

/* A move is measured again before it stands: a SLOWER and a FASTER path name their points, a SAME
 * document names none. */
Test(gate, moved_paths_are_measured_again_before_their_verdict_stands)
{
    cJSON *a = committed(), *b = committed();
    cJSON *same = compare(a, b), *none = ea_gate_unsettled_points(same);
    cr_assert_eq(cJSON_GetArraySize(none), 0, "nothing moved, nothing to measure again");
    const int moved[2] = {0, 5};
    const double factor[2] = {1.3, 0.7};
    for (int i = 0; i < 2; i++) {
        cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(b, moved[i], 0), "time");
        for (const char *const *k = (const char *const[]){"median_us", "q1_us", "q3_us", "iqr_us", NULL}; *k; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(t, *k);
            cJSON_SetNumberValue(v, v->valuedouble * factor[i]);
        }
    }
    cJSON *r = compare(a, b), *ids = ea_gate_unsettled_points(r);
    cr_assert_eq(cJSON_GetArraySize(ids), 2, "%s", cJSON_PrintUnformatted(ids));
    for (int i = 0; i < 2; i++) {
        const char *point = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), moved[i]), "point")->valuestring;
        cr_assert_str_eq(cJSON_GetArrayItem(ids, i)->valuestring, point);
    }
    release(6, same, none, r, ids, a, b);
}

/* --run's re-measurement on the CPU: the NOISY point's results replaced, in order, by a clean measurement. */
Test(gate, a_remeasured_noisy_point_takes_its_new_results_in_order)
{
    cJSON *a = committed(), *b = committed(), *again = cJSON_CreateObject();
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(b, "scopes"), *x;
    /* the routing point has four results; its third is too noisy in the new run */
    int third = -1, k = 0, i = 0;
    cJSON_ArrayForEach(x, scopes) {
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(x, "family")->valuestring, "routing_histc") && k++ == 2)
            third = i;
        i++;
    }
    cr_assert_geq(third, 0);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(path_of(b, third, 0), "time");
    double m = cJSON_GetObjectItemCaseSensitive(t, "median_us")->valuedouble;
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q1_us"), m * 0.8);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "q3_us"), m * 1.2);
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "iqr_us"), m * 0.4);
    cJSON *r = compare(a, b), *ids = ea_gate_unsettled_points(r);
    cr_assert_eq(cJSON_GetArraySize(ids), 1);
    const char *point = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(scopes, third), "point")->valuestring;
    cr_assert_str_eq(cJSON_GetArrayItem(ids, 0)->valuestring, point);
    cJSON *noisy_stored = compare(b, a), *none = ea_gate_unsettled_points(noisy_stored); /* stored side: no re-measuring */
    cr_assert_eq(cJSON_GetArraySize(none), 0);
    /* the new measurement of that point: the committed results, in their order */
    cJSON *res = cJSON_AddArrayToObject(again, "scopes");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(a, "scopes"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(x, "point")->valuestring, point))
            cJSON_AddItemToArray(res, cJSON_Duplicate(x, 1));
    cr_assert_eq(cJSON_GetArraySize(res), 4);
    ea_gate_splice(b, again);
    cr_assert_eq(cJSON_GetArraySize(res), 0);
    cr_assert(cJSON_Compare(a, b, 1), "the spliced document is the committed one again");
    release(7, r, ids, noisy_stored, none, again, a, b);
}

/* A proposal that moved a cat oracle's time re-derives the speedup; the verdict, an id, is kept as it was and its
 * sentence, rendered when printed (prose.h), quotes the new speedup: no code edits a stored sentence. */
Test(gate, a_proposal_keeps_the_verdict_id_and_its_sentence_quotes_the_new_speedup)
{
    cJSON *a = committed(), *b = committed();
    int k = 0, cat = -1;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(a, "scopes")) {
        if (cat < 0 && !strcmp(field(x, "family"), "cat"))
            cat = k;
        k++;
    }
    cr_assert_geq(cat, 0);
    scale(b, cat, 1, "time", 0.5); /* the oracle twice as fast */
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    const cJSON *was = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), cat),
                *now = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), cat);
    char want[64], text[256];
    ea_figures fw, fn;
    ea_result_figures(was, &fw);
    ea_result_figures(now, &fn);
    snprintf(want, sizeof want, "speedup %.2fx over the current path", fn.speedup);
    cr_assert_float_eq(fn.speedup, 2 * fw.speedup, 1e-9);
    cr_assert_str_eq(field(now, "verdict"), "fused_kernel");
    cr_assert_str_eq(field(was, "verdict"), "fused_kernel");
    ea_verdict_text(now, text, sizeof text);
    cr_assert(!strncmp(text, want, strlen(want)), "%s, wanted %s", text, want);
    release(4, p, r, a, b);
}

static int result_of(const cJSON *doc, const char *family)
{
    int i = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "family")), family))
            return i;
        i++;
    }
    cr_assert_fail("no %s result", family);
    return -1;
}

static cJSON *config_of(cJSON *doc, int scope)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), scope),
                                            "config");
}

/* A result whose plan changed (another note id, a key added) is one CONFIG entry naming where, with both
 * values; no time moved, yet the gate fails, and the proposal takes the new plan and nothing else. A reworded
 * note is no change at all: the plan holds its id (test_routing.c, test_prose.c). */
Test(gate, a_changed_plan_is_config_and_the_proposal_takes_it)
{
    cJSON *a = committed(), *b = committed();
    int s = result_of(b, "avgpool_backward");
    cJSON *notes = cJSON_GetObjectItemCaseSensitive(config_of(b, s), "notes");
    cJSON_ReplaceItemInArray(notes, 1, cJSON_CreateString("no_capture_unsupported"));
    cJSON *r = compare(a, b);
    cr_assert_eq(count(r, "CONFIG"), 1);
    const char *d = field(first(r, "CONFIG"), "detail");
    cr_assert(strstr(d, "first at $.config.notes[1]: \"avgpool_aten_atomic\""), "%s", d);
    cr_assert(strstr(d, "-> \"no_capture_unsupported\""), "%s", d);
    cr_assert_eq(ea_gate_exit(r), 1);
    cJSON *p = ea_gate_propose(a, b, r);
    cr_assert(cJSON_Compare(config_of(p, s), config_of(b, s), 1));
    cJSON_DeleteItemFromObjectCaseSensitive(p, "command");
    cJSON_DeleteItemFromObjectCaseSensitive(b, "command");
    cr_assert(cJSON_Compare(p, b, 1), "nothing but the plan and the command moved");
    cJSON_AddNumberToObject(config_of(b, s), "extra", 1); /* a key only the new plan has */
    cJSON *r2 = compare(a, b);
    cr_assert(strstr(field(first(r2, "CONFIG"), "detail"), "first at $.config.notes[1]"), "the first in order");
    cJSON_ReplaceItemInArray(notes, 1, cJSON_Duplicate(cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(config_of(a, s), "notes"), 1), 1));
    cJSON *r3 = compare(a, b);
    cr_assert(strstr(field(first(r3, "CONFIG"), "detail"), "first at $.config.extra: (none) -> 1"),
              "%s", field(first(r3, "CONFIG"), "detail"));
    cJSON *r4 = compare(b, a);
    cr_assert(strstr(field(first(r4, "CONFIG"), "detail"), "first at $.config.extra: 1 -> (none)"),
              "%s", field(first(r4, "CONFIG"), "detail"));
    release(7, r, r2, r3, r4, p, a, b);
}

/* The fidelity is the current path's warm times against torch's, a ratio per mode: taken when every one of
 * them was, kept when only another path (the oracle) or one mode of two moved. */
Test(gate, a_taken_current_time_takes_its_fidelity)
{
    cJSON *a = committed(), *b = committed();
    int s = result_of(b, "avgpool_backward");
    cJSON *rb = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), s);
    cJSON_ReplaceItemInObjectCaseSensitive(rb, "fidelity", cJSON_CreateString("the new run's"));
    scale(b, s, 1, "time", 1.2); /* the oracle */
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "SLOWER"), 1);
    cr_assert_not(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), s), "fidelity")));
    scale(b, s, 0, "time", 1.2); /* the current path */
    cJSON *r2 = compare(a, b), *p2 = ea_gate_propose(a, b, r2);
    cr_assert_eq(count(r2, "SLOWER"), 2);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p2, "scopes"), s), "fidelity")),
                     "the new run's");
    release(6, r, p, r2, p2, a, b);
}

static int path_named(cJSON *doc, int scope, const char *name, const char *mode)
{
    int j = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"),
                                                                              scope), "paths")) {
        if (!strcmp(field(p, "name"), name) && !strcmp(field(p, "mode"), mode))
            return j;
        j++;
    }
    cr_assert_fail("no %s %s path", name, mode);
    return -1;
}

Test(gate, one_mode_of_two_moved_keeps_the_fidelity)
{
    cJSON *a = committed(), *b = committed();
    int s = result_of(b, "index_add");
    cJSON *rb = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "scopes"), s);
    cJSON_ReplaceItemInObjectCaseSensitive(rb, "fidelity", cJSON_CreateString("the new run's"));
    scale(b, s, path_named(b, s, "current", "fabricated"), "time", 1.2);
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cr_assert_eq(count(r, "SLOWER"), 1, "one mode moved");
    cr_assert_not(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), s), "fidelity")),
        "the faithful ratio would quote a time the proposal does not hold");
    scale(b, s, path_named(b, s, "current", "faithful"), "time", 1.2);
    cJSON *r2 = compare(a, b), *p2 = ea_gate_propose(a, b, r2);
    cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p2, "scopes"), s), "fidelity")));
    release(6, r, p, r2, p2, a, b);
}

/* A new plan with other floor bytes brings the floor it derives (at the stored run's bandwidth and launch)
 * and the fractions against it; a long string's difference past what a detail shows is shown in a window. */
Test(gate, a_plan_with_other_floor_bytes_rederives_the_floor_and_a_late_difference_is_in_view)
{
    cJSON *a = committed(), *b = committed();
    int s = result_of(b, "avgpool_backward");
    cJSON *cfg = config_of(b, s), *fl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), s), "floor");
    double bytes = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cfg, "floor_bytes"));
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(cfg, "floor_bytes"), bytes / 2);
    cJSON *r = compare(a, b), *p = ea_gate_propose(a, b, r);
    cJSON *rp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "scopes"), s);
    const cJSON *flp = cJSON_GetObjectItemCaseSensitive(rp, "floor");
    double bw = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fl, "bytes_per_s"));
    double launch = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fl, "launch_us"));
    ea_figures fp, fa;
    ea_result_figures(rp, &fp);
    ea_result_figures(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "scopes"), s), &fa);
    cr_assert(cJSON_Compare(flp, fl, 1), "the floor keeps the stored run's rate");
    cr_assert_float_eq(fp.bytes, bytes / 2, 1e-9);
    cr_assert_float_eq(fp.floor_us, bytes / 2 / bw * 1e6 + launch, 1e-9);
    cr_assert_neq(fp.floor_fraction, fa.floor_fraction, "the fraction follows the floor");

    cJSON *a2 = committed(), *b2 = committed();
    char late[301]; /* a configuration string longer than a detail shows */
    memset(late, 'x', 300);
    late[300] = '\0';
    cJSON_AddStringToObject(config_of(a2, s), "long", late);
    late[297] = '#';
    cJSON_AddStringToObject(config_of(b2, s), "long", late);
    cJSON *r2 = compare(a2, b2);
    const char *d = field(first(r2, "CONFIG"), "detail");
    cr_assert(strstr(d, "#"), "the differing byte is in view: %s", d);
    cr_assert(strstr(d, ": \"...") || strstr(d, ": ..."), "what is left out is marked: %s", d);
    release(7, r, p, r2, a, b, a2, b2);
}
