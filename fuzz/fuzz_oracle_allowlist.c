/* fuzz_oracle_allowlist.c: the oracle rule's allowlist reader (oracle_rule.c), as <golden>/oracle_allowlist.json
 * in a golden folder with one target folder, so an entry's target may or may not be there. */
#include <cjson/cJSON.h>

#include "fuzz.h"
#include "report/oracle_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *entries = NULL;
    ea_error err = {{0}};
    char golden[512], target[600], file[4352];
    snprintf(golden, sizeof golden, "%s", fuzz_file(EA_ORACLE_ALLOWLIST, data, size));
    *strrchr(golden, '/') = '\0';
    snprintf(target, sizeof target, "%s/targets", golden);
    mkdir(target, 0700);
    snprintf(target, sizeof target, "%s/targets/H200-torch2.11.0+cu130", golden);
    mkdir(target, 0700);
    int rc = ea_oracle_allowlist_load(golden, &entries, file, sizeof file, &err);
    fuzz_check_failure(rc, &err, EA_ORACLE_ALLOWLIST);
    if ((rc == 0) != (entries != NULL))
        abort();
    cJSON_Delete(entries);
    return 0;
}
