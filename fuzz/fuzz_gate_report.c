/* fuzz_gate_report.c: gate --shard's JSON report read back by gate merge (gate_merge.c). The input holds up to
 * four reports separated by NUL bytes (a merge judges them together); the stored baselines are the committed
 * target's, so a report that names them by digest reaches the join. A failure must name a report. */
#include "fuzz.h"
#include "gate/gate_merge.h"

#define REPORTS 4
#define BASELINES "golden/targets/H200-torch2.11.0+cu130/baselines.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char names[REPORTS][1024];
    const char *files[REPORTS];
    int n = 0;
    for (size_t at = 0; n < REPORTS && at <= size; n++) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        char name[32];
        snprintf(name, sizeof name, "s%d.json", n + 1);
        snprintf(names[n], sizeof names[n], "%s", fuzz_file(name, data + at, len));
        files[n] = names[n];
        at += len + 1;
    }
    ea_gate_merged m;
    ea_error err = {{0}};
    int rc = ea_gate_merge(files, n, BASELINES, &m, &err);
    fuzz_check_failure(rc, &err, ".json");
    if (rc == 0)
        ea_gate_merged_free(&m);
    return 0;
}
