/* golden/targets/<target>/replay.json's strict reader (replay_file.h): the committed file reads back,
 * each row kind `replay --record` writes is accepted, and every failure path names the file, the JSON
 * path and what was expected. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/json.h"
#include "target/replay_file.h"
#include "target_fixture.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

/* A replayed capture: both outputs match, the kernels are the capture's, 10 us against torch's 10. */
#define OK_ROW                                                                                                   \
    "{\"scope\": \"cat-a\", \"verdict\": \"ok\", \"outputs\": 2, \"outputs_matching\": 2, \"replay_us\": "      \
    "{\"median\": 10, \"q1\": 9, \"q3\": 11, \"samples\": 30, \"policy\": \"warm\"}, \"torch_compiled_us\": 10, " \
    "\"ratio\": 1, \"kernels_match\": true, \"kernels\": [\"triton_a\", \"triton_b\"]}"

/* Validates the document text; returns 0 or -1 with err filled. */
static int validate(const char *text, ea_error *err)
{
    cJSON *doc = cJSON_Parse(text);
    cr_assert(doc, "fixture is not JSON: %s", text);
    int rc = ea_replay_file_validate("r.json", doc, err);
    cJSON_Delete(doc);
    return rc;
}

/* OK_ROW with from replaced by to (from must occur), as a one-row document. */
static char *mutated(const char *from, const char *to)
{
    static char doc[2048];
    const char *at = strstr(OK_ROW, from);
    cr_assert(at, "'%s' not in the fixture row", from);
    snprintf(doc, sizeof doc, "[%.*s%s%s]", (int)(at - OK_ROW), OK_ROW, to, at + strlen(from));
    return doc;
}

static void refused(const char *doc, const char *want)
{
    ea_error err = {{0}};
    cr_assert_neq(validate(doc, &err), 0, "accepted: %s", doc);
    has(err.msg, "r.json $");
    has(err.msg, want);
}

Test(replay_file, committed_file_reads_and_counts)
{
    const char *path = "golden/targets/" TEST_TARGET "/replay.json";
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(path, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_replay_file_validate(path, d.root, &err), 0, "%s", err.msg);
    int replayed, ok, not_replayable = 0, oks = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, d.root) {
        not_replayable += !strcmp(ej_str(r, "verdict"), EA_REPLAY_NOT_REPLAYABLE);
        oks += !strcmp(ej_str(r, "verdict"), "ok");
    }
    ea_replay_file_count(d.root, &replayed, &ok);
    cr_assert_eq(replayed + not_replayable, cJSON_GetArraySize(d.root));
    cr_assert_eq(ok, oks);
    cr_assert_gt(replayed, 0);
    ej_free(&d);
}

Test(replay_file, every_row_kind_replay_writes_is_accepted)
{
    const char *docs[] = {
        "[]",
        "[" OK_ROW ", {\"scope\": \"cumsum-b\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}]",
        /* an output differs on the first call: named, not timed */
        "[{\"scope\": \"c\", \"verdict\": \"output mismatch\", \"outputs\": 2, \"outputs_matching\": 1, "
        "\"mismatch\": \"buf0: checksum 1, capture 2\", \"kernels_match\": true, \"kernels\": [\"k\"]}]",
        /* CUPTI gave no list: the time decides */
        "[{\"scope\": \"c\", \"verdict\": \"ok\", \"outputs\": 1, \"outputs_matching\": 1, \"replay_us\": "
        "{\"median\": 10, \"q1\": 9, \"q3\": 11, \"samples\": 30, \"policy\": \"warm\"}, \"torch_compiled_us\": 10, "
        "\"ratio\": 1, \"kernels_match\": false, \"kernels\": [], \"kernels_unavailable\": \"CUPTI unavailable\"}]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        ea_error err = {{0}};
        cr_assert_eq(validate(docs[i], &err), 0, "%s\n%s", docs[i], err.msg);
    }
    ea_error err = {{0}};
    char faster[2048];
    snprintf(faster, sizeof faster, "%s", mutated("\"ratio\": 1", "\"ratio\": 0.8"));
    cJSON *doc = cJSON_Parse(faster);
    cJSON *row = cJSON_GetArrayItem(doc, 0);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(row, "replay_us"), "median", cJSON_CreateNumber(8));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(row, "replay_us"), "q1", cJSON_CreateNumber(7));
    cJSON_ReplaceItemInObject(row, "verdict", cJSON_CreateString("faster than torch"));
    cr_assert_eq(ea_replay_file_validate("r.json", doc, &err), 0, "%s", err.msg);
    cJSON_ReplaceItemInObject(row, "verdict", cJSON_CreateString("ok")); /* 0.8 is beyond the tolerance */
    cr_assert_eq(ea_replay_file_validate("r.json", doc, &err), -1);
    has(err.msg, "r.json $[0].verdict: expected \"faster than torch\", what its outputs, kernels and ratio give, got \"ok\"");
    cJSON_Delete(doc);
}

Test(replay_file, shape_and_keys)
{
    refused("{}", "$: expected array");
    refused("[1]", "$[0]: expected object");
    refused(mutated("\"scope\": \"cat-a\", ", "\"extra\": 1, \"scope\": \"cat-a\", "), "$[0]: unknown key 'extra'");
    refused(mutated("\"scope\": \"cat-a\", ", ""), "$[0].scope");
    refused(mutated("\"scope\": \"cat-a\"", "\"scope\": \"\""),
            "$[0].scope: expected a capture's scope id (a folder name under captures/), got \"\"");
    refused(mutated("\"scope\": \"cat-a\"", "\"scope\": \"../cat-a\""), "$[0].scope: expected a capture's scope id");
    refused(mutated("\"scope\": \"cat-a\"", "\"scope\": \"cat/a\""), "$[0].scope: expected a capture's scope id");
    refused("[" OK_ROW ", {\"scope\": \"x\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}, " OK_ROW "]",
            "$[2].scope: expected a capture listed once, got \"cat-a\" again (first at $[0])");
    refused(mutated("\"verdict\": \"ok\"", "\"verdict\": \"great\""), "$[0].verdict: expected one of the replay's verdicts");
    refused("[{\"scope\": \"c\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\", \"outputs\": 1}]",
            "$[0].outputs: expected nothing but scope and verdict");
    refused("[{\"scope\": \"c\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\", \"ratio\": 1}]",
            "$[0].ratio: expected nothing but scope and verdict"); /* the extra key is the one named */
}

/* OK_ROW with one text replaced, and the message its refusal must hold. */
static const struct {
    const char *from, *to, *want;
} mutations[] = {
    {"\"outputs\": 2", "\"outputs\": 0", "$[0].outputs: expected an integer >= 1"},
    {"\"outputs_matching\": 2", "\"outputs_matching\": -1", "$[0].outputs_matching: expected an integer >= 0"},
    {"\"outputs_matching\": 2", "\"outputs_matching\": 3", "$[0].outputs_matching: expected outputs_matching + outputs_within_tolerance at most outputs (2), got 3 + 0"},
    {"\"kernels_match\": true", "\"kernels_match\": 1", "$[0].kernels_match"},
    {"[\"triton_a\", \"triton_b\"]", "\"triton_a\"", "$[0].kernels: expected array"},
    {"\"triton_b\"", "2", "$[0].kernels[1]: expected string"},
    {"\"triton_b\"", "\"\"", "$[0].kernels[1]: expected a kernel name, got \"\""},
    {"\"kernels_match\": true", "\"kernels_unavailable\": \"no CUPTI\", \"kernels_match\": true", "$[0].kernels_match: expected false: CUPTI gave no list (kernels_unavailable), got true"},
    {"\"kernels_match\": true", "\"kernels_unavailable\": 3, \"kernels_match\": false", "$[0].kernels_unavailable: expected string"},
    /* the mismatch is named exactly when an output differs */
    {"\"outputs_matching\": 2", "\"outputs_matching\": 2, \"mismatch\": \"buf0\"", "$[0].mismatch: expected no mismatch: every output matches or is within tolerance, got a mismatch"},
    {"\"outputs_matching\": 2", "\"outputs_matching\": 1", "$[0].mismatch: expected the first output whose checksum differs, got none"},
    {"\"outputs_matching\": 2", "\"outputs_matching\": 1, \"mismatch\": 7", "$[0].mismatch: expected string"},
    {"\"replay_us\": {\"median\": 10, \"q1\": 9, \"q3\": 11, \"samples\": 30, \"policy\": \"warm\"}, ", "", "$[0].replay_us"},
    {"\"policy\": \"warm\"", "\"policy\": \"warm\", \"p99\": 12", "$[0].replay_us: unknown key 'p99'"},
    {"\"q1\": 9", "\"q1\": 10.5", "$[0].replay_us.median: expected a positive median between q1 and q3, got q1 10.5, median 10, q3 11"},
    {"\"q1\": 9", "\"q1\": 0", "$[0].replay_us.median: expected a positive median between q1 and q3"},
    {"\"samples\": 30", "\"samples\": 0", "$[0].replay_us.samples: expected an integer >= 1"},
    {"\"policy\": \"warm\"", "\"policy\": \"\"", "$[0].replay_us.policy: expected the timer's cache policy sentence"},
    {"\"torch_compiled_us\": 10", "\"torch_compiled_us\": 0", "$[0].torch_compiled_us: expected a positive time, got 0"},
    {"\"torch_compiled_us\": 10, ", "", "$[0].torch_compiled_us"},
    {"\"ratio\": 1", "\"ratio\": 1.2", "$[0].ratio: expected replay_us.median / torch_compiled_us = 1, got 1.2"},
    {"\"ratio\": 1, ", "", "$[0].ratio"},
    /* the verdict must be what the fields give, in replay's order */
    {"\"verdict\": \"ok\"", "\"verdict\": \"kernels differ\"", "$[0].verdict: expected \"ok\", what its outputs, kernels and ratio give, got \"kernels differ\""},
    {"\"kernels_match\": true", "\"kernels_match\": false", "$[0].verdict: expected \"kernels differ\""},
    {"\"outputs_matching\": 2", "\"outputs_matching\": 1, \"mismatch\": \"buf1\"", "$[0].verdict: expected \"output mismatch\""},
};

Test(replay_file, each_field_checked)
{
    for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; i++)
        refused(mutated(mutations[i].from, mutations[i].to), mutations[i].want);
}

Test(replay_file, verdict_rule)
{
    cr_assert_str_eq(ea_replay_verdict(2, 1, 0, 1, 0, 1.0), "output mismatch");
    cr_assert_str_eq(ea_replay_verdict(2, 2, 0, 0, 0, 1.0), "kernels differ");
    cr_assert_str_eq(ea_replay_verdict(2, 2, 0, 0, 1, 1.0), "ok"); /* no list from CUPTI: nothing to differ */
    cr_assert_str_eq(ea_replay_verdict(2, 2, 0, 1, 0, 1.14), "ok");
    cr_assert_str_eq(ea_replay_verdict(2, 2, 0, 1, 0, 1.16), "slower than torch");
    cr_assert_str_eq(ea_replay_verdict(2, 2, 0, 1, 0, 0.84), "faster than torch");
    cr_assert_str_eq(ea_replay_verdict(2, 1, 1, 1, 0, 1.0), EA_REPLAY_OK_TOLERANT); /* atomics: one within tolerance */
    cr_assert_str_eq(ea_replay_verdict(3, 1, 1, 1, 0, 1.0), "output mismatch");
    cr_assert_str_eq(ea_replay_verdict(2, 1, 1, 1, 0, 1.2), "slower than torch");
}

/* One row per capture of the target (held or inherited: ea_target_captures_load's), each naming one of them
 * (audit, replay --keep-from and golden accept). */
Test(replay_file, rows_cover_the_captures)
{
    ea_capture items[2] = {{.scope = "cat-a"}, {.scope = "cumsum-b"}};
    ea_captures caps = {.items = items, .n = 2, .dir = "dir"}, *captures = &caps;
    const char *both = "[" OK_ROW ", {\"scope\": \"cumsum-b\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}]";
    cJSON *doc = cJSON_Parse(both);
    ea_error err = {{0}};
    cr_assert_eq(ea_replay_file_covers("r.json", doc, captures, &err), 0, "%s", err.msg);
    cJSON_DeleteItemFromArray(doc, 1);
    cr_assert_eq(ea_replay_file_covers("r.json", doc, captures, &err), -1);
    has(err.msg, "r.json $: expected a row for every capture of ");
    has(err.msg, "dir/captures, got none for cumsum-b");
    cJSON_AddItemToArray(doc, cJSON_Parse("{\"scope\": \"cumsum-b\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}"));
    cJSON_AddItemToArray(doc, cJSON_Parse("{\"scope\": \"index_add-c\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}"));
    cr_assert_eq(ea_replay_file_covers("r.json", doc, captures, &err), -1);
    has(err.msg, "r.json $[2].scope: expected a capture of ");
    has(err.msg, "got \"index_add-c\" (no index_add-c/capture.json)");
    cJSON_Delete(doc);
}

/* audit reads a target's replay.json beside its captures (loaded as every command loads them: the fixture's two
 * real ones) and refuses one that leaves a capture out. */
Test(replay_file, audit_refuses_a_replay_without_every_capture)
{
    char golden[512], cmd[2400];
    snprintf(golden, sizeof golden, "%s/golden", test_tmpdir());
    char *target = test_target(golden, "H200", "2.11.0+cu130", "9.0");
    snprintf(cmd, sizeof cmd, "cp -r " FIXTURE_GOLDEN "/occurrences '%s/' && mkdir '%s/captures' && cp -rL " FIXTURE_TARGET "/captures/"
             CAT_SCOPE " " FIXTURE_TARGET "/captures/" LF_CUMSUM_SCOPE " '%s/captures/'", golden, target, target);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    free(test_write(target, "replay.json", mutated("\"cat-a\"", "\"" CAT_SCOPE "\"")));
    cli_run r = test_cli("audit", "--golden", golden, "--target", "H200-torch2.11.0+cu130", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    has(r.err, "/replay.json $: expected a row for every capture of ");
    has(r.err, "got none for " LF_CUMSUM_SCOPE);
    cli_run_free(&r);
    char both[4096];
    snprintf(both, sizeof both, "%.*s, {\"scope\": \"" LF_CUMSUM_SCOPE "\", \"verdict\": \"" EA_REPLAY_NOT_REPLAYABLE "\"}]",
             (int)strlen(mutated("\"cat-a\"", "\"" CAT_SCOPE "\"")) - 1, mutated("\"cat-a\"", "\"" CAT_SCOPE "\""));
    free(test_write(target, "replay.json", both));
    r = test_cli("audit", "--golden", golden, "--target", "H200-torch2.11.0+cu130", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "/replay.json: 2 captured partitions, 1 replayed from C, 1 of them ok");
    cli_run_free(&r);
    free(target);
}
