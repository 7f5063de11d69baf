#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/extract.h"
#include "helpers.h"
#include "corpus/occurrences.h"
#include "corpus/occurrences_impl.h"

/* A valid histc document from the fixture corpus, to break one field at a time. */
static cJSON *valid_doc(void)
{
    ea_corpus c;
    ea_error err;
    ea_extraction x;
    cr_assert_eq(ea_corpus_open(FIXTURE_CORPUS, &c, &err), 0, "%s", err.msg);
    ea_extract_opts o = {8, NULL};
    cr_assert_eq(ea_extract(&c, &o, &x, &err), 0, "%s", err.msg);
    ea_corpus_free(&c);
    cJSON *doc = cJSON_Duplicate(x.docs[2], 1);
    ea_extraction_free(&x);
    return doc;
}

static cJSON *first_occurrence(cJSON *doc)
{
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 0);
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "scopes"), 0), "occurrences"), 0);
}

static void expect_invalid(cJSON *doc, const char *needle)
{
    ea_error err = {{0}};
    cr_assert_eq(ea_occurrences_validate("histc.json", doc, "aten.histc.default", &err), -1);
    cr_assert(strstr(err.msg, "histc.json"), "file named: %s", err.msg);
    cr_assert(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    cJSON_Delete(doc);
}

Test(occurrences, valid_document_passes)
{
    cJSON *doc = valid_doc();
    ea_error err;
    cr_assert_eq(ea_occurrences_validate("histc.json", doc, "aten.histc.default", &err), 0, "%s", err.msg);
    cJSON_Delete(doc);
}

Test(occurrences, unknown_key)
{
    cJSON *doc = valid_doc();
    cJSON_AddNumberToObject(first_occurrence(doc), "extra", 1);
    expect_invalid(doc, "$.points[0].scopes[0].occurrences[0]: unknown key 'extra'");
}

Test(occurrences, count_must_match_listed)
{
    cJSON *doc = valid_doc();
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 0), "count"), 5);
    expect_invalid(doc, "$.points[0].count: expected the number of occurrences");
}

Test(occurrences, total_must_match_points)
{
    cJSON *doc = valid_doc();
    cJSON_SetNumberValue(cJSON_GetObjectItem(doc, "occurrences"), 7);
    expect_invalid(doc, "$.occurrences: expected the sum of point counts (2), got 7");
}

Test(occurrences, id_must_match_identity)
{
    cJSON *doc = valid_doc();
    cJSON_SetValuestring(cJSON_GetObjectItem(first_occurrence(doc), "node"), "other");
    expect_invalid(doc, "suite/mode/model/graph:node");
}

Test(occurrences, op_and_schema_version)
{
    cJSON *doc = valid_doc();
    ea_error err = {{0}};
    cr_assert_eq(ea_occurrences_validate("histc.json", doc, "aten.cumsum.default", &err), -1);
    cr_assert(strstr(err.msg, "$.op: expected \"aten.cumsum.default\""), "%s", err.msg);
    cJSON_SetNumberValue(cJSON_GetObjectItem(doc, "schema_version"), 2);
    expect_invalid(doc, "$.schema_version: expected 1, got 2");
}

Test(occurrences, missing_and_mistyped_fields)
{
    cJSON *doc = valid_doc();
    cJSON_DeleteItemFromObject(first_occurrence(doc), "line");
    expect_invalid(doc, "line");
    doc = valid_doc();
    cJSON *sig = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 0), "signature");
    cJSON_ReplaceItemInObject(sig, "args", cJSON_CreateString("x"));
    expect_invalid(doc, "$.points[0].signature.args: expected an array");
}

Test(occurrences, load_names_the_missing_file)
{
    cJSON *docs[EA_AUDIT_OPS];
    ea_error err = {{0}};
    const char *dir = test_tmpdir();
    cr_assert_eq(ea_occurrences_load(dir, docs, &err), -1);
    cr_assert(strstr(err.msg, "cat.json"), "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cr_assert_null(docs[i]);
}

/* The fixture corpus's four documents written to a fresh folder; returns the folder. */
static const char *written_docs(void)
{
    ea_corpus c;
    ea_error err;
    ea_extraction x;
    const char *dir = test_tmpdir();
    cr_assert_eq(ea_corpus_open(FIXTURE_CORPUS, &c, &err), 0, "%s", err.msg);
    ea_extract_opts o = {8, NULL};
    cr_assert_eq(ea_extract(&c, &o, &x, &err), 0, "%s", err.msg);
    ea_corpus_free(&c);
    cr_assert_eq(ea_extraction_write(&x, dir, &err), 0, "%s", err.msg);
    ea_extraction_free(&x);
    return dir;
}

/* Each tree moves to the caller and nothing else of the loaded documents stays behind (valgrind). */
Test(occurrences, load_hands_each_tree_to_the_caller)
{
    cJSON *docs[EA_AUDIT_OPS];
    ea_error err;
    cr_assert_eq(ea_occurrences_load(written_docs(), docs, &err), 0, "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        cr_assert_not_null(docs[i]);
        cr_assert_str_eq(cJSON_GetObjectItem(docs[i], "op")->valuestring, ea_audit_ops[i].target);
        cJSON_Delete(docs[i]);
    }
}

Test(occurrences, load_failing_midway_keeps_nothing)
{
    cJSON *docs[EA_AUDIT_OPS];
    ea_error err = {{0}};
    const char *dir = written_docs();
    cJSON *bad = valid_doc();
    cJSON_SetNumberValue(cJSON_GetObjectItem(bad, "schema_version"), 2);
    char *text = cJSON_Print(bad);
    free(test_write(dir, "histc.json", text));
    free(text);
    cJSON_Delete(bad);
    cr_assert_eq(ea_occurrences_load(dir, docs, &err), -1);
    cr_assert(strstr(err.msg, "/histc.json $.schema_version: expected 1, got 2"), "%s", err.msg);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cr_assert_null(docs[i]);
}

Test(occurrences, schema_names_schema)
{
    cJSON *doc = valid_doc();
    cJSON_ReplaceItemInObject(doc, "schema", cJSON_CreateString("extern-audit/other"));
    expect_invalid(doc, "$.schema: expected \"extern-audit/occurrences\", got \"extern-audit/other\"");
}

Test(occurrences, summary_rows_count_points_per_model)
{
    cJSON *docs[EA_AUDIT_OPS] = {0};
    docs[2] = valid_doc();
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!docs[i]) {
            docs[i] = cJSON_CreateObject();
            cJSON_AddArrayToObject(docs[i], "points");
        }
    cJSON *s = ea_occurrences_summary(docs);
    cr_assert_eq(cJSON_GetObjectItem(s, "occurrences_total")->valueint, 2, "tiny/moe's and tiny/moe128's histc");
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "by_model"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(row, "model")->valuestring, "tiny/moe");
    cr_assert_eq(cJSON_GetObjectItem(row, "points")->valueint, 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "by_model")), 2);
    cJSON_Delete(s);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

/* Where the repro families look for captures/: the folder above occurrences/, whatever the path's form. */
Test(occurrences, golden_dir_of_a_document)
{
    static const char *const cases[][2] = {
        {"golden/occurrences/cat.json", "golden"}, {"a/b/golden/occurrences/cat.json", "a/b/golden"},
        {"occurrences/cat.json", "."},             {"cat.json", ".."},
        {"/occurrences/cat.json", "/"},
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(ea_golden_dir_of(cases[i][0], out, sizeof out), 0, "%s", cases[i][0]);
        cr_assert_str_eq(out, cases[i][1], "%s", cases[i][0]);
    }
    char small[8];
    cr_assert_eq(ea_golden_dir_of("golden/occurrences/cat.json", small, sizeof small), -1, "truncated: refused");
    cr_assert_eq(ea_golden_dir_of("golden/x", small, sizeof small), -1, "one byte short: refused");
    cr_assert_eq(ea_golden_dir_of("g/o/c", small, sizeof small), 0);
    cr_assert_str_eq(small, "g");
}
