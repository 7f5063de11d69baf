/* bandwidth.h: the device-to-device copy probe that the floors divide by.
 * Contract:
 * - ea_copy_bandwidth(bytes, cfg, out, err) copies `bytes` (0: 1 GiB; else a multiple of 16) between
 *   two fresh buffers with two 16-byte-vectorised kernels (a grid-stride loop over one block per
 *   resident slot; one chunk per thread) and with cudaMemcpyAsync, each timed by ea_time_graph (cfg as
 *   there; NULL: warm, automatic K). The kernel figure is the faster kernel's: floors divide by it.
 * - Bandwidth counts bytes read plus bytes written: 2 * bytes / median per-call time, bytes/s.
 * - The source holds a non-zero pattern and the destination is poisoned before each method; the copy
 *   is verified after timing (a mismatch is an error). Current device; out owns its timings:
 *   ea_bandwidth_free. */
#ifndef EA_BANDWIDTH_H
#define EA_BANDWIDTH_H

#include <stddef.h>

#include "base/error.h"
#include "gpu/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t bytes;              /* copied per call */
    int grid, block;           /* the faster copy kernel's launch */
    char kernel_name[64];      /* ... and its name */
    double kernel_bytes_per_s; /* read + written, from the faster kernel's median */
    double strided_bytes_per_s; /* the grid-stride kernel's, kept or not */
    double memcpy_bytes_per_s; /* the same from cudaMemcpyAsync's median */
    ea_timing kernel, memcpy;
} ea_bandwidth;

int ea_copy_bandwidth(size_t bytes, const ea_timer_config *cfg, ea_bandwidth *out, ea_error *err);
void ea_bandwidth_free(ea_bandwidth *b);

#ifdef __cplusplus
}
#endif

#endif
