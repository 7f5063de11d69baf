/* alias.c: a golden point's alias from its occurrences (contract in alias.h). */
#include "corpus/alias.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"

/* Model names too long to read as they are; any other model is shortened by the rule alone. */
static const struct {
    const char *model, *stem;
} short_names[] = {
    {"AllenaiLongformerBase", "longformer"},
    {"DistillGPT2", "distilgpt2"},
};

/* Task heads worth keeping in an alias; a language-model head is the model's plain form. */
static const struct {
    const char *head, *tag;
} task_heads[] = {
    {"ForSequenceClassification", "seqcls"}, {"ForQuestionAnswering", "qa"}, {"ForTokenClassification", "tokcls"},
    {"ForMultipleChoice", "mc"},
};

#define MODE_INFER 1
#define MODE_TRAIN 2

/* The model's stem into out; *head the kept task head's tag, or "". */
static void model_stem(const char *model, char *out, size_t n, const char **head)
{
    const char *slash = strrchr(model, '/'), *name = slash ? slash + 1 : model, *cut;
    size_t len = strlen(name);
    *head = "";
    for (size_t i = 0; i < sizeof short_names / sizeof *short_names; i++)
        if (!strcmp(name, short_names[i].model)) {
            snprintf(out, n, "%s", short_names[i].stem);
            return;
        }
    if ((cut = strstr(name, "For")) != NULL && cut > name) {
        for (size_t i = 0; i < sizeof task_heads / sizeof *task_heads; i++)
            if (!strcmp(cut, task_heads[i].head))
                *head = task_heads[i].tag;
        len = (size_t)(cut - name);
    } else if (len > 11 && !strcmp(name + len - 11, "LMHeadModel")) {
        len -= 11;
    }
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n; i++)
        out[k++] = (char)tolower((unsigned char)name[i]);
    out[k] = '\0';
}

/* The point's models' stem and its modes (MODE_* bits). */
static unsigned point_stem(const cJSON *point, char *out, size_t n)
{
    const cJSON *g, *o;
    const char *first = NULL, *head = "";
    unsigned modes = 0;
    int same = 1;
    char stem[128];
    out[0] = '\0';
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(point, "scopes"))
        cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(g, "occurrences")) {
            const char *model = ej_str(o, "model"), *mode = ej_str(o, "mode"), *h;
            modes |= mode && !strcmp(mode, "train") ? MODE_TRAIN : MODE_INFER;
            if (!model)
                continue;
            if (!first) {
                first = model;
                model_stem(model, out, n, &head);
            } else if (strcmp(model, first)) {
                model_stem(model, stem, sizeof stem, &h);
                same &= !strcmp(stem, out);
                head = ""; /* several models: the head is not the point's */
            }
        }
    if (same && head[0])
        snprintf(out + strlen(out), n - strlen(out), "-%s", head);
    return modes;
}

/* The output's dtype and sizes: "bf16-9437184", "f32-16x512". */
static void shape_tag(const cJSON *point, char *buf, size_t n)
{
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(point, "signature"), "output");
    const cJSON *s;
    const char *dtype = ej_str(out, "dtype");
    size_t k = (size_t)snprintf(buf, n, "%s", dtype ? dtype : "tensor");
    char sep = '-';
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(out, "sizes"))
        if (k < n) {
            k += (size_t)snprintf(buf + k, n - k, "%c%.0f", sep, cJSON_GetNumberValue(s));
            sep = 'x';
        }
}

/* stem[-mode] of point into out. A family's own tag names a layer of the model ("14x14-k9"), which both
 * modes have: its aliases carry a one-mode point's mode whatever else the document holds, so a corpus of
 * one mode names a point as the committed golden of both does (densenet121-train-14x14-k9). */
static void key_of(const cJSON *point, const char *stem, unsigned doc_modes, int family_tag, char *out, size_t n)
{
    char base[128];
    unsigned modes = point_stem(point, base, sizeof base);
    if (stem)
        snprintf(out, n, "%s", stem);
    else if ((doc_modes == (MODE_INFER | MODE_TRAIN) || family_tag) && modes != (MODE_INFER | MODE_TRAIN))
        snprintf(out, n, "%s-%s", base, modes == MODE_TRAIN ? "train" : "infer");
    else
        snprintf(out, n, "%s", base);
}

void ea_alias_make(const cJSON *doc, const cJSON *point, int (*claims)(const cJSON *point), const char *stem,
                   ea_alias_tag_fn tag, char *out, size_t n)
{
    const cJSON *p, *points = cJSON_GetObjectItemCaseSensitive(doc, "points");
    unsigned doc_modes = 0;
    char base[128], key[256], other[256], mine_tag[128], other_tag[128];
    cJSON_ArrayForEach(p, points)
        if (!claims || claims(p))
            doc_modes |= point_stem(p, base, sizeof base);
    int family_tag = tag != NULL;
    key_of(point, stem, doc_modes, family_tag, key, sizeof key);
    tag = tag ? tag : shape_tag;
    int collides = 0, tag_collides = 0;
    tag(point, mine_tag, sizeof mine_tag);
    const char *id = ej_str(point, "point");
    cJSON_ArrayForEach(p, points) {
        const char *pid = ej_str(p, "point");
        if ((id && pid && !strcmp(id, pid)) || (claims && !claims(p)))
            continue;
        key_of(p, stem, doc_modes, family_tag, other, sizeof other);
        if (strcmp(key, other))
            continue;
        collides = 1;
        tag(p, other_tag, sizeof other_tag);
        tag_collides |= !strcmp(mine_tag, other_tag);
    }
    if (!collides)
        snprintf(out, n, "%s", key);
    else if (!tag_collides)
        snprintf(out, n, "%s-%s", key, mine_tag);
    else
        snprintf(out, n, "%s-%s", key, ej_str(point, "point") ? ej_str(point, "point") : "?");
}
