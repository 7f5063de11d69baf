/* The capture reader: the fixture captures load into the structs they describe, and every way a
 * capture can be wrong fails with the file, the JSON path and the expectation. Broken captures are
 * the index_add fixture with one or two edits, written with its cubins into a fresh folder. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/capture.h"
#include "target/capture_impl.h"
#include "target/gen.h"
#include "helpers.h"

#define CAPTURES "tests/fixtures/captures"
#define IA_SCOPE "index_add-b36c21aae6f6-955d7c11d470"
#define IA_CUBINS {"default.triton_poi_fused_full_0.cubin", "coordinate_descent.triton_poi_fused_full_0.cubin", \
                   "probe_f32.triton_poi_fused_index_add_0.cubin", "probe_f32.triton_poi_fused_index_add_1.cubin"}

/* The index_add fixture with each (from, to) pair applied to the first occurrence of from, in a
 * fresh <tmp>/<scope>/ folder with the cubins its steps name; returns its capture.json path. */
static char *mutated(const char *from, ...)
{
    char *text = test_read(CAPTURES "/" IA_SCOPE "/capture.json");
    va_list ap;
    va_start(ap, from);
    for (const char *a = from; a; a = va_arg(ap, const char *)) {
        const char *b = va_arg(ap, const char *);
        char *at = strstr(text, a);
        cr_assert_not_null(at, "fixture lacks '%s'", a);
        size_t head = (size_t)(at - text), n = strlen(text) - strlen(a) + strlen(b) + 1;
        char *next = malloc(n);
        snprintf(next, n, "%.*s%s%s", (int)head, text, b, at + strlen(a));
        free(text);
        text = next;
    }
    va_end(ap);
    const char *dir = test_tmpdir();
    static const char *const cubins[] = IA_CUBINS;
    char *path = test_write(dir, IA_SCOPE "/capture.json", text);
    for (size_t i = 0; i < sizeof cubins / sizeof cubins[0]; i++) {
        char name[512];
        snprintf(name, sizeof name, IA_SCOPE "/%s", cubins[i]);
        free(test_write(dir, name, "dummy cubin\n"));
    }
    free(text);
    return path;
}

/* Takes path (from mutated) and frees it. */
static void expect_error(char *path, const char *needle)
{
    ea_capture c;
    ea_error err = {{0}};
    cr_assert_eq(ea_capture_load(path, &c, &err), -1, "loaded, expected an error with '%s'", needle);
    cr_expect(strstr(err.msg, path), "file not named: %s", err.msg);
    cr_expect(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    free(path);
}

/* Load the capture at path (from mutated), which is then freed: c->file holds its own copy. */
static void load_mutated(char *path, ea_capture *c)
{
    ea_error err;
    cr_assert_eq(ea_capture_load(path, c, &err), 0, "%s", err.msg);
    free(path);
}

#define BROKEN(needle, ...) expect_error(mutated(__VA_ARGS__, NULL), needle)

Test(capture, fixture_loads_into_structs)
{
    ea_capture c;
    ea_error err;
    cr_assert_eq(ea_capture_load(CAPTURES "/" IA_SCOPE "/capture.json", &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.scope, IA_SCOPE);
    cr_assert_eq(c.ncovers, 1);
    cr_assert_str_eq(c.covers[0], "hf/train/TinyLongformer/full_graph_000:index_add");
    cr_assert_str_eq(c.dir, CAPTURES "/" IA_SCOPE);
    cr_assert_str_eq(cJSON_GetObjectItem(c.environment, "gpu")->valuestring, "NVIDIA H200");
    cr_assert_eq(c.ninputs, 1);
    cr_assert_eq(c.inputs[0].t.dtype, EA_BF16);
    cr_assert_eq(c.inputs[0].t.ndim, 4);
    cr_assert_eq(c.inputs[0].t.strides[1], 12);
    cr_assert_eq(c.inputs[0].values.kind, EA_GEN_UNIFORM);
    cr_assert_eq(c.noutputs, 1);
    cr_assert_eq(c.outputs[0].checksum, 0x5be0917f3ac24d68ull);
    cr_assert_eq(c.nruns, 3);

    const ea_capture_run *d = ea_capture_run_named(&c, "default"), *p = ea_capture_run_named(&c, "probe_f32");
    cr_assert(d && p && ea_capture_run_named(&c, "coordinate_descent") && !ea_capture_run_named(&c, "probe_f16"));
    cr_assert_null(d->probe_dtype);
    cr_assert_str_eq(p->probe_dtype, "f32");
    cr_assert_eq(d->ev.naten_calls, 1);
    cr_assert_str_eq(d->ev.aten_calls[0], "torch.ops.aten.index_add.default");
    cr_assert_eq(d->ev.launches[EA_LAUNCH_POI], 1);
    cr_assert_eq(p->ev.atomic_kernels, 1);
    cr_assert_eq(d->nbuffers, 1);
    cr_assert_eq(d->buffers[0].bytes, 96);
    cr_assert_eq(d->nsteps, 2);
    cr_assert(d->steps[0].triton && !d->steps[1].triton);
    cr_assert_str_eq(d->steps[1].call, "torch.ops.aten.index_add.default");
    cr_assert_str_eq(d->steps[0].cubin, CAPTURES "/" IA_SCOPE "/default.triton_poi_fused_full_0.cubin");
    cr_assert_eq(access(d->steps[0].cubin, R_OK), 0);
    cr_assert_eq(d->steps[0].block[0], 128);
    cr_assert_eq(d->steps[0].nargs, 2);
    cr_assert_str_eq(d->steps[0].args[0].buffer, "buf0");
    cr_assert_null(d->steps[0].args[1].buffer);
    cr_assert_str_eq(d->steps[0].args[1].type, "i32");
    cr_assert_eq(d->steps[0].args[1].scalar, 48);
    cr_assert(!d->replayable && p->replayable);
    cr_assert_str_eq(d->wrapper, CAPTURES "/" IA_SCOPE "/default.wrapper.py");
    cr_assert_eq(d->calls_per_replay, 20);
    cr_assert_float_eq(d->eager.median_us, 7.7, 1e-9);
    cr_assert_eq(d->compiled.samples, 50);
    ea_capture_free(&c);
}

Test(capture, every_generator_kind)
{
    static const char *const uniform = "{\"generator\": \"uniform\", \"seed\": 0}";
    ea_capture c;
    const ea_capture_gen *g = NULL;
#define LOAD(dtype, gen)                                                                                    \
    do {                                                                                                    \
        load_mutated(mutated("\"bf16\"", dtype, uniform, gen, NULL), &c);                                   \
        g = &c.inputs[0].values;                                                                            \
    } while (0)
    LOAD("\"i64\"", "{\"generator\": \"randint\", \"seed\": 7, \"low\": 3, \"high\": 53}");
    cr_assert(g->kind == EA_GEN_RANDINT && g->seed == 7 && g->low == 3 && g->high == 53);
    ea_capture_free(&c);
    LOAD("\"b8\"", "{\"generator\": \"bool\", \"seed\": 2}");
    cr_assert(g->kind == EA_GEN_BOOL && g->seed == 2);
    ea_capture_free(&c);
    LOAD("\"bf16\"", "{\"generator\": \"constant\", \"value\": \"-inf\"}");
    cr_assert(g->kind == EA_GEN_CONSTANT && isinf(g->value) && g->value < 0);
    ea_capture_free(&c);
    LOAD("\"b8\"", "{\"generator\": \"constant\", \"value\": true}");
    cr_assert_eq(g->value, 1.0);
    ea_capture_free(&c);
    LOAD("\"f32\"", "{\"generator\": \"constant\", \"value\": 0.25}");
    cr_assert_eq(g->value, 0.25);
    ea_capture_free(&c);
    LOAD("\"i64\"", "{\"generator\": \"iota\", \"start\": 5, \"step\": -1}");
    cr_assert(g->kind == EA_GEN_IOTA && g->start == 5 && g->step == -1);
    ea_capture_free(&c);
    LOAD("\"i64\"", "{\"generator\": \"as_strided_iota\", \"iota\": {\"length\": 48, \"start\": 0, \"step\": 1}, "
                    "\"size\": [2, 4, 6, 2], \"stride\": [24, 4, 2, 1], \"offset\": 0, \"numel\": 96, \"min\": 0, "
                    "\"max\": 47, \"distinct\": 36, \"coverage\": {\"covered\": 36, \"of\": 48}, "
                    "\"multiplicity_histogram\": {\"0\": 12, \"2\": 12, \"4\": 12}, \"max_multiplicity\": 4, \"sorted\": false}");
    cr_assert(g->kind == EA_GEN_AS_STRIDED_IOTA && g->length == 48 && g->ndim == 4 && g->stride[0] == 24);
    cr_assert_not_null(cJSON_GetObjectItem(g->json, "multiplicity_histogram"));
    ea_capture_free(&c);
    LOAD("\"i64\"", "{\"generator\": \"topk_ids\", \"seed\": 0, \"experts\": 32, \"k\": 4}");
    cr_assert(g->kind == EA_GEN_TOPK_IDS && g->experts == 32 && g->k == 4);
    ea_capture_free(&c);
#undef LOAD
}

Test(capture, document_errors)
{
    BROKEN("/capture.json:1:", "{\n", "{{\n");
    BROKEN("$.schema: expected \"extern-audit/capture\", got \"extern-audit/captures\"", "\"extern-audit/capture\"",
           "\"extern-audit/captures\"");
    BROKEN("$.schema_version: expected 1, got 2", "\"schema_version\": 1", "\"schema_version\": 2");
    BROKEN("$: unknown key 'extra'", "\"command\":", "\"extra\": 1, \"command\":");
    BROKEN("$.covers: expected a non-empty array", "[\"hf/train/TinyLongformer/full_graph_000:index_add\"]", "[]");
    BROKEN("$.covers[1]: expected each entry once", "[\"hf/train/TinyLongformer/full_graph_000:index_add\"]",
           "[\"a\", \"a\"]");
    BROKEN("$.covers[0]: expected string, got number 3", "[\"hf/train/TinyLongformer/full_graph_000:index_add\"]", "[3]");
    BROKEN("$.environment.cuda: expected string, got nothing (missing key)", ",\n    \"cuda\": \"13.0\"", "");
}

#define LOWERING "\"lowering\": {\"name\": \"index_add_bf16_atomic\", \"stands_for\": \"#195192\", " \
                 "\"ops\": [\"aten.index_add.default\"]}, \"command\":"

Test(capture, candidate_lowering_is_named)
{
    ea_capture c;
    load_mutated(mutated("\"command\":", LOWERING, NULL), &c);
    cr_assert_str_eq(c.lowering, "index_add_bf16_atomic");
    ea_capture_free(&c);
    /* the run compiled without the patch in the same process is read like the others */
    load_mutated(mutated("\"command\":", LOWERING, "\"config\": \"probe_f32\"", "\"config\": \"without_lowering\"",
                         "\"probe\": {\"dtype\": \"f32\"}", "\"probe\": null", NULL),
                 &c);
    cr_assert_not_null(ea_capture_run_named(&c, "without_lowering"));
    ea_capture_free(&c);
    ea_error err;
    cr_assert_eq(ea_capture_load(CAPTURES "/" IA_SCOPE "/capture.json", &c, &err), 0, "%s", err.msg);
    cr_assert_null(c.lowering, "a capture without \"lowering\" was made without a candidate");
    ea_capture_free(&c);
}

Test(capture, candidate_lowering_errors)
{
    BROKEN("$.lowering: expected object, got number 1", "\"command\":", "\"lowering\": 1, \"command\":");
    BROKEN("$.lowering.name: expected string, got nothing (missing key)", "\"command\":",
           "\"lowering\": {\"stands_for\": \"x\", \"ops\": [\"y\"]}, \"command\":");
    BROKEN("$.lowering.ops: expected a non-empty array", "\"command\":",
           "\"lowering\": {\"name\": \"n\", \"stands_for\": \"x\", \"ops\": []}, \"command\":");
    BROKEN("$.runs[2].config: expected \"default\", \"coordinate_descent\" or \"probe_<dtype>\", got without_lowering",
           "\"config\": \"probe_f32\"", "\"config\": \"without_lowering\"", "\"probe\": {\"dtype\": \"f32\"}",
           "\"probe\": null");
    BROKEN("$.lowering: unknown key 'patch'", "\"command\":",
           "\"lowering\": {\"name\": \"n\", \"stands_for\": \"x\", \"ops\": [\"y\"], \"patch\": 1}, \"command\":");
}

#define FP64 "\"fp64\": {\"method\": \"f64 eager\", \"eager_error\": [0.0017]}, \"command\":"

Test(capture, fp64_reference_errors_are_read_per_output)
{
    ea_capture c;
    load_mutated(mutated("\"command\":", FP64, "\"replayable\": false,", "\"replayable\": false, \"fp64_error\": [0.002],",
                         NULL),
                 &c);
    cr_assert_float_eq(c.fp64_eager[0], 0.0017, 1e-12);
    cr_assert_float_eq(ea_capture_run_named(&c, "default")->fp64_error[0], 0.002, 1e-12);
    cr_assert_null(ea_capture_run_named(&c, "coordinate_descent")->fp64_error, "a run without the field has none");
    cr_assert_null(c.fp64_error);
    ea_capture_free(&c);
    load_mutated(mutated("\"command\":", FP64, "[0.0017]", "[null]", NULL), &c);
    cr_assert(isnan(c.fp64_eager[0]), "null: not a floating output");
    ea_capture_free(&c);
    load_mutated(mutated("\"command\":", "\"fp64\": {\"error\": \"RuntimeError: no f64 kernel\"}, \"command\":", NULL), &c);
    cr_assert_str_eq(c.fp64_error, "RuntimeError: no f64 kernel");
    cr_assert_null(c.fp64_eager);
    ea_capture_free(&c);
}

Test(capture, fp64_reference_errors)
{
    BROKEN("$.fp64.eager_error: expected one entry per output (1), got 2 entries", "\"command\":", FP64, "[0.0017]",
           "[0.0017, 0.1]");
    BROKEN("$.fp64.eager_error[0]: expected a relative L2 error >= 0 or null, got -1", "\"command\":", FP64, "[0.0017]",
           "[-1]");
    BROKEN("$.fp64.eager_error[0]: expected finite number, got string", "\"command\":", FP64, "[0.0017]", "[\"x\"]");
    BROKEN("$.fp64.error: expected either an error or a method and eager_error, got both", "\"command\":", FP64,
           "\"method\"", "\"error\": \"e\", \"method\"");
    BROKEN("$.fp64.eager_error: expected an array, got nothing", "\"command\":",
           "\"fp64\": {\"method\": \"m\"}, \"command\":");
    BROKEN("$.fp64: unknown key 'x'", "\"command\":", "\"fp64\": {\"x\": 1}, \"command\":");
    BROKEN("$.runs[0].fp64_error: expected none without the capture's fp64 reference", "\"replayable\": false,",
           "\"replayable\": false, \"fp64_error\": [0.002],");
    BROKEN("$.runs[0].fp64_error: expected one entry per output (1), got 0 entries", "\"command\":", FP64,
           "\"replayable\": false,", "\"replayable\": false, \"fp64_error\": [],");
}

#define FAB_STATS(m) "{\"median_us\": " m ", \"q1_us\": 1, \"q3_us\": 900, \"samples\": 20}"
#define FAB "\"fabricated\": {\"index\": {\"generator\": \"randint\", \"seed\": 2, \"low\": 0, \"high\": 100}, " \
            "\"method\": \"CUDA graph\", \"calls_per_replay\": 10, \"replays\": 20, \"default\": " FAB_STATS("420") \
            ", \"without_lowering\": " FAB_STATS("510") "}, \"command\":"

Test(capture, fabricated_timings_are_read)
{
    ea_capture c;
    load_mutated(mutated("\"command\":", FAB, NULL), &c);
    cr_assert(c.has_fabricated);
    cr_assert_float_eq(c.fab_default.median_us, 420, 1e-9);
    cr_assert_float_eq(c.fab_without.median_us, 510, 1e-9);
    ea_capture_free(&c);
    load_mutated(mutated("\"command\":", "\"fabricated\": {\"error\": \"CaptureError: x\"}, \"command\":", NULL), &c);
    cr_assert(!c.has_fabricated);
    cr_assert_str_eq(c.fabricated_error, "CaptureError: x");
    ea_capture_free(&c);
}

Test(capture, fabricated_errors)
{
    BROKEN("$.fabricated.index: expected randint with seed 2, low 0 and high <= 100 (the pipeline's draw), got another generator", "\"command\":", FAB,
           "\"generator\": \"randint\", \"seed\": 2, \"low\": 0, \"high\": 100", "\"generator\": \"iota\", \"start\": 0, \"step\": 1");
    BROKEN("$.fabricated.index: expected randint with seed 2, low 0 and high <= 100 (the pipeline's draw), got other "
           "parameters", "\"command\":", FAB, "\"seed\": 2, \"low\": 0, \"high\": 100", "\"seed\": 3, \"low\": 0, \"high\": 100");
    BROKEN("$.fabricated.without_lowering: expected a value, got nothing (missing key)", "\"command\":", FAB,
           ", \"without_lowering\": {\"median_us\": 510, \"q1_us\": 1, \"q3_us\": 900, \"samples\": 20}", "");
    BROKEN("$.fabricated.default.median_us: expected 0 <= q1_us <= median_us <= q3_us", "\"command\":", FAB, "420", "1000");
    BROKEN("$.fabricated.replays: expected an integer >= 1, got 0", "\"command\":", FAB, "\"replays\": 20", "\"replays\": 0");
    BROKEN("$.fabricated.error: expected an error alone, got more keys", "\"command\":",
           "\"fabricated\": {\"error\": \"e\", \"replays\": 1}, \"command\":");
    BROKEN("$.fabricated: unknown key 'samples'", "\"command\":", "\"fabricated\": {\"samples\": 1}, \"command\":");
}


Test(capture, a_c64_input_reads_with_uniform)
{
    ea_capture c;
    load_mutated(mutated("\"bf16\"", "\"c64\"", NULL), &c); /* an FFT scope's complex input */
    cr_assert_eq(c.inputs[0].t.dtype, EA_C64);
    ea_capture_free(&c);
}

Test(capture, tensor_errors)
{
    BROKEN("$.inputs[0].offset: expected integer, got string \"0\"", "\"offset\": 0", "\"offset\": \"0\"");
    BROKEN("$.inputs[0].dtype: expected a dtype (bf16", "\"dtype\": \"bf16\"", "\"dtype\": \"bfloat16\"");
    BROKEN("$.inputs[0].strides: expected 4 strides (one per size), got 3", "[48, 12, 2, 1]", "[48, 12, 2]");
    BROKEN("$.inputs[0].sizes[1]: expected an integer >= 0, got -4", "[2, 4, 6, 2]", "[2, -4, 6, 2]");
    BROKEN("$.inputs[0].sizes: expected at most 8 integers, got 9", "[2, 4, 6, 2]", "[1, 1, 1, 1, 1, 1, 1, 1, 1]");
    BROKEN("$.inputs[0].values.generator: expected uniform, randint, bool, constant, iota, as_strided_iota or topk_ids, "
           "got \"normal\"", "\"uniform\"", "\"normal\"");
    BROKEN("$.inputs[0].values.generator: expected a floating or c64 dtype for uniform, got i32", "\"bf16\"", "\"i32\"");
    BROKEN("$.inputs[0].values.generator: expected an integer dtype for randint, got c64", "\"bf16\"", "\"c64\"",
           "\"uniform\", \"seed\": 0", "\"randint\", \"seed\": 0, \"low\": 0, \"high\": 2");
    BROKEN("$.inputs[0].values.generator: expected an integer dtype for randint, got bf16", "\"uniform\", \"seed\": 0",
           "\"randint\", \"seed\": 0, \"low\": 0, \"high\": 2");
    BROKEN("$.inputs[0].values.high: expected an integer >= 6, got 5", "\"bf16\"", "\"i32\"", "\"uniform\", \"seed\": 0",
           "\"randint\", \"seed\": 0, \"low\": 5, \"high\": 5");
    BROKEN("$.inputs[0].values: unknown key 'low'", "\"seed\": 0}", "\"seed\": 0, \"low\": 1}");
    BROKEN("$.inputs[0].values.value: expected finite number, got string \"many\"", "\"uniform\", \"seed\": 0",
           "\"constant\", \"value\": \"many\"");
    BROKEN("$.inputs[0].values.stride: expected 2 strides (one per size), got 1", "\"uniform\", \"seed\": 0",
           "\"as_strided_iota\", \"iota\": {\"length\": 4, \"start\": 0, \"step\": 1}, \"size\": [2, 2], \"stride\": [1], "
           "\"offset\": 0");
    BROKEN("$.inputs[0].values.k: expected an integer >= 1, got 0", "\"uniform\", \"seed\": 0",
           "\"topk_ids\", \"seed\": 0, \"experts\": 8, \"k\": 0");
    BROKEN("$.inputs[0].values: expected object, got array", "{\"generator\": \"uniform\", \"seed\": 0}", "[]");
    BROKEN("$.outputs[0].checksum: expected 16 lowercase hex digits, got \"5BE0917F3AC24D68\"", "5be0917f3ac24d68",
           "5BE0917F3AC24D68");
    BROKEN("$.outputs[0].name: expected a name no other input or output has, got in0", "\"out0\"", "\"in0\"");
    BROKEN("$.outputs[0]: unknown key 'values'", "\"checksum\":", "\"values\": 1, \"checksum\":");
}

Test(capture, run_errors)
{
    BROKEN("$.runs[1].config: expected each config once, got default", "\"coordinate_descent\"", "\"default\"");
    BROKEN("$.runs: expected a run with config \"coordinate_descent\", got none",
           "\"config\": \"coordinate_descent\",\n      \"inductor_config\": {\"coordinate_descent_tuning\": true},\n"
           "      \"probe\": null",
           "\"config\": \"probe_f16\",\n      \"inductor_config\": {},\n      \"probe\": {\"dtype\": \"f16\"}");
    BROKEN("$.runs[0].config: expected \"default\", \"coordinate_descent\" or \"probe_<dtype>\", got fast",
           "\"config\": \"default\"", "\"config\": \"fast\"");
    BROKEN("$.runs[2].probe: expected null, or config \"probe_f16\", got probe_f32", "{\"dtype\": \"f32\"}",
           "{\"dtype\": \"f16\"}");
    BROKEN("$.runs[2].probe: expected {\"dtype\": ...} for a probe run, got null", "{\"dtype\": \"f32\"}", "null");
    BROKEN("$.runs[2].probe.dtype: expected a dtype", "{\"dtype\": \"f32\"}", "{\"dtype\": \"float\"}");
    BROKEN("$.runs[0].inductor_config: expected object, got boolean true", "{\"coordinate_descent_tuning\": false}",
           "true");
    BROKEN("$.runs[0].evidence.workspace_zeroing: expected integer, got nothing (missing key)",
           "\"workspace_zeroing\": 0,", "");
    BROKEN("$.runs[0].evidence.triton_launches: unknown key 'mix'", "\"tem\": 0}", "\"tem\": 0, \"mix\": 1}");
    BROKEN("$.runs[0].evidence.triton_launches.red: expected an integer >= 0, got -1", "\"red\": 0", "\"red\": -1");
    BROKEN("$.runs[0].evidence.aten_calls: expected array, got string", "[\"torch.ops.aten.index_add.default\"]",
           "\"torch.ops.aten.index_add.default\"");
    BROKEN("$.runs[2].evidence.atomic_kernels: expected at most the 2 Triton launches, got 3", "\"atomic_kernels\": 1",
           "\"atomic_kernels\": 3");
    BROKEN("$.runs[0].evidence.scan_kernels: expected at most the 1 Triton launches, got 2", "\"scan_kernels\": 0",
           "\"scan_kernels\": 2");
    BROKEN("$.runs[0].buffers[0].name: expected a name no input, output or earlier buffer has, got in0",
           "{\"name\": \"buf0\"", "{\"name\": \"in0\"");
    BROKEN("$.runs[0].wrapper: expected string, got null", "\"default.wrapper.py\"", "null");
    BROKEN("$.runs[0].timing.eager.median_us: expected 0 <= q1_us <= median_us <= q3_us", "\"median_us\": 7.7",
           "\"median_us\": 1.0");
    BROKEN("$.runs[0].timing.eager.samples: expected an integer >= 1, got 0", "\"samples\": 50", "\"samples\": 0");
    BROKEN("$.runs[0].timing.replays: expected integer, got nothing (missing key)", "\"replays\": 50,", "");
}

Test(capture, step_errors)
{
    BROKEN("$.runs[0].steps[0].cubin: expected a cubin file in the capture's folder, got \"default.missing.cubin\" (",
           "default.triton_poi_fused_full_0.cubin", "default.missing.cubin");
    BROKEN("No such file or directory", "default.triton_poi_fused_full_0.cubin", "default.missing.cubin");
    BROKEN("$.runs[0].steps[0].cubin: expected a file name inside the capture's folder, got ../x.cubin",
           "default.triton_poi_fused_full_0.cubin", "../x.cubin");
    BROKEN("$.runs[0].steps[0].cubin: expected a file name inside the capture's folder, got /tmp/x.cubin",
           "default.triton_poi_fused_full_0.cubin", "/tmp/x.cubin");
    BROKEN("$.runs[0].steps[0].args[0].buffer: expected an input, output or buffer of this run, got \"buf7\"",
           "{\"buffer\": \"buf0\"", "{\"buffer\": \"buf7\"");
    BROKEN("$.runs[0].steps[0].args[0].offset: expected an integer >= 0, got -2", "\"offset\": 0}", "\"offset\": -2}");
    BROKEN("$.runs[0].steps[0].args[0]: unknown key 'type'", "\"offset\": 0}", "\"offset\": 0, \"type\": \"i32\"}");
    BROKEN("$.runs[0].steps[0].args[1].type: expected a Triton scalar type", "\"type\": \"i32\"", "\"type\": \"int\"");
    BROKEN("$.runs[0].steps[0].args[1].scalar: expected finite number, got string", "\"scalar\": 48", "\"scalar\": \"48\"");
    BROKEN("$.runs[0].steps[1].kind: expected \"triton\" or \"aten\", got cuda", "\"kind\": \"aten\"", "\"kind\": \"cuda\"");
    BROKEN("$.runs[0].steps[1]: unknown key 'kernel'", "\"kind\": \"aten\",", "\"kind\": \"aten\", \"kernel\": \"k\",");
    BROKEN("$.runs[0].replayable: expected false (step 1 is an ATen call), got true", "\"replayable\": false",
           "\"replayable\": true");
    BROKEN("$.runs[2].replayable: expected true (every step is a Triton launch), got false", "\"replayable\": true",
           "\"replayable\": false");
    BROKEN("$.runs[0].steps[0].grid: expected 3 integers, got 2", "\"grid\": [1, 1, 1]", "\"grid\": [1, 1]");
    BROKEN("$.runs[0].steps[0].grid[0]: expected an integer >= 1, got 0", "\"grid\": [1, 1, 1]", "\"grid\": [0, 1, 1]");
    BROKEN("$.runs[0].steps[0].num_warps: expected an integer >= 1, got 0", "\"num_warps\": 4", "\"num_warps\": 0");
    BROKEN("$.runs[0].steps[0].function: expected string, got nothing (missing key)",
           "\"function\": \"triton_poi_fused_full_0\",", "");
}

/* ---- scalar argument types: one table for the reader and the replay ---- */

Test(capture, every_scalar_type_of_the_table_loads)
{
    int n = 0;
    char names[256] = "";
    for (const ea_scalar_type *t = ea_scalar_types; t->name; t++, n++) {
        char to[64];
        ea_capture c;
        snprintf(to, sizeof to, "\"type\": \"%s\"", t->name);
        load_mutated(mutated("\"type\": \"i32\"", to, NULL), &c);
        cr_assert_str_eq(ea_capture_run_named(&c, "default")->steps[0].args[1].type, t->name);
        ea_capture_free(&c);
        cr_assert(t->bytes == 1 || t->bytes == 2 || t->bytes == 4 || t->bytes == 8, "%s: %d bytes", t->name, t->bytes);
        cr_assert_eq(ea_scalar_type_named(t->name), t);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", n ? ", " : "", t->name);
    }
    /* the list messages quote is the table */
    cr_assert_str_eq(names, EA_SCALAR_TYPE_NAMES);
    cr_assert_null(ea_scalar_type_named("f32"));
    cr_assert_null(ea_scalar_type_named(NULL));
}

/* The bytes a type writes for a value; the rest of the 8-byte cell stays as it was. */
static void expect_encoding(const char *type, double v, uint64_t want)
{
    const ea_scalar_type *t = ea_scalar_type_named(type);
    unsigned char cell[8];
    cr_assert_not_null(t, "%s", type);
    memset(cell, 0xa5, sizeof cell);
    t->encode(v, cell);
    for (int i = 0; i < 8; i++) {
        unsigned want_byte = i < t->bytes ? (unsigned)(want >> (8 * i)) & 0xffu : 0xa5u;
        cr_assert_eq(cell[i], want_byte, "%s(%.17g) byte %d: %02x, expected %02x", type, v, i, cell[i], want_byte);
    }
}

Test(capture, scalar_integers_wrap_to_their_width)
{
    expect_encoding("i1", 1, 0x01);
    expect_encoding("u1", 1, 0x01);
    expect_encoding("i8", -1, 0xff);
    expect_encoding("u8", 255, 0xff);
    expect_encoding("i16", -2, 0xfffe);
    expect_encoding("u16", 65535, 0xffff);
    expect_encoding("i32", 48, 48);
    expect_encoding("i32", -1, 0xffffffffu);
    expect_encoding("u32", 4294967295.0, 0xffffffffu);
    expect_encoding("i64", -3, 0xfffffffffffffffdull);
    expect_encoding("i64", 0x1p53, 0x20000000000000ull);
    expect_encoding("u64", 0x1p63, 0x8000000000000000ull); /* beyond int64: taken as unsigned */
    expect_encoding("u64", 0x1p70, UINT64_MAX);            /* beyond 64 bits: saturated, not undefined */
}

Test(capture, scalar_floats_as_the_launcher_packs_them)
{
    expect_encoding("fp64", 0.1, 0x3fb999999999999aull);
    expect_encoding("fp32", 0.1, 0x3dcccccdu);
    /* bf16 is the top half of the f32 (Triton's pack_bf16 truncates): 1 + 3 * 2^-9 is 0x3f80, not 0x3f81 */
    expect_encoding("bf16", 1.0, 0x3f80);
    expect_encoding("bf16", -2.5, 0xc020);
    expect_encoding("bf16", 1.005859375, 0x3f80);
    /* fp16 rounds once, to nearest even, from the double */
    expect_encoding("fp16", 1.0, 0x3c00);
    expect_encoding("fp16", -2.0, 0xc000);
    expect_encoding("fp16", 0.1, 0x2e66);
    expect_encoding("fp16", 65504.0, 0x7bff);
    expect_encoding("fp16", 65519.0, 0x7bff);
    expect_encoding("fp16", 65520.0, 0x7c00);
    expect_encoding("fp16", -INFINITY, 0xfc00);
    expect_encoding("fp16", NAN, 0x7e00);
    expect_encoding("fp16", 0x1p-24, 0x0001);
    expect_encoding("fp16", 0x1p-25, 0x0000);        /* a tie: to the even 0 */
    expect_encoding("fp16", 3 * 0x1p-25, 0x0002);    /* 1.5 units: to the even 2 */
    expect_encoding("fp16", 0x1p-14 - 0x1p-26, 0x0400); /* rounds up into the smallest normal */
    expect_encoding("fp16", 1 + 0x1p-11, 0x3c00);    /* a tie: to the even 1.0 */
    expect_encoding("fp16", 1 + 0x1p-11 + 0x1p-40, 0x3c01); /* above the tie; through f32 it would be 0x3c00 */
    expect_encoding("fp16", 2047 + 0.5, 0x6800);     /* 2047.5 -> 2048: the mantissa carries into the exponent */
}

Test(capture, scalar_fp16_agrees_with_the_generators_on_f32_values)
{
    /* an f32 value is exact as a double, so rounding once from either gives the same half */
    const ea_scalar_type *t = ea_scalar_type_named("fp16");
    for (uint64_t bits = 0; bits < 0x100000000ull; bits += 0x1003) {
        uint32_t b = (uint32_t)bits;
        float f;
        unsigned char cell[2];
        memcpy(&f, &b, sizeof f);
        if (f != f)
            continue;
        t->encode(f, cell);
        uint16_t got = (uint16_t)(cell[0] | cell[1] << 8), want = ea_f32_to_f16(f);
        cr_assert_eq(got, want, "%a (0x%08x): 0x%04x, generators 0x%04x", (double)f, b, got, want);
    }
}

/* A golden folder whose captures/ holds links to the named fixture captures (NULL-terminated). */
static const char *golden_with(const char *scope, ...)
{
    const char *dir = test_tmpdir();
    char path[4096], target[4096];
    snprintf(path, sizeof path, "%s/captures", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    va_list ap;
    va_start(ap, scope);
    for (const char *s = scope; s; s = va_arg(ap, const char *)) {
        cr_assert_not_null(realpath(CAPTURES, target));
        snprintf(target + strlen(target), sizeof target - strlen(target), "/%s", s);
        snprintf(path, sizeof path, "%s/captures/%s", dir, s);
        cr_assert_eq(symlink(target, path), 0);
    }
    va_end(ap);
    return dir;
}

Test(capture, load_dir_sorted)
{
    ea_captures cs;
    ea_error err;
    const char *g = golden_with(IA_SCOPE, "cat-3facd8d0d5a4-6466840f7b14", "cumsum-df3f66bbe718-a2a8c692c76c", NULL);
    cr_assert_eq(ea_captures_load_dir(g, &cs, &err), 0, "%s", err.msg);
    cr_assert_eq(cs.n, 3);
    cr_assert_str_eq(cs.items[0].scope, "cat-3facd8d0d5a4-6466840f7b14");
    cr_assert_str_eq(cs.items[1].scope, "cumsum-df3f66bbe718-a2a8c692c76c");
    cr_assert_str_eq(cs.items[2].scope, IA_SCOPE);
    cr_assert_eq(cs.items[1].ncovers, 2);
    ea_captures_free(&cs);
    cr_assert_eq(cs.n, 0);
}

Test(capture, load_dir_without_captures_is_empty)
{
    ea_captures cs;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir(test_tmpdir(), &cs, &err), 0, "%s", err.msg);
    cr_assert_eq(cs.n, 0);
    ea_captures_free(&cs);
}

static void expect_dir_error(const char *g, const char *needle)
{
    ea_captures cs;
    ea_error err = {{0}};
    cr_assert_eq(ea_captures_load_dir(g, &cs, &err), -1);
    cr_assert(strstr(err.msg, needle), "expected '%s' in: %s", needle, err.msg);
    cr_assert_eq(cs.n, 0);
}

Test(capture, load_dir_errors)
{
    const char *g = golden_with(IA_SCOPE, NULL);
    free(test_write(g, "captures/README", "stray\n"));
    expect_dir_error(g, "/captures/README: expected only capture folders under");

    g = golden_with(IA_SCOPE, NULL);
    free(test_write(g, "captures/zz-empty/default.wrapper.py", "\n"));
    expect_dir_error(g, "/captures/zz-empty: expected capture.json in every capture folder, got none");

    g = golden_with("cat-3facd8d0d5a4-6466840f7b14", NULL);
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/captures/cat-3facd8d0d5a4-6466840f7b14", g);
    snprintf(to, sizeof to, "%s/captures/cat-renamed", g);
    cr_assert_eq(rename(from, to), 0);
    expect_dir_error(g, "/captures/cat-renamed/capture.json $.scope: expected \"cat-renamed\" (the capture's folder), "
                        "got \"cat-3facd8d0d5a4-6466840f7b14\"");

    /* a broken capture among good ones fails the whole load, naming it */
    char *broken = mutated("\"replays\": 50,", "", NULL);
    g = golden_with("cat-3facd8d0d5a4-6466840f7b14", NULL);
    *strrchr(broken, '/') = '\0';
    snprintf(to, sizeof to, "%s/captures/" IA_SCOPE, g);
    cr_assert_eq(symlink(broken, to), 0);
    free(broken);
    expect_dir_error(g, IA_SCOPE "/capture.json $.runs[0].timing.replays: expected integer");

    g = test_tmpdir();
    free(test_write(g, "captures", "a file, not a folder\n"));
    expect_dir_error(g, "/captures: cannot read: Not a directory");
}
