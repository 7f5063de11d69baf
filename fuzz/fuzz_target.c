/* fuzz_target.c: the golden target reader (target.c): target.json in a folder named as a target. */
#include "fuzz.h"
#include "target/target.h"
#include "target/target_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_target t;
    ea_error err = {{0}};
    const char *path = fuzz_file("H200-torch2.11.0+cu130/target.json", data, size);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    int rc = ea_target_load(dir, &t, &err);
    fuzz_check_failure(rc, &err, dir);
    return 0;
}
