/* avgpool_backward.h: the aten._adaptive_avg_pool2d_backward scopes (AlexNet's 6x6 and VGG16's 7x7
 * AdaptiveAvgPool2d in training, both identity pools: the forward input already has the output size).
 * Contract:
 * - ap_scope_parse reads a golden point (grad, self, output: 4-d, contiguous, bf16, the grad's H x W equal
 *   to self's: an identity pool) or fails naming the file, the JSON path and what was expected.
 * - ap_config_json: the plan without a GPU: shapes, ATen's launches (torch 2.11's
 *   adaptive_avg_pool2d_backward_cuda, AdaptiveAveragePooling.cu: at::zeros_like, then for a contiguous
 *   input always atomic_adaptive_average_gradinput, grid (N*C, max(16 / C, 1)), block (32, 8)), the oracle
 *   (a copy of the grad) and the floor's bytes (the grad read once, the output written once).
 * - ap_reference: the fp64 backward of any adaptive average pool (each output gradient spread evenly
 *   over the input window ATen's START_IND / END_IND give it), host only.
 * - ap_measure: the current path (the fill and ATen's kernel replicated) and the oracle on the current GPU,
 *   each checked against the reference and bit for bit against the grad (an identity pool's backward
 *   is its grad): the result's "paths" and "passed" (kit.h's measure). */
#ifndef AP_AVGPOOL_BACKWARD_H
#define AP_AVGPOOL_BACKWARD_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "kernels.h"
#include "measure/kit.h"
#include "base/tensor.h"

#define AP_MAX_GROUPS 8

typedef struct {
    const char *point, *alias; /* alias: the family's (family.c), set by its caller */
    int64_t occurrences;
    const char *scope_ids[AP_MAX_GROUPS];
    int ngroups;
    ea_tensor grad, self, out;
    int64_t channels, planes, in_h, in_w, out_h, out_w; /* planes: N * C */
} ap_scope;

int ap_scope_parse(const cJSON *point, const char *file, int index, ap_scope *s, ea_error *err);
cJSON *ap_config_json(const ap_scope *s);
/* grad: planes x out_h x out_w values; out: planes x in_h x in_w. */
void ap_reference(const double *grad, int64_t planes, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                  double *out);
cJSON *ap_measure(const ap_scope *s, const ea_kit_state *st, ea_error *err);

#endif
