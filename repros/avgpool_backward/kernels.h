/* kernels.h: the device side of the avgpool_backward family (kernels.cu), callable from C. Launchers
 * enqueue on stream and return a cudaError_t. */
#ifndef AP_KERNELS_H
#define AP_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* torch 2.11's atomic_adaptive_average_gradinput<c10::BFloat16> at ATen's launch (ap_aten_launch); grad_in
 * must hold zeros (ATen's zeros_like). grad_out: planes x out_h x out_w, grad_in: planes x in_h x in_w. */
int ap_aten_gradinput_bf16(uint16_t *grad_in, const uint16_t *grad_out, int64_t planes, int64_t channels,
                           int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, void *stream);
/* ATen's launch for it: grid (planes, max(16 / channels, 1), 1), block (32, 8, 1). */
void ap_aten_launch(int64_t planes, int64_t channels, int grid[3], int block[3]);

#ifdef __cplusplus
}
#endif

#endif
