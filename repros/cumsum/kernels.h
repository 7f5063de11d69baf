/* kernels.h: the oracles of the position-id scopes, one fused kernel per scope kind, callable from C.
 * Contract: each launcher enqueues one kernel on stream (a cudaStream_t; NULL: the default stream),
 * writes every element of the scope's outputs (dense, row-major) and returns the cudaError_t of the
 * launch (0 on success).
 * The packed scan takes one row per CTA, each thread a blocked run of items (1 to 16), at launch variants
 * (cs_packed_variant; the run times each and keeps the fastest by ea_path_tune's rule).
 * The mask scan has launch variants (cs_mask_variant; the run times each and keeps the fastest by ea_path_tune's rule): a CTA
 * of `warps` warps scans a segment of warps x 64 x pairs columns of one row, each warp a run of 64 x
 * pairs columns, lane l the column pairs 2l, 2l + 1 of each 64 (16-byte accesses when cols is even and
 * the buffers aligned). Grid: rows x split segments; a CTA counts the row's columns before its segment
 * itself, so a split row's CTAs never wait on each other (they re-read those columns instead). A row variant
 * at a width compiled in (128 to 2048, powers of two) runs a kernel with that width compiled in
 * (kernels_impl.h, cs_mask_fixed), as Inductor compiles its scan for one shape. */
#ifndef CS_KERNELS_H
#define CS_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CS_SCAN_MAX_ITEMS 16
#define CS_PACKED_VARIANTS 8
#define CS_PACKED_MAX_COLS (1024 * CS_SCAN_MAX_ITEMS)
#define CS_PACKED_TRANSPOSE_MAX_COLS 4096 /* the row in shared memory: 32 KiB of i64 */

/* "t<threads>": a CTA of 128, 256, 512 or 1024 threads, each storing its run directly; "t<threads>-transpose":
 * through CUB's warp-transposing BlockStore, so a warp's stores are consecutive columns. */
typedef struct {
    const char *name;
    int threads, items, transpose;
} cs_packed_shape;

/* Variant v (0 <= v < CS_PACKED_VARIANTS) for rows of cols columns: 1 and its shape in sh (items: the fewest, a
 * power of two, covering the row), or 0 where it does not apply (a row over CS_PACKED_MAX_COLS, or over
 * CS_PACKED_TRANSPOSE_MAX_COLS for a transposing one; a CTA whose half would do with one item a thread). "t128"
 * applies to every row of 1 .. 2048 columns. */
int cs_packed_variant(int v, int64_t cols, cs_packed_shape *sh);

#define CS_MASK_MAX_WARPS 32
#define CS_MASK_VARIANTS 6

/* "row": one CTA per row (split 1), pairs 1, 2 or 4; "split-<w>w": pairs 1, w = 4, 2 or 1 warps, split
 * >= 2. The name and pairs identify the variant; warps and split follow from cols. */
typedef struct {
    const char *name;
    int pairs, warps, split;
} cs_mask_shape;

/* Variant v (0 <= v < CS_MASK_VARIANTS) for rows of cols columns: 1 and its shape in sh, or 0 where
 * it does not apply there (over CS_MASK_MAX_WARPS warps or 65535 segments; another variant's shape;
 * a row variant whose half the pairs would do). At least one applies to any 1 <= cols <= 4194240. */
int cs_mask_variant(int v, int64_t cols, cs_mask_shape *sh);
/* mask (NULL when not an output) = ids != pad; pos = (i64)(((i32)cumsum(mask) + past) * mask) + offset */
int cs_oracle_mask(const cs_mask_shape *sh, int64_t rows, int64_t cols, int64_t pad, int64_t past, int64_t offset,
                   const int64_t *ids, uint8_t *mask, int64_t *pos, void *stream);
/* pos[j] = start + j; cum[r, :] = cumsum(diff != step) with diff[0] = pos[0] - first */
int cs_oracle_packed(const cs_packed_shape *sh, int64_t rows, int64_t cols, int64_t start, int64_t first, int64_t step,
                     int64_t *pos, int64_t *cum, void *stream);
/* out[r, j] = (i64)((j + 1) * fill - sub) + add in f32: the scan of a constant row in closed form, one pointwise
 * kernel at one of CS_CONST_VARIANTS launch variants (the run times each and keeps the fastest by ea_path_tune's
 * rule): "col" a thread per column (CS_CONST_THREADS per CTA) writing it down the rows (at most
 * CS_CONST_MAX_ROWS CTAs down them); "flat" (128 threads a CTA) and "flat-64" (64) a thread per element of the
 * flattened output, Inductor's pointwise shape; "flat-pair" a thread per two elements in one 16-byte store;
 * "flat-w" and "flat-pair-w" the same two with the row's width compiled in (a power of two, 128 to 2048) and
 * no bound checked (the grid covers the output exactly). */
#define CS_CONST_THREADS 256
#define CS_CONST_MAX_ROWS 65535
#define CS_CONST_VARIANTS 6

typedef struct {
    const char *name;
    int threads; /* per CTA */
    int unroll;  /* elements a thread writes (consecutive ones in a flat variant) */
    int flat;    /* a thread per element(s) of the flattened output, else per column */
    int fixed;   /* the width compiled in, no bound checked */
} cs_const_shape;

/* Variant v for rows x cols: 1 and its shape in sh, or 0 where it does not apply (a flat one over 2^31 - 1025
 * elements, a pair on a row of odd width, a compiled width that is not the row's or a grid that would not cover
 * the output exactly). "col" applies to every shape of 1 .. 2^31 - 1 - CS_CONST_THREADS columns (a 32-bit column
 * index) and at least one row. */
int cs_const_variant(int v, int64_t rows, int64_t cols, cs_const_shape *sh);
/* Its grid: [x, y] CTAs. */
void cs_const_grid(const cs_const_shape *sh, int64_t rows, int64_t cols, int64_t grid[2]);
/* out 16-byte aligned for the paired variants, "flat-pair" and "flat-pair-w" (else cudaErrorMisalignedAddress,
 * before any launch); sh one of cs_const_variant's (a block and unroll no kernel is compiled for:
 * cudaErrorInvalidValue, before any launch). */
int cs_oracle_const(const cs_const_shape *sh, int64_t rows, int64_t cols, float fill, float sub, int64_t add,
                    int64_t *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
