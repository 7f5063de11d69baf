/* cubin_impl.h: test-only entry points of cubin.c (the library loads cubins from files, once).
 * - ea_cubin_arch reads the SM version from a cubin's ELF header (both e_flags layouts: ABI 7 keeps it
 *   in the low byte, ABI 8, nvcc 13's, in bits 8-15). Host only; name is for messages.
 * - ea_cubin_runs_on: 1 when a cubin for sm_<cubin_sm> runs on a device of sm_<device_sm>, else 0.
 * - ea_cubin_load_data: ea_cubin_load_file on bytes in memory; ea_cubin_unload unloads the module,
 *   safe on a zeroed or already unloaded ea_cubin. */
#ifndef EA_CUBIN_IMPL_H
#define EA_CUBIN_IMPL_H

#include "gpu/cubin.h"

int ea_cubin_arch(const void *bytes, size_t len, const char *name, int *sm, ea_error *err);
int ea_cubin_runs_on(int cubin_sm, int device_sm);
int ea_cubin_load_data(ea_cubin *c, const void *bytes, size_t len, const char *name, ea_error *err);
void ea_cubin_unload(ea_cubin *c);

#endif
