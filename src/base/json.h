/* json.h: the strict JSON layer (on cJSON) for every file extern-audit reads or writes.
 * Contract: readers walk an ej_val cursor that carries its file and JSON path ("$.points[3].count");
 * a missing field, a wrong type or an unknown key fails with "<file> <path>: expected <what>, got
 * <what>". Writers never leave a half-written file: write a temp file beside it, fsync, rename. */
#ifndef EA_JSON_H
#define EA_JSON_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"

typedef struct {
    const char *file; /* as given to ej_load, for messages */
    cJSON *root;
} ej_doc;

typedef struct {
    const char *file;
    const cJSON *v;
    char path[256];
} ej_val;

/* Read and parse a whole file. Unreadable: "<file>: cannot read: <strerror>"; bad JSON:
 * "<file>:<line>:<col>: invalid JSON near '...'". */
int ej_load(const char *path, ej_doc *doc, ea_error *err);
void ej_free(ej_doc *doc);
/* Move the parsed tree out: the caller owns it (cJSON_Delete); the rest of doc is freed and doc is
 * left empty, as after ej_free. */
cJSON *ej_doc_take_root(ej_doc *doc);
ej_val ej_root(const ej_doc *doc);
/* A new JSON array of the n integers in v (exact up to 2^53, as every JSON number here). */
cJSON *ej_int_array(const int64_t *v, int n);
/* points[index] of the golden document file, handed over alone (a repro family's point): "$.points[index]". */
ej_val ej_point(const char *file, const cJSON *point, int index);

/* v must be an object whose keys are all in allowed (NULL-terminated list). */
int ej_object(ej_val v, const char *const *allowed, ea_error *err);
/* Child of an object. Absent and required: error; absent and optional: returns 0, out->v NULL. */
int ej_field(ej_val obj, const char *key, int required, ej_val *out, ea_error *err);
/* Array element i of v (v must be an array; ej_array gives its length). */
ej_val ej_index(ej_val arr, int i);
/* Element i + 1 of arr after at, element i (as ej_index or ej_next gave it): an array walked in order costs a step
 * an element, where ej_index walks the list from its head each time (a 5000-value reference: 12.5M steps). */
ej_val ej_next(ej_val arr, ej_val at, int i);
int ej_array(ej_val v, int *n, ea_error *err);
/* v must be an object used as a map (free-form, unique keys); ej_member gives member i and its key. */
int ej_map(ej_val v, int *n, ea_error *err);
ej_val ej_member(ej_val map, int i, const char **key);

/* Typed reads of v itself. */
int ej_as_string(ej_val v, const char **out, ea_error *err);
int ej_as_int(ej_val v, int64_t *out, ea_error *err);      /* a JSON number with no fraction, below 2^53 */
int ej_as_number(ej_val v, double *out, ea_error *err);
int ej_as_bool(ej_val v, int *out, ea_error *err);

/* Required typed field of an object: ej_field + ej_as_*. */
int ej_get_string(ej_val obj, const char *key, const char **out, ea_error *err);
int ej_get_int(ej_val obj, const char *key, int64_t *out, ea_error *err);
int ej_get_number(ej_val obj, const char *key, double *out, ea_error *err);
int ej_get_bool(ej_val obj, const char *key, int *out, ea_error *err);
/* ej_get_string, and one of allowed (NULL-terminated): "<file> <path>.<key>: expected <what>, got \"...\"". */
int ej_get_one_of(ej_val obj, const char *key, const char *const *allowed, const char *what, const char **out,
                  ea_error *err);
/* The bound of a measured time in microseconds, which every reader of one applies besides its positivity: a call of
 * 1000 s is no measurement, 2^63 no time. */
#define EJ_MAX_TIME_US 1e9
/* ej_get_int, and at least min: "<file> <path>.<key>: expected an integer >= <min>, got <n>". */
int ej_get_int_min(ej_val obj, const char *key, int64_t min, int64_t *out, ea_error *err);

/* The document's identity: $.schema must be the string schema and $.schema_version the integer
 * version, checked in that order: "<file> $.schema: expected \"<schema>\", got \"<found>\"",
 * "<file> $.schema_version: expected 1, got 2"; absent or mistyped, as ej_get_string/ej_get_int say.
 * schema NULL checks the version alone (a file with no schema string). Other keys are the caller's. */
int ej_expect_schema(ej_val root, const char *schema, int64_t version, ea_error *err);

/* A field whose value the caller found wrong: "<file> <obj path>.<key>: expected <what>, got <got>",
 * got written as given (quote a string value yourself); the path is built whether or not key is
 * present. Returns -1. */
int ej_bad_field(ej_val obj, const char *key, const char *what, const char *got, ea_error *err);

/* Uniqueness of the items of arr (an array whose items were read): same(a, b) says when two are one (a result, a
 * point, a run); a second one fails "<file> <path>[j]: expected <what>, got a repeat of <path>[i]". ej_same_key
 * compares one member of two objects (both absent: the same). */
typedef int ej_same_fn(const cJSON *a, const cJSON *b);
int ej_each_once(ej_val arr, ej_same_fn *same, const char *what, ea_error *err);
int ej_same_key(const cJSON *a, const cJSON *b, const char *key);

/* Lenient reads of a document already validated or built here: the string (number) at key, NULL
 * (NaN) when it is absent or of another type. */
const char *ej_str(const cJSON *obj, const char *key);
/* ej_str, or "" when the member is absent or not a string: for messages and comparisons of validated documents. */
const char *ej_text(const cJSON *obj, const char *key);
double ej_num(const cJSON *obj, const char *key);
/* Adds key: v, or key: null when v is not finite (NaN: nothing measured). */
void ej_add_number_or_null(cJSON *obj, const char *key, double v);
/* a and b print alike, so they are stored alike (cJSON_Compare lets doubles differ by an epsilon). */
int ej_same_text(const cJSON *a, const cJSON *b);

/* Reorder an array's items by cmp (qsort semantics over the items). */
void ej_sort(cJSON *arr, int (*cmp)(const cJSON *a, const cJSON *b));
/* item put at index at (0..size) of arr: what cJSON_InsertItemInArray should do (json_tree.c says why not it). */
void ej_insert(cJSON *arr, int at, cJSON *item);

/* Print root (formatted) to path atomically: path.tmp.<pid> created exclusively (O_EXCL|O_NOFOLLOW: a link
 * or file planted at that name is removed, never written through), fsync, rename; path.tmp.<pid> files of
 * writers that no longer run are removed first. */
int ej_write_atomic(const char *path, const cJSON *root, ea_error *err);
/* Printed with a line per member down to depth levels, each value below on one line (json_layered.c), a member
 * named deeper (NULL: none) laid out one level further, then written as ej_write_atomic writes.
 * ej_print_layered: malloc'd text without the final newline, NULL out of memory. */
char *ej_print_layered(const cJSON *root, int depth, const char *deeper);
int ej_write_layered_atomic(const char *path, const cJSON *root, int depth, const char *deeper, ea_error *err);
/* Same for text already produced (tables, markdown). */
int ea_write_file_atomic(const char *path, const char *text, size_t len, ea_error *err);
/* n texts to n paths as one set: every temporary file written and synced before any path is replaced, so a write
 * that fails (a full disk) replaces none and leaves no temporary file. */
int ea_write_files_atomic(const char *const *paths, const char *const *texts, int n, ea_error *err);
/* mkdir -p: dir and its missing parents (0777 before the umask); an existing folder is fine. Fails
 * naming the first component that cannot be made or is not a folder. */
int ea_make_dirs(const char *dir, ea_error *err);

#endif
