/* cmds.h: the commands of extern-audit, one cmd_<name>.c each, as the dispatch table in cli.c sees them.
 * Contract: ea_cmd_<name>(argc, argv) takes the arguments after the command's name and returns the exit
 * status (cli.h: 0, 1 a difference found, 2 bad usage or input); ea_usage_<name> is its --help text. */
#ifndef EA_CMDS_H
#define EA_CMDS_H

/* extract, inventory and audit (cmd_extract.c, cmd_inventory.c, cmd_audit.c) and their usage text. */
int ea_cmd_extract(int argc, char **argv);
extern const char ea_usage_extract[];
int ea_cmd_inventory(int argc, char **argv);
extern const char ea_usage_inventory[];
int ea_cmd_audit(int argc, char **argv);
extern const char ea_usage_audit[];

/* extern-audit classify (cmd_classify.c) and its usage text. */
int ea_cmd_classify(int argc, char **argv);
extern const char ea_usage_classify[];

/* extern-audit replay (cmd_replay.c) and its usage text. */
int ea_cmd_replay(int argc, char **argv);
extern const char ea_usage_replay[];

/* extern-audit run (cmd_run.c) and its usage text. */
int ea_cmd_run(int argc, char **argv);
extern const char ea_usage_run[];

/* extern-audit gate (cmd_gate.c) and its usage text. */
int ea_cmd_gate(int argc, char **argv);
/* extern-audit gate merge (cmd_gate_merge.c): shard reports joined; ea_cmd_gate passes "merge ..." to it. */
int ea_cmd_gate_merge(int argc, char **argv);
extern const char ea_usage_gate[];
/* The gate report's markdown and JUnit XML where a FILE is named (ea_cli_write_output: "-" is stdout), the line
 * saying so to said. */
int ea_gate_cli_texts(const char *cmd, const cJSON *report, const char *markdown, const char *junit, FILE *said,
                      ea_error *err);

/* extern-audit rollup (cmd_rollup.c) and its usage text. */
int ea_cmd_rollup(int argc, char **argv);
extern const char ea_usage_rollup[];

/* extern-audit golden diff / accept (cmd_golden.c) and their usage text. */
int ea_cmd_golden(int argc, char **argv);
extern const char ea_usage_golden[];

/* extern-audit gpu-model (cmd_gpu_model.c) and its usage text. */
int ea_cmd_gpu_model(int argc, char **argv);
extern const char ea_usage_gpu_model[];

#endif
