/* classify's library rule on an in-memory golden: one _fft_c2c occurrence whose capture's default run calls
 * torch.ops.aten._fft_c2c.default is a library extern (cuFFT), not a true fallback; the same call of
 * another op (histc) stays a true fallback. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "target/classify.h"
#include "helpers.h"

/* The nine occurrence documents, empty but for one occurrence "id" of op with a 1-d f32 argument. */
static void docs_with(cJSON *docs[EA_AUDIT_OPS], const char *op)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++) {
        int here = !strcmp(ea_audit_ops[i].target, op);
        docs[i] = cJSON_Parse(here ? "{\"occurrences\": 1, \"points\": [{\"point\": \"p\", \"signature\": {\"args\": "
                                     "[{\"dtype\": \"c64\", \"sizes\": [4]}]}, \"scopes\": [{\"scope_id\": \"s\", "
                                     "\"occurrences\": [{\"id\": \"id\"}]}]}]}"
                                   : "{\"occurrences\": 0, \"points\": []}");
    }
}

static const cJSON *classified(const char *op, const char *call, cJSON **doc)
{
    cJSON *docs[EA_AUDIT_OPS], *env = cJSON_Parse("{\"gpu\": \"NVIDIA H200\"}");
    const char *covers[] = {"id"}, *calls[] = {call};
    ea_capture_run runs[2] = {{.config = "default"}, {.config = "coordinate_descent"}};
    for (int k = 0; k < 2; k++)
        runs[k].ev.aten_calls = calls, runs[k].ev.naten_calls = 1;
    ea_capture c = {.scope = "s", .covers = covers, .ncovers = 1, .environment = env, .runs = runs, .nruns = 2};
    ea_captures caps = {.items = &c, .n = 1};
    ea_old_rule rule;
    ea_error err;
    docs_with(docs, op);
    cr_assert_eq(ea_old_rule_load("golden/old_rule.json", &rule, &err), 0, "%s", err.msg);
    cr_assert_eq(ea_classify(docs, &caps, &rule, doc, &err), 0, "%s", err.msg);
    ea_old_rule_free(&rule);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
    cJSON_Delete(env);
    return cJSON_GetArrayItem(cJSON_GetObjectItem(*doc, "occurrences"), 0);
}

Test(classify_library, an_fft_fallback_is_a_cufft_library_extern)
{
    cJSON *doc;
    const cJSON *e = classified("aten._fft_c2c.default", "torch.ops.aten._fft_c2c.default", &doc);
    cr_assert_str_eq(cJSON_GetObjectItem(e, "class")->valuestring, "library_extern");
    cr_assert_str_eq(cJSON_GetObjectItem(e, "reason")->valuestring,
                     "aten fallback call torch.ops.aten._fft_c2c.default: a cuFFT call (Inductor has no lowering; "
                     "nothing for it to replace)");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(e, "false_extern")));
    cJSON_Delete(doc);
    e = classified("aten.histc.default", "torch.ops.aten.histc.default", &doc);
    cr_assert_str_eq(cJSON_GetObjectItem(e, "class")->valuestring, "true_fallback");
    cJSON_Delete(doc);
}

/* Views and host SymInt arithmetic do no device work whatever their capture shows (view_as_complex is a
 * make_fallback in Inductor, an aliasing call): their class says so, with the reason, and the entry names the
 * capture that shows it (it once named whatever an earlier entry had left in the path buffer). */
Test(classify_library, views_and_host_arithmetic_do_no_device_work)
{
    static const char *const ops[][2] = {
        {"aten.view_as_real.default", "no bytes move"},
        {"aten.view_as_complex.default", "no bytes move"},
        {"_operator.mul", "host arithmetic on SymInts"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        cJSON *doc;
        char call[128];
        snprintf(call, sizeof call, "torch.ops.%s", ops[i][0]);
        const cJSON *e = classified(ops[i][0], call, &doc);
        cr_assert_str_eq(cJSON_GetObjectItem(e, "class")->valuestring, "no_device_work", "%s", ops[i][0]);
        cr_assert(strstr(cJSON_GetObjectItem(e, "reason")->valuestring, ops[i][1]), "%s", ops[i][0]);
        cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(e, "false_extern")));
        cr_assert_str_eq(cJSON_GetObjectItem(e, "capture")->valuestring, "captures/s/capture.json", "%s", ops[i][0]);
        cJSON_Delete(doc);
    }
}
