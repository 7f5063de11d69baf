/* cli.h: the extern-audit command line, as a library entry so the test suite drives it in-process.
 * Contract: ea_main returns the process exit status: 0 success, 1 a check found a difference
 * (inventory mismatches, golden out of date), 2 bad usage or bad input (the message names the file
 * and the line or JSON path). Results go to stdout, errors and progress to stderr.
 * ea_main (cli.c) dispatches to the commands (cmds.h); the option parsing and messages below
 * (cli_options.c) are what every cmd_*.c shares, so no command depends on the dispatch table. */
#ifndef EA_CLI_H
#define EA_CLI_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/error.h"

int ea_main(int argc, char **argv);

#define EA_CLI_DEFAULT_CORPUS "build/corpus/better-benchmark"
#define EA_CLI_DEFAULT_GOLDEN "golden"

/* The options every command draws from; ea_cli_parse accepts only those named in allowed
 * ("--golden --json --update"; "ARGS": up to two operands, in args; "--check!": --check as a flag, in
 * check_flag), as --opt VALUE or --opt=VALUE (an empty value refused), fills the defaults, and returns 0,
 * or 2 after a usage message (a --golden given that is not a folder too, named as given); *help is set for
 * --help. */
typedef struct {
    const char *corpus, *out, *check, *rule, *golden, *scope, *record, *mode;
    int json, quiet, cat_cap, update, plan;
    int check_only; /* run --check-only */
    int any_gpu;    /* run --any-gpu */
    const char *target; /* --target NAME: golden/targets/NAME (target.h) */
    const char *keep_from; /* run, replay --keep-from FILE (keep_from.h) */
    const char *baseline, *against, *propose, *markdown, *save, *margin, *retries; /* gate (margin, retries: */
    int run, cold;                                                                  /* as given, it checks) */
    const char *shard, *shard_plan, *junit; /* gate --shard I/N, --shard-plan LIST (shard.h), --junit FILE */
    const char *html, *v3; /* rollup */
    int check_flag;        /* rollup --check */
    int corpus_given;      /* --corpus on the command line, not the default: its absence is an error */
    int golden_given;      /* --golden on the command line: refused at once when it is not a folder */
    const char *args[2]; /* operands (golden diff OLD NEW) */
    int nargs;
} ea_cli_options;
int ea_cli_parse(const char *cmd, const char *allowed, int argc, char **argv, ea_cli_options *o, int *help);
/* "extern-audit: <message>" on stderr; returns 2 (bad input). */
int ea_cli_fail(const ea_error *err);
/* text written to file as cmd's what ("markdown"): "-" is stdout, which then carries it alone; else the
 * file lands whole (temp file + rename) and one line on said says so (stdout, or stderr when stdout carries
 * another output). -1 with err naming the file. */
int ea_cli_write_output(const char *cmd, const char *what, const char *file, const char *text, FILE *said,
                        ea_error *err);
/* Standard output carries one thing: json (--json) or the one FILE of files[0..n) that is "-". Returns 0,
 * *taken set when a FILE is "-" (the command then prints nothing else there), or 2 after a usage message when
 * two would share it. */
int ea_cli_stdout_once(const char *cmd, int json, const char *const *files, int n, int *taken);
/* A JSON document, formatted, on stdout. */
void ea_cli_print_json(const cJSON *j);
/* "extern-audit <cmd>: <fmt with arg> (see extern-audit help <cmd>)" on stderr; returns 2. */
int ea_cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* each(name, len, ctx) for every name of a comma-separated value ("a,b,c": --scope) in order, name[0..len):
 * an empty one where a comma starts or ends the list or meets another (each command words its refusal), none
 * for "". Returns the first nonzero that each returns (the walk stops there), else 0. */
int ea_cli_each_name(const char *list, int (*each)(const char *name, size_t len, void *ctx), void *ctx);

#endif
