/* run / replay --keep-from on the CPU: a partial measurement (the fixture target's results, edited as a
 * new run would give them) made whole with the fixture target's documents: the measured entries replaced,
 * every other one printing as it was read, the merge a target that golden diff compares and golden accept
 * takes; a base that lacks a point, a base of another GPU model and a replay base that leaves a capture
 * without a row are refused naming the file and what is missing; a file that does not read is refused alike by
 * both commands (ea_keep_from), their measurement left as it was. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "helpers.h"
#include "base/json.h"
#include "gate/keep_from.h"
#include "corpus/occurrences.h"
#include "target/replay_file.h"
#include "target_fixture.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))
#define XL_POINT "index_add-fcf4e79883c4"
#define BASE "base/baselines.json"

static cJSON *docs[EA_AUDIT_OPS];

static void load_docs(void)
{
    ea_error err;
    cr_assert_eq(ea_occurrences_load(FIXTURE_GOLDEN "/occurrences", docs, &err), 0, "%s", err.msg);
}

static void free_docs(void)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

TestSuite(keep_from, .init = load_docs, .fini = free_docs);

static void scale(cJSON *t, double f)
{
    static const char *const keys[] = {"median_us", "q1_us", "q3_us", "iqr_us"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(t, keys[k]);
        cJSON_SetNumberValue(v, v->valuedouble * f);
    }
}

/* A run of point alone: base's header and that point's results, their warm times scaled by f. */
static cJSON *run_of(const cJSON *base, const char *point, double f)
{
    cJSON *fresh = cJSON_Duplicate(base, 1), *scopes = cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), *r, *next, *p;
    for (r = scopes->child; r; r = next) {
        next = r->next;
        if (strcmp(ej_str(r, "point"), point))
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes, r));
    }
    cr_assert_gt(cJSON_GetArraySize(scopes), 0);
    cJSON_ArrayForEach(r, scopes)
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths"))
            scale(cJSON_GetObjectItemCaseSensitive(p, "time"), f);
    cJSON_ReplaceItemInObjectCaseSensitive(fresh, "command", cJSON_CreateString("extern-audit run --scope " XL_POINT));
    return fresh;
}

static char *printed(const cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    cr_assert_not_null(s);
    return s;
}

Test(keep_from, the_measured_point_is_replaced_and_every_other_result_prints_as_read)
{
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1.5);
    ea_error err;
    cJSON *u = cJSON_AddArrayToObject(base, "unmeasured"), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "point", XL_POINT); /* measured now: its reason goes */
    cJSON_AddStringToObject(e, "reason", "avgpool_backward_not_recorded");
    cJSON_AddItemToArray(u, e);
    cJSON *whole = ea_baselines_keep_from(BASE, base, fresh, docs, &err);
    cr_assert_not_null(whole, "%s", err.msg);
    cr_assert_eq(ea_baseline_validate("merged", whole, &err), 0, "%s", err.msg);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(whole, "unmeasured"));
    const cJSON *scopes = cJSON_GetObjectItemCaseSensitive(whole, "scopes"), *r;
    cr_assert_eq(cJSON_GetArraySize(scopes), cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(base, "scopes")));
    int i = 0, replaced = 0;
    cJSON_ArrayForEach(r, scopes) {
        const cJSON *was = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(base, "scopes"), i++);
        const cJSON *want = was;
        if (!strcmp(ej_str(r, "point"), XL_POINT))
            want = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), replaced++);
        char *a = printed(r), *b = printed(want);
        cr_assert_str_eq(a, b, "result %d is not the %s one", i - 1, want == was ? "base's" : "new run's");
        free(a);
        free(b);
    }
    cr_assert_gt(replaced, 0);
    has(ej_str(whole, "command"), "extern-audit run --scope " XL_POINT " (1 points; every other result kept from " BASE);
    /* a failed new result fails the document */
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fresh, "scopes"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(first, "passed", cJSON_CreateFalse());
    cJSON_AddStringToObject(first, "failure", "a check failed");
    cJSON *failed = ea_baselines_keep_from(BASE, base, fresh, docs, &err);
    cr_assert_not_null(failed, "%s", err.msg);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(failed, "passed")));
    cJSON_Delete(failed);
    cJSON_Delete(whole);
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

/* A configuration more in the new run follows the point's last result; one fewer drops the base's extra. */
Test(keep_from, a_point_with_more_or_fewer_configurations_takes_exactly_the_new_ones)
{
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 2);
    ea_error err;
    cJSON *fs = cJSON_GetObjectItemCaseSensitive(fresh, "scopes");
    int n = cJSON_GetArraySize(fs), total = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(base, "scopes"));
    cJSON_AddItemToArray(fs, cJSON_Duplicate(cJSON_GetArrayItem(fs, 0), 1));
    cJSON *more = ea_baselines_keep_from(BASE, base, fresh, docs, &err);
    cr_assert_not_null(more, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(more, "scopes")), total + 1);
    int k = 0, last = -1, first = -1;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(more, "scopes")) {
        if (!strcmp(ej_str(r, "point"), XL_POINT)) {
            first = first < 0 ? k : first;
            last = k;
        }
        k++;
    }
    cr_assert_eq(last - first, n, "the point's %d results sit together", n + 1);
    /* the base now has the extra result; a run with the original count drops it */
    cJSON *again = run_of(base, XL_POINT, 3), *fewer = ea_baselines_keep_from(BASE, more, again, docs, &err);
    cr_assert_not_null(fewer, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(fewer, "scopes")), total);
    cJSON_Delete(fewer);
    cJSON_Delete(again);
    cJSON_Delete(more);
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

/* fresh merges into base (both then freed). */
static void merges(cJSON *base, cJSON *fresh)
{
    ea_error err;
    cJSON *whole = ea_baselines_keep_from(BASE, base, fresh, docs, &err);
    cr_assert_not_null(whole, "%s", err.msg);
    cJSON_Delete(whole);
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

Test(keep_from, a_base_without_a_point_the_run_did_not_measure_is_refused)
{
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1);
    cJSON *scopes = cJSON_GetObjectItemCaseSensitive(base, "scopes"), *r, *next;
    for (r = scopes->child; r; r = next) {
        next = r->next;
        if (!strcmp(ej_str(r, "point"), CAT_POINT))
            cJSON_Delete(cJSON_DetachItemViaPointer(scopes, r));
    }
    ea_error err;
    cr_assert_null(ea_baselines_keep_from(BASE, base, fresh, docs, &err));
    has(err.msg, BASE " $.scopes");
    has(err.msg, CAT_POINT);
    has(err.msg, "did not measure");
    /* listed unmeasured with a reason, the point is accounted for */
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "point", CAT_POINT);
    cJSON_AddStringToObject(e, "reason", "avgpool_backward_not_recorded");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(base, "unmeasured"), e);
    merges(base, fresh);
}

Test(keep_from, a_base_of_another_gpu_model_is_refused)
{
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(base, "gpu"), "model",
                                           cJSON_CreateString("B200"));
    ea_error err;
    cr_assert_null(ea_baselines_keep_from(BASE, base, fresh, docs, &err));
    has(err.msg, BASE " $.gpu.model: expected this run's GPU model H200, got B200");
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

Test(keep_from, a_base_of_another_torch_driver_or_toolkit_is_refused)
{
    static const char *const keys[] = {"torch", "driver", "toolkit"};
    for (int i = 0; i < 3; i++) {
        cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1);
        char want[64], msg[256];
        snprintf(want, sizeof want, "%s", cJSON_GetObjectItemCaseSensitive(fresh, keys[i])->valuestring);
        cJSON_ReplaceItemInObjectCaseSensitive(base, keys[i], cJSON_CreateString("0.0-other"));
        ea_error err;
        cr_assert_null(ea_baselines_keep_from(BASE, base, fresh, docs, &err), "%s", keys[i]);
        snprintf(msg, sizeof msg, BASE " $.%s: expected this run's %s %s, got 0.0-other", keys[i], keys[i], want);
        has(err.msg, msg);
        cJSON_Delete(fresh);
        cJSON_Delete(base);
    }
    /* a run whose points were all unsupported read no torch op timing: it names no torch and merges */
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(fresh, "torch", cJSON_CreateNull());
    merges(base, fresh);
}

/* The merge in a stage (the fixture target copied): golden diff sees the one point's times moved and
 * nothing else; golden accept installs it. */
Test(keep_from, a_merged_stage_is_diffed_and_accepted)
{
    const char *stage = target_copy("stage"), *golden = target_golden();
    cJSON *base = target_load(FIXTURE_TARGET, "baselines.json"), *fresh = run_of(base, XL_POINT, 1.5);
    ea_error err;
    cJSON *whole = ea_baselines_keep_from(BASE, base, fresh, docs, &err);
    cr_assert_not_null(whole, "%s", err.msg);
    target_save(stage, "baselines.json", whole);
    cli_run r = test_cli("golden", "diff", FIXTURE_TARGET, stage, "--golden", FIXTURE_GOLDEN, "--json", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cJSON *report = cJSON_Parse(r.out), *c;
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "changes")), 0);
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "changes")) {
        cr_assert_str_eq(ej_str(c, "kind"), "timing");
        cr_assert_str_eq(ej_str(c, "point"), XL_POINT);
        cr_assert_str_eq(ej_str(c, "status"), "SLOWER");
    }
    cJSON_Delete(report);
    cli_run_free(&r);
    r = test_cli("golden", "accept", stage, "--golden", golden, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

static cJSON *row_of(const cJSON *rows, const char *scope)
{
    cJSON *x;
    cJSON_ArrayForEach(x, rows)
        if (!strcmp(ej_str(x, "scope"), scope))
            return x;
    return NULL;
}

Test(keep_from, a_replayed_capture_replaces_its_row_and_the_others_print_as_read)
{
    cJSON *base = target_load(FIXTURE_TARGET, "replay.json"), *fresh = cJSON_CreateArray();
    cJSON *row = cJSON_Duplicate(row_of(base, XL_SCOPE), 1);
    cr_assert_not_null(row);
    cJSON_ReplaceItemInObjectCaseSensitive(row, "verdict", cJSON_CreateString("kernels differ"));
    cJSON_AddItemToArray(fresh, row);
    ea_error err;
    ea_captures caps;
    cr_assert_eq(ea_captures_load_dir(FIXTURE_TARGET, &caps, &err), 0, "%s", err.msg);
    cJSON *whole = ea_replay_keep_from("base/replay.json", base, fresh, &caps, &err);
    cr_assert_not_null(whole, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(whole), cJSON_GetArraySize(base));
    const cJSON *x;
    int i = 0;
    cJSON_ArrayForEach(x, whole) {
        char *a = printed(x), *b = printed(strcmp(ej_str(x, "scope"), XL_SCOPE) ? cJSON_GetArrayItem(base, i) : row);
        cr_assert_str_eq(a, b);
        free(a);
        free(b);
        i++;
    }
    cJSON_Delete(whole);
    /* a base without the row of a capture this replay did not run leaves that capture unaccounted for */
    cJSON_DeleteItemFromArray(base, 0);
    cr_assert_null(ea_replay_keep_from("base/replay.json", base, fresh, &caps, &err));
    has(err.msg, "base/replay.json");
    has(err.msg, CAT_SCOPE);
    ea_captures_free(&caps);
    cJSON_Delete(fresh);
    cJSON_Delete(base);
}

Test(keep_from, run_refuses_keep_from_without_a_measurement_and_takes_a_list_of_scopes)
{
    const char *const refused[][6] = {
        {"all", "--keep-from", "x.json", "--keep-from completes measured baselines; --plan measures no time"},
        {"xlnet,,routing", NULL, NULL, "--scope xlnet,,routing: expected names separated by single commas"},
        {"nothing-like-this,xlnet", NULL, NULL, "--scope nothing-like-this: expected all, a family"},
        {"xlnet,", NULL, NULL, "--scope xlnet,: expected names separated by single commas, got a trailing comma"},
        {",xlnet", NULL, NULL, "--scope ,xlnet: expected names separated by single commas, got an empty name"},
    };
    cli_run r;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        r = test_cli("run", "--plan", "--scope", refused[i][0], refused[i][1], refused[i][2], NULL);
        cr_assert_eq(r.status, 2, "case %zu", i);
        has(r.err, refused[i][3]);
        cli_run_free(&r);
    }
    char longer[300]; /* a name of 256 bytes after one that resolves */
    snprintf(longer, sizeof longer, "xlnet,%0256d", 0);
    r = test_cli("run", "--plan", "--scope", longer, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "expected names separated by single commas, each under 256 bytes");
    cli_run_free(&r);
    /* two names, one point twice: each point once */
    r = test_cli("run", "--scope", "xlnet,routing,xlnet", "--plan", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *plans = cJSON_Parse(r.out), *p;
    int xlnet = 0, routing = 0;
    cJSON_ArrayForEach(p, plans) {
        xlnet += !strcmp(ej_str(p, "alias"), "xlnet");
        routing += !strcmp(ej_str(p, "alias"), "routing");
    }
    cr_assert_gt(xlnet, 0);
    cr_assert_gt(routing, 0);
    cli_run r1 = test_cli("run", "--scope", "xlnet", "--plan", "--json", NULL);
    cJSON *alone = cJSON_Parse(r1.out);
    int xlnet_alone = 0;
    cJSON_ArrayForEach(p, alone)
        xlnet_alone += !strcmp(ej_str(p, "alias"), "xlnet");
    cr_assert_eq(xlnet, xlnet_alone);
    cJSON_Delete(alone);
    cJSON_Delete(plans);
    cli_run_free(&r1);
    cli_run_free(&r);
}

/* replay --scope: each name of the list names a capture (one naming none would keep its stored row unnoticed
 * under --keep-from); checked before any device work, so a CPU machine gives the same message. */
Test(keep_from, replay_refuses_a_listed_name_without_a_capture)
{
    static const char *const refused[][2] = {
        {"index_add-a8e741bae3fe-d86ebce10336,nosuch", "no capture named nosuch in golden/targets/"},
        {"index_add-a8e741bae3fe-d86ebce10336,,x", "expected capture names separated by single commas, got an empty"},
        {"index_add-a8e741bae3fe-d86ebce10336,", "got an empty name"},
        {",index_add-a8e741bae3fe-d86ebce10336", "got an empty name"},
    };
    char why[512];
    if (test_gpu_without_target(why, sizeof why)) { /* replay measures: it refuses the machine before the names */
        cli_run r = test_cli("replay", "--scope", refused[0][0], NULL);
        cr_assert_eq(r.status, 2, "%s", r.err);
        has(r.err, "no target for this machine's ");
        cli_run_free(&r);
        cr_skip_test("%s", why);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        cli_run r = test_cli("replay", "--scope", refused[i][0], NULL);
        cr_assert_eq(r.status, 2, "case %zu: %s", i, r.err);
        has(r.err, refused[i][1]);
        cli_run_free(&r);
    }
}

static int merges_made;

/* A merger standing for either command's: the base itself, or NULL (err) when ctx says so. */
static cJSON *base_or_refused(const char *file, const cJSON *base, const cJSON *fresh, const void *refuse,
                              ea_error *err)
{
    merges_made++;
    if (refuse) {
        ea_fail(err, "%s: refused by the merger", file);
        return NULL;
    }
    return cJSON_Duplicate(base, 1);
}

/* run and replay --keep-from read the file the same way (ea_keep_from with their own reader): one that does not
 * read, or is not JSON, is refused with one message naming it whichever command reads it; one the command's reader
 * refuses is refused naming it; neither reaches the merger, and a failed merge leaves the measurement in place. */
Test(keep_from, run_and_replay_refuse_an_unreadable_file_alike_and_keep_their_measurement)
{
    const char *dir = test_tmpdir();
    char missing[4096], malformed[4096], rows[4096];
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    char *written[] = {test_write(dir, "bad.json", "{\"a\": "), test_write(dir, "replay.json", "[]")};
    snprintf(malformed, sizeof malformed, "%s", written[0]);
    snprintf(rows, sizeof rows, "%s", written[1]);
    free(written[0]);
    free(written[1]);
    static ea_keep_validate *const readers[] = {ea_baseline_validate, ea_replay_file_validate};
    const char *const files[] = {missing, malformed};
    char first[2][sizeof(ea_error)];
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++) {
            cJSON *doc = cJSON_CreateArray(), *was = doc;
            ea_error err;
            merges_made = 0;
            cr_assert_eq(ea_keep_from(files[f], readers[c], base_or_refused, NULL, &doc, &err), -1);
            cr_assert_eq(strncmp(err.msg, files[f], strlen(files[f])), 0, "%s", err.msg);
            if (c == 0)
                snprintf(first[f], sizeof first[f], "%s", err.msg);
            else
                cr_assert_str_eq(err.msg, first[f], "run and replay say it alike");
            cr_assert_eq(doc, was);
            cr_assert_eq(merges_made, 0);
            cJSON_Delete(doc);
        }
    has(first[0], "cannot read");
    /* a replay.json is no baselines document: run's reader names the file */
    cJSON *doc = cJSON_CreateObject(), *was = doc;
    ea_error err;
    cr_assert_eq(ea_keep_from(rows, ea_baseline_validate, base_or_refused, NULL, &doc, &err), -1);
    cr_assert_eq(strncmp(err.msg, rows, strlen(rows)), 0, "%s", err.msg);
    cr_assert_eq(doc, was);
    /* replay's reader takes it; the merger's refusal keeps the measurement, its acceptance replaces it */
    cr_assert_eq(ea_keep_from(rows, ea_replay_file_validate, base_or_refused, "refuse", &doc, &err), -1);
    has(err.msg, "refused by the merger");
    cr_assert_eq(doc, was);
    cr_assert_eq(ea_keep_from(rows, ea_replay_file_validate, base_or_refused, NULL, &doc, &err), 0, "%s", err.msg);
    cr_assert(cJSON_IsArray(doc));
    cr_assert_eq(merges_made, 2);
    cJSON_Delete(doc);
}
