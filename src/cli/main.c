#include <string.h>

#include "cli/cli.h"
#include "gpu/device_lock.h"

/* The device lock's log names this process by its command, its flags and the scope it measures, never a path
 * (a temporary folder differs every run, and the log is compared across runs). Here, not in ea_main: a test
 * that calls ea_main in its own process keeps the test's name. */
static void lock_label(int argc, char **argv)
{
    char who[128];
    size_t n = (size_t)snprintf(who, sizeof who, "extern-audit%s%s", argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
    for (int a = 2; a < argc && n < sizeof who; a++) {
        int scope = !strcmp(argv[a - 1], "--scope");
        if (argv[a][0] == '-' || scope)
            n += (size_t)snprintf(who + n, sizeof who - n, " %s", argv[a]);
    }
    ea_device_lock_label(who);
}

int main(int argc, char **argv)
{
    lock_label(argc, argv);
    return ea_main(argc, argv);
}
