/* sanitize_record.c: golden/targets/<target>/sanitize.json read and shown (contract in sanitize_record.h). */
#include "target/sanitize_record.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"


/* An integer >= 0, or null (a count the log did not print). */
static int count_or_null(ej_val obj, const char *key, ea_error *err)
{
    ej_val v;
    int64_t n;
    if (ej_field(obj, key, 1, &v, err))
        return -1;
    if (cJSON_IsNull(v.v))
        return 0;
    if (ej_as_int(v, &n, err))
        return -1;
    return n < 0 ? ej_bad_field(obj, key, "an integer >= 0 or null", "a negative number", err) : 0;
}

static int run(ej_val r, ea_error *err)
{
    static const char *const keys[] = {"tool",   "scope",   "exit",  "seconds", "errors",
                                       "warnings", "hazards", "clean", "summary", NULL};
    const char *s;
    int64_t n;
    int b;
    return ej_object(r, keys, err) || ej_get_string(r, "tool", &s, err) || ej_get_string(r, "scope", &s, err) ||
                   ej_get_int(r, "exit", &n, err) || ej_get_int_min(r, "seconds", -1, &n, err) ||
                   count_or_null(r, "errors", err) || count_or_null(r, "warnings", err) ||
                   count_or_null(r, "hazards", err) || ej_get_bool(r, "clean", &b, err) ||
                   ej_get_string(r, "summary", &s, err)
               ? -1
               : 0;
}

static int total(ej_val t, ea_error *err)
{
    static const char *const keys[] = {"tool", "errors", NULL};
    const char *s;
    return ej_object(t, keys, err) || ej_get_string(t, "tool", &s, err) || count_or_null(t, "errors", err) ? -1 : 0;
}

static int each(ej_val root, const char *key, int (*check)(ej_val, ea_error *), ea_error *err)
{
    ej_val arr;
    int n;
    if (ej_field(root, key, 1, &arr, err) || ej_array(arr, &n, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (check(ej_index(arr, i), err))
            return -1;
    return 0;
}

static int scope_name(ej_val v, ea_error *err)
{
    const char *s;
    return ej_as_string(v, &s, err);
}

static int check_only(ej_val root, ea_error *err)
{
    static const char *const keys[] = {"results", "paths", "failed_paths", "kernels", "exit", NULL};
    ej_val c;
    int64_t n;
    if (ej_field(root, "check_only", 1, &c, err) || ej_object(c, keys, err))
        return -1;
    for (int i = 0; i < 4; i++)
        if (ej_get_int_min(c, keys[i], 0, &n, err))
            return -1;
    return ej_get_int(c, "exit", &n, err);
}

static int same_run(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "tool") && ej_same_key(a, b, "scope");
}

static int same_tool(const cJSON *a, const cJSON *b)
{
    return ej_same_key(a, b, "tool");
}

static double count_of(const cJSON *o, const char *key)
{
    return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, key)) ? ej_num(o, key) : 0;
}

/* What ci/sanitize-summary derives, checked against what it derives from: a run is clean when it exited 0 and
 * counted 0 errors, warnings and hazards; a tool's total is its runs' errors and warnings (null when a run printed
 * no count), one total per tool that ran; passed when the plain runs exited 0 and every run is clean. */
static int derived(ej_val root, ea_error *err)
{
    ej_val runs, totals;
    const cJSON *r, *t;
    int all_clean = 1, i = 0;
    char what[96], got[32];
    ej_field(root, "runs", 1, &runs, err);
    ej_field(root, "totals", 1, &totals, err);
    if (ej_each_once(runs, same_run, "each tool and scope run once", err) ||
        ej_each_once(totals, same_tool, "each tool's total once", err))
        return -1;
    cJSON_ArrayForEach(r, runs.v) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "errors");
        int clean = ej_num(r, "exit") == 0 && cJSON_IsNumber(e) && e->valuedouble == 0 && !count_of(r, "warnings") &&
                    !count_of(r, "hazards");
        all_clean &= clean;
        if (clean != cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "clean")))
            return ej_bad_field(ej_index(runs, i), "clean", clean ? "true (exit 0, no error, warning or hazard)"
                                                                  : "false (an exit, error, warning or hazard)",
                                clean ? "false" : "true", err);
        int listed = 0;
        cJSON_ArrayForEach(t, totals.v) listed |= same_tool(t, r);
        if (!listed)
            return ea_fail(err, "%s %s[%d].tool: expected a tool with a total in $.totals, got \"%s\"", root.file,
                           runs.path, i, ej_text(r, "tool"));
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(t, totals.v) {
        double sum = 0;
        int known = 1, n = 0;
        cJSON_ArrayForEach(r, runs.v) if (same_tool(t, r)) {
            n++;
            known &= cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "errors"));
            sum += count_of(r, "errors") + count_of(r, "warnings");
        }
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(t, "errors");
        if (!n || (known ? !cJSON_IsNumber(e) || e->valuedouble != sum : !cJSON_IsNull(e))) {
            if (!n)
                snprintf(what, sizeof what, "a tool of $.runs");
            else if (!known)
                snprintf(what, sizeof what, "null (a run of it printed no count)");
            else
                snprintf(what, sizeof what, "%.0f (its runs' errors and warnings)", sum);
            snprintf(got, sizeof got, cJSON_IsNumber(e) ? "%.0f" : "null", cJSON_IsNumber(e) ? e->valuedouble : 0);
            return ej_bad_field(ej_index(totals, i), n ? "errors" : "tool", what, n ? got : ej_text(t, "tool"), err);
        }
        i++;
    }
    int passed = all_clean && ej_num(cJSON_GetObjectItemCaseSensitive(root.v, "check_only"), "exit") == 0;
    if (passed != cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root.v, "passed")))
        return ej_bad_field(root, "passed", passed ? "true (every run clean, the plain runs exited 0)"
                                                   : "false (a run not clean, or the plain runs exited non-zero)",
                            passed ? "false" : "true", err);
    return 0;
}

int ea_sanitize_validate(const char *file, const cJSON *doc, ea_error *err)
{
    static const char *const keys[] = {"schema", "schema_version", "gpu", "driver", "sanitizer", "command", "scopes",
                                       "check_only", "totals", "runs", "passed", NULL};
    ej_val root = {file, doc, "$"};
    const char *s;
    int b;
    return ej_object(root, keys, err) || ej_expect_schema(root, EA_SANITIZE_SCHEMA, EA_SANITIZE_VERSION, err) ||
                   ej_get_string(root, "gpu", &s, err) || ej_get_string(root, "driver", &s, err) ||
                   ej_get_string(root, "sanitizer", &s, err) || ej_get_string(root, "command", &s, err) ||
                   each(root, "scopes", scope_name, err) || check_only(root, err) || each(root, "totals", total, err) ||
                   each(root, "runs", run, err) || ej_get_bool(root, "passed", &b, err) || derived(root, err)
               ? -1
               : 0;
}

static void tool_row(const cJSON *doc, const cJSON *t, FILE *f)
{
    const char *tool = ej_str(t, "tool");
    const cJSON *r, *e = cJSON_GetObjectItemCaseSensitive(t, "errors");
    int runs = 0, unfinished = 0;
    double slowest = 0, hazards = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "runs")) {
        if (strcmp(ej_str(r, "tool"), tool))
            continue;
        runs++;
        unfinished += !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "errors"));
        if (ej_num(r, "seconds") > slowest)
            slowest = ej_num(r, "seconds");
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "hazards")))
            hazards += ej_num(r, "hazards");
    }
    char errors[32] = "unknown";
    if (cJSON_IsNumber(e))
        snprintf(errors, sizeof errors, "%.0f", e->valuedouble);
    fprintf(f, "  %-10s %5d %8s %8.0f %9.0f s%s\n", tool, runs, errors, hazards, slowest,
            unfinished ? "  (a run printed no summary: crashed or out of time)" : "");
}

void ea_sanitize_show(const char *file, const cJSON *doc, FILE *f)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "check_only"), *t, *s;
    char scopes[512] = "";
    size_t k = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes"))
        if (k < sizeof scopes)
            k += (size_t)snprintf(scopes + k, sizeof scopes - k, "%s%s", k ? " " : "", s->valuestring);
    fprintf(f, "\n%s: compute-sanitizer (%s) on %s, driver %s: %s\n", file, ej_str(doc, "sanitizer"),
            ej_str(doc, "gpu"), ej_str(doc, "driver"), ej_str(doc, "command"));
    fprintf(f, "  scopes %s: %.0f paths checked, %.0f failed, %.0f kernels launched (run --check-only, CUPTI)\n",
            scopes, ej_num(c, "paths"), ej_num(c, "failed_paths"), ej_num(c, "kernels"));
    fprintf(f, "  %-10s %5s %8s %8s %11s\n", "tool", "runs", "errors", "hazards", "slowest");
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "totals"))
        tool_row(doc, t, f);
    fprintf(f, "  verdict: %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "passed"))
                                       ? "clean (every run finished, 0 errors, 0 hazards)"
                                       : "NOT CLEAN (an error, a hazard, a failed check or an unfinished run)");
}
