/* cli.h: the extern-audit command line, as a library entry so the test suite drives it in-process.
 * Contract: ea_main returns the process exit status: 0 success, 1 a check found a difference
 * (inventory mismatches, golden out of date), 2 bad usage or bad input (the message names the file
 * and the line or JSON path). Results go to stdout, errors and progress to stderr. */
#ifndef EA_CLI_H
#define EA_CLI_H

#include <cjson/cJSON.h>

#include "error.h"

int ea_main(int argc, char **argv);

/* The options every command draws from; ea_cli_parse accepts only those named in allowed
 * ("--golden --json --update"), fills the defaults, and returns 0, or 2 after a usage message;
 * *help is set for --help. */
typedef struct {
    const char *corpus, *out, *check, *rule, *golden, *scope, *record, *mode;
    int json, quiet, cat_cap, update, plan;
    int check_only; /* run --check-only */
    const char *target; /* --target NAME: golden/targets/NAME (target.h) */
} ea_cli_options;
int ea_cli_parse(const char *cmd, const char *allowed, int argc, char **argv, ea_cli_options *o, int *help);
/* "extern-audit: <message>" on stderr; returns 2 (bad input). */
int ea_cli_fail(const ea_error *err);
/* A JSON document, formatted, on stdout. */
void ea_cli_print_json(const cJSON *j);
/* "extern-audit <cmd>: <fmt with arg> (see extern-audit help <cmd>)" on stderr; returns 2. */
int ea_cli_usage_error(const char *cmd, const char *fmt, const char *arg);

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
extern const char ea_usage_gate[];

/* extern-audit rollup (cmd_rollup.c) and its usage text. */
int ea_cmd_rollup(int argc, char **argv);
extern const char ea_usage_rollup[];

/* extern-audit golden diff / accept (cmd_golden.c) and their usage text. */
int ea_cmd_golden(int argc, char **argv);
extern const char ea_usage_golden[];

#endif
