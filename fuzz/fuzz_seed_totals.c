/* fuzz_seed_totals.c: the rollup's seed totals reader (seed_totals.c), the one rollup input without a harness. */
#include "fuzz.h"
#include "report/seed_totals.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_seed_totals s;
    ea_error err = {{0}};
    const char *path = fuzz_file("seed_totals.json", data, size);
    int rc = ea_seed_totals_load(path, &s, &err);
    fuzz_check_failure(rc, &err, path);
    if (rc == 0)
        ea_seed_totals_free(&s);
    return 0;
}
