/* device_impl.h: test-only entry point of the device module (selftest.cu).
 * ea_device_selftest(err) runs one kernel on the current device (0 unless the caller chose another)
 * and one driver call resolved through ea_driver_entry; returns 0, or -1 with err->msg. */
#ifndef EA_DEVICE_IMPL_H
#define EA_DEVICE_IMPL_H

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

int ea_device_selftest(ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
