/* replay.h: a captured Inductor partition run from C, the "current" path of a lowered scope.
 * Contract: a replayable run (every step a Triton launch) is replayed on the capture's generated
 * inputs: buffers sized from the capture (inputs and outputs from their layouts, run buffers from
 * their byte counts), each cubin loaded once, each launch given its captured grid, block, dynamic
 * shared memory and arguments (buffer + byte offset, or a typed scalar encoded by capture.h's
 * ea_scalar_types, the table the capture reader checks against) followed by Triton's two scratch
 * pointers. Outputs are poisoned (0xFF) first and compared by checksum after one call and
 * again after timing; an output whose checksum differs but whose capture holds eager's reference samples
 * (a partition with tl.atomic_add: bf16 adds round in whatever order they land, so the bits vary from run
 * to run) passes within EA_REPLAY_SAMPLE_TOLERANCE relative L2 of them, the bound the capture itself
 * held the compiled output to against eager (tools/capture/worker.py FLOAT_TOLERANCE; the index_add
 * family's check against its fp64 reference uses the same 1e-2). CUPTI names the kernels that ran, which must be the captured functions in
 * launch order. ea_replay_check validates the plan on the host: every argument inside its buffer,
 * every scalar type known, a launch per step; its messages name the argument by JSON path
 * ("<file> $.runs[1].steps[0].args[2].offset: ..."). */
#ifndef EA_REPLAY_H
#define EA_REPLAY_H

#include "target/capture.h"
#include "gpu/cubin.h"
#include "gpu/cupti.h"
#include "base/error.h"
#include "gpu/timer.h"

#define EA_REPLAY_SAMPLE_TOLERANCE 1e-2

typedef struct {
    const char *scope, *config;
    int outputs, outputs_matching;  /* checked after one call and again after timing */
    int outputs_tolerant;           /* of the others, those within EA_REPLAY_SAMPLE_TOLERANCE of their reference */
    int outputs_judged;             /* of the rest, those the caller's judge accepted (ea_replay_run_judged) */
    char first_mismatch[256];       /* "out0: checksum 0123... expected 4567..." */
    ea_timing timing;               /* per-call time of the replayed launches (warm) */
    ea_timing timing_cold;          /* EA_REPLAY_WARM_COLD: the same, cold (samples_us NULL otherwise) */
    double torch_compiled_us;       /* the capture's median for the same run */
    ea_kernel_list kernels;         /* CUPTI: one call's kernels */
    int kernels_match;              /* CUPTI saw exactly the captured functions, in launch order */
    char cupti_error[1024];         /* why kernels is empty, if it is */
} ea_replay_result;

/* Host-only validation of a run's launch plan; the message names the capture file and JSON path.
 * ea_replay_check also refuses a run with ATen steps; ea_replay_check_args checks only the Triton steps'
 * arguments, for families that replay those steps between their own replicas of the ATen ones. */
int ea_replay_check(const ea_capture *c, const ea_capture_run *r, ea_error *err);
int ea_replay_check_args(const ea_capture *c, const ea_capture_run *r, ea_error *err);

/* One captured Triton step bound to device memory: its function (the module loaded once for the
 * process: CUPTI names kernels by function handle, and a reloaded module can reuse an old handle),
 * the captured grid, block and dynamic shared memory, and the kernel parameters: each argument, then
 * Triton's global and profile scratch pointers (NULL; a step that asks for scratch is refused). */
typedef struct {
    ea_kernel kernel;
    ea_dim3 grid, block;
    size_t shared;
    void **params;
    unsigned char *cells; /* 8 bytes per parameter */
} ea_replay_launch;

/* lookup(ctx, name) gives the device pointer of the capture's buffer `name` (input, output or run
 * buffer), or NULL when the caller has none, which fails naming the argument. The step's arguments
 * must have passed ea_replay_check_args. ea_replay_launch_enqueue is capturable (ea_time_graph). */
int ea_replay_bind_step(const ea_capture *c, const ea_capture_step *st, void *(*lookup)(void *ctx, const char *name),
                        void *ctx, ea_replay_launch *out, ea_error *err);
int ea_replay_launch_enqueue(ea_replay_launch *l, void *stream, ea_error *err);
void ea_replay_launch_free(ea_replay_launch *l);
/* What ea_replay_run times after the first call's check: warm (the replay command), warm and cold (a
 * family's current path), or nothing (run --check-only; samples_us stays NULL, no second check). */
typedef enum { EA_REPLAY_WARM = 0, EA_REPLAY_WARM_COLD = 1, EA_REPLAY_CHECK_ONLY = 2 } ea_replay_timing;
/* Needs a CUDA device. -1 only for errors that stop the replay (allocation, load, launch). */
int ea_replay_run(const ea_capture *c, const ea_capture_run *r, const ea_timer_config *tc, ea_replay_timing how,
                  ea_replay_result *out, ea_error *err);
/* A family's own judgement of outputs that need not be the capture's bits: the checksums are the default
 * run's, and another run of the capture (coordinate_descent: other block sizes, so other reduction orders)
 * may round differently. Called after a check (after_timing 0: the first call's; 1: the one after timing)
 * in which some output's checksum differed and it has no reference samples, with every output's host copy
 * in the capture's order: 0 accepts those outputs, else why (a phrase) goes into first_mismatch. */
typedef struct {
    int (*fn)(void *ctx, int after_timing, void *const *outputs, char *why, size_t n);
    void *ctx;
} ea_replay_judge;
/* The same on inputs the caller generated already (a family checking its own paths on them; NULL: generated
 * here): inputs[i] is capture input i's host storage, ea_storage_bytes long, as ea_gen_fill wrote it; judge
 * (NULL: the checksums and reference samples alone) decides the outputs neither decides. */
int ea_replay_run_judged(const ea_capture *c, const ea_capture_run *r, const void *const *inputs,
                         const ea_timer_config *tc, ea_replay_timing how, const ea_replay_judge *judge,
                         ea_replay_result *res, ea_error *err);
void ea_replay_result_free(ea_replay_result *res);

#endif
