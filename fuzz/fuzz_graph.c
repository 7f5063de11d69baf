/* fuzz_graph.c: the FX graph-dump reader (fxgraph*.c, tensor annotations included) on arbitrary text. */
#include "fuzz.h"
#include "corpus/fxgraph.h"
#include "corpus/fxgraph_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fx_graph g;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    int rc = fx_graph_parse_text("g.py", text, size, &g, &err);
    fuzz_check_failure(rc, &err, "g.py");
    if (rc == 0)
        fx_graph_free(&g);
    free(text);
    return 0;
}
