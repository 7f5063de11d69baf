/* replay_file.c: golden/targets/<target>/replay.json read strictly (contract in replay_file.h). */
#include "replay_file.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

#define NOT_REPLAYABLE "not replayable (ATen steps)"

static const char *const verdicts[] = {"ok", EA_REPLAY_OK_TOLERANT, "output mismatch", "kernels differ",
                                       "slower than torch", "faster than torch", NOT_REPLAYABLE, NULL};

static int timing(ej_val row, ea_error *err)
{
    static const char *const keys[] = {"median", "q1", "q3", "samples", "policy", NULL};
    ej_val t;
    double q1, median, q3, torch, ratio;
    int64_t samples;
    const char *policy;
    char got[96];
    if (ej_field(row, "replay_us", 1, &t, err) || ej_object(t, keys, err) || ej_get_number(t, "median", &median, err) ||
        ej_get_number(t, "q1", &q1, err) || ej_get_number(t, "q3", &q3, err) ||
        ej_get_int_min(t, "samples", 1, &samples, err) || ej_get_string(t, "policy", &policy, err) ||
        ej_get_number(row, "torch_compiled_us", &torch, err) || ej_get_number(row, "ratio", &ratio, err))
        return -1;
    if (!(q1 > 0 && q1 <= median && median <= q3)) {
        snprintf(got, sizeof got, "q1 %g, median %g, q3 %g", q1, median, q3);
        return ej_bad_field(t, "median", "a positive median between q1 and q3", got, err);
    }
    if (!(torch > 0)) {
        snprintf(got, sizeof got, "%g", torch);
        return ej_bad_field(row, "torch_compiled_us", "a positive time", got, err);
    }
    return 0;
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
    ej_val f;
    if (ej_object(r, keys, err) || ej_get_string(r, "scope", &scope, err) ||
        ej_get_one_of(r, "verdict", verdicts,
                      "one of the replay's verdicts (ok, " EA_REPLAY_OK_TOLERANT ", output mismatch, kernels differ, "
                      "slower than torch, faster than torch, " NOT_REPLAYABLE ")",
                      &verdict, err))
        return -1;
    if (!strcmp(verdict, NOT_REPLAYABLE)) /* nothing else was measured: no other key may be there */
        return cJSON_GetArraySize(r.v) == 2 ? 0 : ej_bad_field(r, "outputs", "nothing but scope and verdict", "more", err);
    if (ej_get_int_min(r, "outputs", 1, &outputs, err) || ej_get_int_min(r, "outputs_matching", 0, &matching, err) ||
        ej_get_bool(r, "kernels_match", &match, err) || ej_field(r, "kernels", 1, &f, err) || ej_array(f, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (ej_as_string(ej_index(f, i), &s, err))
            return -1;
    if (cJSON_GetObjectItemCaseSensitive(r.v, "outputs_within_tolerance") &&
        ej_get_int_min(r, "outputs_within_tolerance", 1, &tolerant, err))
        return -1;
    if (!strcmp(verdict, EA_REPLAY_OK_TOLERANT) && (!tolerant || matching + tolerant != outputs)) {
        char what[128], got[64];
        snprintf(what, sizeof what, "outputs_matching + outputs_within_tolerance = outputs (%" PRId64 "), some within tolerance",
                 outputs);
        snprintf(got, sizeof got, "%" PRId64 " + %" PRId64, matching, tolerant);
        return ej_bad_field(r, "outputs_within_tolerance", what, got, err);
    }
    if (matching + tolerant > outputs || (!strcmp(verdict, "ok") && matching != outputs)) {
        char what[96], got[32];
        snprintf(what, sizeof what, "at most outputs (%" PRId64 ")%s", outputs,
                 strcmp(verdict, "ok") ? "" : ", and all of them for verdict ok");
        snprintf(got, sizeof got, "%" PRId64, matching);
        return ej_bad_field(r, "outputs_matching", what, got, err);
    }
    if ((cJSON_GetObjectItemCaseSensitive(r.v, "replay_us") && timing(r, err)) ||
        ej_field(r, "mismatch", 0, &f, err) || (f.v && ej_as_string(f, &s, err)) ||
        ej_field(r, "kernels_unavailable", 0, &f, err) || (f.v && ej_as_string(f, &s, err)))
        return -1;
    return 0;
}

int ea_replay_file_validate(const char *file, const cJSON *doc, ea_error *err)
{
    ej_val root = {file, doc, "$"};
    int n;
    if (ej_array(root, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (row(ej_index(root, i), err))
            return -1;
    return 0;
}

void ea_replay_file_count(const cJSON *doc, int *replayed, int *ok)
{
    const cJSON *r;
    *replayed = *ok = 0;
    cJSON_ArrayForEach(r, doc) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "verdict"));
        *replayed += strcmp(v, NOT_REPLAYABLE) != 0;
        *ok += !strcmp(v, "ok") || !strcmp(v, EA_REPLAY_OK_TOLERANT);
    }
}
