/* Sentences rendered from ids and numbers (prose.h), the schema-1 migration (baseline_migrate.h) and the
 * baselines file's layout: what a v1 file said, v3 renders byte for byte, and no number moves. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "golden/baseline_migrate.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/prose.h"
#include "measure/prose_impl.h"

#define H200 "golden/targets/H200-torch2.11.0+cu130/baselines.json"
#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* The sentences schema 1 stored, as the committed H200 file held them before its migration. */
#define WARM_6 "warm: 6 calls back to back per CUDA graph replay, 30 replays timed after 100 ms of warm-up; the 60 MiB L2 " \
               "keeps whatever of the call's data fits between calls"
#define COLD_3 "cold: one CUDA graph of 100 (flush, call) pairs, replayed for 100 ms of warm-up and once more under CUPTI; " \
               "before every call the graph writes 120 MiB (2x the 60 MiB L2, a new value each time) so the call finds "  \
               "none of its data in L2; a sample is one call of that replay, from its flush's end (or its first start, " \
               "if CUPTI stamped that earlier) to the end of the last of its 3 operations by CUPTI's device timestamps: " \
               "no flush time, event resolution or host launch latency in it; median and IQR over the 100 calls"
#define HEADER "warm: 3 calls back to back per CUDA graph replay, 30 replays timed after 100 ms of warm-up; the 60 MiB L2 " \
               "keeps whatever of the call's data fits between calls"
#define FLOOR_COLD "the scope's bytes fit in L2: against the warm times the copy-bandwidth floor is a reference, not a " \
                   "bound; the fractions are taken against the cold time, which it bounds"

/* A schema-1 document of one cat-like result: every kind of sentence v1 stored, each as v1 wrote it. */
static cJSON *v1_doc(const char *verdict, const char *note)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"schema\": \"extern-audit/baselines\", \"schema_version\": 1, \"command\": \"c\", \"gpu\": {\"name\": "
             "\"NVIDIA H200\", \"model\": \"H200\", \"capability\": \"9.0\", \"sm_count\": 132, \"l2_bytes\": 62914560, "
             "\"memory_bytes\": 1}, \"driver\": \"d\", \"toolkit\": \"13.0\", \"torch\": null, \"cache_policy\": \"%s\", "
             "\"copy_bandwidth\": {\"bytes\": 1, \"kernel_bytes_per_s\": 4e12, \"memcpy_bytes_per_s\": 3e12}, "
             "\"launch_us\": 0.5, \"scopes\": [{\"family\": \"cat\", \"point\": \"cat-1\", \"alias\": \"a\", "
             "\"occurrences\": 1, \"scope_ids\": [], \"config\": {\"current_launches\": 2, \"oracle\": {\"launches\": 1}, \"floor_bytes\": 1000, \"notes\": [\"%s\", "
             "\"histc source: aten/src/ATen/native/cuda/SummaryOps.cu read at ...\"]}, \"paths\": ["
             "{\"name\": \"current\", \"mode\": \"faithful\", \"kernels\": [], \"time\": {\"median_us\": 12.5, "
             "\"q1_us\": 12.25, \"q3_us\": 12.75, \"iqr_us\": 0.5, \"samples\": 30, \"calls_per_replay\": 6, "
             "\"cache_policy\": \"%s\"}, \"time_cold\": {\"median_us\": 13.5, \"q1_us\": 13.25, \"q3_us\": 13.75, "
             "\"iqr_us\": 0.5, \"samples\": 100, \"calls_per_replay\": 100, \"resolution_us\": 0.001, "
             "\"cache_policy\": \"%s\"}, \"check\": {\"rel_l2\": 0, \"max_abs\": 0, \"unwritten\": 0, \"mismatched\": 0}, "
             "\"check_after_timing\": {\"rel_l2\": 0, \"max_abs\": 0, \"unwritten\": 0, \"mismatched\": 0}, "
             "\"passed\": true}, {\"name\": \"oracle\", \"mode\": \"faithful\", \"kernels\": [], \"time\": "
             "{\"median_us\": 5, \"q1_us\": 4.75, \"q3_us\": 5.25, \"iqr_us\": 0.5, \"samples\": 30, "
             "\"calls_per_replay\": 6, \"cache_policy\": \"%s\"}, \"time_cold\": {\"median_us\": 6.75, \"q1_us\": 6.5, "
             "\"q3_us\": 7, \"iqr_us\": 0.5, \"samples\": 100, \"calls_per_replay\": 100, \"cache_policy\": \"%s\"}, "
             "\"check\": {\"rel_l2\": 0, \"max_abs\": 0, \"unwritten\": 0, \"mismatched\": 0}, \"check_after_timing\": "
             "{\"rel_l2\": 0, \"max_abs\": 0, \"unwritten\": 0, \"mismatched\": 0}, \"passed\": true}], "
             "\"passed\": true, \"class\": \"lowered\", \"floor\": {\"bytes\": 1000, \"bytes_per_s\": 4e12, "
             "\"transfer_us\": 0.00025, \"launch_us\": 0.5, \"us\": 0.50025, \"note\": \"%s\"}, \"speedup\": 2.5, "
             "\"verdict\": \"%s\", \"view\": {\"launches\": {\"current\": 2, \"oracle\": 1}, "
             "\"oracle_checksums_equal_torch\": {\"y\": true}}, \"fidelity\": {\"capture\": null, \"note\": "
             "\"no capture\"}}], \"passed\": true}",
             HEADER, note, WARM_6, COLD_3, WARM_6, COLD_3, FLOOR_COLD, verdict);
    cJSON *d = cJSON_Parse(text);
    cr_assert_not_null(d, "%s", text);
    return d;
}

#define FUSED "speedup 2.50x over the current path (2 Inductor launches -> 1 fused kernel); y bit-identical to torch's"

static cJSON *result0(cJSON *doc)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "scopes"), 0);
}

static cJSON *path0(cJSON *doc, int j, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result0(doc), "paths"), j),
                                            key);
}

Test(prose, a_v1_document_migrates_to_ids_and_numbers_that_render_its_sentences)
{
    cJSON *d = v1_doc(FUSED, "tolerance: the cat bit-exact; y within 0.0078125 |ref| (bf16 rounding) + ...");
    cJSON *was = cJSON_Duplicate(d, 1);
    ea_error err;
    cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(ej_num(d, "schema_version"), EA_BASELINES_VERSION);
    cr_assert_eq(ej_num(d, "warmup_ms"), 100);
    cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "scopes"), 0)->child->string, "family");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "replays")->next->string, "warmup_ms",
                     "the header's new numbers sit where a fresh run writes them");
    char policy[640];
    ea_run_policy_text(d, policy, sizeof policy);
    cr_assert_str_eq(policy, HEADER, "the header's policy renders back from its numbers");
    cJSON *notes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result0(d), "config"), "notes");
    cr_assert_eq(cJSON_GetArraySize(notes), 1, "the histc citation went to docs/evidence/routing_sort.md");
    cr_assert_str_eq(cJSON_GetArrayItem(notes, 0)->valuestring, "cat_tolerance");
    cr_assert_str_eq(ej_str(result0(d), "verdict"), "fused_kernel");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result0(d), "floor"), "note"));
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(path0(d, 0, "time"), "cache_policy"));
    cr_assert_eq(ej_num(path0(d, 0, "time_cold"), "operations"), 3);
    cr_assert_str_eq(ej_str(cJSON_GetObjectItemCaseSensitive(result0(d), "fidelity"), "note"), "fidelity_no_capture");
    cr_assert_str_eq(ea_note_text("fidelity_no_capture"), "no capture", "what v1 said");
    /* every number of every time object as it was */
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 2; k++) {
            const cJSON *a = path0(was, j, k ? "time_cold" : "time"), *n;
            cJSON_ArrayForEach(n, a)
                if (cJSON_IsNumber(n))
                    cr_assert_eq(ej_num(path0(d, j, k ? "time_cold" : "time"), n->string), n->valuedouble, "%s",
                                 n->string);
        }
    /* and what v1 said, v2 renders */
    char text[1024];
    ea_verdict_text(result0(d), text, sizeof text);
    cr_assert_str_eq(text, FUSED);
    ea_time_policy_text(d, path0(d, 0, "time"), 0, text, sizeof text);
    cr_assert_str_eq(text, WARM_6);
    ea_time_policy_text(d, path0(d, 0, "time_cold"), 1, text, sizeof text);
    cr_assert_str_eq(text, COLD_3);
    cr_assert_str_eq(ea_floor_note_text(d, result0(d)), FLOOR_COLD);
    cr_assert_eq(ea_baseline_migrate("v3.json", d, NULL, &err), 1, "already of schema 3: left alone");
    cJSON_Delete(d), cJSON_Delete(was);
}

Test(prose, a_sentence_v2_cannot_render_is_not_migrated)
{
    ea_error err;
    cJSON *d = v1_doc(FUSED, "a note no family ever wrote");
    cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), -1);
    has(err.msg, "v1.json $.scopes[0].config.notes[0]: expected a schema-1 note sentence");
    cJSON_Delete(d);
    d = v1_doc("speedup 2.50x over the current path (3 Inductor launches -> 1 fused kernel)", "block densenet121");
    cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), -1, "the launches are the config's, not the sentence's");
    has(err.msg, "v1.json $.scopes[0].verdict: expected the sentence schema 2 renders");
    cJSON_Delete(d);
    d = v1_doc("speedup 9.99x over the current path (2 Inductor launches -> 1 fused kernel); y bit-identical to "
               "torch's", "block densenet121");
    cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), 0, "a stale quoted speedup renders the result's: %s",
                 err.msg);
    cJSON_Delete(d);
    d = v1_doc(FUSED, "block densenet121");
    cJSON_ReplaceItemInObjectCaseSensitive(path0(d, 1, "time"), "cache_policy", cJSON_CreateString("warm: kept hot"));
    cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), -1);
    has(err.msg, "v1.json $.scopes[0].paths[1].time.cache_policy: expected the sentence schema 2 renders");
    cJSON_Delete(d);
}

Test(prose, the_reader_refuses_schema_1_and_names_the_migrate_command)
{
    cJSON *d = v1_doc(FUSED, "block densenet121");
    ea_error err;
    cr_assert_neq(ea_baseline_validate("old/baselines.json", d, &err), 0);
    has(err.msg, "old/baselines.json $.schema_version: expected 3, got 1");
    has(err.msg, "run `extern-audit golden migrate`");
    cJSON_Delete(d);
}

Test(prose, a_sentence_is_no_note_id_and_no_verdict)
{
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_load(H200, &doc, &err), 0, "%s", err.msg);
    cJSON *r = result0(doc.root), *notes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "config"),
                                                                           "notes");
    cJSON_AddItemToArray(notes, cJSON_CreateString("the index is fine"));
    cr_assert_neq(ea_baseline_validate(H200, doc.root, &err), 0);
    has(err.msg, "$.scopes[0].config.notes[0]: expected a note id (src/measure/prose.c; a sentence is no note id), got \"the "
                 "index is fine\"");
    cJSON_DeleteItemFromArray(notes, 0);
    cJSON *fid = cJSON_GetObjectItemCaseSensitive(r, "fidelity");
    cJSON_DeleteItemFromObjectCaseSensitive(fid, "note");
    cJSON_AddStringToObject(fid, "note", "no capture");
    cr_assert_neq(ea_baseline_validate(H200, doc.root, &err), 0);
    has(err.msg, "$.scopes[0].fidelity.note: expected a note id");
    cJSON_DeleteItemFromObjectCaseSensitive(fid, "note");
    cr_assert_eq(ea_baseline_validate(H200, doc.root, &err), 0, "%s", err.msg);
    cJSON_AddStringToObject(r, "verdict", "headroom: 2.00x");
    cr_assert_neq(ea_baseline_validate(H200, doc.root, &err), 0);
    has(err.msg, "$.scopes[0].verdict: expected a verdict id");
    ej_free(&doc);
}

/* The committed file is what the writer prints of it (nothing reformats it on a rewrite), and a moved time changes
 * its path's line alone: every other line keeps its bytes. */
Test(prose, an_unchanged_entry_keeps_its_bytes_when_the_file_is_written_again)
{
    char *file = test_read(H200);
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_load(H200, &doc, &err), 0, "%s", err.msg);
    char *again = ej_print_layered(doc.root, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER);
    size_t n = strlen(again);
    cr_assert(strlen(file) == n + 1 && !strncmp(file, again, n) && file[n] == '\n', "rewritten, the file is the same");
    cJSON *t = path0(doc.root, 1, "time");
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "median_us"), 1.25 * ej_num(t, "median_us"));
    char *moved = ej_print_layered(doc.root, EA_BASELINES_LAYERS, EA_BASELINES_DEEPER);
    int lines = 0, differ = 0;
    for (char *a = again, *b = moved; *a && *b; lines++) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        differ += la != lb || strncmp(a, b, la);
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    cr_assert_eq(differ, 1, "one line of %d moved", lines);
    free(file), free(again), free(moved);
    ej_free(&doc);
}

/* A verdict or an unmeasured reason reworded: what is printed changes, the document and its validation not. */
Test(prose, a_reworded_sentence_changes_what_is_printed_only)
{
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_load(H200, &doc, &err), 0, "%s", err.msg);
    cJSON *copy = cJSON_Duplicate(doc.root, 1);
    char *was = test_printed(test_baseline_table, doc.root);
    ea_prose_reword("no_material_headroom", "nothing to gain");
    char *now = test_printed(test_baseline_table, doc.root);
    ea_prose_reword(NULL, NULL);
    has(was, "  verdict: measured, no material headroom\n");
    has(now, "  verdict: nothing to gain\n");
    cr_assert_null(strstr(now, "no material headroom"));
    const char *fft = "fft_c2c-dd4e6e67403c";
    has(ea_baseline_unmeasured_reason(doc.root, fft), "library: a cuFFT plan behind ATen's _fft_c2c");
    ea_prose_reword("fft_library", "a cuFFT call, in other words");
    cr_assert_str_eq(ea_baseline_unmeasured_reason(doc.root, fft), "a cuFFT call, in other words");
    cr_assert_eq(ea_baseline_validate(H200, doc.root, &err), 0, "%s", err.msg);
    ea_prose_reword(NULL, NULL);
    cr_assert(cJSON_Compare(doc.root, copy, 1));
    cr_assert_eq(ea_baseline_validate(H200, doc.root, &err), 0, "%s", err.msg);
    free(was), free(now), cJSON_Delete(copy);
    ej_free(&doc);
}

/* A routing configuration's sentences become the ids docs/evidence/routing_sort.md explains; another family holding
 * one is refused (schema 3 keeps no sentence in a configuration). */
Test(prose, a_v1_routing_configuration_migrates_its_order_and_oracle_kind_to_ids)
{
    for (int routing = 0; routing < 2; routing++) {
        cJSON *d = v1_doc(FUSED, "current starts from the sorted ids: convert, histc (zeros + kernel), scan");
        cJSON *r = result0(d), *cfg = cJSON_GetObjectItemCaseSensitive(r, "config");
        cJSON_ReplaceItemInObjectCaseSensitive(r, "family", cJSON_CreateString(routing ? "routing_histc" : "cat"));
        cJSON_AddStringToObject(cfg, "permutation_order", "ascending id, then ascending flat position (stable); "
                                                          "torch's radixSortKVInPlace (cub::BlockRadixSort, a stable "
                                                          "radix sort) gives the same order");
        cJSON_ReplaceItemInObjectCaseSensitive(cfg, "oracle", cJSON_Parse("{\"kind\": \"stable counting sort in one "
                                                                          "cluster of CTAs: warp ballot histogram, scan, "
                                                                          "scatter\", \"launches\": 1}"));
        ea_error err;
        if (!routing) { /* a sentence no family of its kind writes: refused, naming where */
            cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), -1);
            has(err.msg, "v1.json $.scopes[0].config.oracle.kind: expected a schema-2 sentence that schema 3 renders");
            cJSON_Delete(d);
            continue;
        }
        cr_assert_eq(ea_baseline_migrate("v1.json", d, NULL, &err), 0, "%s", err.msg);
        cr_assert_str_eq(ej_str(cfg, "permutation_order"), "stable");
        cr_assert_str_eq(ej_str(cJSON_GetObjectItemCaseSensitive(cfg, "oracle"), "kind"), "counting_sort_cluster");
        cJSON_Delete(d);
    }
}
