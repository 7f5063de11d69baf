/* cli.h: the extern-audit command line, as a library entry so the test suite drives it in-process.
 * Contract: ea_main returns the process exit status: 0 success, 1 a check found a difference
 * (inventory mismatches, golden out of date), 2 bad usage or bad input (the message names the file
 * and the line or JSON path). Results go to stdout, errors and progress to stderr. */
#ifndef EA_CLI_H
#define EA_CLI_H

int ea_main(int argc, char **argv);

#endif
