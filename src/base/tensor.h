/* tensor.h: dtypes and strided tensor descriptors as post-grad FX graphs annotate them.
 * Contract: an annotation such as "bf16[16, 16, 512, 1023][8380416, 523776, 1023, 1]cuda:0" parses
 * into an ea_tensor whose sizes/strides are exact; symbolic sizes ("s16*s82") become -1 and flag
 * the descriptor symbolic (numel and extent are then unknown, -1). Scalars are "f32[][]cpu".
 * Concrete sizes, strides, numel and extent are at most EA_TENSOR_MAX, so their arithmetic is exact. */
#ifndef EA_TENSOR_H
#define EA_TENSOR_H

#include <stdint.h>
#include <stddef.h>

#include "base/error.h"

typedef enum {
    EA_BF16, EA_F16, EA_F32, EA_F64,
    EA_I8, EA_I16, EA_I32, EA_I64,
    EA_U8, EA_U64, EA_B8, EA_C64,
    EA_DTYPE_COUNT,
    EA_DTYPE_INVALID = -1
} ea_dtype;

/* "bf16", "i64", ... as annotations spell them. */
const char *ea_dtype_name(ea_dtype dt);
/* Bytes per element; 0 for EA_DTYPE_INVALID. */
int ea_dtype_size(ea_dtype dt);
/* From an annotation prefix ("bf16"); len bytes of s. EA_DTYPE_INVALID if unknown. */
ea_dtype ea_dtype_from_name(const char *s, size_t len);
/* From a graph literal ("torch.int32", "torch.long", "torch.bool", ...). EA_DTYPE_INVALID if unknown. */
ea_dtype ea_dtype_from_torch(const char *s, size_t len);
int ea_dtype_is_float(ea_dtype dt);

#define EA_MAX_DIMS 8
/* Sizes, strides, numel and extent from 2^53 on are refused by ea_tensor_parse: no real tensor is that
 * large, and a JSON number holds integers exactly only below there (2^53+1 reads as 2^53, so the JSON
 * reader refuses 2^53 itself: ej_as_int). */
#define EA_TENSOR_MAX (((int64_t)1 << 53) - 1)
#define EA_SYM_LEN 48

typedef struct {
    ea_dtype dtype;
    int ndim;
    int64_t sizes[EA_MAX_DIMS];   /* -1 where symbolic */
    int64_t strides[EA_MAX_DIMS]; /* -1 where symbolic */
    int64_t offset;               /* storage offset in elements; annotations carry none (0) */
    int symbolic;                 /* some size or stride is an expression */
    char device[16];              /* "cuda:0", "cpu" */
} ea_tensor;

/* Parse the whole of text[0..len). On error: "<where>: expected ..., got '...'" with where given
 * by the caller (e.g. "graph.py:42"), returns -1. */
int ea_tensor_parse(const char *text, size_t len, const char *where, ea_tensor *out, ea_error *err);

/* Format back to the annotation form (symbolic dims print as "?"). Returns chars written. */
int ea_tensor_format(const ea_tensor *t, char *buf, size_t n);

/* Product of sizes; -1 if symbolic. */
int64_t ea_tensor_numel(const ea_tensor *t);
/* Elements of storage the view can touch: offset + sum((size-1)*stride) + 1; 0 if numel is 0,
 * -1 if symbolic. */
int64_t ea_tensor_extent(const ea_tensor *t);
/* Row-major dense (size-1 dims ignored). */
int ea_tensor_is_contiguous(const ea_tensor *t);
/* 4-d NHWC-dense with C > 1 and not also contiguous. */
int ea_tensor_is_channels_last(const ea_tensor *t);
/* Same dtype, sizes, strides, offset (device ignored). */
int ea_tensor_equal(const ea_tensor *a, const ea_tensor *b);

#endif
