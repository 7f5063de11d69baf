#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/json_impl.h"

#define SAMPLE "tests/fixtures/json/sample.json"

static ej_doc doc;
static ea_error err;

static ej_val parse(const char *text)
{
    cr_assert_eq(ej_parse("t.json", text, &doc, &err), 0, "%s", err.msg);
    return ej_root(&doc);
}

static ej_val sample(void)
{
    cr_assert_eq(ej_load(SAMPLE, &doc, &err), 0, "%s", err.msg);
    return ej_root(&doc);
}

static void done(void)
{
    ej_free(&doc);
}

static ej_val get(ej_val obj, const char *key)
{
    ej_val v;
    cr_assert_eq(ej_field(obj, key, 1, &v, &err), 0, "%s", err.msg);
    return v;
}

#define assert_fails(call, want)                                                                        \
    do {                                                                                                \
        cr_assert_eq((call), -1, "succeeded: " #call);                                                  \
        cr_assert_str_eq(err.msg, (want));                                                              \
    } while (0)

/* ---- accessors ---- */

TestSuite(json, .fini = done);

Test(json, reads_each_type)
{
    ej_val r = sample(), v;
    const char *s;
    int64_t i;
    double d;
    int b;
    cr_assert_str_eq(r.path, "$");
    cr_assert_eq(ej_get_string(r, "name", &s, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s, "demo");
    cr_assert_eq(ej_get_int(r, "count", &i, &err), 0, "%s", err.msg);
    cr_assert_eq(i, 3);
    cr_assert_eq(ej_get_number(r, "ratio", &d, &err), 0, "%s", err.msg);
    cr_assert_float_eq(d, 0.5, 1e-12);
    cr_assert_eq(ej_get_number(r, "count", &d, &err), 0, "%s", err.msg);
    cr_assert_float_eq(d, 3.0, 1e-12);
    cr_assert_eq(ej_get_bool(r, "flag", &b, &err), 0, "%s", err.msg);
    cr_assert_eq(b, 1);
    v = get(r, "nothing");
    cr_assert(cJSON_IsNull(v.v));
    cr_assert_str_eq(v.path, "$.nothing");
}

Test(json, string_rejects_number)
{
    const char *s;
    assert_fails(ej_get_string(sample(), "count", &s, &err), SAMPLE " $.count: expected string, got number 3");
}

Test(json, int_rejects_fraction)
{
    int64_t i;
    assert_fails(ej_get_int(sample(), "ratio", &i, &err), SAMPLE " $.ratio: expected integer, got number 0.5");
}

Test(json, int_rejects_boolean_and_string)
{
    int64_t i;
    assert_fails(ej_get_int(sample(), "flag", &i, &err), SAMPLE " $.flag: expected integer, got boolean true");
    assert_fails(ej_get_int(ej_root(&doc), "name", &i, &err), SAMPLE " $.name: expected integer, got string \"demo\"");
}

Test(json, int_range_is_exact_doubles)
{
    ej_val r = parse("{\"max\": 9007199254740991, \"min\": -9007199254740991, \"over\": 9007199254740994,"
                     " \"neg\": -1e17, \"plus1\": 9007199254740993}");
    int64_t i;
    cr_assert_eq(ej_get_int(r, "max", &i, &err), 0, "%s", err.msg);
    cr_assert_eq(i, INT64_C(9007199254740991));
    cr_assert_eq(ej_get_int(r, "min", &i, &err), 0, "%s", err.msg);
    cr_assert_eq(i, -INT64_C(9007199254740991));
    assert_fails(ej_get_int(r, "over", &i, &err),
                 "t.json $.over: expected integer of magnitude below 2^53, got number 9007199254740994");
    assert_fails(ej_get_int(r, "neg", &i, &err),
                 "t.json $.neg: expected integer of magnitude below 2^53, got number -1e+17");
    assert_fails(ej_get_int(r, "plus1", &i, &err), /* reads as 2^53: refused, never taken as another number */
                 "t.json $.plus1: expected integer of magnitude below 2^53, got number 9007199254740992");
}

Test(json, number_rejects_non_numbers)
{
    ej_val r = sample();
    double d;
    assert_fails(ej_get_number(r, "flag", &d, &err), SAMPLE " $.flag: expected finite number, got boolean true");
    assert_fails(ej_get_number(r, "nothing", &d, &err), SAMPLE " $.nothing: expected finite number, got null");
    assert_fails(ej_get_number(r, "points", &d, &err), SAMPLE " $.points: expected finite number, got array");
}

Test(json, number_rejects_overflow)
{
    double d;
    assert_fails(ej_get_number(parse("{\"huge\": 1e400}"), "huge", &d, &err),
                 "t.json $.huge: expected finite number, got number inf");
}

Test(json, bool_rejects_number)
{
    int b;
    assert_fails(ej_get_bool(sample(), "count", &b, &err), SAMPLE " $.count: expected boolean, got number 3");
}

Test(json, long_string_is_cut_in_message)
{
    ej_val r = parse("{\"s\": \"0123456789012345678901234567890123456789abc\"}");
    int64_t i;
    assert_fails(ej_get_int(r, "s", &i, &err),
                 "t.json $.s: expected integer, got string \"0123456789012345678901234567890123456789...\"");
}

/* ---- fields, arrays, maps, paths ---- */

Test(json, missing_required_key)
{
    ej_val v;
    int64_t i;
    assert_fails(ej_field(sample(), "zzz", 1, &v, &err), SAMPLE " $.zzz: expected a value, got nothing (missing key)");
    assert_fails(ej_get_int(ej_root(&doc), "zzz", &i, &err),
                 SAMPLE " $.zzz: expected integer, got nothing (missing key)");
}

Test(json, missing_optional_key)
{
    ej_val v;
    cr_assert_eq(ej_field(sample(), "zzz", 0, &v, &err), 0, "%s", err.msg);
    cr_assert_null(v.v);
}

Test(json, field_of_non_object)
{
    ej_val v;
    assert_fails(ej_field(get(sample(), "points"), "count", 0, &v, &err),
                 SAMPLE " $.points: expected object, got array");
}

Test(json, nested_paths)
{
    ej_val occ = get(ej_index(get(sample(), "points"), 1), "occurrences");
    const char *s;
    int n;
    cr_assert_eq(ej_array(occ, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(ej_get_string(ej_index(occ, 0), "node", &s, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s, "mm_2");
    assert_fails(ej_get_string(ej_index(occ, 1), "node", &s, &err),
                 SAMPLE " $.points[1].occurrences[1].node: expected string, got number 7");
}

Test(json, index_past_end_is_nothing)
{
    int64_t i;
    ej_val v = ej_index(get(sample(), "points"), 5);
    cr_assert_null(v.v);
    assert_fails(ej_as_int(v, &i, &err), SAMPLE " $.points[5]: expected integer, got nothing");
}

Test(json, index_of_object_is_nothing)
{
    cr_assert_null(ej_index(get(sample(), "ops"), 0).v);
}

Test(json, next_walks_an_array_as_index_does_and_ends_in_nothing)
{
    ej_val r = parse("{\"a\": [10, \"x\", [], 13], \"o\": {\"k\": 1}}"), arr = get(r, "a"), e = ej_index(arr, 0);
    int n, i;
    cr_assert_eq(ej_array(arr, &n, &err), 0, "%s", err.msg);
    for (i = 0; i < n; e = ej_next(arr, e, i++)) {
        ej_val want = ej_index(arr, i);
        cr_assert_eq(e.v, want.v, "element %d", i);
        cr_assert_str_eq(e.path, want.path);
    }
    cr_assert_null(e.v);
    cr_assert_str_eq(e.path, "$.a[4]");
    double x;
    assert_fails(ej_as_number(ej_next(arr, ej_index(arr, 0), 0), &x, &err), "t.json $.a[1]: expected finite number, got "
                                                                             "string \"x\"");
    cr_assert_null(ej_next(get(r, "o"), ej_index(arr, 0), 0).v, "an object is no array");
}

Test(json, array_rejects_object)
{
    int n;
    assert_fails(ej_array(get(sample(), "ops"), &n, &err), SAMPLE " $.ops: expected array, got object");
}

Test(json, map_members_and_quoted_paths)
{
    ej_val ops = get(sample(), "ops"), v;
    const char *key;
    int n;
    int b;
    cr_assert_eq(ej_map(ops, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    v = ej_member(ops, 0, &key);
    cr_assert_str_eq(key, "aten.mm.default");
    cr_assert_str_eq(v.path, "$.ops[\"aten.mm.default\"]");
    assert_fails(ej_as_bool(v, &b, &err), SAMPLE " $.ops[\"aten.mm.default\"]: expected boolean, got number 2");
    cr_assert_str_eq(ej_member(ops, 1, &key).path, "$.ops.plain_key");
    v = ej_member(ops, 2, &key);
    cr_assert_null(v.v);
    cr_assert_null(key);
}

Test(json, map_rejects_array_and_duplicates)
{
    int n;
    assert_fails(ej_map(get(sample(), "points"), &n, &err), SAMPLE " $.points: expected object, got array");
    done();
    /* a tree built in memory (ej_parse refuses the text: golden_truth's tests) */
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "a", 1);
    cJSON_AddNumberToObject(m, "a", 2);
    assert_fails(ej_map((ej_val){"t.json", m, "$.m"}, &n, &err), "t.json $.m: expected unique keys, got duplicate key 'a'");
    cJSON_Delete(m);
}

Test(json, long_paths_are_cut)
{
    char text[2048] = "";
    ej_val v;
    int depth = 40;
    for (int i = 0; i < depth; i++)
        strcat(text, "{\"abcdefghij\": ");
    strcat(text, "1");
    for (int i = 0; i < depth; i++)
        strcat(text, "}");
    v = parse(text);
    for (int i = 0; i < depth; i++)
        v = get(v, "abcdefghij");
    cr_assert_eq(strlen(v.path), sizeof v.path - 1);
    cr_assert_str_eq(v.path + sizeof v.path - 4, "...");
}

/* ---- ej_object ---- */

static const char *const xyz[] = {"x", "y", "z", NULL};

Test(json, object_accepts_known_keys)
{
    cr_assert_eq(ej_object(parse("{\"x\": 1, \"z\": 2}"), xyz, &err), 0, "%s", err.msg);
}

Test(json, object_rejects_unknown_key)
{
    assert_fails(ej_object(get(get(parse("{\"a\": {\"b\": {\"x\": 1, \"zzz\": 2}}}"), "a"), "b"), xyz, &err),
                 "t.json $.a.b: unknown key 'zzz' (expected one of: x, y, z)");
}

Test(json, object_rejects_duplicate_key)
{
    cJSON *o = cJSON_CreateObject(); /* built in memory: ej_parse refuses the text (golden_truth's tests) */
    cJSON_AddNumberToObject(o, "x", 1);
    cJSON_AddNumberToObject(o, "y", 2);
    cJSON_AddNumberToObject(o, "x", 3);
    assert_fails(ej_object((ej_val){"t.json", o, "$"}, xyz, &err), "t.json $: expected unique keys, got duplicate key 'x'");
    cJSON_Delete(o);
}

Test(json, object_rejects_array)
{
    assert_fails(ej_object(parse("[1]"), xyz, &err), "t.json $: expected object, got array");
}

/* ---- invalid JSON and unreadable files ---- */

Test(json, invalid_json_line_and_column)
{
    assert_fails(ej_load("tests/fixtures/json/invalid.json", &doc, &err),
                 "tests/fixtures/json/invalid.json:3:14: invalid JSON near ' \"b\": [1, 2,, 3]'");
    cr_assert_null(doc.root);
}

Test(json, empty_file)
{
    assert_fails(ej_load("tests/fixtures/json/empty.json", &doc, &err),
                 "tests/fixtures/json/empty.json:1:1: invalid JSON near '' (empty document)");
}

Test(json, whitespace_only)
{
    assert_fails(ej_parse("w.json", " \n\t\n", &doc, &err), "w.json:3:1: invalid JSON near '' (empty document)");
}

Test(json, truncated)
{
    assert_fails(ej_parse("t.json", "{\"a\": [1,\n 2", &doc, &err),
                 "t.json:2:3: invalid JSON near ' 2' (unexpected end of input)");
}

Test(json, trailing_garbage)
{
    assert_fails(ej_parse("t.json", "{} x", &doc, &err), "t.json:1:4: invalid JSON near '{} x'");
}

Test(json, unprintable_bytes_in_excerpt)
{
    assert_fails(ej_parse("t.json", "['a\x01']", &doc, &err), "t.json:1:2: invalid JSON near '[?a??]'");
}

Test(json, missing_file)
{
    assert_fails(ej_load("tests/fixtures/json/absent.json", &doc, &err),
                 "tests/fixtures/json/absent.json: cannot read: No such file or directory");
}

Test(json, directory_is_unreadable)
{
    assert_fails(ej_load("tests/fixtures/json", &doc, &err), "tests/fixtures/json: not a regular file (a folder)");
}

/* ---- shared checks: document identity, a field found wrong, taking the tree ---- */

Test(json, schema_and_version_match)
{
    cr_assert_eq(ej_expect_schema(parse("{\"schema\": \"x/y\", \"schema_version\": 3}"), "x/y", 3, &err), 0, "%s",
                 err.msg);
    done();
    /* NULL schema: the version alone, and a schema key is not required */
    cr_assert_eq(ej_expect_schema(parse("{\"schema_version\": 2}"), NULL, 2, &err), 0, "%s", err.msg);
}

Test(json, schema_mismatch_names_schema)
{
    /* the schema is checked first: a file of another kind is not judged by its version */
    assert_fails(ej_expect_schema(parse("{\"schema\": \"x/z\", \"schema_version\": 9}"), "x/y", 3, &err),
                 "t.json $.schema: expected \"x/y\", got \"x/z\"");
}

Test(json, version_mismatch_names_schema_version)
{
    assert_fails(ej_expect_schema(parse("{\"schema\": \"x/y\", \"schema_version\": 4}"), "x/y", 3, &err),
                 "t.json $.schema_version: expected 3, got 4");
    done();
    assert_fails(ej_expect_schema(parse("{\"schema_version\": 3}"), NULL, 2, &err),
                 "t.json $.schema_version: expected 2, got 3");
}

Test(json, schema_fields_missing_or_mistyped)
{
    assert_fails(ej_expect_schema(parse("{\"schema_version\": 1}"), "x/y", 1, &err),
                 "t.json $.schema: expected string, got nothing (missing key)");
    done();
    assert_fails(ej_expect_schema(parse("{\"schema\": \"x/y\"}"), "x/y", 1, &err),
                 "t.json $.schema_version: expected integer, got nothing (missing key)");
    done();
    assert_fails(ej_expect_schema(parse("{\"schema\": 1, \"schema_version\": 1}"), "x/y", 1, &err),
                 "t.json $.schema: expected string, got number 1");
    done();
    assert_fails(ej_expect_schema(parse("{\"schema\": \"x/y\", \"schema_version\": \"1\"}"), "x/y", 1, &err),
                 "t.json $.schema_version: expected integer, got string \"1\"");
    done();
    assert_fails(ej_expect_schema(parse("[]"), NULL, 1, &err), "t.json $: expected object, got array");
}

Test(json, bad_field_paths)
{
    ej_val r = parse("{\"a\": {\"b\": 1}}");
    assert_fails(ej_bad_field(get(r, "a"), "b", "an even number", "1", &err),
                 "t.json $.a.b: expected an even number, got 1");
    /* absent, or a key that needs quoting: the path is built all the same */
    assert_fails(ej_bad_field(r, "c", "a c", "none", &err), "t.json $.c: expected a c, got none");
    assert_fails(ej_bad_field(r, "aten.mm", "x", "y", &err), "t.json $[\"aten.mm\"]: expected x, got y");
    assert_fails(ej_bad_field(get(get(r, "a"), "b"), "k", "x", "y", &err), "t.json $.a.b.k: expected x, got y");
}

Test(json, take_root_leaves_an_empty_doc)
{
    ej_doc d;
    cr_assert_eq(ej_load(SAMPLE, &d, &err), 0, "%s", err.msg);
    cJSON *root = ej_doc_take_root(&d);
    cr_assert_not_null(root);
    cr_assert_not_null(cJSON_GetObjectItem(root, "name"));
    cr_assert_null(d.root);
    cr_assert_null(d.file);
    ej_free(&d); /* an emptied doc may be freed again */
    cJSON_Delete(root);
}

/* ---- atomic writes ---- */

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/ea_json_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

/* Names in dir, sorted and comma-joined: shows leftover temp files in one assertion. */
static void listing(char *out, size_t n)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    cr_assert_geq(count, 0);
    out[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (names[i]->d_name[0] != '.')
            snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "," : "", names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

static void remove_dir(void)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    char path[512];
    for (int i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && unlink(path) != 0)
            rmdir(path);
        free(names[i]);
    }
    free(names);
    rmdir(dir);
    done();
}

static void in_dir(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char buf[4096];
    size_t n;
    cr_assert_not_null(f, "cannot open %s", path);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

TestSuite(json_write, .init = make_dir, .fini = remove_dir);

Test(json_write, writes_formatted_json_with_newline)
{
    char path[128], names[256];
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "count", 3);
    in_dir(path, sizeof path, "out.json");
    cr_assert_eq(ej_write_atomic(path, root, &err), 0, "%s", err.msg);
    cJSON_Delete(root);
    cr_assert_str_eq(slurp(path), "{\n\t\"count\":\t3\n}\n");
    listing(names, sizeof names);
    cr_assert_str_eq(names, "out.json");
}

Test(json_write, replaces_existing_file)
{
    char path[128], names[256];
    int64_t i;
    cJSON *root = cJSON_CreateObject();
    in_dir(path, sizeof path, "out.json");
    cr_assert_eq(ea_write_file_atomic(path, "old contents that are longer\n", 29, &err), 0, "%s", err.msg);
    cJSON_AddNumberToObject(root, "v", 2);
    cr_assert_eq(ej_write_atomic(path, root, &err), 0, "%s", err.msg);
    cJSON_Delete(root);
    cr_assert_eq(ej_load(path, &doc, &err), 0, "%s", err.msg);
    cr_assert_eq(ej_get_int(ej_root(&doc), "v", &i, &err), 0, "%s", err.msg);
    cr_assert_eq(i, 2);
    listing(names, sizeof names);
    cr_assert_str_eq(names, "out.json");
}

Test(json_write, raw_text_exact)
{
    char path[128];
    in_dir(path, sizeof path, "table.md");
    cr_assert_eq(ea_write_file_atomic(path, "| a |\n| b |\nextra", 12, &err), 0, "%s", err.msg);
    cr_assert_str_eq(slurp(path), "| a |\n| b |\n");
}

Test(json_write, missing_directory_is_named_and_not_created)
{
    char path[128], msg[512], missing[128], names[256];
    struct stat st;
    cJSON *root = cJSON_CreateArray();
    in_dir(missing, sizeof missing, "missing");
    in_dir(path, sizeof path, "missing/out.json");
    cr_assert_eq(ej_write_atomic(path, root, &err), -1);
    cJSON_Delete(root);
    snprintf(msg, sizeof msg, "%s: cannot write: No such file or directory (directory '%s' does not exist)", path,
             missing);
    cr_assert_str_eq(err.msg, msg);
    cr_assert_neq(stat(missing, &st), 0);
    listing(names, sizeof names);
    cr_assert_str_eq(names, "");
}

Test(json_write, failed_rename_leaves_no_temp_file)
{
    char path[128], msg[256], names[256];
    in_dir(path, sizeof path, "taken");
    cr_assert_eq(mkdir(path, 0777), 0);
    cr_assert_eq(ea_write_file_atomic(path, "x\n", 2, &err), -1);
    snprintf(msg, sizeof msg, "%s: cannot write: Is a directory", path);
    cr_assert_str_eq(err.msg, msg);
    listing(names, sizeof names);
    cr_assert_str_eq(names, "taken");
}

Test(json_write, nul_byte_in_file_is_invalid_json)
{
    char path[128], msg[256];
    in_dir(path, sizeof path, "nul.json");
    cr_assert_eq(ea_write_file_atomic(path, "{\"a\":\n 1}\0 junk", 15, &err), 0, "%s", err.msg);
    cr_assert_eq(ej_load(path, &doc, &err), -1);
    snprintf(msg, sizeof msg, "%s:2:4: invalid JSON near ' 1}' (NUL byte)", path);
    cr_assert_str_eq(err.msg, msg);
}

/* mkdir -p: nested, idempotent, and the path that cannot be a folder is named. */
Test(json, make_dirs)
{
    char top[256], deep[700];
    snprintf(top, sizeof top, "/tmp/ea-json-dirs-%d", (int)getpid());
    snprintf(deep, sizeof deep, "%s/x/y", top);
    ea_error e;
    cr_assert_eq(ea_make_dirs(deep, &e), 0, "%s", e.msg);
    cr_assert_eq(ea_make_dirs(deep, &e), 0, "again: %s", e.msg);
    struct stat st;
    cr_assert(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
    cr_assert_neq(ea_make_dirs("", &e), 0);
    cr_assert(strstr(e.msg, "expected a folder path of 1 to 4095 bytes"), "%s", e.msg);
    char file[600];
    snprintf(file, sizeof file, "%s/x/y/f", top);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(deep, sizeof deep, "%s/sub", file);
    cr_assert_neq(ea_make_dirs(deep, &e), 0);
    cr_assert(strstr(e.msg, file) && strstr(e.msg, "a file of that name is in the way"), "%s", e.msg);
    snprintf(deep, sizeof deep, "rm -rf %s", top);
    cr_assert_eq(system(deep), 0);
}

/* Debian's libcjson loses an item inserted mid-array (json.c): classify's findings and the gate's splice
 * insert in place. */
Test(json, an_item_inserted_mid_array_keeps_its_place_and_the_others_theirs)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < 5; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
    ej_insert(a, 2, cJSON_CreateNumber(99));
    ej_insert(a, 0, cJSON_CreateNumber(-1));
    ej_insert(a, 7, cJSON_CreateNumber(5));
    char *s = cJSON_PrintUnformatted(a);
    cr_assert_str_eq(s, "[-1,0,1,99,2,3,4,5]");
    free(s);
    cJSON_Delete(a);
}
