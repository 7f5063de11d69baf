/* device_lock_log.h: where a GPU's time went, from the lines device_lock.c appends to $EA_DEVICE_LOCK_LOG.
 * Contract:
 * - A line is "<kind>\t<pid>\t<waited s>\t<held s>\t<asked at, s since the epoch>\t<who>\n", kind "ex" (a timed
 *   section, written once it has ended and the device is free) or "sh" (a process's shared hold, written as it is
 *   granted; held 0: it ends with its process). Durations come from the monotonic clock. One line per section
 *   of any GPU of the machine (a sum over two GPUs can exceed the span); a section whose process died inside it
 *   (a test killed at its timeout) writes none. Each line is one write(2) of at most 512 bytes on an O_APPEND
 *   file, so processes never interleave within a line (on a local file system).
 * - ea_lock_log_append writes one (device_lock.c); device_lock_log_impl.h sums a file for the test suite's
 *   summary. */
#ifndef EA_DEVICE_LOCK_LOG_H
#define EA_DEVICE_LOCK_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

#define EA_LOCK_LOG_ENV "EA_DEVICE_LOCK_LOG"

void ea_lock_log_append(const char *file, const char *kind, double waited_s, double held_s, double start_s,
                        const char *who);

#ifdef __cplusplus
}
#endif

#endif
