/* cli.c: extern-audit's command table and top-level usage; each command lives in its cmd_<name>.c
 * (cmds.h), the option parsing they share in cli_options.c (cli.h). */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "cli/cmds.h"
#include "cli/version.h"

static const char usage_main[] =
    "usage: extern-audit <command> [options]\n"
    "\n"
    "Audits what TorchInductor's model-attribution pipeline files under \"extern\".\n"
    "\n"
    "commands:\n"
    "  extract     find every audited occurrence in a better-benchmark corpus\n"
    "  inventory   every node the old rule (is_fusible_node) calls non-fusible, cross-checked with meta.json\n"
    "  audit       the committed golden occurrences, and what still needs a GPU\n"
    "  classify    each occurrence's class from the captured compile behaviour, checked against the golden file\n"
    "  replay      run each captured Inductor partition from C: outputs checked, time against torch's\n"
    "  run         repro scopes on a GPU: fabricated / faithful current / oracle / floor, checked and timed\n"
    "  gate        baselines against baselines or a fresh run: SAME, SLOWER, FASTER, NOISY per path\n"
    "  rollup      before and after accounting per model and per op, from the committed data\n"
    "  golden      diff a staged target against a golden one; accept a complete stage into golden/targets;\n"
    "              price a candidate lowering's stage\n"
    "  gpu-model   the GPU model that names targets, of a device name or of this machine's GPU\n"
    "  help CMD    options of one command (help help: this page)\n"
    "\n"
    "options: --opt VALUE and --opt=VALUE alike; a FILE of - is standard output; --version prints the\n"
    "version, the git commit built and the schema versions\n"
    "exit status: 0 ok, 1 a check found a difference, 2 bad usage or bad input\n";

int ea_main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
        const char *usage;
    } cmds[] = {
        {"extract", ea_cmd_extract, ea_usage_extract},
        {"inventory", ea_cmd_inventory, ea_usage_inventory},
        {"audit", ea_cmd_audit, ea_usage_audit},
        {"classify", ea_cmd_classify, ea_usage_classify},
        {"replay", ea_cmd_replay, ea_usage_replay},
        {"run", ea_cmd_run, ea_usage_run},
        {"gate", ea_cmd_gate, ea_usage_gate},
        {"rollup", ea_cmd_rollup, ea_usage_rollup},
        {"golden", ea_cmd_golden, ea_usage_golden},
        {"gpu-model", ea_cmd_gpu_model, ea_usage_gpu_model},
    };
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version")) {
        ea_version_print(stdout);
        return 0;
    }
    if (argc > 2 && !strcmp(cmd, "help") && !strcmp(argv[2], "help"))
        return fputs(usage_main, stdout), 0;
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        for (size_t i = 0; argc > 2 && i < sizeof cmds / sizeof cmds[0]; i++)
            if (!strcmp(argv[2], cmds[i].name))
                return fputs(cmds[i].usage, stdout), 0;
        if (argc > 2)
            fprintf(stderr, "extern-audit help: unknown command '%s'\n", argv[2]);
        fputs(usage_main, argc > 2 ? stderr : stdout);
        return argc > 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].run(argc - 2, argv + 2);
    fprintf(stderr, "extern-audit: unknown command '%s'\n%s", cmd, usage_main);
    return 2;
}
