/* The launch floor (measure/launch_floor.h) on the host: its record in a baselines document read back strictly, the
 * floor fractions of launch-bound scopes against bytes + launches, gate --propose carrying a fresh one, and the
 * rollup's table of them. The chains themselves are timed on a GPU (run; gpu/launch_floor_chains). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "gate/gate.h"
#include "gate/keep_from.h"
#include "helpers.h"
#include "measure/baseline.h"
#include "measure/drift.h"
#include "measure/launch_floor.h"
#include "measure/path.h"
#include "report/report.h"
#include "report/rollup.h"
#include "target/target_layout.h"

#define H200 "golden/targets/" TEST_TARGET "/" EA_BASELINES_NAME

static const double warm[4] = {0.5, 1.0, 1.5, 2.0}, cold[4] = {1.0, 1.6, 2.2, NAN};

/* The committed baselines without their launch floor, as a run before the floor was measured wrote them. */
static cJSON *without_floor(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON *doc = ej_doc_take_root(&d);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "launch_floor");
    return doc;
}

/* The committed baselines with a launch floor of four chains (the last without a cold time) in place of theirs. */
static cJSON *with_floor(void)
{
    cJSON *doc = without_floor();
    cJSON_AddItemToObject(doc, "launch_floor", ea_launch_floor_json(warm, cold, 4, "no cold time: no CUPTI here"));
    return doc;
}

static const cJSON *scope_of(const cJSON *fractions, const char *alias)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(fractions, "scopes"))
        if (!strcmp(ej_str(s, "alias"), alias))
            return s;
    return NULL;
}

/* The chains of doc's launch floor. */
static cJSON *chains_of(cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "launch_floor"), "chains");
}

Test(launch_floor, a_recorded_launch_floor_reads_back_and_a_malformed_one_names_its_json_path)
{
    cJSON *doc = with_floor();
    ea_error err;
    cr_assert_eq(ea_baseline_validate("b.json", doc, &err), 0, "%s", err.msg);
    const struct {
        const char *key;
        cJSON *value;
        int chain;
        const char *expect;
    } bad[] = {
        {"kernels", cJSON_CreateNumber(3), 1, "b.json $.launch_floor.chains[1].kernels: expected 2 (the chains of 1, 2, ..."},
        {"warm_us", cJSON_CreateNumber(0), 0, "b.json $.launch_floor.chains[0].warm_us: expected a positive time below 1e9 us, got 0"},
        {"warm_us", cJSON_CreateNumber(2e9), 1, "$.launch_floor.chains[1].warm_us: expected a positive time below 1e9 us, got 2e+09"},
        {"warm_us", cJSON_CreateString("1"), 1, "$.launch_floor.chains[1].warm_us"},
        {"cold_note", NULL, 3, "$.launch_floor.chains[3].cold_note: expected why there is no cold time"},
        {"cold_note", cJSON_CreateNumber(1), 3, "$.launch_floor.chains[3].cold_note"},
        {"cold_note", cJSON_CreateString("x"), 0, "$.launch_floor.chains[0].cold_note: expected none beside a cold time"},
        {"cold_us", cJSON_CreateNumber(-1), 2, "$.launch_floor.chains[2].cold_us: expected a positive time below 1e9 us or null"},
        {"cold_us", NULL, 2, "$.launch_floor.chains[2]"},
        {"extra", cJSON_CreateTrue(), 0, "$.launch_floor.chains[0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *copy = cJSON_Duplicate(doc, 1), *c = cJSON_GetArrayItem(chains_of(copy), bad[i].chain);
        cJSON_DeleteItemFromObjectCaseSensitive(c, bad[i].key);
        if (bad[i].value)
            cJSON_AddItemToObject(c, bad[i].key, bad[i].value);
        cr_assert_eq(ea_baseline_validate("b.json", copy, &err), -1, "accepted with %s changed", bad[i].key);
        cr_assert(strstr(err.msg, bad[i].expect), "expected '%s' in: %s", bad[i].expect, err.msg);
        cJSON_Delete(copy);
    }
    /* the record holds numbers, no sentence (baselines v2): a method text is refused, so are no chains at all */
    cJSON *copy = cJSON_Duplicate(doc, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(copy, "launch_floor"), "method", "k empty kernels");
    cr_assert_eq(ea_baseline_validate("b.json", copy, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.launch_floor") && strstr(err.msg, "method"), "%s", err.msg);
    cJSON_ReplaceItemInObjectCaseSensitive(copy, "launch_floor", ea_launch_floor_json(warm, cold, 0, NULL));
    cr_assert_eq(ea_baseline_validate("b.json", copy, &err), -1);
    cr_assert(strstr(err.msg, "b.json $.launch_floor.chains: expected at least the chain of one kernel"), "%s", err.msg);
    cJSON_Delete(copy);
    cJSON_Delete(doc);
}

Test(launch_floor, a_launch_bound_scope_gets_its_floor_from_its_bytes_and_its_own_kernel_count)
{
    cJSON *doc = with_floor(), *f = ea_launch_floor_fractions(doc);
    /* OPT's const scope: 64 KiB written (0.015 us at copy bandwidth), one kernel each way */
    const cJSON *opt = scope_of(f, "opt-infer");
    cr_assert(opt, "OPT's scope is launch-bound");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(opt, "oracle"), *c = cJSON_GetObjectItemCaseSensitive(opt, "current");
    double transfer = ej_num(opt, "transfer_us");
    cr_assert(transfer > 0 && transfer < 0.5);
    cr_assert_eq(ej_num(o, "kernels"), 1);
    cr_assert_float_eq(ej_num(o, "floor_us"), transfer + 0.5, 1e-12);
    cr_assert_float_eq(ej_num(o, "fraction"), (transfer + 0.5) / ej_num(o, "us"), 1e-12);
    cr_assert_float_eq(ej_num(o, "fraction_cold"), (transfer + 1.0) / ej_num(o, "cold_us"), 1e-12);
    cr_assert_eq(ej_num(c, "kernels"), 1);
    /* the measured floor's path: one copy kernel, against the same bytes + one launch */
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(opt, "floor_copy");
    cr_assert_eq(ej_num(m, "kernels"), 1);
    const cJSON *r, *copy = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        if (!strcmp(ej_text(r, "alias"), "opt-infer"))
            copy = ea_path_named(r, "floor_copy", "floor");
    cr_assert(copy && ej_num(m, "us") == ea_path_median(copy));
    cr_assert_float_eq(ej_num(m, "fraction"), (transfer + 0.5) / ea_path_median(copy), 1e-12);
    cr_assert_float_eq(ej_num(m, "fraction_cold"), (transfer + 1.0) / ea_path_median_cold(copy), 1e-12);
    /* DistilGPT2's current path launches two kernels: its floor is the chain of two */
    const cJSON *gpt = scope_of(f, "distilgpt2");
    cr_assert(gpt);
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(gpt, "current");
    cr_assert_eq(ej_num(gc, "kernels"), 2);
    cr_assert_float_eq(ej_num(gc, "floor_cold_us"), ej_num(gpt, "transfer_us") + 1.6, 1e-12);
    /* routing's current path runs 8 operations a call (its cold time's count), more than the 4 chains: no floor */
    const cJSON *routing = scope_of(f, "routing");
    cr_assert(routing);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(routing, "current"),
                                                            "launch_us")));
    /* XLNet's index_add moves 94 us of bytes: not launch-bound */
    cr_assert_null(scope_of(f, "xlnet"));
    cJSON_Delete(f);
    cJSON_Delete(doc);
}

Test(launch_floor, without_a_recorded_launch_floor_the_fractions_say_so)
{
    cJSON *doc = without_floor(), *f = ea_launch_floor_fractions(doc);
    cr_assert(strstr(ej_text(f, "note"), "no launch floor in the baselines"));
    cJSON_Delete(f);
    cJSON_Delete(doc);
}

Test(launch_floor, gate_propose_carries_a_fresh_launch_floor_into_the_stored_document)
{
    ea_error err;
    cJSON *stored = without_floor(), *fresh = with_floor();
    ea_drift_rule rule = ea_drift_default_rule(0);
    cJSON *r = ea_gate_compare("stored.json", stored, "new.json", fresh, &rule, NULL, &err);
    cr_assert_not_null(r, "%s", err.msg);
    cJSON *p = ea_gate_propose(stored, fresh, r);
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(p, "launch_floor"),
                            cJSON_GetObjectItemCaseSensitive(fresh, "launch_floor"), 1));
    cr_assert(strstr(ej_text(p, "command"), "took 0 entries and the launch floor"), "%s", ej_text(p, "command"));
    cr_assert_eq(ea_baseline_validate("p.json", p, &err), 0, "%s", err.msg);
    /* in the header where a run writes it, right after launch_us */
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(p, "launch_us")->next->string, "launch_floor");
    /* proposed again with the same floor, and with a fresh run that has none: nothing taken, the command as read */
    cJSON *again = ea_gate_propose(p, fresh, r), *none = ea_gate_propose(stored, stored, r);
    cr_assert_str_eq(ej_text(again, "command"), ej_text(p, "command"));
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(none, "launch_floor"));
    cr_assert_str_eq(ej_text(none, "command"), ej_text(stored, "command"));
    cJSON_Delete(again);
    cJSON_Delete(none);
    cJSON_Delete(p);
    cJSON_Delete(r);
    cJSON_Delete(fresh);
    cJSON_Delete(stored);
}

/* A floor measured again within the gate's margin keeps its bytes (a golden diff shows nothing); one chain's warm
 * or cold time beyond it, or a cold time on one side only, and the fresh floor is taken. */
Test(launch_floor, gate_propose_takes_a_fresh_launch_floor_only_where_it_moved_beyond_the_margin)
{
    ea_error err;
    ea_drift_rule rule = ea_drift_default_rule(0); /* margin 5% */
    cJSON *stored = with_floor();
    const struct {
        int chain;
        const char *key;
        double x; /* the fresh time over the stored one; 0: a cold time where the stored chain has none */
        int taken;
    } cases[] = {{0, "warm_us", 1.04, 0}, {2, "cold_us", 0.96, 0}, {0, "warm_us", 1.06, 1}, {2, "cold_us", 0.94, 1},
                 {3, "cold_us", 0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *fresh = with_floor(), *c = cJSON_GetArrayItem(chains_of(fresh), cases[i].chain);
        if (cases[i].x) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(c, cases[i].key);
            cJSON_SetNumberValue(t, t->valuedouble * cases[i].x);
        } else {
            cJSON_DeleteItemFromObjectCaseSensitive(c, "cold_note");
            cJSON_ReplaceItemInObjectCaseSensitive(c, "cold_us", cJSON_CreateNumber(2.9));
        }
        cr_assert_eq(ea_launch_floor_moved(stored, fresh, rule.margin), cases[i].taken, "case %zu", i);
        cJSON *r = ea_gate_compare("stored.json", stored, "new.json", fresh, &rule, NULL, &err);
        cr_assert_not_null(r, "%s", err.msg);
        cJSON *p = ea_gate_propose(stored, fresh, r);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(cases[i].taken ? fresh : stored, "launch_floor");
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(p, "launch_floor"), want, 1), "case %zu", i);
        /* the header says what was taken: the stored command as read, else with this proposal's clause appended */
        const char *was = ej_text(stored, "command"), *now = ej_text(p, "command");
        if (cases[i].taken)
            cr_assert(!strncmp(now, was, strlen(was)) && strstr(now + strlen(was), "took 0 entries and the launch floor"),
                      "case %zu: %s", i, now + strlen(was));
        else
            cr_assert_str_eq(now, was, "case %zu", i);
        cJSON_Delete(p);
        cJSON_Delete(r);
        cJSON_Delete(fresh);
    }
    /* a fresh document without a floor moves nothing */
    cJSON *none = without_floor();
    cr_assert_eq(ea_launch_floor_moved(stored, none, rule.margin), 0);
    cJSON_Delete(none);
    cJSON_Delete(stored);
}

/* run --keep-from: a partial run's launch floor is that run's measurement, so the merged document holds it. */
Test(launch_floor, a_partial_run_merged_into_its_base_keeps_the_runs_launch_floor)
{
    ej_doc d;
    ea_error err;
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS];
    char buf[EA_AUDIT_OPS][128];
    test_golden_docs(docs, files, buf);
    cr_assert_eq(ej_load(H200, &d, &err), 0, "%s", err.msg);
    cJSON *fresh = with_floor(), *scopes = cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), *r, *next;
    for (r = scopes->child; r; r = next) { /* a run of the cumsum family alone */
        next = r->next;
        if (strcmp(ej_str(r, "family"), "cumsum"))
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes, r));
    }
    cJSON *whole = ea_baselines_keep_from(H200, d.root, fresh, docs, &err);
    cr_assert_not_null(whole, "%s", err.msg);
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(whole, "launch_floor"),
                            cJSON_GetObjectItemCaseSensitive(fresh, "launch_floor"), 1));
    cr_assert_eq(ea_baseline_validate("merged", whole, &err), 0, "%s", err.msg);
    cJSON_Delete(whole);
    cJSON_Delete(fresh);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    ej_free(&d);
}

/* The last two cells of alias's row in text's launch-bound table, in a and b (a row ends its line). */
static void last_cells(const char *text, const char *alias, char *a, char *b)
{
    const char *t = strstr(text, "Launch-bound scopes"), *row = t ? strstr(t, alias) : NULL;
    cr_assert_not_null(row, "%s has a row", alias);
    const char *end = strchr(row, '\n');
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(end ? end - row : (long)strlen(row)), row);
    char *last = strrchr(line, ' ');
    cr_assert_not_null(last);
    snprintf(b, 32, "%s", last + 1);
    while (last > line && last[-1] == ' ')
        last--;
    *last = 0;
    snprintf(a, 32, "%s", strrchr(line, ' ') + 1);
}

Test(launch_floor, the_rollup_lists_launch_bound_scopes_against_bytes_and_launches)
{
    ea_rollup_opts o = {"golden", NULL, TEST_TARGET};
    cJSON *doc = NULL, *b = without_floor();
    ea_error err;
    cr_assert_eq(ea_rollup_run(&o, &doc, &err), 0, "%s", err.msg);
    char *text = ea_report_text(doc, 3);
    cr_assert(strstr(text, "Launch-bound scopes: the oracle against bytes + launches") && strstr(text, "opt-infer") &&
                  strstr(text, "copy floor% cold"),
              "the committed launch floor lists them, with the measured floor's fraction: %s", text);
    /* the last two cells: the measured floor's fractions, warm and cold; "-" where a scope has no floor_copy */
    const cJSON *opt = scope_of(cJSON_GetObjectItemCaseSensitive(doc, "launch_floor"), "opt-infer");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(opt, "floor_copy");
    char a[32], c[32], want[2][32];
    snprintf(want[0], sizeof want[0], "%.0f%%", 100 * ej_num(m, "fraction"));
    snprintf(want[1], sizeof want[1], "%.0f%%", 100 * ej_num(m, "fraction_cold"));
    last_cells(text, "opt-infer", a, c);
    cr_assert(!strcmp(a, want[0]) && !strcmp(c, want[1]), "opt-infer: %s %s, want %s %s", a, c, want[0], want[1]);
    free(text);
    cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)opt, "floor_copy");
    text = ea_report_text(doc, 3);
    last_cells(text, "opt-infer", a, c);
    cr_assert(!strcmp(a, "-") && !strcmp(c, "-"), "no floor_copy path: %s %s", a, c);
    free(text);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "launch_floor", ea_launch_floor_fractions(b));
    text = ea_report_text(doc, 3);
    cr_assert_null(strstr(text, "Launch-bound scopes"), "no table without a recorded launch floor");
    cr_assert(strstr(ej_text(cJSON_GetObjectItemCaseSensitive(doc, "launch_floor"), "note"), "no launch floor"));
    free(text);
    cJSON_Delete(doc);
    cJSON_Delete(b);
}

/* On a GPU: the chains cost more the longer they are, warm, as dependent graph nodes do; cold they have a time or
 * say why not. */
Test(gpu, launch_floor_chains)
{
    test_skip_without_gpu();
    double warm_us[3], cold_us[3];
    char note[512] = "";
    ea_error err;
    cr_assert_eq(ea_launch_floor_measure(warm_us, cold_us, 3, note, sizeof note, &err), 0, "%s", err.msg);
    cr_assert(warm_us[0] > 0 && warm_us[1] > warm_us[0] && warm_us[2] > warm_us[1], "%g %g %g us", warm_us[0],
              warm_us[1], warm_us[2]);
    for (int k = 0; k < 3; k++)
        cr_assert(cold_us[k] > 0 || (isnan(cold_us[k]) && strstr(note, "no cold time")), "chain %d: %g us cold (%s)",
                  k + 1, cold_us[k], note);
    cJSON *lf = ea_launch_floor_json(warm_us, cold_us, 3, note);
    ej_val v = {"measured", lf, "$.launch_floor"};
    cr_assert_eq(ea_launch_floor_validate(v, &err), 0, "%s", err.msg);
    cJSON_Delete(lf);
}
