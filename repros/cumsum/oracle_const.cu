/* oracle_const.cu: OPT's positions from its attention mask of ones: the f32 scan of a constant row is
 * (j + 1) * fill, exact while every partial sum is an integer below 2^24 (scope.c refuses others),
 * so one pointwise kernel writes the scope's output (CPU reference: reference.c, const_reference,
 * which sums sequentially). Its launch variants (kernels.h) differ only in which thread writes what. */
#include <math.h>

#include <cuda_runtime.h>

#include "kernels_impl.h"

/* Column j's value. I32: every value lies within +-2^30 (cs_const_i32), so f32 -> i32 -> i64 gives the f32 -> i64
 * conversion's bits with the 32-bit instruction, as Inductor's kernel converts (F2I.S64 is a longer operation
 * on sm_90). */
template <bool I32>
__device__ __forceinline__ int64_t const_value(int j, float fill, float sub, int64_t add)
{
    const float x = (float)(j + 1) * fill - sub;
    return (I32 ? (int64_t)(int)x : (int64_t)x) + add;
}

/* One kernel, its launch variants as template arguments (kernels.h).
 * "col" (FLAT false): a thread per column computes its value once and writes it down the rows (grid.y strides
 * them), so no thread divides. The first version, a thread per element taking i % cols in 64 bits, measured
 * 1.14 us on an H200 against Inductor's 0.96 for OPT's 4 x 2048; this one 1.04 (the H200 baselines of 09eddec).
 * "flat", "flat-64", "flat-pair" (FLAT true): a thread per UNROLL consecutive elements of the flattened output
 * with 32-bit indices (n at most 2^31 - 1025, so no index overflows), the shape of Inductor's pointwise kernel;
 * UNROLL 2 stores both in one 16-byte access (cols even, so a pair never straddles rows).
 * "flat-w", "flat-pair-w" (LOG2W > 0): the row's width 2^LOG2W compiled in and a grid that covers the output
 * exactly, so no bound is loaded or checked and the column is a mask, as Inductor compiles its kernel for one
 * shape: on the H200 flat ran 28 instructions a warp to Triton's 20 (ncu) and 1.066 us to its 0.971.
 * THREADS, the block, is compiled in too, as Triton's: blockDim lives in another line of the constant bank than
 * the parameters, a second constant-cache miss in a kernel that runs for about half a microsecond. */
template <bool I32, bool FLAT, int UNROLL, int LOG2W, int THREADS>
__global__ void __launch_bounds__(THREADS)
cs_const_kernel(int64_t *__restrict__ out, int64_t rows, int cols, float fill, float sub, int64_t add)
{
    if (!FLAT) {
        const int j = blockIdx.x * THREADS + threadIdx.x;
        if (j >= cols)
            return;
        const int64_t v = const_value<I32>(j, fill, sub, add);
        for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
            out[r * cols + j] = v;
        return;
    }
    const int i = (blockIdx.x * THREADS + threadIdx.x) * UNROLL;
    int j;
    if (LOG2W) {
        j = i & ((1 << LOG2W) - 1);
    } else {
        if (i >= (int)rows * cols)
            return;
        j = cols & (cols - 1) ? i % cols : i & (cols - 1); /* a division only where cols is no power of two */
    }
    if (UNROLL == 2)
        reinterpret_cast<longlong2 *>(out)[i / 2] =
            make_longlong2(const_value<I32>(j, fill, sub, add), const_value<I32>(j + 1, fill, sub, add));
    else
        out[i] = const_value<I32>(j, fill, sub, add);
}

extern "C" int cs_const_i32(int64_t cols, double fill, double sub)
{
    return fill >= 0 && fill * (double)cols + fabs(sub) < CS_CONST_I32_BOUND;
}

/* The widths compiled into "flat-w" and "flat-pair-w": 2^7 .. 2^11, as the mask scan's compiled rows. */
#define CS_CONST_LOG2W_MIN 7
#define CS_CONST_LOG2W_MAX 11

static int log2_width(int64_t cols)
{
    for (int b = CS_CONST_LOG2W_MIN; b <= CS_CONST_LOG2W_MAX; b++)
        if (cols == (int64_t)1 << b)
            return b;
    return 0;
}

extern "C" int cs_const_variant(int v, int64_t rows, int64_t cols, cs_const_shape *sh)
{
    static const cs_const_shape shapes[CS_CONST_VARIANTS] = {
        {"col", CS_CONST_THREADS, 1, 0, 0},      {"flat", 128, 1, 1, 0},         {"flat-64", 64, 1, 1, 0},
        {"flat-pair", 128, 2, 1, 0},             {"flat-w", 128, 1, 1, 1},       {"flat-pair-w", 128, 2, 1, 1}};
    if (v < 0 || v >= CS_CONST_VARIANTS || rows < 1 || cols < 1 || cols > INT32_MAX - CS_CONST_THREADS)
        return 0;
    const cs_const_shape *s = &shapes[v];
    if (s->flat && (rows > (INT32_MAX - 1024) / cols || (s->unroll == 2 && cols % 2)))
        return 0;
    if (s->fixed && (!log2_width(cols) || rows * cols % (s->threads * s->unroll)))
        return 0;
    *sh = *s;
    return 1;
}

extern "C" void cs_const_grid(const cs_const_shape *sh, int64_t rows, int64_t cols, int64_t grid[2])
{
    const int64_t per_cta = (int64_t)sh->threads * sh->unroll;
    grid[0] = sh->flat ? (rows * cols + per_cta - 1) / per_cta : (cols + per_cta - 1) / per_cta;
    grid[1] = sh->flat ? 1 : rows < CS_CONST_MAX_ROWS ? rows : CS_CONST_MAX_ROWS;
}

/* A flat kernel of THREADS a CTA at the width compiled in (log2w), or at none (0). */
template <bool I32, int UNROLL, int THREADS>
static void launch_width(int log2w, dim3 grid, cudaStream_t stream, int64_t *out, int64_t rows, int64_t cols,
                         float fill, float sub, int64_t add)
{
    switch (log2w) {
#define WIDTH(b)                                                                                                       \
    case b:                                                                                                            \
        cs_const_kernel<I32, true, UNROLL, b, THREADS><<<grid, THREADS, 0, stream>>>(out, rows, (int)cols, fill, sub, \
                                                                                    add);                              \
        return;
        WIDTH(7) WIDTH(8) WIDTH(9) WIDTH(10) WIDTH(11)
#undef WIDTH
    default:
        cs_const_kernel<I32, true, UNROLL, 0, THREADS><<<grid, THREADS, 0, stream>>>(out, rows, (int)cols, fill, sub,
                                                                                    add);
    }
}

/* The kernel instantiated for sh's block and unroll; a shape none is instantiated for (its grid would not match
 * the block compiled in): cudaErrorInvalidValue, nothing launched. */
template <bool I32>
static int launch(const cs_const_shape *sh, int64_t rows, int64_t cols, float fill, float sub, int64_t add,
                  int64_t *out, cudaStream_t stream)
{
    int64_t g[2];
    cs_const_grid(sh, rows, cols, g);
    const dim3 grid((unsigned)g[0], (unsigned)g[1]);
    const int w = sh->fixed ? log2_width(cols) : 0, t = sh->threads, u = sh->unroll;
    if (!sh->flat && t == CS_CONST_THREADS && u == 1)
        cs_const_kernel<I32, false, 1, 0, CS_CONST_THREADS><<<grid, CS_CONST_THREADS, 0, stream>>>(
            out, rows, (int)cols, fill, sub, add);
    else if (sh->flat && t == 128 && u == 2)
        launch_width<I32, 2, 128>(w, grid, stream, out, rows, cols, fill, sub, add);
    else if (sh->flat && t == 128 && u == 1)
        launch_width<I32, 1, 128>(w, grid, stream, out, rows, cols, fill, sub, add);
    else if (sh->flat && t == 64 && u == 1)
        launch_width<I32, 1, 64>(w, grid, stream, out, rows, cols, fill, sub, add);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

extern "C" int cs_oracle_const(const cs_const_shape *sh, int64_t rows, int64_t cols, float fill, float sub,
                               int64_t add, int64_t *out, void *stream)
{
    if (sh->unroll == 2 && ((uintptr_t)out % 16))
        return (int)cudaErrorMisalignedAddress;
    return cs_const_i32(cols, fill, sub) ? launch<true>(sh, rows, cols, fill, sub, add, out, (cudaStream_t)stream)
                                         : launch<false>(sh, rows, cols, fill, sub, add, out, (cudaStream_t)stream);
}
