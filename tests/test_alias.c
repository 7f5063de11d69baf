/* alias.h: a point's alias derived from its occurrences, for points no table names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/alias.h"
#include "helpers.h"

/* A document of points, each "<point id>:<model>:<mode>[,<mode>]:<output sizes>" */
static cJSON *doc_of(const char *const *points, int n)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "points");
    for (int i = 0; i < n; i++) {
        char id[64], model[64], modes[32], sizes[64], text[1024];
        cr_assert_eq(sscanf(points[i], "%63[^:]:%63[^:]:%31[^:]:%63s", id, model, modes, sizes), 4);
        size_t k = (size_t)snprintf(text, sizeof text, "{\"point\": \"%s\", \"signature\": {\"output\": {\"dtype\": "
                                    "\"bf16\", \"sizes\": [%s]}}, \"scopes\": [{\"occurrences\": [", id, sizes);
        char *save = NULL;
        for (char *m = strtok_r(modes, ",", &save); m; m = strtok_r(NULL, ",", &save))
            k += (size_t)snprintf(text + k, sizeof text - k, "%s{\"model\": \"%s\", \"mode\": \"%s\"}",
                                  text[k - 1] == '[' ? "" : ", ", model, m);
        snprintf(text + k, sizeof text - k, "]}]}");
        cJSON *p = cJSON_Parse(text);
        cr_assert_not_null(p, "%s", text);
        cJSON_AddItemToArray(arr, p);
    }
    return doc;
}

static const char *alias(const cJSON *doc, int i, const char *stem)
{
    static char out[128];
    ea_alias_make(doc, cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), i), NULL, stem, NULL, out, sizeof out);
    return out;
}

Test(alias, a_new_point_gets_a_readable_alias)
{
    const char *points[] = {
        "p0:BertForSequenceClassification:infer:8,128", "p1:BertForMaskedLM:infer,train:8,128",
        "p2:openai/gpt-oss-120b:infer:4096", "p3:openai/gpt-oss-120b:infer:8192", "p4:XLNetLMHeadModel:train:2,2",
        "p5:AllenaiLongformerBase:train:4", "p6:AllenaiLongformerBase:train:4",
    };
    cJSON *doc = doc_of(points, 7);
    cr_assert_str_eq(alias(doc, 0, NULL), "bert-seqcls-infer", "a task head kept short, one mode of two");
    cr_assert_str_eq(alias(doc, 1, NULL), "bert", "a language-model head dropped; both modes: no mode");
    cr_assert_str_eq(alias(doc, 2, NULL), "gpt-oss-120b-infer-bf16-4096", "one model's points: the output's shape");
    cr_assert_str_eq(alias(doc, 3, NULL), "gpt-oss-120b-infer-bf16-8192");
    cr_assert_str_eq(alias(doc, 4, NULL), "xlnet-train");
    cr_assert_str_eq(alias(doc, 5, NULL), "longformer-train-p5", "equal shapes too: the point id");
    cr_assert_str_eq(alias(doc, 6, NULL), "longformer-train-p6");
    cr_assert_str_eq(alias(doc, 4, "routing"), "routing-bf16-2x2", "a family's name for its scope, its points told apart");
    cJSON_Delete(doc);
    /* one mode in the whole document: no mode in any alias */
    const char *train[] = {"q0:XLNetLMHeadModel:train:2,2", "q1:GPTJForCausalLM:train:3"};
    doc = doc_of(train, 2);
    cr_assert_str_eq(alias(doc, 0, NULL), "xlnet");
    cr_assert_str_eq(alias(doc, 1, NULL), "gptj");
    cJSON_Delete(doc);
}

static void layer_tag(const cJSON *point, char *buf, size_t n)
{
    snprintf(buf, n, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(point, "point")));
}

/* A fresh corpus of DenseNet-121 train alone (its 14x14-k9 cat shared with DenseNet-169) names the point as
 * the committed golden of both modes does; a point of both modes still has none. */
Test(alias, a_family_tagged_point_of_one_mode_keeps_its_mode_in_a_one_mode_corpus)
{
    const char *train[] = {"14x14-k9:densenet121:train:4,288,14,14", "14x14-k10:densenet121:train:4,320,14,14",
                           "7x7-k9:densenet121:train,train:4,544,7,7"};
    cJSON *doc = doc_of(train, 3);
    char out[128];
    const cJSON *points = cJSON_GetObjectItem(doc, "points");
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(points, 0), "scopes"), 0);
    cJSON *shared = cJSON_GetObjectItem(first, "occurrences");
    cJSON_AddItemToArray(shared, cJSON_Parse("{\"model\": \"densenet169\", \"mode\": \"train\"}"));
    ea_alias_make(doc, cJSON_GetArrayItem(points, 0), NULL, NULL, layer_tag, out, sizeof out);
    cr_assert_str_eq(out, "densenet121-train-14x14-k9");
    ea_alias_make(doc, cJSON_GetArrayItem(points, 1), NULL, NULL, layer_tag, out, sizeof out);
    cr_assert_str_eq(out, "densenet121-train-14x14-k10");
    ea_alias_make(doc, cJSON_GetArrayItem(points, 2), NULL, NULL, layer_tag, out, sizeof out);
    cr_assert_str_eq(out, "densenet121-train-7x7-k9");
    cJSON_Delete(doc);
    const char *both[] = {"7x7-k9:densenet121:train,infer:4,544,7,7"};
    doc = doc_of(both, 1);
    ea_alias_make(doc, cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "points"), 0), NULL, NULL, layer_tag, out, sizeof out);
    cr_assert_str_eq(out, "densenet121", "a point of both modes has no mode");
    cJSON_Delete(doc);
}

Test(alias, a_family_name_alone_for_its_one_point)
{
    const char *one[] = {"r0:openai/gpt-oss-20b:infer:32"};
    cJSON *doc = doc_of(one, 1);
    cr_assert_str_eq(alias(doc, 0, "routing"), "routing");
    cr_assert_str_eq(alias(doc, 0, NULL), "gpt-oss-20b");
    cJSON_Delete(doc);
}

/* An alias is derived within one family: where two families' points share one (alexnet in two ops), --scope
 * with it is refused as ambiguous, naming both families, instead of selecting both. */
Test(alias, an_alias_of_two_families_is_refused)
{
    cJSON *docs[EA_AUDIT_OPS] = {0};
    const char *files[EA_AUDIT_OPS] = {0};
    const char *point[] = {"p0:alexnet:train:4"};
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, "aten.index_add.default") ||
            !strcmp(ea_audit_ops[i].target, "aten._adaptive_avg_pool2d_backward.default")) {
            docs[i] = doc_of(point, 1);
            files[i] = ea_audit_ops[i].short_name;
        }
    ea_scope_ref refs[8];
    int n;
    ea_error err;
    cr_assert_eq(ea_repro_resolve(docs, files, "alexnet", refs, 8, &n, &err), -1);
    cr_assert(strstr(err.msg, "--scope alexnet: an alias of points of two families (index_add and avgpool_backward)"),
              "%s", err.msg);
    cr_assert_eq(ea_repro_resolve(docs, files, "p0", refs, 8, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2, "the point id names both, as asked");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}
