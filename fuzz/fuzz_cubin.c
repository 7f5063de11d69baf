/* fuzz_cubin.c: the cubin header check (cubin.c) that runs before any driver call. */
#include "gpu/cubin.h"
#include "gpu/cubin_impl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sm = 0;
    ea_error err = {{0}};
    fuzz_check_failure(ea_cubin_arch(data, size, "k.cubin", &sm, &err), &err, "k.cubin");
    return 0;
}
