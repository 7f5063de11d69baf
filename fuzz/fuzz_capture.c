/* fuzz_capture.c: the capture reader (capture.c, capture_run.c) on a capture.json. */
#include "target/capture.h"
#include "target/capture_impl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_capture c;
    ea_error err = {{0}};
    const char *path = fuzz_file("cumsum-824fbb15db5d-2cfdbbbf0541/capture.json", data, size);
    int rc = ea_capture_load(path, &c, &err);
    fuzz_check_failure(rc, &err, path);
    if (rc == 0)
        ea_capture_free(&c);
    return 0;
}
