/* fuzz_sanitize.c: the golden sanitize record reader (sanitize_record.c), validate then show. */
#include "fuzz.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "target/sanitize_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ej_doc doc;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    if (ej_parse("s.json", text, &doc, &err) == 0) {
        int rc = ea_sanitize_validate("s.json", doc.root, &err);
        fuzz_check_failure(rc, &err, "s.json");
        if (rc == 0) { /* what validates must print without a crash: show reads it leniently */
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                ea_sanitize_show("s.json", doc.root, f);
                fclose(f);
            }
        }
        ej_free(&doc);
    }
    free(text);
    return 0;
}
