/* capture_impl.h: internals shared by the capture reader's four files; not part of the contract.
 * capture_fields.c owns allocation and the typed-field helpers; capture_run.c reads the runs and owns the
 * scalar-type and launch-kind tables; capture.c reads inputs/outputs and the document over both;
 * capture_dir.c walks a target's captures folder. Every failure goes through these
 * helpers or json.h's (ej_bad_field), so each message has the "<file> <JSON path>: expected <what>,
 * got <what>" shape. */
#ifndef EA_CAPTURE_IMPL_H
#define EA_CAPTURE_IMPL_H

#include "target/capture.h"

/* One capture.json alone (capture.h's contract), freed by ea_capture_free: capture_dir.c's, and the tests'. */
int ea_capture_load(const char *path, ea_capture *c, ea_error *err);
void ea_capture_free(ea_capture *c);

/* Zeroed n * size bytes freed with the capture; NULL when out of memory. */
void *cap_take(ea_capture *c, size_t n, size_t size);
/* "<dir>/<name>", freed with the capture. */
char *cap_join(ea_capture *c, const char *dir, const char *name);
int cap_oom(const char *file, ea_error *err);
/* An array of integers >= min: exactly `exact` long when exact > 0, at most max long. */
int cap_int_list(ej_val obj, const char *key, int64_t min, int exact, int max, int64_t *out, int *n, ea_error *err);
/* An array of strings; unique: non-empty and no string twice. */
int cap_str_list(ea_capture *c, ej_val obj, const char *key, int unique, const char ***out, int *n, ea_error *err);
/* An array of objects: allocates *n items of size bytes; *arr is the array for ej_index. */
int cap_obj_list(ea_capture *c, ej_val obj, const char *key, size_t size, void **items, int *n, ej_val *arr,
                 ea_error *err);
/* Optional: an array of one relative L2 error (a number >= 0, or null: NAN) per output; absent: *out NULL. */
int cap_error_list(ea_capture *c, ej_val obj, const char *key, double **out, ea_error *err);
/* A dtype name exactly as tensor.h spells it. */
int cap_dtype_field(ej_val obj, const char *key, ea_dtype *dt, ea_error *err);

/* A torch timing {"median_us", "q1_us", "q3_us", "samples"}: quartiles in order, samples >= 1. */
int cap_read_stats(ej_val timing, const char *key, ea_capture_stats *s, ea_error *err);

/* $.runs: every run, each config once, "default" and "coordinate_descent" present. */
int cap_read_runs(ea_capture *c, ej_val root, ea_error *err);

/* The scalar types capture_run.c reads, ending with a NULL name (tests walk it too). */
extern const ea_scalar_type ea_scalar_types[];

#endif
