/* values_impl.h: test-only entry points of values.c.
 * - ea_as_strided_iota_stats: the index statistics of as_strided(iota(storage_len, start, step), size,
 *   stride, offset), row-major.
 * - ea_arg_json: one literal argument as JSON, as values.h describes arguments. */
#ifndef EA_VALUES_IMPL_H
#define EA_VALUES_IMPL_H

#include "corpus/values.h"

int ea_as_strided_iota_stats(int64_t storage_len, int64_t start, int64_t step, int ndim,
                             const int64_t *size, const int64_t *stride, int64_t offset,
                             const char *where, ea_index_stats *st, ea_error *err);
cJSON *ea_arg_json(const fx_arg *a, ea_node_json_fn node_fn, void *ctx);

#endif
