/* fuzz_replay.c: the golden replay file reader (replay_file.c). */
#include "fuzz.h"
#include "base/json.h"
#include "base/json_impl.h"
#include "target/replay_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ej_doc doc;
    ea_error err = {{0}};
    char *text = fuzz_text(data, size);
    if (ej_parse("r.json", text, &doc, &err) == 0) {
        fuzz_check_failure(ea_replay_file_validate("r.json", doc.root, &err), &err, "r.json");
        ej_free(&doc);
    }
    free(text);
    return 0;
}
