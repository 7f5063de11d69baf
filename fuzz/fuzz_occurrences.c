/* fuzz_occurrences.c: the golden occurrences validator (occurrences.c), against each audited op, and
 * the summary built from a document it accepted. */
#include "corpus/extract.h"
#include "fuzz.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "corpus/occurrences.h"
#include "corpus/occurrences_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ej_doc doc;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    if (ej_parse("o.json", text, &doc, &err) == 0) {
        for (int i = 0; i < EA_AUDIT_OPS; i++) {
            int rc = ea_occurrences_validate("o.json", doc.root, ea_audit_ops[i].target, &err);
            fuzz_check_failure(rc, &err, "o.json");
            if (rc == 0) {
                cJSON *docs[EA_AUDIT_OPS] = {0};
                docs[i] = doc.root;
                cJSON_Delete(ea_occurrences_summary(docs));
            }
        }
        ej_free(&doc);
    }
    free(text);
    return 0;
}
