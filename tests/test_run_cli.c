/* extern-audit run's command line without a GPU: scope resolution, --plan, --list, usage errors and the
 * no-device exit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/device.h"
#include "helpers.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "measure/repro.h"
#include "../repros/index_add/scope.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

Test(run, resolve_aliases_points_and_scope_ids)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS];
    char buf[EA_AUDIT_OPS][128];
    ea_scope_ref refs[256];
    ea_error err;
    int n, index_add = 0;
    test_golden_docs(docs, files, buf);
    cr_assert_eq(ea_repro_resolve(docs, files, "all", refs, 256, &n, &err), 0, "%s", err.msg);
    for (int i = 0; i < n; i++) /* every family's points; the three index_add ones among them, once each */
        index_add += !strcmp(refs[i].family->name, "index_add");
    cr_assert_eq(index_add, 3);
    cr_assert_eq(ea_repro_resolve(docs, files, "xlnet", refs, 8, &n, &err), 0, "%s", err.msg);
    cr_assert(n == 1 && refs[0].index == 2 && !strcmp(refs[0].family->name, "index_add"));
    cr_assert_str_eq(refs[0].file, "golden/occurrences/index_add.json");
    cr_assert_eq(ea_repro_resolve(docs, files, "index_add-31177027c868-c06b114e6a86", refs, 8, &n, &err), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(refs[0].point, "point")->valuestring, "index_add-31177027c868");
    cr_assert_eq(ea_repro_resolve(docs, files, "index_add-398f48d45d2b", refs, 8, &n, &err), 0);
    cr_assert_eq(refs[0].index, 0);
    cr_assert_neq(ea_repro_resolve(docs, files, "bert", refs, 8, &n, &err), 0);
    has(err.msg, "--scope bert: expected all, a family (index_add, routing_histc, routing_cumsum, cumsum, cat, "
                 "avgpool_backward), an alias, a point id or a scope id; extern-audit run --list lists the aliases and points");
    cr_assert_eq(ea_repro_resolve(docs, files, "index_add", refs, 256, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 3, "a family's name selects its points");
    cr_assert_neq(ea_repro_resolve(docs, files, "all", refs, 2, &n, &err), 0);
    has(err.msg, "more than 2 points");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

Test(run, plan_needs_no_gpu)
{
    cli_run r = test_cli("run", "--scope", "all", "--plan", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    const cJSON *plan, *xlnet = NULL;
    int index_add = 0;
    cJSON_ArrayForEach(plan, j) {
        index_add += !strcmp(cJSON_GetObjectItem(plan, "family")->valuestring, "index_add");
        if (!strcmp(cJSON_GetObjectItem(plan, "alias")->valuestring, "xlnet"))
            xlnet = plan;
    }
    cr_assert_eq(index_add, 4, "the three index_add points, Longformer's 6291456 as two configurations (a div consumer)");
    cr_assert_not_null(xlnet);
    has(r.out, "\"indexFuncLargeIndex<bf16,i64,u32,2,2,-2,false>\"");
    has(r.out, "\"kind\":\t\"windows\"");
    has(r.out, "\"producer\":\t{\n\t\t\t\t\"scale\":\t0.125,\n\t\t\t\t\"escapes\":\ttrue");
    /* ATen's grids are sized for this GPU, or without one for an H200's 132 multiprocessors; each plan says */
    ea_device_info info;
    int sm = ea_device_probe(&info) && info.sm_count > 0 ? info.sm_count : 132;
    cJSON_ArrayForEach(plan, j)
        if (!strcmp(cJSON_GetObjectItem(plan, "family")->valuestring, "index_add"))
            cr_assert_eq(cJSON_GetObjectItem(plan, "sm_count")->valueint, sm);
    has(r.err, "run --plan: ATen's grids for ");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(xlnet, "config"),
                                                                            "oracle"),
                                                        "variants")),
                 IA_SLICE_VARIANTS, "xlnet's slice variants");
    cJSON_Delete(j);
    cli_run_free(&r);
    r = test_cli("help", "run", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--mode M");
    cli_run_free(&r);
    r = test_cli("run", "--help", NULL);
    cr_assert_eq(r.status, 0);
    cli_run_free(&r);
}

Test(run, usage_errors_exit_2)
{
    const char *cases[][4] = {
        {"run", NULL, NULL, NULL},
        {"run", "--scope", NULL, NULL},
        {"run", "--scope", "xlnet", "--bogus"},
        {"run", "--mode", "sometimes", NULL},
        {"run", "--scope", "nope", "--plan"},
        {"run", "--golden", "/nonexistent", "--scope"},
    };
    const char *want[] = {"--scope is required", "option '--scope' needs a value", "unknown option '--bogus'",
                          "--mode expects faithful, fabricated or both", "--scope nope: expected all, a family (",
                          "option '--scope' needs a value"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run r = test_cli(cases[i][0], cases[i][1], cases[i][2], cases[i][3], NULL);
        cr_assert_eq(r.status, 2, "case %zu", i);
        has(r.err, want[i]);
        cli_run_free(&r);
    }
    cli_run r = test_cli("run", "--scope", "xlnet", "--golden", "/nonexistent", "--plan", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden /nonexistent: not a folder");
    cli_run_free(&r);
}

Test(run, without_a_device_exits_2_saying_why)
{
    ea_device_info info;
    if (ea_device_probe(&info))
        cr_skip_test("CUDA device present: %s", info.reason);
    /* a check-only run needs a device too, and so does one on any GPU (its target resolves without one) */
    const char *modes[] = {"--quiet", "--check-only", "--any-gpu"};
    for (int i = 0; i < 3; i++) {
        cli_run r = test_cli("run", "--scope", "longformer-bf16-6291456", "--mode", "both", "--quiet", modes[i], NULL);
        cr_assert_eq(r.status, 2);
        has(r.err, "extern-audit run: no CUDA device: ");
        has(r.err, info.reason);
        cli_run_free(&r);
    }
}

Test(run, list_names_what_scope_accepts)
{
    cli_run r = test_cli("run", "--list", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "run --scope takes all, a family, an alias, a point id or a scope id:");
    has(r.out, "\nindex_add (aten.index_add.default, 3 points): bf16 zeros -> index_add -> reshape");
    has(r.out, "\nrouting_histc (aten.histc.default, 1 point): gpt-oss expert routing");
    /* every family of the registry, with the op and description its own folder declares */
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++) {
        char want[256];
        snprintf(want, sizeof want, "\n%s (%s, ", (*f)->name, (*f)->op);
        has(r.out, want);
        cr_assert((*f)->description && (*f)->description[0], "%s declares no description", (*f)->name);
    }
    has(r.out, "  xlnet                    index_add-a8e741bae3fe    24       2  hf/train/XLNetLMHeadModel\n");
    cli_run_free(&r);
    r = test_cli("run", "--json", "--list", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *fam, *p;
    int points = 0, occurrences = 0;
    cr_assert(cJSON_IsArray(j));
    cJSON_ArrayForEach(fam, j)
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(fam, "points")) {
            points++;
            occurrences += cJSON_GetObjectItem(p, "occurrences")->valueint;
            cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(p, "models")), 0);
        }
    cr_assert_eq(points, 80, "every golden point once"); /* 78, and the two avgpool_backward points */
    /* the derived aliases are unique across every family's golden points */
    cJSON_ArrayForEach(fam, j)
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(fam, "points")) {
            const cJSON *f2, *q;
            int same = 0;
            cJSON_ArrayForEach(f2, j)
                cJSON_ArrayForEach(q, cJSON_GetObjectItem(f2, "points"))
                    same += !strcmp(cJSON_GetObjectItem(p, "alias")->valuestring,
                                    cJSON_GetObjectItem(q, "alias")->valuestring);
            cr_assert_eq(same, 1, "alias %s is not unique", cJSON_GetObjectItem(p, "alias")->valuestring);
        }
    cr_assert_eq(occurrences, 192);
    cJSON_Delete(j);
    cli_run_free(&r);
    r = test_cli("run", "--list", "--golden", "/nonexistent", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "--golden /nonexistent: not a folder");
    cli_run_free(&r);
    r = test_cli("run", "--list", "--scope", "x", NULL);
    cr_assert_eq(r.status, 2);
    has(r.err, "unknown option '--scope'");
    cli_run_free(&r);
}
