/* The baselines schema 2 -> 3 migration (golden/baseline_migrate.h): what a result derives or copies is dropped only
 * once it is what its source gives, every time kept as read; and `golden migrate`, the one command that rewrites
 * every target's file, or none. The fixture is six results of the committed H200 file as schema 2 held them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "golden/baseline_migrate.h"
#include "helpers.h"
#include "measure/baseline.h"
#include "measure/fractions.h"
#include "measure/launch_floor.h"
#include "measure/prose.h"
#include "target/torch_ops.h"

#define V2 "tests/fixtures/baselines_v2/baselines.json"
#define OPS "golden/targets/" TEST_TARGET "/torch_ops.json"
#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* The fixture's results, in its order. */
enum { IA, ROUTING, MASK, PACKED, CAT, AVGPOOL, RESULTS };

static cJSON *v2(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(V2, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

static void load_ops(ea_torch_ops *t)
{
    ea_error err;
    cr_assert_eq(ea_torch_ops_load(OPS, "H200", t, &err), 0, "%s", err.msg);
}

/* The node at a '/'-separated path of doc ("scopes/0/floor"), NULL when there is none. */
static cJSON *at(cJSON *doc, const char *path)
{
    cJSON *parent;
    char last[64];
    return test_walk(doc, path, &parent, last, sizeof last);
}

/* doc with the node at path replaced by value (JSON text), or deleted (value NULL). */
static void edit(cJSON *doc, const char *path, const char *value)
{
    cJSON *parent, *repl = value ? cJSON_Parse(value) : NULL;
    char last[64];
    cJSON *node = test_walk(doc, path, &parent, last, sizeof last);
    cr_assert(node && parent && (!value || repl), "%s = %s", path, value ? value : "(deleted)");
    if (repl && cJSON_IsArray(parent))
        cJSON_ReplaceItemViaPointer(parent, node, repl);
    else if (repl) /* the key is the slot's: ReplaceItemViaPointer would leave repl unnamed */
        cJSON_ReplaceItemInObjectCaseSensitive(parent, last, repl);
    else
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, node));
}

/* a prints as text does, parsed. */
static int same_as(const cJSON *a, const char *text)
{
    cJSON *b = cJSON_Parse(text);
    int same = b && ej_same_text(a, b);
    cJSON_Delete(b);
    return same;
}

/* A figure schema 2 stored against the one schema 3 derives: the migration's 1e-12. */
static void derived(double stored, double now, const char *what, int i)
{
    cr_assert(fabs(stored - now) <= 1e-12 * fabs(stored), "$.scopes[%d] %s: stored %.17g, derived %.17g", i, what, stored,
              now);
}

Test(migrate, a_v2_document_keeps_every_time_and_drops_what_it_derives_or_copies)
{
    cJSON *was = v2();
    const double warm[2] = {2.1, 4.0}, cold[2] = {3.0, 5.5}; /* a run's launch floor: measured, kept as read */
    cJSON_AddItemToObject(was, "launch_floor", ea_launch_floor_json(warm, cold, 2, NULL));
    cJSON *d = cJSON_Duplicate(was, 1);
    ea_torch_ops ops;
    ea_error err;
    load_ops(&ops);
    cr_assert_eq(ea_baseline_migrate("v2.json", d, &ops, &err), 0, "%s", err.msg);
    cr_assert_eq(ej_num(d, "schema_version"), 3);
    cr_assert_eq(ea_baseline_validate("v2.json", d, &err), 0, "%s", err.msg);
    cr_assert(ej_same_text(at(was, "launch_floor"), at(d, "launch_floor")));
    static const char *const gone[] = {"speedup", "speedup_cold", "floor_fraction", "bandwidth_fraction",
                                       "fraction_basis"};
    for (int i = 0; i < RESULTS; i++) {
        cJSON *old = cJSON_GetArrayItem(cJSON_GetObjectItem(was, "scopes"), i);
        cJSON *now = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "scopes"), i), *p, *q;
        /* every time, warm and cold, and the point's wall seconds, as read */
        cr_assert(ej_same_text(cJSON_GetObjectItem(old, "point_wall_s"), cJSON_GetObjectItem(now, "point_wall_s")));
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(now, "paths")), cJSON_GetArraySize(cJSON_GetObjectItem(old, "paths")));
        for (p = cJSON_GetObjectItem(old, "paths")->child, q = cJSON_GetObjectItem(now, "paths")->child; p; p = p->next, q = q->next)
            cr_assert(ej_same_text(cJSON_GetObjectItem(p, "time"), cJSON_GetObjectItem(q, "time")) &&
                          ej_same_text(cJSON_GetObjectItem(p, "time_cold"), cJSON_GetObjectItem(q, "time_cold")),
                      "$.scopes[%d] %s %s", i, ej_text(p, "name"), ej_text(p, "mode"));
        /* what it derived is derived from what it kept, and not stored */
        const cJSON *fl = cJSON_GetObjectItem(old, "floor");
        ea_figures x;
        ea_result_figures(now, &x);
        derived(ej_num(fl, "bytes"), x.bytes, "floor.bytes", i);
        derived(ej_num(fl, "transfer_us"), x.transfer_us, "floor.transfer_us", i);
        derived(ej_num(fl, "us"), x.floor_us, "floor.us", i);
        derived(ej_num(old, "speedup"), x.speedup, "speedup", i);
        derived(ej_num(old, "speedup_cold"), x.speedup_cold, "speedup_cold", i);
        derived(ej_num(old, "floor_fraction"), x.floor_fraction, "floor_fraction", i);
        derived(ej_num(old, "bandwidth_fraction"), x.bandwidth_fraction, "bandwidth_fraction", i);
        cr_assert_eq(x.basis_cold, !strcmp(ej_text(old, "fraction_basis"), "time_cold"));
        for (size_t k = 0; k < sizeof gone / sizeof *gone; k++)
            cr_assert(!cJSON_HasObjectItem(now, gone[k]), "$.scopes[%d].%s stored", i, gone[k]);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(now, "floor")), 2, "the run's rate and launch alone");
        /* the torch-ops file's copies: gone; the ratios stay */
        const cJSON *t = at(now, "fidelity/torch_op");
        cr_assert(t && !cJSON_HasObjectItem(t, "file") && !cJSON_HasObjectItem(t, "torch") && !cJSON_HasObjectItem(t, "kernels"));
        cr_assert_null(at(now, "fidelity/replica_us"));
    }
    /* a mode torch timed keeps its ratio; one it did not is absent */
    cr_assert(same_as(at(d, "scopes/0/fidelity/torch_op/faithful"), "{\"ratio\":0.9969170939723233,\"within_tolerance\":true}"));
    cr_assert_null(at(d, "scopes/5/fidelity/torch_op/fabricated"));
    cr_assert_eq(cJSON_GetArraySize(at(d, "scopes/1/fidelity/torch_op")), 0, "routing: no torch mode");
    /* a check after timing equal to the first is "same"; one that differs stays */
    cr_assert_str_eq(cJSON_GetStringValue(at(d, "scopes/0/paths/0/check_after_timing")), "same");
    cr_assert(ej_same_text(at(d, "scopes/0/paths/3/check_after_timing"), at(was, "scopes/0/paths/3/check_after_timing")));
    /* the capture compared with: the configuration's where it names one, else the fidelity's own */
    char cap[256];
    cr_assert_null(at(d, "scopes/1/fidelity/capture"));
    cr_assert(ea_fidelity_capture(at(d, "scopes/1"), cap, sizeof cap));
    cr_assert_str_eq(cap, ej_str(at(was, "scopes/1/fidelity"), "capture"));
    cr_assert_str_eq(ej_str(at(d, "scopes/0/fidelity"), "capture"), ej_str(at(was, "scopes/0/fidelity"), "capture"));
    /* cat: its current launches are the capture's, its block figures view.c's, its emulation error the check */
    cr_assert_null(at(d, "scopes/4/config/current"));
    cr_assert_eq(ej_num(at(d, "scopes/4/config"), "current_launches"), 2);
    cr_assert(!at(d, "scopes/4/view/block") && !at(d, "scopes/4/view/launches") &&
              !at(d, "scopes/4/view/current_emulated/rel_l2") && at(d, "scopes/4/view/current_emulated/y_bit_exact_with_torch"));
    /* sentences: ids that render them, and the numbers they quoted */
    const struct {
        const char *path, *id;
    } terms[] = {{"scopes/1/config/form", "routing_form_whole"},        {"scopes/2/config/oracle/scan", "cumsum_scan_ballot"},
                 {"scopes/3/config/oracle/scan", "cumsum_scan_block"},  {"scopes/4/config/oracle/kind", "cat_oracle_stream"},
                 {"scopes/5/config/current/fill", "avgpool_fill_memset"}, {"scopes/5/config/oracle/launch", "avgpool_oracle_memcpy"},
                 {"scopes/0/config/oracle/staged/grid", "index_add_staged_grid"}};
    for (size_t k = 0; k < sizeof terms / sizeof *terms; k++) {
        cr_assert_str_eq(cJSON_GetStringValue(at(d, terms[k].path)), terms[k].id);
        cr_assert_str_eq(ea_note_text(terms[k].id), cJSON_GetStringValue(at(was, terms[k].path)), "%s", terms[k].id);
    }
    cr_assert(same_as(at(d, "scopes/0/config/producer"), "{\"scale\":0.125,\"escapes\":true}"));
    cr_assert(same_as(at(d, "scopes/2/config/inputs"), "{\"generator\":\"randint\",\"seed\":0,\"low\":0,\"high\":50265}"));
    cr_assert(cJSON_IsNull(at(d, "scopes/3/config/inputs")));
    cr_assert_eq(ej_num(at(d, "scopes/2/view/padded"), "pad_seed"), 20261130);
    cr_assert_null(at(d, "scopes/2/view/padded/generator"));
    /* the header's cache policy: the numbers it quoted, where it stood, rendering it back */
    char policy[640];
    cr_assert_null(at(d, "cache_policy"));
    cr_assert(ej_num(d, "calls_per_replay") == 3 && ej_num(d, "replays") == 30);
    cr_assert_str_eq(cJSON_GetObjectItem(d, "replays")->next->string, "warmup_ms");
    ea_run_policy_text(d, policy, sizeof policy);
    cr_assert_str_eq(policy, ej_str(was, "cache_policy"));
    /* a file of schema 3 is left alone */
    cJSON *again = cJSON_Duplicate(d, 1);
    cr_assert_eq(ea_baseline_migrate("v3.json", again, &ops, &err), 1);
    cr_assert(ej_same_text(again, d));
    cJSON_Delete(again), cJSON_Delete(d), cJSON_Delete(was);
    ea_torch_ops_free(&ops);
}

/* The schema-2 document with path set to value (NULL: deleted) and unset deleted: migrate refuses it, its message
 * in err. */
static void refused(const ea_torch_ops *ops, const char *path, const char *value, const char *unset, ea_error *err)
{
    cJSON *d = v2();
    edit(d, path, value);
    if (unset)
        edit(d, unset, NULL);
    cr_assert_eq(ea_baseline_migrate("v2.json", d, ops, err), -1, "%s = %s migrated", path, value ? value : "(deleted)");
    cJSON_Delete(d);
}

Test(migrate, a_v2_value_that_is_not_what_its_source_gives_is_refused_naming_its_json_path)
{
    const struct {
        const char *path, *value, *want;
    } bad[] = {
        {"scopes/0/speedup", "99", "$.scopes[0].speedup: expected what the result's times and floor give (schema 3 "
                                   "derives it when read), 6.5077713504788797, got 99"},
        {"scopes/0/speedup_cold", "99", "$.scopes[0].speedup_cold: expected what the result's times and floor give"},
        {"scopes/0/floor_fraction", "99", "$.scopes[0].floor_fraction: expected"},
        {"scopes/0/bandwidth_fraction", "99", "$.scopes[0].bandwidth_fraction: expected"},
        {"scopes/0/floor/bytes", "1", "$.scopes[0].floor.bytes: expected what the result's times and floor give"},
        {"scopes/0/floor/transfer_us", "99", "$.scopes[0].floor.transfer_us: expected"},
        {"scopes/0/floor/us", "99", "$.scopes[0].floor.us: expected"},
        {"scopes/0/fraction_basis", "\"time\"", "$.scopes[0].fraction_basis: expected what the oracle's times give, "
                                                "\"time_cold\", got \"time\""},
        {"scopes/0/fidelity/torch_op/faithful/torch_us", "700", "$.scopes[0].fidelity.torch_op.faithful.torch_us: "
                                                                "expected the torch-ops file's 711.66"},
        {"scopes/0/fidelity/torch_op/faithful/torch_us", "\"fast\"", "$.scopes[0].fidelity.torch_op.faithful.torch_us: "
                                                                    "expected a number, the torch-ops file's, 711.66"},
        {"scopes/0/fidelity/torch_op/fabricated/torch_q3_us", "700", "fidelity.torch_op.fabricated.torch_q3_us: expected "
                                                                     "the torch-ops file's"},
        {"scopes/0/fidelity/torch_op/fabricated/replica_us", "1", "$.scopes[0].fidelity.torch_op.fabricated.replica_us: "
                                                                  "expected the current path's median 771.35"},
        {"scopes/0/fidelity/torch_op/torch", "\"2.10.0\"", "$.scopes[0].fidelity.torch_op.torch: expected the torch-ops "
                                                           "file's build 2.11.0+cu130 (schema 3 reads it there), got 2.10.0"},
        {"scopes/0/fidelity/torch_op/kernels/1", "\"Memcpy HtoD\"", "$.scopes[0].fidelity.torch_op.kernels[1]: expected "
                                                                    "the torch-ops file's \"Memcpy DtoD\""},
        {"scopes/0/fidelity/torch_op/kernels/2", NULL, "$.scopes[0].fidelity.torch_op.kernels[2]: expected the torch-ops "
                                                       "file's"},
        {"scopes/5/fidelity/torch_op/faithful", "{\"note\": \"fidelity_no_torch_mode\"}",
         "$.scopes[5].fidelity.torch_op.faithful.note: expected a timed mode"},
        {"scopes/4/fidelity/replica_us", "1", "$.scopes[4].fidelity.replica_us: expected the current path's median"},
        {"scopes/4/view/launches/current", "3", "$.scopes[4].view.launches.current: expected the configuration's current_launches"},
        {"scopes/4/view/launches/oracle", "3", "$.scopes[4].view.launches.oracle: expected the configuration's oracle.launches"},
        {"scopes/4/view/current_emulated/rel_l2", "1", "$.scopes[4].view.current_emulated.rel_l2: expected the current path's check"},
        {"scopes/4/config/current/1", NULL, "$.scopes[4].config.current_launches: expected as many as config.current "
                                            "lists (the capture's default run: schema 3 reads it), 1, got 2"},
        {"scopes/2/config/inputs", "\"token ids from a file\"", "$.scopes[2].config.inputs: expected a schema-2 sentence "
                                                                "that schema 3 renders from ids and numbers"},
        {"scopes/2/view/padded/generator", "\"the capture's ids, padded\"",
         "$.scopes[2].view.padded.generator: expected a schema-2 sentence that schema 3 renders"},
        {"scopes/0/config/producer", "\"mul(x, 0.125) folded elsewhere\"", "$.scopes[0].config.producer: expected a "
                                                                           "schema-2 sentence"},
        {"cache_policy", "\"warm: 3 calls back to back per CUDA graph replay, 30 replays timed after 50 ms of warm-up; "
                         "the 60 MiB L2 keeps whatever of the call's data fits between calls\"",
         "$.cache_policy: expected a schema-2 sentence that schema 3 renders from ids and numbers, \"warm: 3 "
         "calls back to back per CUDA graph replay, 30 replays timed after 100 ms of warm-up;"},
        {"cache_policy", "\"warm: kept hot\"", "$.cache_policy: expected a schema-2 sentence that schema 3 renders"},
        {"scopes/1/config/form", "\"a form no id renders\"", "$.scopes[1].config.form: expected a schema-2 sentence that "
                                                             "schema 3 renders from ids and numbers, \"(a term of "
                                                             "src/measure/prose.c)\", got \"a form no id renders\""},
    };
    ea_torch_ops ops;
    load_ops(&ops);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ea_error err;
        refused(&ops, bad[i].path, bad[i].value, NULL, &err);
        cr_assert(!strncmp(err.msg, "v2.json $.", 10), "%s", err.msg);
        has(err.msg, bad[i].want);
    }
    ea_torch_ops_free(&ops);
}

/* A figure schema 3 derives, stored as anything but a number (null alone for one nothing derives: cJSON prints a NaN
 * so), is refused naming the file, its JSON path and what it should be; before, it read as NaN, and where the source
 * gave NaN too it was dropped unread. */
Test(migrate, a_figure_stored_as_anything_but_a_number_is_refused_naming_its_json_path)
{
    const struct {
        const char *path, *value, *unset, *want;
    } bad[] = {
        {"scopes/0/speedup", "\"fast\"", NULL, "v2.json $.scopes[0].speedup: expected a number, what the result's "
         "times and floor give (schema 3 derives it when read), 6.5077713504788797, got \"fast\""},
        {"scopes/0/floor/us", "{\"us\": 1}", NULL, "v2.json $.scopes[0].floor.us: expected a number, what the result's "
         "times and floor give (schema 3 derives it when read), 94.347772214592496, got {\"us\":1}"},
        {"scopes/4/view/launches/oracle", "\"one\"", "scopes/4/config/oracle/launches", "v2.json "
         "$.scopes[4].view.launches.oracle: expected a number, the configuration's oracle.launches (schema 3 reads it "
         "there), nan, got \"one\""},
        {"scopes/4/view/launches/oracle", "null", NULL, "v2.json $.scopes[4].view.launches.oracle: expected a number, "
         "the configuration's oracle.launches (schema 3 reads it there), 1, got null"},
    };
    ea_torch_ops ops;
    load_ops(&ops);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ea_error err;
        refused(&ops, bad[i].path, bad[i].value, bad[i].unset, &err);
        cr_assert_str_eq(err.msg, bad[i].want);
    }
    /* null where the source gives NaN: what schema 2 wrote for it */
    cJSON *d = v2();
    ea_error err;
    edit(d, "scopes/4/view/launches/oracle", "null");
    edit(d, "scopes/4/config/oracle/launches", NULL);
    cr_assert_eq(ea_baseline_migrate("v2.json", d, &ops, &err), 0, "%s", err.msg);
    cr_assert_null(at(d, "scopes/4/view/launches"));
    cJSON_Delete(d);
    ea_torch_ops_free(&ops);
}

/* cat's config.current goes because current_launches counts it: without the count the launches would be lost. */
Test(migrate, a_cat_config_listing_its_current_launches_without_their_count_is_refused)
{
    ea_torch_ops ops;
    ea_error err;
    load_ops(&ops);
    cJSON *d = v2();
    edit(d, "scopes/4/config/current_launches", NULL);
    edit(d, "scopes/4/view/launches", NULL); /* else its copy of the count is refused first */
    cr_assert_eq(ea_baseline_migrate("v2.json", d, &ops, &err), -1, "migrated without config.current_launches");
    cr_assert_str_eq(err.msg, "v2.json $.scopes[4].config.current_launches: expected as many as config.current lists "
                              "(the capture's default run: schema 3 reads it), 2, got nothing (missing key)");
    cJSON_Delete(d);
    ea_torch_ops_free(&ops);
}

/* schema 2's "unmeasured" reasons: each sentence becomes the one id whose text it is, or (the four variant targets,
 * whose copies 223da71 did not reword with the H200 one) was; one no id stands for is refused, naming its JSON path. */
Test(migrate, an_unmeasured_reason_becomes_the_one_id_whose_text_it_is_or_was)
{
    static const char earlier_fft[] =
        "library: a cuFFT plan behind ATen's _fft_c2c (FNet's fft2 over 512 x 768, complex64); Inductor has no FFT "
        "lowering and no repro replaces cuFFT, so no timing is kept; its class comes from the capture (STEPS=newops "
        "ci/gpu-check)";
    const char *const reasons[] = {ea_unmeasured_text("symint_host_arithmetic"), earlier_fft, "library: a cuFFT call"};
    ea_torch_ops ops;
    ea_error err;
    load_ops(&ops);
    for (int bad = 0; bad < 2; bad++) {
        cJSON *d = v2(), *u = cJSON_AddArrayToObject(d, "unmeasured");
        for (int i = 0; i < 2 + bad; i++) {
            cJSON *e = cJSON_CreateObject();
            char point[32];
            snprintf(point, sizeof point, "op-%d", i);
            cJSON_AddStringToObject(e, "point", point);
            cJSON_AddStringToObject(e, "reason", reasons[i]);
            cJSON_AddItemToArray(u, e);
        }
        if (bad) {
            cr_assert_eq(ea_baseline_migrate("v2.json", d, &ops, &err), -1);
            cr_assert_str_eq(err.msg, "v2.json $.unmeasured[2].reason: expected a schema-2 sentence that schema 3 "
                                      "renders from ids and numbers, \"(a reason of src/measure/prose.c)\", got "
                                      "\"library: a cuFFT call\"");
        } else {
            cr_assert_eq(ea_baseline_migrate("v2.json", d, &ops, &err), 0, "%s", err.msg);
            cr_assert_str_eq(cJSON_GetStringValue(at(d, "unmeasured/0/reason")), "symint_host_arithmetic");
            cr_assert_str_eq(cJSON_GetStringValue(at(d, "unmeasured/1/reason")), "fft_library");
            cr_assert_str_eq(ea_baseline_unmeasured_reason(d, "op-1"), ea_unmeasured_text("fft_library"),
                             "printed as today's wording of the reason");
        }
        cJSON_Delete(d);
    }
    ea_torch_ops_free(&ops);
}

/* Without the target's torch-ops file nothing checks the copies of it: they go, as they would have (stderr says so). */
Test(migrate, without_the_torch_ops_file_its_copies_are_dropped_unchecked)
{
    ea_torch_ops absent = {0};
    for (int loaded = 0; loaded < 2; loaded++) {
        cJSON *d = v2();
        ea_error err;
        edit(d, "scopes/0/fidelity/torch_op/faithful/torch_us", "700");
        cr_assert_eq(ea_baseline_migrate("v2.json", d, loaded ? &absent : NULL, &err), 0, "%s", err.msg);
        cr_assert_null(at(d, "scopes/0/fidelity/torch_op/faithful/torch_us"));
        cr_assert_null(at(d, "scopes/0/fidelity/torch_op/kernels"));
        cJSON_Delete(d);
    }
}

/* A golden folder of two targets, each with the v2 fixture and the committed torch-ops file beside it. */
static const char *two_targets(char files[2][512])
{
    const char *dir = test_tmpdir();
    char *v2text = test_read(V2), *ops = test_read(OPS);
    for (int i = 0; i < 2; i++) {
        char *t = test_target(dir, "H200", i ? "2.12.0" : "2.11.0+cu130", "9.0");
        char *written = test_write(t, "baselines.json", v2text);
        snprintf(files[i], sizeof files[i], "%s", written);
        free(written);
        free(test_write(t, "torch_ops.json", ops));
        free(t);
    }
    free(v2text), free(ops);
    return dir;
}

Test(migrate, golden_migrate_rewrites_every_target_or_none)
{
    char files[2][512];
    const char *dir = two_targets(files);
    cli_run r = test_cli("golden", "migrate", "--golden", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *first[2];
    for (int i = 0; i < 2; i++) {
        ej_doc d;
        ea_error err;
        has(r.err, files[i]);
        cr_assert_eq(ej_load(files[i], &d, &err), 0, "%s", err.msg);
        cr_assert_eq(ea_baseline_validate(files[i], d.root, &err), 0, "%s", err.msg);
        /* written as every writer of the file prints it */
        char *text = ej_print_layered(d.root, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER);
        first[i] = test_read(files[i]);
        cr_assert(!strncmp(first[i], text, strlen(text)) && !strcmp(first[i] + strlen(text), "\n"));
        free(text);
        ej_free(&d);
    }
    has(r.err, "migrated to schema 3");
    cli_run_free(&r);
    /* once more: today's schema, kept byte for byte */
    r = test_cli("golden", "migrate", "--golden", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, "already of today's schema, or absent: kept");
    for (int i = 0; i < 2; i++) {
        char *now = test_read(files[i]);
        cr_assert_str_eq(now, first[i]);
        free(now), free(first[i]);
    }
    cli_run_free(&r);
    /* one that does not migrate: exit 2 naming it, and neither is written */
    dir = two_targets(files);
    char *v2text = test_read(files[0]);
    cJSON *bad = v2();
    edit(bad, "scopes/0/speedup", "99");
    char *badtext = cJSON_Print(bad);
    char path[512];
    snprintf(path, sizeof path, "%s", files[1]);
    *strrchr(path, '/') = '\0';
    free(test_write(path, "baselines.json", badtext));
    r = test_cli("golden", "migrate", "--golden", dir, NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, files[1]);
    has(r.err, "$.scopes[0].speedup: expected what the result's times and floor give");
    char *kept = test_read(files[0]);
    cr_assert_str_eq(kept, v2text, "the other target's file is not written either");
    cli_run_free(&r);
    free(kept), free(badtext), cJSON_Delete(bad);
    /* FILE alone; a second FILE is a usage error; a torch-ops file that does not read fails before any write */
    r = test_cli("golden", "migrate", files[0], NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = test_cli("golden", "migrate", files[0], files[1], NULL);
    cr_assert(r.status == 2 && strstr(r.err, "migrate takes at most one FILE, got a second"), "%s", r.err);
    cli_run_free(&r);
    dir = two_targets(files);
    snprintf(path, sizeof path, "%s", files[0]);
    *strrchr(path, '/') = '\0';
    free(test_write(path, "torch_ops.json", "{}"));
    r = test_cli("golden", "migrate", files[0], NULL);
    cr_assert(r.status == 2 && strstr(r.err, "torch_ops.json"), "%s", r.err);
    char *still = test_read(files[0]);
    cr_assert_str_eq(still, v2text);
    cli_run_free(&r);
    free(still), free(v2text);
}

/* The refusals above, through the command: exit 2 naming the file and the JSON path, the file as it was. */
Test(migrate, golden_migrate_refuses_a_figure_that_is_not_a_number_and_writes_nothing)
{
    char files[2][512], dir[512];
    two_targets(files);
    cJSON *bad = v2();
    edit(bad, "scopes/0/speedup", "\"fast\"");
    char *text = cJSON_Print(bad);
    snprintf(dir, sizeof dir, "%s", files[0]);
    *strrchr(dir, '/') = '\0';
    free(test_write(dir, "baselines.json", text));
    cli_run r = test_cli("golden", "migrate", files[0], NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, files[0]);
    has(r.err, "$.scopes[0].speedup: expected a number, what the result's times and floor give");
    char *kept = test_read(files[0]);
    cr_assert_str_eq(kept, text);
    cli_run_free(&r);
    free(kept), free(text), cJSON_Delete(bad);
}
