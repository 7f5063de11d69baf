/* device_lock_log_impl.h: the device lock's log summed, for the test suite's summary (tests/suite_report.c).
 * ea_lock_log_read: the timed sections' count and seconds, the span from the first ask to the last end, the
 * seconds holders waited, and the EA_LOCK_LOG_TOP labels that held it longest. A malformed line is counted in
 * bad (its number in first_bad) and skipped; -1 with err naming the file only when it cannot be read. */
#ifndef EA_DEVICE_LOCK_LOG_IMPL_H
#define EA_DEVICE_LOCK_LOG_IMPL_H

#include "base/error.h"
#include "gpu/device_lock_log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EA_LOCK_LOG_TOP 3

typedef struct {
    char who[128];
    double held_s;
    int sections;
} ea_lock_holder;

typedef struct {
    int sections, shares, bad, first_bad;
    double held_s, waited_s, span_s;
    int top_n;
    ea_lock_holder top[EA_LOCK_LOG_TOP];
} ea_lock_use;

int ea_lock_log_read(const char *file, ea_lock_use *use, ea_error *err);

#ifdef __cplusplus
}
#endif

#endif
