/* device_lock_impl.h: test-only entry points of the device lock (device_lock.c).
 * - ea_device_lock_use_key(key): lock the file named key in the lock folder instead of the device's UUID, so
 *   that a machine without a GPU can test that two processes never hold one device at once.
 * - ea_device_share(err) / ea_device_unshare(): the shared lock a GPU test holds for its duration
 *   (tests/helpers.c test_skip_without_gpu), so that its untimed GPU work never runs beside a timed section.
 * - ea_device_lock_others(m, pid): the sections other processes took since m (0 when either mark is not
 *   valid), the last holder's pid in *pid when it is another process, else 0: ea_device_lock_note's count.
 * - ea_device_lock_namer(fn): where no label was set, a logged section is named by fn's text when it gives one
 *   (the suite: the running test, for GPU tests that time without saying who they are). */
#ifndef EA_DEVICE_LOCK_IMPL_H
#define EA_DEVICE_LOCK_IMPL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>

#include "gpu/device_lock.h"

void ea_device_lock_use_key(const char *key);
int ea_device_share(ea_error *err);
void ea_device_unshare(void);
uint64_t ea_device_lock_others(const ea_lock_mark *m, long *pid);
void ea_device_lock_namer(const char *(*fn)(void));

#ifdef __cplusplus
}
#endif

#endif
