#include "cli/cli.h"

int main(int argc, char **argv)
{
    return ea_main(argc, argv);
}
