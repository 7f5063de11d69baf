/* The corpus fixtures of shapes real models have (tests/fixtures/corpus, each folder's README.md says
 * which real graph and lines it was cut from): gpt-oss routing over 128 experts (tiny/moe128), an fp16
 * DenseNet cat block (tinydense_f16) and DenseNet-201's 49-input cat in f32 (tinydense201_f32). Their
 * extraction, the routing plan's ATen launch, and `run --plan` on them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/routing/kernels.h"
#include "../repros/routing/plan.h"
#include "measure/baseline.h"
#include "gpu/device.h"
#include "corpus/extract.h"
#include "helpers.h"
#include "base/json.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static ea_extraction extract_fixtures(void)
{
    return test_extract_corpus(FIXTURE_CORPUS, 8);
}

/* The point of doc whose first occurrence is of model; its index in *index. */
static const cJSON *point_of_model(const cJSON *doc, const char *model, int *index)
{
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        const cJSON *occ = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "scopes"), 0), "occurrences"), 0);
        if (!strcmp(cJSON_GetObjectItem(occ, "model")->valuestring, model)) {
            *index = i;
            return p;
        }
        i++;
    }
    cr_assert_fail("no point of %s", model);
    return NULL;
}

Test(shape_fixtures, routing_over_128_experts_extracts_and_plans)
{
    ea_extraction x = extract_fixtures();
    int i;
    const cJSON *pt = point_of_model(test_extraction_doc(&x, "aten.histc.default"), "tiny/moe128", &i);
    const cJSON *d = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "value_properties"), 0), "derived");
    cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "sorted_topk_ids");
    cr_assert_eq(cJSON_GetObjectItem(d, "experts")->valueint, 128);
    cr_assert_eq(cJSON_GetObjectItem(d, "tokens")->valueint, 1000);
    cr_assert_eq(cJSON_GetObjectItem(d, "k")->valueint, 4);
    rt_scope s;
    ea_error err;
    cr_assert_eq(rt_scope_parse(pt, "fixtures/occurrences/histc.json", i, &s, &err), 0, "%s", err.msg);
    cr_assert(s.bins == 128 && s.hmin == 0 && s.hmax == 127 && s.n == 4000);
    cr_assert_eq(rt_plan_check(&s, &err), 0, "%s", err.msg);
    /* torch 2.11 on the H200 (132 SMs): SHARED mode, 8 x 512, 520 bytes, as its profiler showed */
    cr_assert_eq(rt_hist_grid(s.n, s.bins, 132), 8);
    cr_assert_eq(rt_hist_shared_bytes(s.bins), 520);
    cr_assert_eq(rt_sort_size(s.n), 4096, "4000 ids: MediumRadixSort, as the 32-expert point");
    ea_extraction_free(&x);
}

/* The cat point of model's fixture: k inputs of dtype dt summing to c channels, the output [n, c, h, h],
 * and a scope that reaches the BN (eval) and the relu, as in the bf16 graphs. */
static void cat_fixture_extracts(const char *model, const char *dt, int k, int n, int c, int h)
{
    ea_extraction x = extract_fixtures();
    int i;
    const cJSON *pt = point_of_model(test_extraction_doc(&x, "aten.cat.default"), model, &i);
    const cJSON *sig = cJSON_GetObjectItem(pt, "signature"), *out = cJSON_GetObjectItem(sig, "output");
    cr_assert_str_eq(cJSON_GetObjectItem(out, "dtype")->valuestring, dt);
    const cJSON *list = cJSON_GetArrayItem(cJSON_GetObjectItem(sig, "args"), 0), *t;
    cr_assert_eq(cJSON_GetArraySize(list), k);
    int64_t sum = 0;
    cJSON_ArrayForEach(t, list) {
        cr_assert_str_eq(cJSON_GetObjectItem(t, "dtype")->valuestring, dt);
        sum += cJSON_GetArrayItem(cJSON_GetObjectItem(t, "sizes"), 1)->valueint;
    }
    cr_assert_eq(sum, c);
    const cJSON *sizes = cJSON_GetObjectItem(out, "sizes");
    cr_assert(cJSON_GetArrayItem(sizes, 0)->valueint == n && cJSON_GetArrayItem(sizes, 1)->valueint == c &&
              cJSON_GetArrayItem(sizes, 2)->valueint == h && cJSON_GetArrayItem(sizes, 3)->valueint == h);
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(pt, "scopes"), 0),
                                                            "scope"));
    has(text, "aten.relu.default");
    has(text, "aten.sqrt.default");
    free(text);
    ea_extraction_free(&x);
}

/* densenet121's 7x7 10-input cat block in fp16 (the conversion to fp16 after the BN, as in bf16). */
Test(shape_fixtures, fp16_cat_block_extracts)
{
    cat_fixture_extracts("tinydense_f16", "f16", 10, 64, 512 + 9 * 32, 7);
}

/* DenseNet-201's widest cat: 49 f32 inputs, past the old cap of 32 (no conversions around the BN in f32). */
Test(shape_fixtures, densenet201_f32_cat_extracts)
{
    cat_fixture_extracts("tinydense201_f32", "f32", 49, 64, 256 + 48 * 32, 14);
}

/* run --plan on the fixtures' extraction with no captures: the routing point over 128 experts and the
 * cat points plan (ATen's launches or the oracle variants, the floor; their Inductor kernels named as
 * not captured, capture null), the tiny routing and cumsum points outside the replicas' sizes are
 * unsupported, and the exit is 1. */
/* A golden folder of the fixtures' extraction and a target of GPU model gpu (capability cc) without
 * captures. */
static const char *fixture_golden(const char *gpu, const char *cc)
{
    const char *dir = test_tmpdir();
    char occ[600], caps[600];
    snprintf(occ, sizeof occ, "%s/occurrences", dir);
    char *target = test_target(dir, gpu, "2.11.0+cu130", cc);
    snprintf(caps, sizeof caps, "%s/captures", target);
    free(target);
    cli_run r = test_cli("extract", "--corpus", FIXTURE_CORPUS, "--out", occ, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_run_free(&r);
    ea_error err;
    cr_assert_eq(ea_make_dirs(caps, &err), 0, "%s", err.msg);
    return dir;
}

Test(shape_fixtures, run_plan_on_the_fixtures)
{
    const char *dir = fixture_golden("H200", "9.0");
    cli_run r = test_cli("run", "--scope", "all", "--plan", "--json", "--golden", dir, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *o, *l;
    cr_assert_not_null(j, "%s", r.out);
    int routing128 = 0, cats = 0;
    cJSON_ArrayForEach(o, j) {
        const cJSON *cfg = cJSON_GetObjectItem(o, "config");
        const char *family = cJSON_GetObjectItem(o, "family")->valuestring;
        if (!strcmp(family, "cat")) {
            cr_assert_not_null(cfg, "an uncaptured cat plans: %s", cJSON_PrintUnformatted(o));
            cats++;
            cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cfg, "capture")));
            cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cfg, "current")), 0);
            char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(cfg, "notes"));
            has(text, "no_capture_unsupported");
            free(text);
            const char *dt = cJSON_GetObjectItem(cfg, "dtype")->valuestring;
            const cJSON *orc = cJSON_GetObjectItem(cfg, "oracle");
            int vec = cJSON_GetObjectItem(orc, "vector_elements")->valueint;
            cr_assert(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble > 0);
            if (!strcmp(dt, "f32")) { /* 16-byte vectors: 4 f32, 8 f16 */
                cr_assert_eq(vec, 4);
                cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cfg, "input_channels")), 49);
                cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(orc, "variants")), 4, "the stream unrolls");
            } else if (!strcmp(dt, "f16")) {
                cr_assert_eq(vec, 8);
            }
        }
        const cJSON *bins = cJSON_GetObjectItem(cJSON_GetObjectItem(cfg, "histc"), "bins");
        if (!cJSON_IsNumber(bins) || bins->valueint != 128)
            continue;
        routing128++;
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cfg, "capture")));
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(cfg, "current"))
            if (cJSON_IsObject(l) && strstr(cJSON_GetObjectItem(l, "kernel")->valuestring, "kernelHistogram1D"))
                cr_assert(cJSON_GetObjectItem(l, "grid")->valueint == 8 &&
                              cJSON_GetObjectItem(l, "block")->valueint == 512 &&
                              cJSON_GetObjectItem(l, "shared_bytes")->valueint == 520,
                          "%s", cJSON_PrintUnformatted(l));
    }
    cr_assert_eq(routing128, 8, "the histc and the cumsum point, four configurations each: %s", r.out);
    cr_assert_eq(cats, 3, "the bf16, fp16 and f32 cats: %s", r.out);
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* `run --scope all` on the fixtures on a GPU (the fixture target is of this GPU's model): the
 * points no capture covers (the three cats, the 128-expert routing's histc and cumsum points) are
 * reported unsupported naming the capture, the other points are in the document too (measured, or
 * refused for their own reasons), it reads strictly, and the exit is 1, not 2. */
Test(shape_fixtures_gpu, run_reports_the_uncaptured_and_goes_on, .timeout = 300)
{
    test_skip_without_gpu();
    ea_device_info info;
    char model[64], target[128], cc[16];
    cr_assert(ea_device_probe(&info));
    ea_gpu_model(info.name, model, sizeof model);
    snprintf(target, sizeof target, "%s-torch2.11.0+cu130", model);
    snprintf(cc, sizeof cc, "%d.%d", info.cc_major, info.cc_minor);
    const char *dir = fixture_golden(model, cc);
    cli_run r = test_cli("run", "--scope", "all", "--json", "--golden", dir, "--target", target, "--quiet", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out), *s;
    cr_assert_not_null(doc, "%s", r.out);
    ea_error err;
    cr_assert_eq(ea_baseline_validate("run", doc, &err), 0, "%s", err.msg);
    int cats = 0, routing = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "scopes")) {
        const cJSON *why = cJSON_GetObjectItem(s, "unsupported");
        const char *family = cJSON_GetObjectItem(s, "family")->valuestring;
        if (!why)
            continue;
        if (!strcmp(family, "cat")) {
            has(why->valuestring, "expected a capture of the scope");
            cats++;
        } else if (!strncmp(family, "routing", 7) && strstr(why->valuestring, "capture")) {
            routing++;
        }
    }
    cr_assert_eq(cats, 3, "%s", r.out);
    cr_assert_eq(routing, 2, "the 128-expert histc and cumsum points: %s", r.out);
    /* the index_add points come first and the cats last: every family was reached */
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "scopes")), cats + routing, "%s", r.out);
    cJSON_Delete(doc);
    cli_run_free(&r);
}
