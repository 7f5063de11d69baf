/* classify.h: the class of every golden occurrence, from what Inductor actually generated.
 * Contract: ea_classify reads each occurrence's capture (the one whose "covers" lists its id) and
 * decides from the default run's evidence: an aten call of the op itself is a fallback (conditional
 * when a probe run of the scope lowers it, else true; a library extern when the op's ATen kernel is a vendor
 * library's, the FFT's cuFFT), a flop-counted op with extern kernels is a library extern, anything else is lowered (conditional when a probe run falls back). The
 * coordinate_descent run must reach the same class. No capture: "unclassified", or "not_captured" for an op
 * added to the audit set since (ea_audit_op.added) that no capture covers at all. The result is the
 * golden/targets/<target>/classification.json document (docs/reference/schema.md); inconsistent inputs
 * (two captures covering one id, a covered id that is no golden occurrence, captures from different
 * environments) fail with the file and JSON path named. */
#ifndef EA_CLASSIFY_H
#define EA_CLASSIFY_H

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "corpus/extract.h"
#include "base/json.h"
#include "corpus/oldrule.h"

#define EA_CLASSIFICATION_SCHEMA "extern-audit/classification"
#define EA_CLASSIFICATION_VERSION 1

typedef enum {
    EA_CLASS_LOWERED, EA_CLASS_CONDITIONAL_LOWERED, EA_CLASS_CONDITIONAL_FALLBACK,
    EA_CLASS_TRUE_FALLBACK, EA_CLASS_LIBRARY_EXTERN, EA_CLASS_UNCLASSIFIED,
    EA_CLASS_NOT_CAPTURED, /* an op marked added in ea_audit_ops that no capture of the target covers at all,
                            * while captures cover other ops: captured since (reported, not a gap) */
    EA_CLASS_NO_DEVICE_WORK, /* a view or host SymInt arithmetic: nothing runs on the GPU, captured or not */
    EA_CLASSES
} ea_class;

/* "lowered", "conditional_lowered", "conditional_fallback", "true_fallback", "library_extern",
 * "unclassified", "not_captured", "no_device_work", NULL. */
extern const char *const ea_class_names[EA_CLASSES + 1];

/* docs: the validated golden occurrence documents (ea_occurrences_load). *out: the document. */
int ea_classify(cJSON *const docs[EA_AUDIT_OPS], const ea_captures *caps, const ea_old_rule *rule, cJSON **out,
                ea_error *err);

/* What classify --update records for the occurrences no capture covers: each unclassified entry of doc
 * becomes not_captured with that reason, and the summary follows, so one capture missing does not keep
 * the others' classes from being written (nor a run from calling every point unclassified). Returns
 * how many it changed. */
int ea_classification_record_uncaptured(cJSON *doc);

/* The captures of the target in target_dir (target.h: inherited ones checked against their digests) agree with the
 * golden occurrences as ea_classify needs them to, without classifying: each covered id is a golden occurrence (a
 * covers naming a model the corpus has not fails), covered once, all captures of one environment. What audit and
 * rollup check of a target's captures. */
int ea_target_captures_check(const char *target_dir, cJSON *const docs[EA_AUDIT_OPS], ea_error *err);

/* A stored classification document, checked strictly against the schema; file names it in messages. */
/* The index in ea_audit_ops of op ("aten.cat.default"), -1 when it is not an audited op. */
int ea_classify_op_index(const char *op);
int ea_classification_validate(const char *file, const cJSON *doc, ea_error *err);

/* <target_dir>/classification.json, validated, into doc; absent (nothing at the path): 0 with doc->root NULL.
 * A file that is there but unreadable or invalid (a dangling link included): -1. */
int ea_classification_load(const char *target_dir, ej_doc *doc, ea_error *err);

#endif
