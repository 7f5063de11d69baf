/* current.h: the captured Inductor partition of a scope, launched on the caller's device buffers.
 * Contract: ea_replay_run (src/target/replay.c) replays a capture on the capture's own generated inputs
 * and checks checksums; the family also needs the same launches on other inputs (the padded
 * batches) and its outputs element by element, so cs_current_bind binds each captured step through
 * ea_replay_bind_step to buffers the caller owns: bufs[i] is the device pointer of the capture's
 * input i, then of output i, in the capture's order. The plan is validated by cs_current_check first
 * (ea_replay_check; run buffers are refused: no position-id capture has them), which a plan calls without a
 * GPU. cs_current_enqueue is capturable. */
#ifndef CS_CURRENT_H
#define CS_CURRENT_H

#include "target/capture.h"
#include "base/error.h"
#include "target/replay.h"

typedef struct {
    ea_replay_launch *steps;
    int nsteps;
} cs_current;

int cs_current_check(const ea_capture *c, const ea_capture_run *r, ea_error *err);
int cs_current_bind(cs_current *cur, const ea_capture *c, const ea_capture_run *r, void *const bufs[], ea_error *err);
int cs_current_enqueue(const cs_current *cur, void *stream, ea_error *err);
void cs_current_free(cs_current *cur);

#endif
