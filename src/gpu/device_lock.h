/* device_lock.h: timed work never shares a GPU, whoever runs it (a test, run, gate, two make tests).
 * Contract:
 * - ea_device_lock(err) takes the exclusive lock (flock) on a file named by this process's device 0 (its
 *   UUID, so CUDA_VISIBLE_DEVICES picks the GPU) in the lock folder ($EA_LOCK_DIR, else
 *   /tmp/extern-audit-locks), waiting while another process holds it exclusive or shared. Calls nest within a
 *   process: the lock goes with the last matching ea_device_unlock. -1 with err naming the file when it cannot
 *   be made or locked; no device is not an error (nothing to share; the work fails later with its own message).
 * - The shared lock (device_lock_impl.h: GPU tests hold it for their untimed kernels and checks): sharers run
 *   beside each other, never beside a timed section. A sharer that times moves to the exclusive lock and back;
 *   a waiting timer keeps new sharers out, so it is not starved.
 * - Every acquisition adds one to a counter in the file and writes the holder's pid beside it:
 *   ea_device_lock_mark reads it, and ea_device_lock_note says how many sections other
 *   processes took between a mark and now, so a failed timing judgement can say whether the device was shared
 *   meanwhile. A process that does not take the lock (torch, another tool) is not seen.
 * - Exclusive around each timed section (the timer), each measured path and each whole measurement (run, gate
 *   --run); shared by GPU tests for their duration; never taken by CPU-only work. A process that forks while holding it
 *   shares it with the child (flock's rule): fork from an unlocked process.
 * - Where the device's time goes: when $EA_DEVICE_LOCK_LOG names a file, every exclusive section appends one
 *   line to it as it ends and every shared hold one as it is granted (device_lock_log.h reads them), named by
 *   ea_device_lock_label's text, else the test suite's namer's (device_lock_impl.h), else the program's name. make test's runner
 *   sets it. */
#ifndef EA_DEVICE_LOCK_H
#define EA_DEVICE_LOCK_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EA_LOCK_DIR_ENV "EA_LOCK_DIR"
#define EA_LOCK_DIR_DEFAULT "/tmp/extern-audit-locks"

typedef struct {
    uint64_t sections; /* the file's counter when marked */
    uint64_t own;      /* of them, this process's */
    int valid;         /* 0: no lock file could be read (no device, or never locked) */
} ea_lock_mark;

int ea_device_lock(ea_error *err);
void ea_device_unlock(void);
void ea_device_lock_mark(ea_lock_mark *m);
/* One sentence for a timing judgement's message: whether another process took the lock since m, between the
 * sections of this process (never during one), or not at all; "" without a lock file. */
void ea_device_lock_note(const ea_lock_mark *m, char *buf, size_t n);
/* Names this process's sections in $EA_DEVICE_LOCK_LOG ("gate_gpu::fresh_run_is_same", "occurrence
 * measurement"); tabs and newlines become spaces. */
void ea_device_lock_label(const char *who);

#ifdef __cplusplus
}
#endif

#endif
