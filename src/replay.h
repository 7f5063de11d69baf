/* replay.h: a captured Inductor partition run from C, the "current" path of a lowered scope.
 * Contract: a replayable run (every step a Triton launch) is replayed on the capture's generated
 * inputs: buffers sized from the capture (inputs and outputs from their layouts, run buffers from
 * their byte counts), each cubin loaded once, each launch given its captured grid, block, dynamic
 * shared memory and arguments (buffer + byte offset, or a typed scalar encoded by capture.h's
 * ea_scalar_types, the table the capture reader checks against) followed by Triton's two scratch
 * pointers. Outputs are poisoned (0xFF) first and compared by checksum after one call and
 * again after timing; CUPTI names the kernels that ran, which must be the captured functions in
 * launch order. ea_replay_check validates the plan on the host: every argument inside its buffer,
 * every scalar type known, a launch per step; its messages name the argument by JSON path
 * ("<file> $.runs[1].steps[0].args[2].offset: ..."). */
#ifndef EA_REPLAY_H
#define EA_REPLAY_H

#include "capture.h"
#include "cupti.h"
#include "error.h"
#include "timer.h"

typedef struct {
    const char *scope, *config;
    int outputs, outputs_matching;  /* checked after one call and again after timing */
    char first_mismatch[256];       /* "out0: checksum 0123... expected 4567..." */
    ea_timing timing;               /* per-call time of the replayed launches */
    double torch_compiled_us;       /* the capture's median for the same run */
    ea_kernel_list kernels;         /* CUPTI: one call's kernels */
    int kernels_match;              /* CUPTI saw exactly the captured functions, in launch order */
    char cupti_error[1024];         /* why kernels is empty, if it is */
} ea_replay_result;

/* Host-only validation of a run's launch plan; the message names the capture file and JSON path. */
int ea_replay_check(const ea_capture *c, const ea_capture_run *r, ea_error *err);
/* Needs a CUDA device. -1 only for errors that stop the replay (allocation, load, launch). */
int ea_replay_run(const ea_capture *c, const ea_capture_run *r, const ea_timer_config *tc, ea_replay_result *out,
                  ea_error *err);
void ea_replay_result_free(ea_replay_result *res);

#endif
