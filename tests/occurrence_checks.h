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
 * - What is costly is computed once per run of the suite and shared by every test process through a
 *   cache folder ($EA_OCC_CACHE, made before the tests start), under a lock: the classification, the
 *   corpus extraction, each point's measurement. $EA_OCC_MEASURED may name a baselines document
 *   measured on this GPU in this CI run (ci/gpu-gate passes the gate's) to judge instead.
 * - After Criterion's synthesis, one line per check: "classification 190/190", "correctness 0/190
 *   (skipped: no CUDA device)". A failure names the occurrence id, its point, the golden file and JSON
 *   path, and what differed. */
#ifndef EA_OCCURRENCE_CHECKS_H
#define EA_OCCURRENCE_CHECKS_H

typedef struct {
    const char *id;    /* suite/mode/model/graph:node */
    int op;            /* index in ea_audit_ops */
    const char *point; /* its point id */
    int p, s, o;       /* $.points[p].scopes[s].occurrences[o] of golden/occurrences/<op>.json */
} occ_ref;

void occ_classification(const occ_ref *r);
void occ_correctness(const occ_ref *r);
void occ_timing(const occ_ref *r);

#endif
