/* index_add_points.h: synthetic index_add points shaped like golden/occurrences/index_add.json, for the
 * index_add suites: the same structures as the golden points at other sizes (scaled down for CPU tests,
 * other batches and windows), with value properties computed by values.c as the extractor does. */
#ifndef EA_TEST_INDEX_ADD_POINTS_H
#define EA_TEST_INDEX_ADD_POINTS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../repros/index_add/scope.h"

#define IAP_FILE "golden/occurrences/index_add.json"

/* index_add(zeros[n_out], 0, as_strided(iota(iota_len), size, stride, 0).flatten(), source[numel]). */
cJSON *iap_windows_point(int64_t n_out, int nd, const int64_t *size, const int64_t *stride);
/* Longformer A's structure: [batch, windows, 3*step, width] with stride step*width between windows. */
cJSON *iap_longformer_a(int64_t batch, int64_t windows, int64_t step, int64_t width);
/* Longformer B's: [batch, windows, 2*step, width], strides [width, step*batch*width, batch*width, 1]. */
cJSON *iap_longformer_b(int64_t batch, int64_t windows, int64_t step, int64_t width);
/* XLNet's structure placed anywhere: zeros[b, h, q, D] -> index_add(dim 3, start + iota(L), mul(x, scale)) with
 * x [b, h, q, L], start + L <= D. */
cJSON *iap_slice(int64_t b, int64_t h, int64_t q, int64_t D, int64_t L, int64_t start, double scale, int escapes);
/* XLNet's: iap_slice at D = 2L - 1, start 0. */
cJSON *iap_xlnet(int64_t b, int64_t h, int64_t q, int64_t L, double scale, int escapes);

/* pt with self the constant fill instead of zeros; returns pt. */
cJSON *iap_filled(cJSON *pt, double fill);

/* The golden document (asserts it loads); caller deletes. */
cJSON *iap_golden(void);
/* Parses point (index 0, first group) and plans it for 132 SMs; asserts both succeed. */
void iap_parse_plan(const cJSON *point, ia_scope *s, ia_plan *p);

#endif
