/* extract.h: every occurrence of the audit set in a corpus, with value properties and scope.
 * Contract: ea_extract parses each graph of the corpus, finds aten.cat.default with more than
 * cat_input_cap inputs, aten.cumsum.default, aten.histc.default and aten.index_add.default, and
 * groups occurrences whose op, argument signature, value properties and scope are identical into
 * points (each occurrence keeps its identity). A graph that does not parse is skipped and listed with
 * its message (skipped, and the summary's "graphs_skipped"); the other graphs are extracted (a backward
 * graph of a skipped forward then sees its saved tensors as plain inputs). Any other bad input (a
 * meta.json, a value that overruns its storage) fails the whole run: nothing is written. Output
 * documents are the golden/occurrences schema (docs/reference/schema.md). */
#ifndef EA_EXTRACT_H
#define EA_EXTRACT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "corpus/audit_ops.h"
#include "corpus/corpus.h"
#include "base/error.h"

#define EA_OCCURRENCES_SCHEMA "extern-audit/occurrences"
#define EA_OCCURRENCES_VERSION 1
/* extract --out's summary.json, versioned with the occurrence files */
#define EA_OCCURRENCE_SUMMARY_SCHEMA "extern-audit/occurrence-summary"

typedef struct {
    int cat_input_cap; /* is_fusible_node's max_pointwise_cat_inputs (8) */
    FILE *progress;    /* NULL for silence */
} ea_extract_opts;

typedef struct {
    cJSON *docs[EA_AUDIT_OPS]; /* one occurrences document per audit op */
    cJSON *summary;            /* occurrences_by_op, points_by_op, by_model (graphs_skipped when any was) */
    cJSON *skipped;            /* [{"graph": path, "error": message}]: the graphs that did not parse */
} ea_extraction;

int ea_extract(const ea_corpus *c, const ea_extract_opts *opts, ea_extraction *out, ea_error *err);
/* Writes <dir>/<short>.json for each op and <dir>/summary.json as one set (landing.h): built in
 * <parent>/.<dir name>.extract-<pid>, then swapped in with one rename under the lock of dir's parent (created
 * with its missing parents), so dir holds the old set or the new one whole; a second writer is refused while
 * one runs. A dir holding anything but the set (and older writers' debris) is refused, nothing written. */
int ea_extraction_write(const ea_extraction *x, const char *dir, ea_error *err);
/* Human table: occurrences and points by op, then by op/suite/mode/model. */
void ea_extraction_print(const ea_extraction *x, FILE *f);
void ea_extraction_free(ea_extraction *x);

#endif
