/* fuzz_torch_ops.c: the golden torch op-timing reader (torch_ops.c). */
#include "fuzz.h"
#include "target/torch_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_torch_ops t;
    ea_error err = {{0}};
    const char *path = fuzz_file("H200.json", data, size);
    int rc = ea_torch_ops_load(path, "H200", &t, &err);
    fuzz_check_failure(rc, &err, path);
    ea_torch_ops_free(&t);
    return 0;
}
