/* rollup_corpus.h: the corpus's own accounting of a model, the pipeline's "before" figure:
 * <corpus>/benchmarks/model_accounting/b200/<suite>/<mode>/<model>.json (better-benchmark, schema 2).
 * Contract: ea_corpus_accounting reads the fields the rollup uses, strictly: the top level and "model"
 * may hold only the keys better-benchmark writes, schema_version must be 2, identity must equal
 * "<suite>/<mode>/<model>", extern_total_us a non-negative number, the occurrence counts non-negative
 * integers; anything else fails naming the file and JSON path. An absent file is no error: found 0
 * (the rollup says the model has no corpus accounting). */
#ifndef EA_ROLLUP_CORPUS_H
#define EA_ROLLUP_CORPUS_H

#include <stdint.h>

#include "base/error.h"

#define EA_ACCOUNTING_DIR "benchmarks/model_accounting/b200"

typedef struct {
    int found;
    char file[4096];
    char hardware[128], torch[128];
    double extern_total_us;
    int64_t extern_occurrences, unpriced_extern_occurrences;
} ea_model_accounting;

int ea_corpus_accounting(const char *corpus, const char *suite, const char *mode, const char *model,
                         ea_model_accounting *a, ea_error *err);

#endif
