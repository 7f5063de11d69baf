/* version.h: the program's version line and the schema versions of its documents (`extern-audit --version`).
 * Contract: ea_version_print writes "extern-audit VERSION (git COMMIT)" and one line of "extern-audit/<schema>
 * vN" to f; COMMIT is what the build passed as EA_GIT_COMMIT, "unknown" when it passed none. */
#ifndef EA_VERSION_H
#define EA_VERSION_H

#include <stdio.h>

#define EA_VERSION "0.1.0"

void ea_version_print(FILE *f);

#endif
