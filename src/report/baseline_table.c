/* baseline_table.c: the baselines' rows with what tells them apart (baseline_table.h). */
#include "report/baseline_table.h"
#include "target/target_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "measure/fractions.h"
#include "measure/prose.h"
#include "measure/path.h"
#include "base/text_table.h"

static const cJSON *obj(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A configuration value in a few words: a string up to its first colon, a distribution by its generator, a
 * consumer the scope takes in by its op's name and operand ("consumer div by 8"). */
static void short_value(const cJSON *v, char *b, size_t n)
{
    const char *s = cJSON_IsString(v) && ea_note_text(v->valuestring) ? ea_note_text(v->valuestring) : cJSON_GetStringValue(v);
    if (s) /* an id as its text (prose.h), up to its colon */
        snprintf(b, n, "%.*s", (int)strcspn(s, ":"), s);
    else if (ej_str(v, "op")) { /* "aten.div.Tensor": its name between the namespace and the overload */
        const char *op = ej_str(v, "op"), *dot = strchr(op, '.');
        op = dot ? dot + 1 : op;
        int k = snprintf(b, n, "consumer %.*s", (int)strcspn(op, "."), op);
        if (cJSON_IsNumber(obj(v, "by")) && k > 0 && (size_t)k < n)
            snprintf(b + k, n - (size_t)k, " by %g", ej_num(v, "by"));
    } else
        snprintf(b, n, "%s", ej_text(v, "generator"));
}

/* The fields of r's configuration that differ in another row of its family and alias. */
static void variant(const cJSON *scopes, const cJSON *r, char *b, size_t n)
{
    const cJSON *s, *v;
    size_t k = 0;
    b[0] = '\0';
    cJSON_ArrayForEach(v, obj(r, "config"))
    {
        /* what names a configuration: its form, its distribution's generator, a consumer it takes in; not what
         * follows from them (plans, floor bytes) nor prose */
        if (!(cJSON_IsString(v) || ej_str(v, "generator") || ej_str(v, "op")) || !strcmp(v->string, "capture") ||
            !strcmp(v->string, "notes"))
            continue;
        int differs = 0;
        cJSON_ArrayForEach(s, scopes)
            differs |= s != r && !strcmp(ej_text(s, "family"), ej_text(r, "family")) &&
                       !strcmp(ej_text(s, "alias"), ej_text(r, "alias")) &&
                       !cJSON_Compare(v, obj(obj(s, "config"), v->string), 1);
        if (!differs || k >= n)
            continue;
        char word[256];
        short_value(v, word, sizeof word);
        k += (size_t)snprintf(b + k, n - k, "%s%s", k ? ", " : "", word);
    }
}

/* "infer", "train" or "infer+train": the modes of the classified occurrences in r's scopes. */
static void modes(const cJSON *classification, const cJSON *r, char *b, size_t n)
{
    const cJSON *e, *id;
    int infer = 0, train = 0;
    cJSON_ArrayForEach(e, obj(classification, "occurrences"))
        cJSON_ArrayForEach(id, obj(r, "scope_ids"))
            if (cJSON_IsString(id) && !strcmp(id->valuestring, ej_text(e, "scope"))) {
                const char *mode = strchr(ej_text(e, "id"), '/');
                infer |= mode && !strncmp(mode, "/infer/", 7);
                train |= mode && !strncmp(mode, "/train/", 7);
            }
    snprintf(b, n, "%s", infer && train ? "infer+train" : infer ? "infer" : train ? "train" : "-");
}

static void number(cJSON *row, const char *key, double v)
{
    ej_add_number_or_null(row, key, v);
}

cJSON *ea_baseline_table(const char *file, const cJSON *doc)
{
    cJSON *rows = cJSON_CreateArray();
    const cJSON *scopes = obj(doc, "scopes"), *s;
    char dir[4400], path[4600], b[512];
    ej_doc cls = {0};
    ea_error err;
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    ea_tf_path(dir, EA_TF_CLASSIFICATION, path, sizeof path);
    int have_cls = ej_load(path, &cls, &err) == 0; /* audit validated it before; absent: modes unknown */
    cJSON_ArrayForEach(s, scopes)
    {
        cJSON *row = cJSON_CreateObject();
        int context = cJSON_IsFalse(obj(obj(s, "config"), "capture_comparable"));
        cJSON_AddStringToObject(row, "family", ej_text(s, "family"));
        cJSON_AddStringToObject(row, "alias", ej_text(s, "alias"));
        modes(have_cls ? cls.root : NULL, s, b, sizeof b);
        cJSON_AddStringToObject(row, "mode", b);
        variant(scopes, s, b, sizeof b);
        cJSON_AddStringToObject(row, "variant", b);
        cJSON_AddBoolToObject(row, "context", context);
        number(row, "occurrences", context ? NAN : ej_num(s, "occurrences"));
        cJSON_AddItemToObject(row, "unsupported", ej_str(s, "unsupported") ? cJSON_CreateString(ej_str(s, "unsupported"))
                                                                            : cJSON_CreateNull());
        if (!ej_str(s, "unsupported")) {
            const cJSON *cur = ea_path_named(s, "current", "faithful"), *orc = ea_path_named(s, "oracle", NULL);
            ea_figures x;
            ea_result_figures(s, &x);
            number(row, "current_us", ea_path_median(cur));
            number(row, "oracle_us", ea_path_median(orc));
            number(row, "current_cold_us", ea_path_median_cold(cur));
            number(row, "oracle_cold_us", ea_path_median_cold(orc));
            number(row, "floor_us", x.floor_us);
            number(row, "speedup", x.speedup);
            number(row, "floor_fraction", x.floor_fraction);
            number(row, "floor_measured_fraction", x.measured_fraction);
            cJSON_AddStringToObject(row, "fraction_basis", x.basis_cold ? "cold" : "warm");
        }
        cJSON_AddBoolToObject(row, "passed", cJSON_IsTrue(obj(s, "passed")));
        cJSON_AddItemToArray(rows, row);
    }
    if (have_cls)
        ej_free(&cls);
    return rows;
}

/* A figure times scale with fmt, "-" where it is null. */
static void figure(cJSON *row, const char *fmt, double scale, const cJSON *r, const char *key)
{
    double v = scale * ej_num(r, key);
    if (isfinite(v))
        ea_text_cell(row, fmt, v);
    else
        ea_text_cell(row, "-");
}

void ea_baseline_table_print(const cJSON *rows, FILE *f)
{
    static const char *const head[] = {"family", "alias", "mode", "variant", "occ.", "current", "oracle", "cur cold",
                                       "orc cold", "floor", "speedup", "floor%", "meas%", "of", NULL};
    cJSON *t = cJSON_CreateArray(), *row = ea_text_row(t);
    const cJSON *r;
    int measured = 0; /* the measured floor's column, once a row has one (floor_path.h) */
    cJSON_ArrayForEach(r, rows)
        measured |= isfinite(ej_num(r, "floor_measured_fraction"));
    for (const char *const *h = head; *h; h++)
        if (measured || strcmp(*h, "meas%"))
            ea_text_cell(row, "%s", *h);
    cJSON_ArrayForEach(r, rows)
    {
        row = ea_text_row(t);
        ea_text_cell(row, "%s", ej_text(r, "family"));
        ea_text_cell(row, "%s", ej_text(r, "alias"));
        ea_text_cell(row, "%s", ej_text(r, "mode"));
        ea_text_cell(row, "%s%s%s", ej_text(r, "variant"), *ej_text(r, "variant") && cJSON_IsTrue(obj(r, "context")) ? " " : "",
                     cJSON_IsTrue(obj(r, "context")) ? "(context)" : *ej_text(r, "variant") ? "" : "-");
        if (cJSON_IsTrue(obj(r, "context")))
            ea_text_cell(row, "-");
        else
            figure(row, "%.0f", 1, r, "occurrences");
        if (ej_str(r, "unsupported")) { /* refused by its family: nothing measured, its reason last */
            for (int i = 0; i < 7 + measured; i++)
                ea_text_cell(row, "-");
            ea_text_cell(row, "UNSUPPORTED: %s", ej_text(r, "unsupported"));
            continue;
        }
        figure(row, "%.2f", 1, r, "current_us");
        figure(row, "%.2f", 1, r, "oracle_us");
        figure(row, "%.2f", 1, r, "current_cold_us");
        figure(row, "%.2f", 1, r, "oracle_cold_us");
        figure(row, "%.2f", 1, r, "floor_us");
        figure(row, "%.2fx", 1, r, "speedup");
        figure(row, "%.0f%%", 100, r, "floor_fraction");
        if (measured)
            figure(row, "%.0f%%", 100, r, "floor_measured_fraction");
        ea_text_cell(row, "%s%s", ej_text(r, "fraction_basis"), cJSON_IsTrue(obj(r, "passed")) ? "" : "  FAILED");
    }
    ea_text_table_print(f, t, measured ? "llllrrrrrrrrrl" : "llllrrrrrrrrl", "  ");
    cJSON_Delete(t);
}
