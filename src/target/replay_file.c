/* replay_file.c: golden/targets/<target>/replay.json read strictly (contract in replay_file.h). */
#include "target/replay_file.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/readfile.h"
#include "target/target_layout.h"

static const char *const verdicts[] = {"ok", EA_REPLAY_OK_TOLERANT, "output mismatch", "kernels differ",
                                       "slower than torch", "faster than torch", EA_REPLAY_NOT_REPLAYABLE, NULL};

/* replay_us, torch_compiled_us and ratio; *ratio is the one the file states, checked against the two. */
static int timing(ej_val row, double *ratio, ea_error *err)
{
    static const char *const keys[] = {"median", "q1", "q3", "samples", "policy", NULL};
    ej_val t;
    double q1, median, q3, torch;
    int64_t samples;
    const char *policy;
    char got[96];
    if (ej_field(row, "replay_us", 1, &t, err) || ej_object(t, keys, err) || ej_get_number(t, "median", &median, err) ||
        ej_get_number(t, "q1", &q1, err) || ej_get_number(t, "q3", &q3, err) ||
        ej_get_int_min(t, "samples", 1, &samples, err) || ej_get_string(t, "policy", &policy, err) ||
        ej_get_number(row, "torch_compiled_us", &torch, err) || ej_get_number(row, "ratio", ratio, err))
        return -1;
    if (!(q1 > 0 && q1 <= median && median <= q3)) {
        snprintf(got, sizeof got, "q1 %g, median %g, q3 %g", q1, median, q3);
        return ej_bad_field(t, "median", "a positive median between q1 and q3", got, err);
    }
    if (!(q3 < EJ_MAX_TIME_US)) {
        snprintf(got, sizeof got, "%g", q3);
        return ej_bad_field(t, "q3", "a time below 1e9 us", got, err);
    }
    if (!*policy)
        return ej_bad_field(t, "policy", "the timer's cache policy sentence", "\"\"", err);
    if (!(torch > 0)) {
        snprintf(got, sizeof got, "%g", torch);
        return ej_bad_field(row, "torch_compiled_us", "a positive time", got, err);
    }
    /* the file states median / torch_compiled_us; JSON's 17 digits leave it within rounding */
    if (!(fabs(*ratio - median / torch) <= 1e-9 * (median / torch))) {
        char what[96];
        snprintf(what, sizeof what, "replay_us.median / torch_compiled_us = %.9g", median / torch);
        snprintf(got, sizeof got, "%.9g", *ratio);
        return ej_bad_field(row, "ratio", what, got, err);
    }
    return 0;
}

const char *ea_replay_verdict(int64_t outputs, int64_t matching, int64_t tolerant, int kernels_match, int unavailable,
                              double ratio)
{
    if (matching + tolerant != outputs)
        return "output mismatch";
    if (!unavailable && !kernels_match)
        return "kernels differ";
    if (fabs(ratio - 1.0) > EA_CAPTURE_TOLERANCE)
        return ratio > 1.0 ? "slower than torch" : "faster than torch";
    return tolerant ? EA_REPLAY_OK_TOLERANT : "ok";
}

static int row(ej_val r, ea_error *err)
{
    static const char *const keys[] = {"scope", "verdict", "outputs", "outputs_matching", "outputs_within_tolerance",
                                       "mismatch", "replay_us",
                                       "torch_compiled_us", "ratio", "kernels_match", "kernels",
                                       "kernels_unavailable", NULL};
    const char *scope, *verdict, *s;
    int64_t outputs, matching, tolerant = 0;
    int match, n;
    double ratio = 1.0;
    ej_val f, mismatch, unavailable;
    if (ej_object(r, keys, err) || ej_get_string(r, "scope", &scope, err) ||
        ej_get_one_of(r, "verdict", verdicts,
                      "one of the replay's verdicts (ok, " EA_REPLAY_OK_TOLERANT ", output mismatch, kernels differ, "
                      "slower than torch, faster than torch, " EA_REPLAY_NOT_REPLAYABLE ")",
                      &verdict, err))
        return -1;
    if (!ea_plain_name(scope)) {
        char got[160];
        snprintf(got, sizeof got, "\"%.100s\"", scope);
        return ej_bad_field(r, "scope", "a capture's scope id (a folder name under " EA_CAPTURES_NAME "/)", got, err);
    }
    if (!strcmp(verdict, EA_REPLAY_NOT_REPLAYABLE)) { /* nothing else was measured: no other key may be there */
        const cJSON *k;
        cJSON_ArrayForEach(k, r.v) if (strcmp(k->string, "scope") && strcmp(k->string, "verdict"))
            return ej_bad_field(r, k->string, "nothing but scope and verdict in a row not replayed", "a value", err);
        return 0;
    }
    if (ej_get_int_min(r, "outputs", 1, &outputs, err) || ej_get_int_min(r, "outputs_matching", 0, &matching, err) ||
        ej_get_bool(r, "kernels_match", &match, err) || ej_field(r, "kernels", 1, &f, err) || ej_array(f, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val k = ej_index(f, i);
        if (ej_as_string(k, &s, err))
            return -1;
        if (!*s)
            return ea_fail(err, "%s %s: expected a kernel name, got \"\"", k.file, k.path);
    }
    /* outputs whose checksum differs but lie within tolerance of the capture's reference samples (atomics) */
    if (cJSON_GetObjectItemCaseSensitive(r.v, "outputs_within_tolerance") &&
        ej_get_int_min(r, "outputs_within_tolerance", 1, &tolerant, err))
        return -1;
    if (matching + tolerant > outputs) {
        char what[96], got[64];
        snprintf(what, sizeof what, "outputs_matching + outputs_within_tolerance at most outputs (%" PRId64 ")", outputs);
        snprintf(got, sizeof got, "%" PRId64 " + %" PRId64, matching, tolerant);
        return ej_bad_field(r, "outputs_matching", what, got, err);
    }
    if (ej_field(r, "mismatch", 0, &mismatch, err) || (mismatch.v && ej_as_string(mismatch, &s, err)) ||
        ej_field(r, "kernels_unavailable", 0, &unavailable, err) || (unavailable.v && ej_as_string(unavailable, &s, err)))
        return -1;
    int all = matching + tolerant == outputs;
    if ((mismatch.v == NULL) != all) /* the first differing output is named exactly when one differs */
        return ej_bad_field(r, "mismatch", all ? "no mismatch: every output matches or is within tolerance"
                                               : "the first output whose checksum differs",
                            mismatch.v ? "a mismatch" : "none", err);
    if (unavailable.v && match)
        return ej_bad_field(r, "kernels_match", "false: CUPTI gave no list (kernels_unavailable)", "true", err);
    /* every output matched: it was timed; a mismatch on the first call leaves it untimed */
    if (cJSON_GetObjectItemCaseSensitive(r.v, "replay_us") || all)
        if (timing(r, &ratio, err))
            return -1;
    const char *want = ea_replay_verdict(outputs, matching, tolerant, match, unavailable.v != NULL, ratio);
    if (strcmp(verdict, want)) {
        char what[96], got[64];
        snprintf(what, sizeof what, "\"%s\", what its outputs, kernels and ratio give", want);
        snprintf(got, sizeof got, "\"%s\"", verdict);
        return ej_bad_field(r, "verdict", what, got, err);
    }
    return 0;
}

int ea_replay_file_validate(const char *file, const cJSON *doc, ea_error *err)
{
    ej_val root = {file, doc, "$"};
    int n;
    if (ej_array(root, &n, err))
        return -1;
    for (int i = 0; i < n; i++) {
        ej_val r = ej_index(root, i);
        if (row(r, err))
            return -1;
        for (int j = 0; j < i; j++) /* one object per capture */
            if (!strcmp(ej_str(ej_index(root, j).v, "scope"), ej_str(r.v, "scope"))) {
                char got[160];
                snprintf(got, sizeof got, "\"%.100s\" again (first at $[%d])", ej_str(r.v, "scope"), j);
                return ej_bad_field(r, "scope", "a capture listed once", got, err);
            }
    }
    return 0;
}

static int has_capture(const ea_captures *caps, const char *scope)
{
    for (int i = 0; i < caps->n; i++)
        if (!strcmp(caps->items[i].scope, scope))
            return 1;
    return 0;
}

int ea_replay_file_covers(const char *file, const cJSON *doc, const ea_captures *caps, ea_error *err)
{
    ej_val root = {file, doc, "$"};
    int rows = cJSON_GetArraySize(doc);
    for (int i = 0; i < rows; i++) {
        ej_val r = ej_index(root, i);
        if (!has_capture(caps, ej_str(r.v, "scope"))) {
            char what[4200], got[256];
            snprintf(what, sizeof what, "a capture of %s (held or inherited)", caps->dir);
            snprintf(got, sizeof got, "\"%.100s\" (no %.40s/" EA_CAPTURE_NAME ")", ej_str(r.v, "scope"), ej_str(r.v, "scope"));
            return ej_bad_field(r, "scope", what, got, err);
        }
    }
    for (int i = 0; i < caps->n; i++) {
        int listed = 0;
        for (int j = 0; !listed && j < rows; j++)
            listed = !strcmp(ej_str(cJSON_GetArrayItem(doc, j), "scope"), caps->items[i].scope);
        if (!listed)
            return ea_fail(err, "%s $: expected a row for every capture of %s/captures, got none for %s", file,
                           caps->dir, caps->items[i].scope);
    }
    return 0;
}

void ea_replay_file_count(const cJSON *doc, int *replayed, int *ok)
{
    const cJSON *r;
    *replayed = *ok = 0;
    cJSON_ArrayForEach(r, doc) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "verdict"));
        *replayed += strcmp(v, EA_REPLAY_NOT_REPLAYABLE) != 0;
        *ok += !strcmp(v, "ok") || !strcmp(v, EA_REPLAY_OK_TOLERANT);
    }
}
