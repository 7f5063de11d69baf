/* The classification gate: the small golden (tests/fixtures/golden_small, six occurrences from the
 * fixture corpus) with the fixture captures (tests/fixtures/captures) classifies into every class
 * the audit expects; synthetic captures written here cover the other markers, probes, disagreeing
 * configs, missing coverage and drift against a stored classification.json. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/classify.h"
#include "helpers.h"
#include "corpus/oldrule.h"

#define SMALL "tests/fixtures/golden_small"
#define CAPTURES "tests/fixtures/captures"

#define CAT "torchbench/infer/tinydense/full_graph_000:cat"
#define MOE_CUMSUM "hf/infer/tiny/moe/full_graph_000:cumsum"
#define MOE_HISTC "hf/infer/tiny/moe/full_graph_000:histc"
#define LF_CUMSUM "hf/train/TinyLongformer/full_graph_000:cumsum"
#define LF_INDEX_ADD "hf/train/TinyLongformer/full_graph_000:index_add"
#define XL_INDEX_ADD "hf/train/TinyXL/full_graph_001:index_add"

#define CAT_SCOPE "cat-3facd8d0d5a4-6466840f7b14"
#define MOE_SCOPE "cumsum-df3f66bbe718-a2a8c692c76c"
#define LF_CUMSUM_SCOPE "cumsum-824fbb15db5d-2cfdbbbf0541"
#define LF_INDEX_ADD_SCOPE "index_add-b36c21aae6f6-955d7c11d470"
#define XL_SCOPE "index_add-fcf4e79883c4-b5ffb7c7e6f8"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* the fixture golden's one target, as golden() writes it */
#define TGT "targets/" TEST_TARGET "/"

static const char *const fixture_scopes[] = {CAT_SCOPE, MOE_SCOPE, LF_CUMSUM_SCOPE, LF_INDEX_ADD_SCOPE, XL_SCOPE, NULL};

static void link_to(const char *rel, const char *dir, const char *name)
{
    char target[4096], path[4096];
    cr_assert_not_null(realpath(rel, target), "no %s", rel);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(symlink(target, path), 0, "symlink %s", path);
}

/* A golden folder: the small golden's occurrences, its old rule (or rule_text), and a target (TGT) with
 * links to the fixture captures except those listed in skip ("scope,scope"). */
static const char *golden(const char *skip, const char *rule_text)
{
    const char *dir = test_tmpdir();
    char path[4096];
    link_to(SMALL "/occurrences", dir, "occurrences");
    if (rule_text)
        free(test_write(dir, "old_rule.json", rule_text));
    else
        link_to(SMALL "/old_rule.json", dir, "old_rule.json");
    free(test_target(dir, "H200", "2.11.0+cu130", "9.0"));
    snprintf(path, sizeof path, "%s/" TGT "captures", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    for (const char *const *s = fixture_scopes; *s; s++) {
        if (skip && strstr(skip, *s))
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, CAPTURES "/%s", *s);
        snprintf(path, sizeof path, TGT "captures/%s", *s);
        link_to(rel, dir, path);
    }
    return dir;
}

/* One run's evidence; the JSON array bodies list calls: "\"torch.ops.aten.histc.default\"". */
typedef struct {
    const char *aten, *externs;
    int poi, red, per, fo, aliases, scans, atomics;
} evidence;

#define ENV "{\"torch\": \"2.11.0+cu130\", \"torch_git\": \"0123456789abcdef0123456789abcdef01234567\", " \
            "\"triton\": \"3.6.0\", \"gpu\": \"NVIDIA H200\", \"capability\": \"9.0\", \"driver\": \"580.159.04\", " \
            "\"cuda\": \"%s\"}"
#define STATS "{\"median_us\": 1, \"q1_us\": 1, \"q3_us\": 1, \"samples\": 1}"

static int add_run(char *text, size_t cap, int n, const char *config, const char *probe_dtype, const evidence *e)
{
    char probe[64] = "null";
    if (probe_dtype)
        snprintf(probe, sizeof probe, "{\"dtype\": \"%s\"}", probe_dtype);
    return n + snprintf(text + n, cap - (size_t)n,
                        "%s{\"config\": \"%s\", \"inductor_config\": {}, \"probe\": %s, \"evidence\": {\"aten_calls\": [%s], "
                        "\"extern_kernels\": [%s], \"triton_launches\": {\"poi\": %d, \"red\": %d, \"per\": %d, \"spl\": 0, "
                        "\"for\": %d, \"tem\": 0}, \"alias_slices\": %d, \"workspace_zeroing\": 0, \"scan_kernels\": %d, "
                        "\"atomic_kernels\": %d}, \"wrapper\": \"w.py\", \"buffers\": [], \"steps\": [], \"replayable\": true, "
                        "\"timing\": {\"method\": \"m\", \"calls_per_replay\": 1, \"replays\": 1, \"eager\": " STATS
                        ", \"compiled\": " STATS "}}",
                        strcmp(config, "default") ? ", " : "", config, probe, e->aten ? e->aten : "",
                        e->externs ? e->externs : "", e->poi, e->red, e->per, e->fo, e->aliases, e->scans, e->atomics);
}

/* dir/TGT/captures/<scope>/capture.json (replacing the link to a fixture) with no steps: a default run,
 * a coordinate_descent run (cd NULL: the default's evidence) and, when probe_dtype is given, a
 * probe run; cuda NULL: the fixtures' environment. */
static void write_capture(const char *dir, const char *scope, const char *covers, const char *cuda, const evidence *def,
                          const evidence *cd, const char *probe_dtype, const evidence *probe)
{
    char text[16384], env[512], path[4096];
    snprintf(path, sizeof path, "%s/" TGT "captures/%s", dir, scope);
    unlink(path);
    snprintf(env, sizeof env, ENV, cuda ? cuda : "13.0");
    int n = snprintf(text, sizeof text,
                     "{\"schema\": \"extern-audit/capture\", \"schema_version\": 1, \"scope\": \"%s\", \"covers\": [%s], "
                     "\"command\": \"test\", \"environment\": %s, \"inputs\": [], \"outputs\": [], \"runs\": [",
                     scope, covers, env);
    n = add_run(text, sizeof text, n, "default", NULL, def);
    n = add_run(text, sizeof text, n, "coordinate_descent", NULL, cd ? cd : def);
    if (probe_dtype) {
        char config[64];
        snprintf(config, sizeof config, "probe_%s", probe_dtype);
        n = add_run(text, sizeof text, n, config, probe_dtype, probe);
    }
    snprintf(text + n, sizeof text - (size_t)n, "]}\n");
    snprintf(path, sizeof path, TGT "captures/%s/capture.json", scope);
    free(test_write(dir, path, text));
}

#define EV(...) (&(evidence){__VA_ARGS__})
#define IA_CALL "\"torch.ops.aten.index_add.default\""
#define Q(id) "\"" id "\""

/* `classify --golden dir --json`: the document printed, with the status and stderr kept. */
static cJSON *classify_json(const char *dir, int *status, char **err)
{
    cli_run r = test_cli("classify", "--golden", dir, "--json", NULL);
    cJSON *doc = cJSON_Parse(r.out);
    cr_assert_not_null(doc, "no JSON on stdout (status %d):\n%s\n%s", r.status, r.out, r.err);
    *status = r.status;
    *err = strdup(r.err);
    cli_run_free(&r);
    return doc;
}

static const cJSON *entry(const cJSON *doc, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "occurrences"))
        if (!strcmp(cJSON_GetObjectItem(e, "id")->valuestring, id))
            return e;
    cr_assert_fail("no entry %s", id);
    return NULL;
}

static void expect_entry(const cJSON *doc, const char *id, const char *cls, const char *reason)
{
    const cJSON *e = entry(doc, id);
    cr_expect_str_eq(cJSON_GetObjectItem(e, "class")->valuestring, cls, "%s", id);
    cr_expect_str_eq(cJSON_GetObjectItem(e, "reason")->valuestring, reason, "%s", id);
}

static int is_true(const cJSON *doc, const char *id, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(entry(doc, id), key));
}

Test(classify, fixtures_classify_then_check_clean)
{
    const char *g = golden(NULL, NULL);
    cli_run r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "classify: wrote "); /* one line, not the table */
    cr_assert_null(strstr(r.out, "example reason"), "%s", r.out);
    cli_run_free(&r);

    char path[4096];
    snprintf(path, sizeof path, "%s/" TGT "classification.json", g);
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_classification_validate(path, d.root, &err), 0, "%s", err.msg);
    const cJSON *doc = d.root;
    expect_entry(doc, CAT, "lowered", "no aten call; ConcatKernel: 10 alias slices, 2 Triton kernels in the scope (poi: 1, for: 1)");
    expect_entry(doc, MOE_CUMSUM, "lowered", "tl.associative_scan in 1 Triton kernel (poi: 1, per: 1)");
    expect_entry(doc, LF_CUMSUM, "lowered", "tl.associative_scan in 1 Triton kernel (red: 1)");
    expect_entry(doc, MOE_HISTC, "true_fallback", "aten fallback call torch.ops.aten.histc.default");
    expect_entry(doc, LF_INDEX_ADD, "conditional_fallback",
                 "bf16: aten fallback call torch.ops.aten.index_add.default; probe f32: lowered (1 atomic_add kernel, no aten call)");
    expect_entry(doc, XL_INDEX_ADD, "conditional_fallback",
                 "bf16: aten fallback call torch.ops.aten.index_add.default; probe f32: lowered (1 atomic_add kernel, no aten call)");
    cr_expect(is_true(doc, CAT, "false_extern") && is_true(doc, MOE_CUMSUM, "false_extern"));
    cr_expect(!is_true(doc, MOE_HISTC, "false_extern") && !is_true(doc, XL_INDEX_ADD, "false_extern"));
    cr_expect_str_eq(cJSON_GetObjectItem(entry(doc, CAT), "old_rule")->valuestring, "cat_over_cap");
    cr_expect_str_eq(cJSON_GetObjectItem(entry(doc, MOE_HISTC), "old_rule")->valuestring, "fallbacks_set");
    /* one capture stands for the histc and the cumsum of the same routing subgraph */
    cr_expect_str_eq(cJSON_GetObjectItem(entry(doc, MOE_HISTC), "capture")->valuestring,
                     "captures/" MOE_SCOPE "/capture.json");
    cr_expect_str_eq(cJSON_GetObjectItem(entry(doc, MOE_HISTC), "scope")->valuestring, "histc-6f8c4b40bac2-dbb5ef1968dc");
    cr_expect(is_true(doc, LF_INDEX_ADD, "configs_agree"));
    /* sorted by op, then id */
    cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "occurrences"), 1), "id")->valuestring,
                     MOE_CUMSUM);
    const cJSON *sum = cJSON_GetObjectItem(doc, "summary");
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "aten.cumsum.default"), "lowered")->valueint, 2);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "aten.cumsum.default"), "false_extern")->valueint, 2);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "aten.index_add.default"), "conditional_fallback")->valueint, 2);
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "findings"), 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings")), 1);
    cr_expect_str_eq(cJSON_GetObjectItem(f, "call")->valuestring, "torch.ops.aten.sort.stable");
    cr_expect_eq(cJSON_GetObjectItem(f, "occurrences")->valueint, 2);
    cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "scopes"), 0)->valuestring, MOE_SCOPE);
    cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "environment"), "gpu")->valuestring, "NVIDIA H200");
    ej_free(&d);

    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.err, "");
    has(r.out, "op                      class                 occurrences  false externs  example reason\n");
    has(r.out, "aten.cat.default        lowered                         1              1  no aten call; ConcatKernel");
    has(r.out, "aten.histc.default      true_fallback                   1              0  aten fallback call");
    has(r.out, "total                                                   6              3\n");
    has(r.out, "torch.ops.aten.sort.stable       1            2  " MOE_SCOPE "\n");
    cli_run_free(&r);
}

Test(classify, missing_capture_is_unclassified)
{
    const char *g = golden(CAT_SCOPE, NULL);
    int status;
    char *err;
    cJSON *doc = classify_json(g, &status, &err);
    cr_assert_eq(status, 1);
    has(err, "1 occurrence unclassified (no capture covers them, e.g. " CAT ")");
    expect_entry(doc, CAT, "unclassified", "no capture covers it");
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(entry(doc, CAT), "capture")));
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(entry(doc, CAT), "configs_agree")));
    cr_expect(!is_true(doc, CAT, "false_extern"));
    cJSON_Delete(doc);
    free(err);

}

/* One capture missing: --update writes the five occurrences it classifies, the sixth recorded not_captured
 * with its reason, and exits 1 saying so (it wrote nothing, and run called every point unclassified). */
Test(classify, update_writes_the_others_when_one_occurrence_is_not_captured)
{
    const char *g = golden(CAT_SCOPE, NULL);
    cli_run r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 1);
    has(r.out, "classify: wrote "); /* --update prints one line (issue 27) */
    has(r.err, "1 occurrence unclassified (no capture covers them, e.g. " CAT ")");
    has(r.err, "1 occurrence recorded not_captured in ");
    has(r.err, "classification.json; the others are classified\n");
    cli_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/" TGT "classification.json", g);
    ej_doc stored;
    ea_error err;
    cr_assert_eq(ej_load(path, &stored, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_classification_validate(path, stored.root, &err), 0, "%s", err.msg);
    expect_entry(stored.root, CAT, "not_captured",
                 "not captured: no capture of this target covers it (run its scope through tools/capture on a GPU)");
    cr_assert_str_eq(cJSON_GetObjectItem(entry(stored.root, MOE_HISTC), "class")->valuestring, "true_fallback");
    const cJSON *cat = cJSON_GetObjectItem(cJSON_GetObjectItem(stored.root, "summary"), "aten.cat.default");
    cr_assert_eq(cJSON_GetObjectItem(cat, "not_captured")->valueint, 1, "the summary follows");
    cr_assert_null(cJSON_GetObjectItem(cat, "unclassified"));
    ej_free(&stored);
    /* the check still fails while the capture is missing */
    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "1 occurrence unclassified");
    cli_run_free(&r);
}

Test(classify, missing_stored_file_says_how_to_create_it)
{
    const char *g = golden(NULL, NULL);
    cli_run r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "/classification.json not found; create it with: extern-audit classify --golden ");
    has(r.err, " --update\n");
    cli_run_free(&r);
}

Test(classify, drift_names_the_id_then_update_clears_it)
{
    const char *g = golden(NULL, NULL);
    cli_run r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    /* the f32 probe now falls back too: a true fallback */
    write_capture(g, XL_SCOPE, Q(XL_INDEX_ADD), NULL, EV(.aten = IA_CALL, .poi = 1), NULL, "f32",
                  EV(.aten = IA_CALL, .poi = 1));
    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "classes differ from ");
    has(r.err, "  " XL_INDEX_ADD ": conditional_fallback -> true_fallback\n");
    cr_assert_null(strstr(r.err, LF_INDEX_ADD), "only the changed id is named:\n%s", r.err);
    cli_run_free(&r);

    r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = test_cli("classify", "--golden", g, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    expect_entry(doc, XL_INDEX_ADD, "true_fallback",
                 "aten fallback call torch.ops.aten.index_add.default; probe f32: aten fallback call "
                 "torch.ops.aten.index_add.default");
    cJSON_Delete(doc);
    cli_run_free(&r);

    /* a vanished capture reads as a class change to unclassified */
    char path[4096];
    snprintf(path, sizeof path, "%s/" TGT "captures/" CAT_SCOPE, g);
    cr_assert_eq(unlink(path), 0);
    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "  " CAT ": lowered -> unclassified\n");
    cli_run_free(&r);
}

Test(classify, reason_only_changes_are_a_note)
{
    const char *g = golden(NULL, NULL);
    cli_run r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    write_capture(g, LF_CUMSUM_SCOPE, Q(LF_CUMSUM), NULL, EV(.per = 2, .scans = 1), NULL, NULL, NULL);
    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.err, "differs in reasons, old-rule verdicts, findings or environment, not in classes");
    cli_run_free(&r);
}

Test(classify, configs_disagree_fail_the_gate)
{
    const char *g = golden(NULL, NULL);
    write_capture(g, CAT_SCOPE, Q(CAT), NULL, EV(.poi = 1, .fo = 1, .aliases = 10),
                  EV(.aten = "\"torch.ops.aten.cat.default\""), NULL, NULL);
    int status;
    char *err;
    cJSON *doc = classify_json(g, &status, &err);
    cr_assert_eq(status, 1);
    has(err, "coordinate_descent and default disagree on:\n  " CAT ": ");
    cr_expect(!is_true(doc, CAT, "configs_agree"));
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(entry(doc, CAT), "configs_agree")));
    expect_entry(doc, CAT, "lowered",
                 "no aten call; ConcatKernel: 10 alias slices, 2 Triton kernels in the scope (poi: 1, for: 1); coordinate_descent: true_fallback: "
                 "aten fallback call torch.ops.aten.cat.default");
    cJSON_Delete(doc);
    free(err);
    /* --update records the disagreement; the check keeps failing on it */
    cli_run r = test_cli("classify", "--golden", g, "--update", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 1);
    has(r.err, "disagree");
    cli_run_free(&r);
}

Test(classify, every_marker_and_probe)
{
    const char *g = golden(NULL, NULL);
    /* a cat whose producers all write into the output: no kernel at all */
    write_capture(g, CAT_SCOPE, Q(CAT), NULL, EV(.aliases = 10), NULL, NULL, NULL);
    /* launches without a scan or atomic marker, a probe that lowers the same way, another fallback */
    write_capture(g, LF_CUMSUM_SCOPE, Q(LF_CUMSUM), NULL,
                  EV(.aten = "\"torch.ops.aten.unique_consecutive.default\"", .poi = 2, .red = 1), NULL, "f16", EV(.poi = 1));
    /* histc lowered by the f32 probe: conditional fallback; the cumsum beside it stays lowered */
    write_capture(g, MOE_SCOPE, Q(MOE_CUMSUM) ", " Q(MOE_HISTC), NULL,
                  EV(.aten = "\"torch.ops.aten.histc.default\", \"torch.ops.aten.sort.stable\", \"torch.ops.aten.sort.stable\"",
                     .per = 1, .scans = 1),
                  NULL, "f32", EV(.aten = "\"torch.ops.aten.sort.stable\"", .poi = 1, .per = 1, .scans = 1));
    /* the default lowers with atomics and a bf16 probe falls back: conditional lowered */
    write_capture(g, LF_INDEX_ADD_SCOPE, Q(LF_INDEX_ADD), NULL, EV(.poi = 2, .atomics = 2), NULL, "bf16",
                  EV(.aten = IA_CALL, .poi = 1));
    int status;
    char *err;
    cJSON *doc = classify_json(g, &status, &err);
    cr_assert_eq(status, 1, "no stored file yet");
    expect_entry(doc, CAT, "lowered", "no kernel of its own: all inputs aliased");
    expect_entry(doc, LF_CUMSUM, "lowered", "3 Triton launches (poi: 2, red: 1); probe f16: lowered (1 Triton launch, no aten call)");
    expect_entry(doc, MOE_HISTC, "conditional_fallback",
                 "i32: aten fallback call torch.ops.aten.histc.default; probe f32: lowered (1 associative_scan kernel, no aten call)");
    expect_entry(doc, MOE_CUMSUM, "lowered",
                 "tl.associative_scan in 1 Triton kernel (per: 1); probe f32: lowered (1 associative_scan kernel, no aten call)");
    expect_entry(doc, LF_INDEX_ADD, "conditional_lowered",
                 "bf16: tl.atomic_add in 2 Triton kernels (poi: 2); probe bf16: aten fallback call torch.ops.aten.index_add.default");
    cr_expect(is_true(doc, LF_INDEX_ADD, "false_extern"), "conditional_lowered under the old rule is a false extern");
    /* findings in call order; the sort appears twice in one run and once per scope in its finding */
    const cJSON *findings = cJSON_GetObjectItem(doc, "findings"), *f = cJSON_GetArrayItem(findings, 0);
    cr_assert_eq(cJSON_GetArraySize(findings), 2);
    cr_expect_str_eq(cJSON_GetObjectItem(f, "call")->valuestring, "torch.ops.aten.sort.stable");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(f, "scopes")), 1);
    cr_expect_eq(cJSON_GetObjectItem(f, "occurrences")->valueint, 2);
    f = cJSON_GetArrayItem(findings, 1);
    cr_expect_str_eq(cJSON_GetObjectItem(f, "call")->valuestring, "torch.ops.aten.unique_consecutive.default");
    cr_expect_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "scopes"), 0)->valuestring, LF_CUMSUM_SCOPE);
    cr_expect_eq(cJSON_GetObjectItem(f, "occurrences")->valueint, 1);
    cJSON_Delete(doc);
    free(err);
}

Test(classify, library_extern_needs_flop_counted_and_extern_kernels)
{
    static const char rule[] =
        "{\"schema\": \"extern-audit/old-rule\", \"schema_version\": 1, \"rule\": \"r\", \"recorded_for\": \"test\", "
        "\"max_pointwise_cat_inputs\": 16, \"non_fusible\": [{\"op\": \"aten.cumsum.default\", \"reason\": \"flop_counted\"}]}";
    const char *g = golden(NULL, rule);
    write_capture(g, LF_CUMSUM_SCOPE, Q(LF_CUMSUM), NULL, EV(.externs = "\"extern_kernels.mm\", \"extern_kernels.bmm\"", .poi = 1),
                  EV(.externs = "\"extern_kernels.mm\"", .poi = 1), NULL, NULL);
    int status;
    char *err;
    cJSON *doc = classify_json(g, &status, &err);
    expect_entry(doc, LF_CUMSUM, "library_extern", "extern kernel call extern_kernels.mm, extern_kernels.bmm");
    cr_expect(!is_true(doc, LF_CUMSUM, "false_extern"));
    /* flop-counted but no extern kernel: lowered, and a false extern */
    expect_entry(doc, MOE_CUMSUM, "lowered", "tl.associative_scan in 1 Triton kernel (poi: 1, per: 1)");
    cr_expect_str_eq(cJSON_GetObjectItem(entry(doc, MOE_CUMSUM), "old_rule")->valuestring, "flop_counted");
    cr_expect(is_true(doc, MOE_CUMSUM, "false_extern"));
    /* a cat of 10 under a cap of 16 is fusible to the old rule: lowered, but no false extern */
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(entry(doc, CAT), "old_rule")));
    cr_expect(!is_true(doc, CAT, "false_extern"));
    cr_expect_str_eq(cJSON_GetObjectItem(doc, "rule_recorded_for")->valuestring, "test");
    cJSON_Delete(doc);
    free(err);
}

static void expect_exit2(const char *g, const char *needle)
{
    cli_run r = test_cli("classify", "--golden", g, NULL);
    cr_assert_eq(r.status, 2, "status %d:\n%s", r.status, r.err);
    has(r.err, needle);
    cli_run_free(&r);
}

Test(classify, bad_input_exits_2)
{
    const char *g = golden(CAT_SCOPE, NULL);
    free(test_write(g, TGT "captures/" CAT_SCOPE "/capture.json", "{\"schema\": \"extern-audit/capture\"}\n"));
    expect_exit2(g, "/captures/" CAT_SCOPE "/capture.json $.schema_version: expected integer, got nothing");

    g = golden(NULL, NULL);
    write_capture(g, "zz-extra", Q(CAT), NULL, EV(.poi = 1), NULL, NULL, NULL);
    expect_exit2(g, "/captures/zz-extra/capture.json $.covers[0]: expected each occurrence covered once, got \"" CAT
                    "\", also covered by ");

    g = golden(NULL, NULL);
    write_capture(g, "zz-extra", Q("hf/infer/Nope/full_graph_000:cat"), NULL, EV(.poi = 1), NULL, NULL, NULL);
    expect_exit2(g, "zz-extra/capture.json $.covers[0]: expected an id of the golden occurrences, got "
                    "\"hf/infer/Nope/full_graph_000:cat\"");

    g = golden(NULL, NULL);
    write_capture(g, XL_SCOPE, Q(XL_INDEX_ADD), "12.8", EV(.poi = 1), NULL, NULL, NULL);
    expect_exit2(g, "/captures/" XL_SCOPE "/capture.json $.environment.cuda: expected \"13.0\" as in ");

    g = golden(NULL, NULL);
    free(test_write(g, TGT "classification.json", "{\"schema\": \"extern-audit/classification\", \"schema_version\": 2}"));
    expect_exit2(g, "/classification.json $.schema_version: expected 1, got 2");

    expect_exit2("/nonexistent/golden", "--golden /nonexistent/golden: not a folder");
    g = test_tmpdir();
    link_to(SMALL "/occurrences", g, "occurrences");
    free(test_target(g, "H200", "2.11.0+cu130", "9.0"));
    expect_exit2(g, "/old_rule.json: cannot read");
}

Test(classify, usage)
{
    cli_run r = test_cli("classify", "--help", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "usage: extern-audit classify [--golden DIR] [--target NAME] [--json] [--update]");
    cli_run_free(&r);
    r = test_cli("help", "classify", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--update");
    cli_run_free(&r);
    r = test_cli("classify", "--corpus", "x", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "extern-audit classify: unknown option '--corpus'");
    cli_run_free(&r);
    r = test_cli("audit", "--update", NULL);
    cr_assert_eq(r.status, 2, "--update belongs to classify only");
    cli_run_free(&r);
}

/* The stored document is read strictly: each break names the JSON path. */
Test(classify, stored_document_validation)
{
    const char *g = golden(NULL, NULL);
    int status;
    char *err;
    cJSON *doc = classify_json(g, &status, &err);
    free(err);
    ea_error e;
    cr_assert_eq(ea_classification_validate("c.json", doc, &e), 0, "%s", e.msg);
    static const struct {
        const char *path, *key, *value, *needle;
    } breaks[] = {
        {"occurrences.0", "class", "\"sideways\"", "c.json $.occurrences[0].class: expected lowered, conditional_lowered"},
        {"occurrences.0", "old_rule", "3", "c.json $.occurrences[0].old_rule: expected string, got number 3"},
        {"occurrences.0", "configs_agree", "\"yes\"", "$.occurrences[0].configs_agree: expected boolean"},
        {"occurrences.0", "false_extern", "null", "$.occurrences[0].false_extern: expected boolean, got null"},
        {"occurrences.0", "extra", "1", "$.occurrences[0]: unknown key 'extra'"},
        {"findings.0", "occurrences", "\"2\"", "$.findings[0].occurrences: expected integer"},
        {"findings.0", "scopes", "[1]", "$.findings[0].scopes[0]: expected string"},
        {"summary.aten.cat.default", "lowered", "1.5", "$.summary[\"aten.cat.default\"].lowered: expected integer"},
        {"environment", "gpu", "7", "$.environment.gpu: expected string"},
        {"", "rule_recorded_for", "null", "$.rule_recorded_for: expected string, got null"},
    };
    for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
        cJSON *copy = cJSON_Duplicate(doc, 1), *at = copy;
        if (!strncmp(breaks[i].path, "occurrences", 11) || !strncmp(breaks[i].path, "findings", 8))
            at = cJSON_GetArrayItem(cJSON_GetObjectItem(copy, breaks[i].path[0] == 'o' ? "occurrences" : "findings"), 0);
        else if (!strncmp(breaks[i].path, "summary", 7))
            at = cJSON_GetObjectItem(cJSON_GetObjectItem(copy, "summary"), "aten.cat.default");
        else if (*breaks[i].path)
            at = cJSON_GetObjectItem(copy, breaks[i].path);
        cJSON_DeleteItemFromObject(at, breaks[i].key);
        cJSON_AddItemToObject(at, breaks[i].key, cJSON_Parse(breaks[i].value));
        ea_error be = {{0}};
        cr_expect_eq(ea_classification_validate("c.json", copy, &be), -1, "break %zu accepted", i);
        cr_expect(strstr(be.msg, breaks[i].needle), "break %zu: expected '%s' in: %s", i, breaks[i].needle, be.msg);
        cJSON_Delete(copy);
    }
    cJSON_ReplaceItemInObject(doc, "environment", cJSON_CreateNull());
    cr_assert_eq(ea_classification_validate("c.json", doc, &e), 0, "a null environment is valid: %s", e.msg);
    cJSON_Delete(doc);
}

Test(classify, old_rule_verdict_from_the_target)
{
    ea_old_rule r;
    ea_error err;
    cr_assert_eq(ea_old_rule_load(SMALL "/old_rule.json", &r, &err), 0, "%s", err.msg);
    cr_assert_str_eq(ea_old_rule_verdict_op(&r, "aten.cat.default", 9), "cat_over_cap");
    cr_assert_null(ea_old_rule_verdict_op(&r, "aten.cat.default", 8));
    cr_assert_str_eq(ea_old_rule_verdict_op(&r, "aten.histc.default", 0), "fallbacks_set");
    cr_assert_str_eq(ea_old_rule_verdict_op(&r, "aten.mm.default", 0), "flop_counted");
    cr_assert_null(ea_old_rule_verdict_op(&r, "aten.add.Tensor", 0));
    ea_old_rule_free(&r);
}
