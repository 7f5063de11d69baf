/* fuzz_classification.c: the golden classification validator (classify.c). */
#include "target/classify.h"
#include "fuzz.h"
#include "base/json.h"
#include "base/json_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ej_doc doc;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    if (ej_parse("c.json", text, &doc, &err) == 0) {
        fuzz_check_failure(ea_classification_validate("c.json", doc.root, &err), &err, "c.json");
        ej_free(&doc);
    }
    free(text);
    return 0;
}
