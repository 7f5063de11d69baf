/* fuzz_meta.c: a graph's meta.json reader (meta.c). */
#include "fuzz.h"
#include "corpus/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ea_meta m;
    ea_error err = {{0}};
    const char *path = fuzz_file("full_graph_000.meta.json", data, size);
    fuzz_check_failure(ea_meta_load(path, &m, &err), &err, path);
    ea_meta_free(&m);
    return 0;
}
