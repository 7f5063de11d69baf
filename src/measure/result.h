/* result.h: what a baselines document (baseline.h) says about one scope, for whoever prices it (the rollup's
 * rows, a candidate lowering's stage).
 * Contract: ea_result_for returns the result a scope is priced from: one whose scope_ids hold it and whose
 * configuration is the capture's (not capture_comparable false), preferring one that passed; NULL when none.
 * ea_result_oracle_us is that result's fastest faithful oracle that passed, NaN when none did.
 * ea_result_order: r's place among the results of its family and point before it in results (a document's
 * "scopes"), how gate matches results and the oracle rule and the launch floor name one. */
#ifndef EA_RESULT_H
#define EA_RESULT_H

#include <cjson/cJSON.h>

const cJSON *ea_result_for(const cJSON *baselines, const char *scope);
double ea_result_oracle_us(const cJSON *result);
int ea_result_order(const cJSON *results, const cJSON *r);

#endif
