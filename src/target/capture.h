/* capture.h: golden/targets/<target>/captures/<scope>/capture.json (written by tools/capture on a GPU), read strictly.
 * Contract: ea_capture_load accepts exactly the schema in docs/reference/schema.md (extern-audit/capture v1).
 * An unknown key, a wrong type, a missing field, another schema or version, runs without "default"
 * and "coordinate_descent", a Triton step whose cubin is not a file in the capture's folder, or a
 * step argument naming a buffer that is neither an input, an output nor a buffer of its run fails
 * with "<file> <JSON path>: expected ..., got ...". Strings point into the loaded document; cubin and
 * wrapper paths are resolved against the capture's folder. The library reads captures a target folder at
 * a time (ea_captures_load_dir, freed by ea_captures_free); one capture alone is capture_impl.h's. */
#ifndef EA_CAPTURE_H
#define EA_CAPTURE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "base/json.h"
#include "base/tensor.h"

#define EA_CAPTURE_SCHEMA "extern-audit/capture"
#define EA_CAPTURE_VERSION 1
/* The capture tolerance, |ours / torch's compiled time - 1| in percent: a replayed partition (replay)
 * or a family's path compared with the captured compiled time (run's "capture" fidelity). Why 15 and
 * not 5: torch timed the compiled graph in another process and session, and partitions of ~2 us
 * replayed at 1.19-1.25 of it in one H200 device call and within 15% in four others. */
#define EA_CAPTURE_TOLERANCE_PCT 15
#define EA_CAPTURE_TOLERANCE (EA_CAPTURE_TOLERANCE_PCT / 100.0)
#define EA_STRINGIFY_(x) #x
#define EA_STRINGIFY(x) EA_STRINGIFY_(x)
#define EA_CAPTURE_TOLERANCE_TEXT EA_STRINGIFY(EA_CAPTURE_TOLERANCE_PCT) "%"

typedef enum {
    EA_GEN_UNIFORM, EA_GEN_RANDINT, EA_GEN_BOOL, EA_GEN_CONSTANT,
    EA_GEN_IOTA, EA_GEN_AS_STRIDED_IOTA, EA_GEN_TOPK_IDS
} ea_gen_kind;

/* How an input's values are generated (docs/reference/schema.md, "Deterministic inputs"). */
typedef struct {
    ea_gen_kind kind;
    int64_t seed;                     /* uniform, randint, bool, topk_ids */
    int64_t low, high;                /* randint: [low, high) */
    double value;                     /* constant */
    int64_t start, step, length;      /* iota (length: as_strided_iota's iota only) */
    int ndim;                         /* as_strided_iota: the view read from the iota */
    int64_t size[EA_MAX_DIMS], stride[EA_MAX_DIMS], offset;
    int64_t experts, k;               /* topk_ids */
    const cJSON *json;                /* the generator object as written */
} ea_capture_gen;

typedef struct {
    const char *name;        /* "in0", "out0" */
    ea_tensor t;             /* dtype, sizes, strides, offset (device left empty) */
    ea_capture_gen values;   /* inputs only */
    uint64_t checksum;       /* outputs only */
    /* outputs only, optional: eager's row-major elements 0, ref_stride, 2 ref_stride, ... (a JSON array of
     * numbers), which a partition with tl.atomic_add is judged against (its bits depend on the adds' order) */
    const cJSON *reference;
    int64_t ref_stride;
} ea_capture_tensor;

enum { EA_LAUNCH_POI, EA_LAUNCH_RED, EA_LAUNCH_PER, EA_LAUNCH_SPL, EA_LAUNCH_FOR, EA_LAUNCH_TEM, EA_LAUNCH_KINDS };
/* "poi", "red", "per", "spl", "for", "tem", NULL: the triton_<kind>_ prefixes of Inductor's kernels. */
extern const char *const ea_launch_kinds[EA_LAUNCH_KINDS + 1];

typedef struct {
    const char **aten_calls; int naten_calls;         /* "torch.ops.aten.histc.default", ... */
    const char **extern_kernels; int nextern_kernels; /* "extern_kernels.mm", ... */
    int64_t launches[EA_LAUNCH_KINDS];
    int64_t alias_slices, workspace_zeroing, scan_kernels, atomic_kernels;
} ea_capture_evidence;

typedef struct {
    const char *name;
    int64_t bytes;
} ea_capture_buffer;

typedef struct {
    const char *buffer;  /* a buffer argument: an input, output or run buffer name; NULL for a scalar */
    int64_t offset;
    const char *type;    /* a scalar argument: "i32", "fp32", ... (a name in ea_scalar_types) */
    double scalar;
} ea_capture_arg;

/* The Triton scalar parameter types a step argument may have (the names of triton_meta["signature"]),
 * the one table the capture reader validates against and the replay builds kernel parameters from.
 * encode writes the captured value (a JSON number) as the bytes Triton's launcher passes: integers
 * wrapped to their width (two's complement, little-endian), fp64 as is, fp32 rounded to nearest,
 * fp16 rounded to nearest even once from the double (PyFloat_Pack2), bf16 the top half of the fp32
 * (the launcher's pack_bf16 truncates). */
typedef struct {
    const char *name;
    int bytes;                                         /* 1, 2, 4 or 8 */
    void (*encode)(double value, unsigned char *out);  /* writes bytes bytes */
} ea_scalar_type;

/* Every scalar type's name (capture_run.c's table), for messages. */
#define EA_SCALAR_TYPE_NAMES "i1, i8, i16, i32, i64, u1, u8, u16, u32, u64, fp16, bf16, fp32, fp64"
/* The type of that name, or NULL. */
const ea_scalar_type *ea_scalar_type_named(const char *name);

typedef struct {
    int triton;                       /* 0: an ATen call, not replayable from C */
    const char *call;                 /* aten */
    const char *kernel, *function;    /* triton: wrapper name, name in the cubin */
    char *cubin;                      /* resolved: <capture folder>/<cubin> */
    int64_t num_warps, shared, global_scratch, profile_scratch;
    int64_t grid[3], block[3];
    ea_capture_arg *args; int nargs;
} ea_capture_step;

typedef struct {
    double median_us, q1_us, q3_us;
    int64_t samples;
} ea_capture_stats;

typedef struct {
    const char *config;               /* "default", "coordinate_descent", "probe_f32", ... */
    const cJSON *inductor_config;
    const char *probe_dtype;          /* NULL unless a probe run */
    ea_capture_evidence ev;
    char *wrapper;                    /* resolved path of the generated wrapper */
    ea_capture_buffer *buffers; int nbuffers;
    ea_capture_step *steps; int nsteps;
    int replayable;
    const char *timing_method;
    int64_t calls_per_replay, replays;
    ea_capture_stats eager, compiled;
    double *fp64_error;               /* per output, its relative L2 error against the capture's fp64 reference
                                       * (NAN: not floating); NULL when none was computed */
} ea_capture_run;

typedef struct {
    char *file, *dir;                 /* capture.json and its folder */
    const char *scope, *command;
    const char *lowering;             /* the candidate lowering it was captured under, or NULL */
    const char **covers; int ncovers; /* occurrence ids */
    const cJSON *environment;         /* {"torch", "torch_git", "triton", "gpu", "capability", "driver", "cuda"} */
    ea_capture_tensor *inputs; int ninputs;
    ea_capture_tensor *outputs; int noutputs;
    ea_capture_run *runs; int nruns;
    /* Captures under a lowering: the scope evaluated in float64 on the same inputs, the reference each run's
     * fp64_error is taken against; fp64_eager: eager's (ATen's) error per output as fp64_error; fp64_error:
     * why the scope could not run in float64 (fp64_eager NULL then). Both NULL: no reference. */
    double *fp64_eager;
    const char *fp64_error;
    /* Captures under a lowering of an op with a fabricated mode (index_add): the default (candidate) and
     * without_lowering compiled scope timed by torch on the pipeline's randint index; fabricated_error: why
     * they could not be. has_fabricated 0 and no error: not captured. */
    int has_fabricated;
    ea_capture_stats fab_default, fab_without;
    const char *fabricated_error;
    ej_doc doc;
    void **blocks; int nblocks, capblocks; /* every allocation above, freed together */
} ea_capture;

typedef struct {
    ea_capture *items; /* sorted by folder name */
    int n;
    char dir[4096]; /* the target folder they were loaded from ("" for none: messages say so) */
} ea_captures;

/* One entry of "inputs" (name, dtype, sizes, strides, offset, values), read as ea_capture_load reads
 * it: the format the targets' torch_ops.json files (torch_ops.h) reuse for the tensors they time. */
int ea_capture_read_input(ej_val v, ea_capture_tensor *t, ea_error *err);
/* The run with that config, or NULL. */
const ea_capture_run *ea_capture_run_named(const ea_capture *c, const char *config);
/* The coordinate_descent run where it is Triton launches only (replayable from C, the current_tuned path of a
 * family that replays the whole partition), else NULL. */
const ea_capture_run *ea_capture_run_tuned_replayable(const ea_capture *c);
/* Whether torch timed it: a sample and a positive median (a capture made with --no-timing has neither). */
int ea_capture_stats_timed(const ea_capture_stats *s);

/* Every <dir>/captures/<scope>/capture.json (dir: a target folder, target.h), in sorted folder order; the folder name must
 * equal the capture's scope. No captures folder: zero captures. A folder without capture.json, or a
 * stray file, is an error. */
int ea_captures_load_dir(const char *dir, ea_captures *out, ea_error *err);
/* The same, with the captures named inherit[0..ninherit) read from <base_dir>/captures (a candidate target's
 * captures that are its base's: target.h's ea_target_captures_load), all in one folder-name order; a name the
 * target holds and also inherits is an error. */
int ea_captures_load_with(const char *dir, const char *base_dir, const char *const *inherit, int ninherit,
                          ea_captures *out, ea_error *err);
void ea_captures_free(ea_captures *cs);
/* Which capture covers a golden point's scope (point: an object of a golden occurrence document's
 * "points"): the one lookup every family, run's annotation and the tests share. The capture named by a
 * scope id of the point's scope group (group >= 0), or of any of its groups in order (group -1), else
 * the first in folder order that covers one of those groups' occurrences. NULL when none does; then,
 * err given, it says what was looked for and in which target. */
const ea_capture *ea_capture_of_point(const ea_captures *caps, const cJSON *point, int group, ea_error *err);

#endif
