/* fuzz_old_rule.c: the old rule's data reader (oldrule.c). */
#include "fuzz.h"
#include "corpus/oldrule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_old_rule r;
    ea_error err = {{0}};
    const char *path = fuzz_file("old_rule.json", data, size);
    int rc = ea_old_rule_load(path, &r, &err);
    fuzz_check_failure(rc, &err, path);
    if (rc == 0)
        ea_old_rule_free(&r);
    return 0;
}
