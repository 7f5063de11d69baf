/* extern-audit gpu-model: the one mapping from a device name to the GPU model that names targets,
 * which ci/ and tools/capture ask instead of keeping copies; every failure path exits 2. */
#include <criterion/criterion.h>
#include <string.h>

#include "gpu/device.h"
#include "helpers.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static void expect(const char *name, const char *model)
{
    cli_run r = test_cli("gpu-model", name, NULL);
    cr_assert_eq(r.status, 0, "%s: %s", name, r.err);
    char want[300];
    snprintf(want, sizeof want, "%s\n", model);
    cr_assert_str_eq(r.out, want, "%s", name);
    cli_run_free(&r);
}

Test(gpu_model, names_as_the_targets_are_named)
{
    expect("NVIDIA H200", "H200");
    expect("NVIDIA GeForce RTX 4090 ", "GeForce-RTX-4090");
    expect("NVIDIA B200", "B200");
    expect("Tesla  V100-SXM2-16GB", "Tesla-V100-SXM2-16GB"); /* no NVIDIA prefix; runs of blanks once */
    expect("NVIDIA A100 (80GB) / PCIe", "A100-80GB-PCIe");
}

Test(gpu_model, json_and_option_order)
{
    cli_run r = test_cli("gpu-model", "--json", "NVIDIA H200", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "not JSON:\n%s", r.out);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "name")), "NVIDIA H200");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "gpu_model")), "H200");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "source")), "argument");
    cJSON_Delete(j);
    cli_run_free(&r);
    r = test_cli("gpu-model", "NVIDIA H200", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    has(r.out, "\"gpu_model\":\t\"H200\"");
    cli_run_free(&r);
}

/* gpu-model a b exits 2, nothing on stdout, want on stderr. */
static void refused(const char *a, const char *b, const char *want)
{
    cli_run r = test_cli("gpu-model", a, b, NULL);
    cr_assert_eq(r.status, 2, "'%s' '%s'", a, b ? b : "");
    cr_assert_str_eq(r.out, "");
    has(r.err, want);
    cli_run_free(&r);
}

Test(gpu_model, help_and_bad_usage)
{
    cli_run r = test_cli("gpu-model", "--help", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "usage: extern-audit gpu-model [NAME] [--json]");
    cli_run_free(&r);
    r = test_cli("help", "gpu-model", NULL);
    cr_assert_eq(r.status, 0);
    has(r.out, "--json");
    cli_run_free(&r);
    r = test_cli("--help", NULL);
    has(r.out, "gpu-model");
    cli_run_free(&r);
    refused("NVIDIA H200", "NVIDIA B200", "expected one NAME, got a second, 'NVIDIA B200'");
    refused("--golden=golden", "NVIDIA H200", "unknown option '--golden'");
    refused("--json=yes", "NVIDIA H200", "option '--json' takes no value");
    const char *nameless[] = {"", "NVIDIA ", "  (!)  "};
    for (size_t i = 0; i < sizeof nameless / sizeof nameless[0]; i++)
        refused(nameless[i], NULL, "expected a device name with a letter or digit");
}

/* Without NAME: device 0 as this program sees it, or exit 2 saying why there is none. */
Test(gpu_model, this_machine)
{
    ea_device_info dev;
    int present = ea_device_probe(&dev);
    cli_run r = test_cli("gpu-model", "--json", NULL);
    if (!present) {
        cr_assert_eq(r.status, 2);
        has(r.err, "no NAME given and no device to ask: ");
        has(r.err, dev.reason);
        cli_run_free(&r);
        return;
    }
    cr_assert_eq(r.status, 0, "%s", r.err);
    char model[256];
    ea_gpu_model(dev.name, model, sizeof model);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "not JSON:\n%s", r.out);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "gpu_model")), model);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "name")), dev.name);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "source")), "device 0");
    cJSON_Delete(j);
    cli_run_free(&r);
}
