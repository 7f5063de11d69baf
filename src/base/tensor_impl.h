/* tensor_impl.h: test-only entry point of tensor.c.
 * ea_tensor_check_storage refuses a view that reaches past storage_numel elements:
 * "<where>: stride overruns storage ...". */
#ifndef EA_TENSOR_IMPL_H
#define EA_TENSOR_IMPL_H

#include "base/tensor.h"

int ea_tensor_check_storage(const ea_tensor *t, int64_t storage_numel, const char *where, ea_error *err);

#endif
