/* scope.h: the bf16 index_add scope of one golden occurrence point, and the plans that run it.
 * Contract:
 * - ia_scope_parse reads everything from the point (golden/occurrences/index_add.json): the self/out,
 *   index and source descriptors, dim, alpha, self's constant, the index's derived value properties
 *   (iota / as_strided_iota, with its multiplicity histogram), a producer mul(x, scalar) of the
 *   source and a consumer div or mul by a scalar reached through views (the consumer fold: consumer.c says
 *   when it holds); so the same code runs any configuration. A missing or unknown index property is accepted:
 *   idx.kind is IA_INDEX_UNKNOWN and note says the general oracle is used. Bad input (a wrong dtype,
 *   an index out of bounds, sizes that overflow) fails with the file and JSON path named.
 * - ia_plan_make derives what runs: ATen's kernel choice for the current path (torch 2.11's
 *   index_add_cuda_impl: small/large index variant, collapsed TensorInfos, indexShouldBeMajor, grid
 *   and block), the structured oracle (slice for an iota index, windows for an overlapping as_strided
 *   window) when the structure allows it, else the general oracle, with the reason in note.
 * - ia_scope_check_memory refuses a scope whose buffers exceed a byte budget, with a message. */
#ifndef IA_SCOPE_H
#define IA_SCOPE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "corpus/alias.h"
#include "base/error.h"
#include "base/tensor.h"
#include "corpus/values.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Input seeds (docs/reference/schema.md generators): one per argument position, so inputs are reproducible. */
#define IA_SEED_SELF 1
#define IA_SEED_FABRICATED 2   /* randint(0, IA_FABRICATED_HIGH) for the index, as the replay does */
#define IA_SEED_SOURCE 3
#define IA_FABRICATED_HIGH 100
#define IA_MAX_GROUPS 16       /* scope groups of one point */
#define IA_MAX_FOLD 6          /* dims of a windows oracle after folding the window pair */

typedef enum { IA_INDEX_UNKNOWN, IA_INDEX_IOTA, IA_INDEX_AS_STRIDED } ia_index_kind;

typedef struct {
    ia_index_kind kind;
    int64_t start, step, length;              /* the iota (as_strided: the storage it views) */
    int ndim;                                 /* as_strided view */
    int64_t size[EA_MAX_DIMS], stride[EA_MAX_DIMS], offset;
    int64_t min, max, distinct, covered, of;  /* golden statistics */
    int max_multiplicity;
    int64_t hist[EA_MULT_BUCKETS];            /* hist[m]: positions read m times (last bucket: or more) */
    const cJSON *derived;                     /* the golden object (generator source), NULL if unknown */
} ia_index;

typedef struct {
    char file[256], path[64];                 /* where the point was read, for messages */
    char point[64], alias[32];
    int64_t occurrences;                      /* the point's count */
    int ngroups;
    char scope_ids[IA_MAX_GROUPS][64];
    int64_t group_counts[IA_MAX_GROUPS];      /* each group's occurrences */
    ea_tensor out, self, index, source, x;    /* x: the mul's input (== source when not scaled) */
    int dim;
    double alpha;
    int self_const;   double fill;            /* self = full(fill) */
    int scaled;       double scale;           /* source = mul(x, scale) inside the scope */
    int scale_escapes;                        /* the mul's output is used outside: it is materialized */
    /* The consumer fold: out's one use is a chain of views into div(., by) or mul(., by) that reads out's own
     * elements in storage order; the scope's output is then that result, final (what Inductor computes in place
     * over out's buffer), and every path writes it: current as Inductor does, bf16(bf16(out) * consumer_scale);
     * the oracles round the product once (the same bits for a power of two, barring subnormals; closer to the
     * fp64 reference otherwise). */
    int consumed, consumer_div, consumer_views;
    double consumer_by, consumer_scale;       /* the scalar; 1 / by for a div (a power of two: exact) */
    char consumer_op[32];
    ea_tensor final;
    ia_index idx;
    char note[512];                           /* fallbacks and their reasons, "" when none */
} ia_scope;

/* ATen's TensorInfo after collapseDims/reduceDim. */
typedef struct {
    int dims;
    uint64_t sizes[EA_MAX_DIMS], strides[EA_MAX_DIMS];
} ia_tinfo;

typedef struct {
    int small;              /* indexFuncSmallIndex (numIndex <= 16), else indexFuncLargeIndex */
    int dst_dims, src_dims, idx_dims; /* template Dims: 1, 2, 3 or -1; idx -2 (contiguous) or -1 */
    int index_major;        /* IndexIsMajor (large only) */
    int wide;               /* IndexType uint64_t: some tensor needs 64-bit index math */
    ia_tinfo dst, src, idx;
    int dst_add_dim, src_add_dim;
    uint64_t slice_size, total_size, inner_size, dst_add_dim_size, dst_numel, num_index;
    unsigned grid, block;
    char name[96];          /* "indexFuncLargeIndex<2,2,-2,false>" */
} ia_aten_plan;

typedef enum { IA_ORACLE_GENERAL, IA_ORACLE_SLICE, IA_ORACLE_WINDOWS } ia_oracle_kind;

/* n / d for n < 2^32 by a multiply and a shift: q = (mulhi(n, m) + n) >> s, with s = ceil(log2 d) and
 * m = floor(2^32 (2^s - d) / d) + 1 (d in [1, 2^31); d = 0 marks a divisor too large, use plain division).
 * The oracles divide per element by run-time sizes; a hardware divide costs ~20 instructions. */
typedef struct {
    uint32_t d, m, s;
} ia_fastdiv;

static inline uint32_t ia_fastdiv_div(ia_fastdiv f, uint32_t n)
{
    return (uint32_t)(((((uint64_t)n * f.m) >> 32) + n) >> f.s);
}

/* The staged slice kernel (slice_staged.h): a block of IA_STAGED_THREADS stages a span's source range
 * in IA_STAGED_VECTORS 16-byte vectors per thread of shared memory (16 KiB), and builds at most
 * IA_STAGED_MAX_CHUNKS output chunks per thread from it. */
#define IA_STAGED_THREADS 256
#define IA_STAGED_VECTORS 4
#define IA_STAGED_MAX_CHUNKS 16
#define IA_STAGED_SHARED_ELEMS (IA_STAGED_VECTORS * IA_STAGED_THREADS * 8)

typedef struct {
    int64_t span_max;       /* output chunks a span may hold: any span's aligned source range fits the buffer */
    int64_t step_rows, step_cols; /* a thread's stride, 8 * IA_STAGED_THREADS elements, as rows and columns */
} ia_slice_stage;

/* out[r, c] = fill + (c - col0 in [0, row_src) ? scale * x[r, c - col0] : 0) over rows x row_out. */
typedef struct {
    int64_t rows, row_out, row_src, col0;
    int vec;                /* 8: 16-byte accesses; 1: scalar */
    int unroll;             /* 16-byte chunks per thread: 1, 2, 4 or 8 (the run times ia_slice_variants) */
    ia_fastdiv div_row;     /* by row_out */
    int staged;             /* 1: the shared-memory staged kernel instead (vec 8 only; one of the variants) */
    ia_slice_stage stage;   /* its plan, span_max 0 when vec != 8 */
    int streaming;          /* 1: vec 8 stores with the evict-first hint (st.global.cs): the output is
                             * never re-read here, so keeping it out of L2 may help a write-heavy pass */
    int shfl;               /* 1: vec 8, unroll chunks per thread in passes, a misaligned row's second aligned
                             * source vector taken from the next lane by warp shuffle instead of a second load */
} ia_slice;

/* The launch variants the run times a vec 8 slice oracle at, keeping the fastest that passed its checks (ea_path_tune's rule):
 * "vec8" at unroll 1, 2, 4 and 8, "vec8-cs" (streaming stores) at unroll 1 and 2, "staged", and
 * "vec8-shfl" (blocks of 128 threads) at unroll 1, 2 and 4 (its only instances: another unroll launches 1). */
typedef struct {
    const char *name;
    int unroll, staged, streaming, shfl;
} ia_slice_variant;

#define IA_SLICE_VARIANTS 10
extern const ia_slice_variant ia_slice_variants[IA_SLICE_VARIANTS];
/* Adds variant v's "variant" name (and "unroll" unless staged) to o. */
void ia_slice_variant_json(cJSON *o, int v);

/* One launch of the staged kernel: spans of span_chunks consecutive chunks (the last may be shorter),
 * block b takes spans b, b + grid, ...; every block gets the same number of spans, or one fewer. */
typedef struct {
    int64_t span_chunks, spans, grid;
} ia_slice_split;

/* out[base + p] = fill + sum over windows w of scale * x[src(p, w)], p in [0, total): p's coordinates
 * over the folded dims (innermost first, dense), the row axis r = w * k + c, c in [0, csize). */
typedef struct {
    int nd, r;
    int64_t size[IA_MAX_FOLD], sstride[IA_MAX_FOLD];
    int64_t nwin, k, csize, sstride_w, sstride_c;
    int64_t base, total, n_out;
    int vec;
    ia_fastdiv div[IA_MAX_FOLD], div_k;
} ia_windows;

/* Source [outer, L, inner] scattered into out [outer, D, inner] at index[l]; contiguous both. */
typedef struct {
    int64_t outer, L, D, inner, n_src, n_out;
    ia_fastdiv div_inner, div_L;
} ia_general;

typedef struct {
    ia_aten_plan aten;
    ia_oracle_kind oracle;
    ia_slice slice;
    ia_windows win;
    ia_general general;
    int general_ok;
    int fold_scale;         /* oracles read x and multiply (the mul does not escape), else read source */
    double oracle_scale;    /* what the oracles multiply their input by: alpha, times the mul's scalar if folded, times
                             * the consumer's (consumed) */
    double oracle_fill;     /* what the oracles start from: self's fill, times the consumer's scalar (consumed): the
                             * quotient in one rounding, as exact as current's two for a power of two */
    int64_t floor_bytes;    /* the oracle's input read once + out written once */
    char note[512];
} ia_plan;

/* Splits out's chunks over resident (multiprocessors x resident blocks, from the occupancy at launch)
 * blocks: as few steps per block as spans of at most span_max chunks allow, spans as equal as they go.
 * q->stage must be planned (span_max >= 1). */
void ia_slice_stage_split(const ia_slice *q, int64_t resident, ia_slice_split *l);

/* point: one element of the document's "points"; file and index label messages; group: which scope
 * group supplies the producers (-1: the first). */
int ia_scope_parse(const cJSON *point, const char *file, int index, int group, ia_scope *s, ea_error *err);
/* sm_count: the device's multiprocessor count (grid size of ATen's kernels). */
int ia_plan_make(const ia_scope *s, int sm_count, ia_plan *p, ea_error *err);
struct ia_consumer_step; /* consumer.h */
/* The configuration block every result and plan carries: dim, index, producer, consumer, ATen's choice and the
 * consumer's captured kernel (cs; NULL when none) with the coordinate-descent run's (tuned: "current_tuned"; NULL
 * or no step when none), oracle. */
cJSON *ia_config_json(const ia_scope *s, const ia_plan *p, const struct ia_consumer_step *cs,
                      const struct ia_consumer_step *tuned);
int ia_scope_check_memory(const ia_scope *s, int64_t budget, const char *what, ea_error *err);
/* The generator object for the index (faithful: from the derived properties; else randint). NULL if
 * faithful and the properties are unknown. Caller frees. */
cJSON *ia_index_generator(const ia_scope *s, int fabricated);

#ifdef __cplusplus
}
#endif

#endif
