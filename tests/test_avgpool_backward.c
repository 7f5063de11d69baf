/* The avgpool_backward family (repros/avgpool_backward): the corpus's two identity pools planned without a
 * GPU (ATen's launch, the floor's bytes), refusals of what the repro does not replicate, the fp64 reference
 * on windows that split and overlap, and on a GPU (skipped without one) both points measured: the ATen
 * replica and the copy oracle each bit-exact with the grad. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/avgpool_backward/avgpool_backward.h"
#include "helpers.h"
#include "base/json.h"
#include "measure/path.h"

#define OP "aten._adaptive_avg_pool2d_backward.default"

extern const ea_repro_family ea_family_avgpool_backward;

static const cJSON *doc_of(cJSON *docs[EA_AUDIT_OPS], const char *files[EA_AUDIT_OPS], const char **file)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        if (!strcmp(ea_audit_ops[i].target, OP)) {
            *file = files[i];
            return docs[i];
        }
    cr_assert_fail("%s is not audited", OP);
    return NULL;
}

static void free_docs(cJSON *docs[EA_AUDIT_OPS])
{
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

static int64_t int_at(const cJSON *arr, int i)
{
    return (int64_t)cJSON_GetArrayItem(arr, i)->valuedouble;
}

Test(avgpool_backward, plans_the_golden_points_at_atens_launch)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS], *file;
    char buf[EA_AUDIT_OPS][128];
    test_golden_docs(docs, files, buf);
    const cJSON *doc = doc_of(docs, files, &file), *p;
    static const char *const aliases[] = {"alexnet", "vgg16"}; /* derived: one point per model */
    static const int64_t numel[] = {128 * 256 * 36, 64 * 512 * 49};
    ea_run_opts o = {.faithful = 1, .sm_count = 132};
    ea_error err;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        cJSON *arr = test_family_points(&ea_family_avgpool_backward, p, file, i, &o, 0, &err);
        cr_assert_not_null(arr, "%s", err.msg);
        const cJSON *r = cJSON_GetArrayItem(arr, 0), *c = cJSON_GetObjectItem(r, "config");
        const cJSON *cur = cJSON_GetObjectItem(c, "current");
        cr_assert_str_eq(cJSON_GetObjectItem(r, "alias")->valuestring, aliases[i]);
        cr_assert_eq(int_at(cJSON_GetObjectItem(cur, "grid"), 0), 32768, "N * C planes, one block each");
        cr_assert_eq(int_at(cJSON_GetObjectItem(cur, "grid"), 1), 1, "16 / C rounds to 0: one block row");
        cr_assert_eq(int_at(cJSON_GetObjectItem(cur, "block"), 0), 32);
        cr_assert_eq(int_at(cJSON_GetObjectItem(cur, "block"), 1), 8);
        cr_assert_eq((int64_t)cJSON_GetObjectItem(c, "floor_bytes")->valuedouble, 4 * numel[i], "bf16 read and written");
        cr_assert_eq((int64_t)cJSON_GetObjectItem(c, "floor_written_bytes")->valuedouble, 2 * numel[i]);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "scope_ids")), 1);
        cJSON_Delete(arr);
        i++;
    }
    cr_assert_eq(i, 2);
    int grid[3], block[3];
    ap_aten_launch(6, 3, grid, block); /* few channels: 16 / C block rows */
    cr_assert(grid[0] == 6 && grid[1] == 5 && grid[2] == 1 && block[0] == 32 && block[1] == 8);
    free_docs(docs);
}

/* The first golden point with one JSON edit, and the family's refusal of it. */
static void refused(const char *from, const char *to, const char *want)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS], *file;
    char buf[EA_AUDIT_OPS][128];
    test_golden_docs(docs, files, buf);
    char *text = cJSON_PrintUnformatted(cJSON_GetArrayItem(cJSON_GetObjectItem(doc_of(docs, files, &file), "points"), 0));
    char *at = strstr(text, from), edited[65536];
    cr_assert_not_null(at, "'%s' not in the point", from);
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    cJSON *p = cJSON_Parse(edited);
    ea_run_opts o = {.faithful = 1, .sm_count = 132};
    ea_error err = {{0}};
    cr_assert_null(test_family_points(&ea_family_avgpool_backward, p, file, 0, &o, 0, &err),
                   "accepted %s", to);
    cr_assert(strstr(err.msg, file) && strstr(err.msg, "$.points[0]"), "file or path not named: %s", err.msg);
    cr_assert(strstr(err.msg, want), "expected '%s' in: %s", want, err.msg);
    cJSON_Delete(p);
    free(text);
    free_docs(docs);
}

Test(avgpool_backward, refuses_what_it_does_not_replicate)
{
    refused("\"args\":[{\"dtype\":\"bf16\",\"sizes\":[128,256,6,6],\"strides\":[9216,36,6,1]",
            "\"args\":[{\"dtype\":\"bf16\",\"sizes\":[128,256,3,3],\"strides\":[2304,9,3,1]",
            "expected an identity pool (the grad's H x W equal to self's), got 3x3 from 6x6");
    refused("\"args\":[{\"dtype\":\"bf16\"", "\"args\":[{\"dtype\":\"f32\"", "expected a 4-d bf16 tensor");
    refused("\"strides\":[9216,36,6,1]", "\"strides\":[9216,1,1536,256]", "expected a contiguous tensor");
    refused("\"args\":[{", "\"args\":[7, {", "expected _adaptive_avg_pool2d_backward(grad_output, self), got 3 args");
}

Test(avgpool_backward, reference_spreads_each_gradient_over_its_window)
{
    double grad[4] = {1, 2, 3, 4}, out[16];
    ap_reference(grad, 1, 4, 4, 2, 2, out); /* 2x2 windows: a quarter of each gradient per input */
    cr_assert_float_eq(out[0], 0.25, 1e-15);
    cr_assert_float_eq(out[5], 0.25, 1e-15);
    cr_assert_float_eq(out[2], 0.5, 1e-15);
    cr_assert_float_eq(out[15], 1.0, 1e-15);
    double g2[2] = {2, 4}, o3[3];
    ap_reference(g2, 1, 1, 3, 1, 2, o3); /* 3 -> 2: windows [0, 2) and [1, 3) overlap in the middle */
    cr_assert(o3[0] == 1 && o3[1] == 3 && o3[2] == 2, "%g %g %g", o3[0], o3[1], o3[2]);
    double id[6] = {1, 2, 3, 4, 5, 6}, o6[6];
    ap_reference(id, 2, 1, 3, 1, 3, o6); /* an identity pool: the grad itself */
    cr_assert_arr_eq(o6, id, sizeof id);
}

Test(avgpool_backward_gpu, both_points_bit_exact_with_the_grad)
{
    test_skip_without_target(NULL);
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS], *file;
    char buf[EA_AUDIT_OPS][128];
    test_golden_docs(docs, files, buf);
    const cJSON *p;
    ea_run_opts o = {.faithful = 1};
    ea_error err;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc_of(docs, files, &file), "points")) {
        cJSON *arr = test_family_points(&ea_family_avgpool_backward, p, file, i++, &o, 1, &err), *path;
        cr_assert_not_null(arr, "%s", err.msg);
        const cJSON *r = cJSON_GetArrayItem(arr, 0);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")), "%s", cJSON_PrintUnformatted(r));
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "paths")), 3, "current, oracle and the measured floor");
        cr_assert_not_null(test_path(r, EA_PATH_FLOOR, EA_PATH_FLOOR_MODE));
        cJSON_ArrayForEach(path, cJSON_GetObjectItem(r, "paths")) {
            const cJSON *c = cJSON_GetObjectItem(path, "check");
            cr_assert_eq(cJSON_GetObjectItem(c, "mismatched")->valuedouble, 0, "%s differs from what it copies",
                         cJSON_GetObjectItem(path, "name")->valuestring);
            cr_assert_eq(cJSON_GetObjectItem(c, "unwritten")->valuedouble, 0);
        }
        cJSON_Delete(arr);
    }
    free_docs(docs);
}
