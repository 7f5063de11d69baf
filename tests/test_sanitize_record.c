/* golden/targets/<target>/sanitize.json: the record ci/sanitize-summary writes, read strictly and shown in audit's
 * bottom line. The fixture is ci/sanitize-summary's output over the real H200 logs in
 * tests/fixtures/sanitize/h200-logs (tests/sanitize_summary.sh tests that parsing). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/bottom_line.h"
#include "base/json_impl.h"
#include "target/target.h"
#include "helpers.h"
#include "base/json.h"
#include "target/sanitize_record.h"

#define FIXTURE "tests/fixtures/sanitize/H200.json"

static void has(const char *text, const char *want)
{
    cr_assert_not_null(strstr(text, want), "expected '%s' in:\n%s", want, text);
}

/* The fixture with the first from replaced by to, validated: its return and message. */
static int tampered(const char *from, const char *to, ea_error *err)
{
    char *text = test_read(FIXTURE), *at = strstr(text, from);
    cr_assert_not_null(at, "the fixture has no '%s'", from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    ej_doc doc;
    int rc = ej_parse("H200.json", edited, &doc, err);
    if (rc == 0) {
        rc = ea_sanitize_validate("H200.json", doc.root, err);
        ej_free(&doc);
    }
    free(edited);
    free(text);
    return rc;
}

Test(sanitize_record, fixture_is_valid_and_shown_with_its_totals)
{
    ej_doc doc;
    ea_error err;
    cr_assert_eq(ej_load(FIXTURE, &doc, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_sanitize_validate(FIXTURE, doc.root, &err), 0, "%s", err.msg);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ea_sanitize_show(FIXTURE, doc.root, f);
    fclose(f);
    has(out, "compute-sanitizer (Version 2025.3.1.0 (build 36400806) (public-release)) on NVIDIA H200, driver 580.159.04");
    has(out, "scopes cat cumsum routing_histc: 162 paths checked, 0 failed, 249 kernels launched");
    has(out, "  memcheck       1        0        0        64 s\n");
    has(out, "  racecheck      1        0        0         3 s\n");
    has(out, "verdict: clean");
    free(out);
    ej_free(&doc);
}

Test(sanitize_record, a_failed_record_says_so)
{
    ej_doc doc;
    ea_error err;
    char *text = test_read(FIXTURE);
    char *p = strstr(text, "\"passed\": true");
    cr_assert_not_null(p);
    memcpy(p, "\"passed\":false", 14);
    cr_assert_eq(ej_parse("H200.json", text, &doc, &err), 0, "%s", err.msg);
    /* a racecheck run that printed no summary: its count, its tool's total and the verdict say so */
    cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc.root, "totals"), 2), *r;
    cJSON_ReplaceItemInObjectCaseSensitive(t, "errors", cJSON_CreateNull());
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc.root, "runs"))
        if (!strcmp(ej_text(r, "tool"), ej_text(t, "tool"))) {
            cJSON_ReplaceItemInObjectCaseSensitive(r, "errors", cJSON_CreateNull());
            cJSON_ReplaceItemInObjectCaseSensitive(r, "clean", cJSON_CreateFalse());
        }
    cr_assert_eq(ea_sanitize_validate("H200.json", doc.root, &err), 0, "%s", err.msg);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ea_sanitize_show("H200.json", doc.root, f);
    fclose(f);
    has(out, "  racecheck      1  unknown");
    has(out, "verdict: NOT CLEAN");
    free(out);
    ej_free(&doc);
    free(text);
}

Test(sanitize_record, malformed_records_name_the_path_and_the_expectation)
{
    static const char *const cases[][3] = {
        /* from, to, the message wanted */
        {"extern-audit/sanitize", "extern-audit/other", "H200.json $.schema: expected \"extern-audit/sanitize\""},
        {"\"kernels\": 249", "\"kernels\": -1", "H200.json $.check_only.kernels: expected an integer >= 0"},
        {"\"hazards\": 0", "\"hazards\": -2", "H200.json $.runs[2].hazards: expected an integer >= 0 or null"},
        {"\"errors\": 0", "\"errors\": \"0\"", "H200.json $.totals[0].errors: expected"},
        {"\"clean\": true", "\"clean\": 1", "H200.json $.runs[0].clean: expected"},
        {"\"passed\"", "\"pased\"", "unknown key 'pased'"},
        {"\"cat\",", "7,", "H200.json $.scopes[0]: expected"},
        /* derived: a run's clean, a tool's total, the verdict, each run and total once (issue 26) */
        {"\"hazards\": 0", "\"hazards\": 2", "H200.json $.runs[2].clean: expected false (an exit, error, warning or "
                                           "hazard), got true"},
        {"\"errors\": 0", "\"errors\": 3", "H200.json $.totals[0].errors: expected 0 (its runs' errors and warnings), "
                                         "got 3"},
        {"\"passed\": true", "\"passed\": false", "H200.json $.passed: expected true (every run clean, the plain "
                                                  "runs exited 0), got false"},
        {"\"exit\": 0\n    }", "\"exit\": 1\n    }", "H200.json $.passed: expected false"},
        {"\"totals\": [", "\"totals\": [{\"tool\": \"memcheck\", \"errors\": 0}, ",
         "H200.json $.totals[2]: expected each tool's total once, got a repeat of $.totals[0]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ea_error err;
        cr_assert_eq(tampered(cases[i][0], cases[i][1], &err), -1, "accepted %s", cases[i][1]);
        has(err.msg, cases[i][2]);
    }
}

Test(sanitize_record, audit_shows_every_record_and_refuses_a_bad_one)
{
    ea_target t = {.name = "H200-torch2.11.0+cu130"};
    snprintf(t.dir, sizeof t.dir, "%s", test_tmpdir());
    char *text = test_read(FIXTURE);
    free(test_write(t.dir, "sanitize.json", text));
    char *out = NULL;
    size_t len = 0;
    ea_error err;
    FILE *f = open_memstream(&out, &len);
    cr_assert_eq(ea_bottom_line(&t, NULL, f, &err), 0, "%s", err.msg);
    fclose(f);
    has(out, "/sanitize.json: compute-sanitizer");
    free(out);
    free(test_write(t.dir, "sanitize.json", "{\"schema\": \"extern-audit/sanitize\", \"schema_version\": 2}"));
    f = open_memstream(&out, &len);
    cr_assert_eq(ea_bottom_line(&t, NULL, f, &err), -1);
    fclose(f);
    has(err.msg, "sanitize.json $.schema_version: expected 1, got 2");
    free(out);
    free(text);
}
