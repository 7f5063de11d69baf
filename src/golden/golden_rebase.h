/* golden_rebase.h: a candidate target's baselines taken again from its base's (extern-audit golden rebase).
 * Why: a candidate (target.json "lowering", installed beside its base with "captures_from") measured only the
 * points its lowering recaptured and kept every other entry from its base (run --keep-from). When the base is
 * measured again, the kept copies go on stating the old times under today's plans unless they follow.
 * Contract:
 * - ea_golden_rebase: the document <dir>/baselines.json is with the base as it is today: the base's document (its
 *   keys, run figures and launch floor, which its kept entries' fractions derive from) with, in place of the base's
 *   entries, the candidate's own for every point not each of whose scope groups has an inherited capture in the
 *   candidate (one recaptured under the lowering, or none: a point or group the base captured after the candidate
 *   was staged, which the candidate cannot plan, keeps the candidate's entries), in the base's order (the candidate's points the base
 *   lacks after); "passed" over every result; the command's base part (after EA_KEPT_FROM_MARK and the base's file:
 *   the base's command today, else up to the parenthesis that closes it) the base's command today, what follows it
 *   kept, so a second rebase reads back its own command.
 * - taken counts the result's entries ($.scopes[] and $.unmeasured[]) the file does not hold, dropped the file's
 *   the result does not (an entry that moved is one of each); first names the first of them (whose, its place,
 *   family, point and alias); same is 1 when the result prints as the file's bytes (0 with nothing taken or
 *   dropped: the header or the entries' order moved).
 * - Refused (err names the file and what was expected): a target without a lowering or "captures_from", a base
 *   that does not read, a command that does not say what it kept. */
#ifndef EA_GOLDEN_REBASE_H
#define EA_GOLDEN_REBASE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/extract.h"

typedef struct {
    cJSON *doc;       /* the rebased document (the caller deletes it) */
    char *text;       /* doc as baselines.json prints, with its final newline */
    int same;         /* text is the file's bytes */
    int taken;        /* entries of doc the file does not hold */
    int dropped;      /* entries of the file doc does not hold */
    char first[512];  /* the first of either, "" when none */
    char file[4200];  /* <dir>/baselines.json */
    char base[4400];  /* the base's folder */
} ea_rebase;

/* docs: the golden occurrences (ea_occurrences_load), which map the candidate's points to their captures. */
int ea_golden_rebase(cJSON *const docs[EA_AUDIT_OPS], const char *dir, ea_rebase *out, ea_error *err);
void ea_rebase_free(ea_rebase *r);

#endif
