/* fuzz_baselines.c: the golden baselines reader (baseline_read.c, and baseline_derived.c's re-derivation). */
#include "measure/baseline_derived.h"
#include "fuzz.h"
#include "base/json.h"
#include "base/json_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ej_doc doc;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    if (ej_parse("b.json", text, &doc, &err) == 0) {
        fuzz_check_failure(ea_baseline_golden_validate("b.json", doc.root, &err), &err, "b.json");
        ej_free(&doc);
    }
    free(text);
    return 0;
}
