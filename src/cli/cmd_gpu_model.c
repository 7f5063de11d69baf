/* cmd_gpu_model.c: `extern-audit gpu-model [NAME]`, the GPU model that names targets and baselines
 * (device.h's ea_gpu_model) of a device name, or of device 0 when no NAME is given. The one mapping:
 * ci/ scripts and tools/capture ask this command instead of keeping copies of it. Prints the model
 * alone (what a script captures), or with --json the name, the model and where the name came from.
 * Exit 2 on bad usage, no device to ask, or a name with no letter or digit to name a target by. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "gpu/device.h"

const char ea_usage_gpu_model[] =
    "usage: extern-audit gpu-model [NAME] [--json]\n"
    "  NAME    a CUDA device name as torch or nvidia-smi print it (\"NVIDIA H200\"); without it, device 0's\n"
    "          name as this program sees it\n"
    "  --json  print {\"name\", \"gpu_model\", \"source\"} instead of the model alone\n"
    "prints the GPU model that names golden/targets/<gpu model>-torch<version> (\"NVIDIA H200\" -> H200,\n"
    "\"NVIDIA GeForce RTX 4090\" -> GeForce-RTX-4090); exit 2 when there is no NAME and no usable device,\n"
    "or when NAME has no letter or digit\n";

int ea_cmd_gpu_model(int argc, char **argv)
{
    /* NAME aside, the options go to the shared parser (argv is ours to reorder, as getopt does) */
    const char *name = NULL;
    int nopts = 0;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-')
            argv[nopts++] = argv[i];
        else if (name)
            return ea_cli_usage_error("gpu-model", "expected one NAME, got a second, '%s'", argv[i]);
        else
            name = argv[i];
    }
    ea_cli_options o;
    int help, rc = ea_cli_parse("gpu-model", "--json", nopts, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_gpu_model, stdout), 0);
    ea_device_info dev;
    if (!name && !ea_device_probe(&dev)) {
        fprintf(stderr, "extern-audit gpu-model: no NAME given and no device to ask: %s\n", dev.reason);
        return 2;
    }
    if (!name)
        name = dev.name;
    char model[256];
    ea_gpu_model(name, model, sizeof model);
    if (!model[0]) {
        fprintf(stderr, "extern-audit gpu-model: '%s': expected a device name with a letter or digit after \"NVIDIA \"\n",
                name);
        return 2;
    }
    if (!o.json) {
        printf("%s\n", model);
        return 0;
    }
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", name);
    cJSON_AddStringToObject(j, "gpu_model", model);
    cJSON_AddStringToObject(j, "source", name == dev.name ? "device 0" : "argument");
    ea_cli_print_json(j);
    cJSON_Delete(j);
    return 0;
}
