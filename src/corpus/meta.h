/* meta.h: reader for better-benchmark graph metadata (full_graph_NNN.meta.json, schema_version 2).
 * Contract: the whole file is validated strictly (unknown keys, wrong types, schema_version != 2,
 * op counts that do not add up to their bucket totals all fail with "<file> <JSON path>: expected
 * ..., got ..."). Every string and cJSON pointer in an ea_meta points into the parsed document and
 * stays valid until ea_meta_free; copy gen/x into other documents with cJSON_Duplicate. */
#ifndef EA_META_H
#define EA_META_H

#include <stdint.h>

#include "base/json.h"
#include "base/tensor.h"

/* node_accounting buckets, in the order meta.json lists them. */
typedef enum {
    EA_META_FUSIBLE_IN_PARTITION,
    EA_META_FUSIBLE_UNPARTITIONED,
    EA_META_NON_FUSIBLE,
    EA_META_NBUCKETS
} ea_meta_bucket;

typedef struct {
    const char *name; /* "aten.cumsum.default", "_operator.mul" */
    int64_t count;
} ea_meta_op;

/* One [sizes, dtype, {attrs}] descriptor, or a ["sym", value] graph input. */
typedef struct {
    const char *name;   /* attrs "n"; the key for tensor_attrs; NULL for a sym input */
    int is_sym;         /* symbolic-int input: only sym_value is meaningful */
    int64_t sym_value;
    const char *dtype;  /* "bf16", "i64", ... as annotations spell them */
    int ndim;
    int64_t sizes[EA_MAX_DIMS];
    int64_t numel;                /* product of sizes */
    int64_t strides[EA_MAX_DIMS]; /* "st", or row-major contiguous when the file omits it */
    int64_t offset;               /* "off", else 0 */
    const char *device;           /* "dev" (tensor_attrs), else NULL */
    const cJSON *gen;             /* "gen": ["index"|"randint", lo, hi], else NULL */
    const cJSON *x;               /* "x": {"constraint_source", "observed"?, "maybe_permutation"?}, else NULL */
    const cJSON *data;            /* "data": literal values of a tensor constant, else NULL */
} ea_meta_tensor;

typedef struct {
    const char *path;  /* as given to ea_meta_load */
    const char *kind;  /* "model" or "microbenchmark" */
    const char *suite; /* "hf", "timm", "torchbench", "genai" */
    const char *mode;  /* "train", "infer"; NULL for microbenchmarks */
    const char *model; /* may contain '/' */
    const char *graph; /* "full_graph_003.py" */
    const char *roundtrip; /* "ok" or "failed: ..." */
    int64_t total_call_functions;
    int64_t bucket_total[EA_META_NBUCKETS];
    ea_meta_op *ops[EA_META_NBUCKETS];
    int nops[EA_META_NBUCKETS];
    ea_meta_tensor *inputs; /* in forward() placeholder order */
    int ninputs;
    ea_meta_tensor *outputs;
    int noutputs;
    ea_meta_tensor *tensor_attrs; /* constants, in file order */
    int ntensor_attrs;
    const cJSON *storage_groups;  /* [[name, ...], ...] of inputs sharing storage, else NULL */
    ej_doc doc;
} ea_meta;

/* On failure *m is left empty (safe to ea_meta_free). */
int ea_meta_load(const char *path, ea_meta *m, ea_error *err);
void ea_meta_free(ea_meta *m);

/* Count of op in bucket; 0 if absent. */
int64_t ea_meta_op_count(const ea_meta *m, int bucket, const char *op);
/* Input named name; NULL if none. */
const ea_meta_tensor *ea_meta_input(const ea_meta *m, const char *name);

#endif
