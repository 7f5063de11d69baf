/* occurrence_checks.h: the three checks of one golden occurrence, called by the generated tests
 * (tools/gen_occurrence_tests.c writes $(BUILD)/gen/occurrence_tests.c from golden/occurrences).
 * Contract:
 * - occ_classification: the class recomputed from golden/targets/H200-torch2.11.0+cu130/captures (ea_classify_golden) equals the
 *   occurrence's entry in golden/targets/H200-torch2.11.0+cu130/classification.json (the old rule's verdict stated beside it); with
 *   the corpus unpacked (test_corpus), the occurrence re-extracted from its graph has the golden
 *   point's signature (shapes, dtypes, strides, value properties), scope and identity.
 * - occ_correctness: on a GPU, every result of the occurrence's point passed its checks (current path
 *   and oracles against the reference, the families' rules).
 * - occ_timing: on a GPU, the point's fresh paths are SAME as the target's baselines.json under
 *   the drift rule (gate.h). No file for this GPU model: a skip saying so; a point the file neither
 *   measured nor lists as unmeasured: a failure.
 * - Without a GPU correctness and timing skip with "no CUDA device: <reason>".
 * - What is costly is computed once and shared by every test process (occurrence_cache.h): the
 *   classification and the corpus extraction while nothing they depend on changes, the documents a
 *   classification check compares cut into one small slice per occurrence (so a check parses its own part,
 *   not the 135 KB and 735 KB documents), and one measurement of every selected point per run, made before
 *   the tests start. A timing failure says whether another process took the device's lock meanwhile.
 * - occ_extraction: the folder of that one extraction of corpus (<op>.json and summary.json, as extract --out
 *   writes them; made with golden/occurrences/cat.json's cat_input_cap), for the corpus tests too; who names
 *   the caller in a failure.
 * - A failure names the occurrence id, its point, the golden file and JSON path, and what differed; the
 *   suite's summary (suite_report.c) counts each check. */
#ifndef EA_OCCURRENCE_CHECKS_H
#define EA_OCCURRENCE_CHECKS_H

#include <stddef.h>

typedef struct {
    const char *id;    /* suite/mode/model/graph:node */
    int op;            /* index in ea_audit_ops */
    const char *point; /* its point id */
    int p, s, o;       /* $.points[p].scopes[s].occurrences[o] of golden/occurrences/<op>.json */
} occ_ref;

/* The generated table: each occurrence's test name and reference, NULL-terminated. */
typedef struct {
    const char *name;
    occ_ref ref;
} occ_test;
extern const occ_test occ_tests[];

void occ_classification(const occ_ref *r);
void occ_correctness(const occ_ref *r);
void occ_timing(const occ_ref *r);
void occ_extraction(const char *corpus, const char *who, char *dir, size_t n);

#endif
