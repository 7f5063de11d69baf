/* scope.h: a position-id cumsum scope read from its golden point (golden/occurrences/cumsum.json).
 * Contract: the family's claims recognise a scope group by its nodes (scope_impl.h's cs_kind_of): an input -> ne ->
 * to int -> cumsum -> ... -> add chain (CS_MASK: Roberta, Longformer, M2M100), an iota -> cat ->
 * slice/sub -> ne -> cumsum chain (CS_PACKED: find_packed_sequence_indices of GPT-2, GPT-J, GPT-Neo)
 * or full -> cumsum -> sub -> to i64 -> add (CS_CONST: OPT's mask of ones). Anything else, the gpt-oss
 * routing chain (topk -> sort -> histc -> cumsum) among them, is CS_NONE and not this family's.
 * cs_scope_parse reads every literal the scope's outputs depend on (pad token, offsets, iota start,
 * the first packed difference) and fails on any node it does not expect, naming the file, the
 * point's JSON path and what was expected. cs_outputs_check compares the capture's output list
 * (golden/targets/<target>/captures/<scope>/capture.json) with the outputs the kind produces. */
#ifndef CS_SCOPE_H
#define CS_SCOPE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "corpus/alias.h"
#include "target/capture.h"
#include "base/error.h"
#include "base/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CS_NONE, CS_MASK, CS_PACKED, CS_CONST } cs_kind;

#define CS_MAX_GROUPS 4
#define CS_MAX_OUTPUTS 2

typedef struct {
    cs_kind kind;
    const char *file;            /* the golden document, for messages */
    char where[96];              /* "$.points[3].scopes[1]" */
    char point[64], scope_id[96], alias[64];
    const cJSON *group;          /* the scope group in the caller's document */
    int64_t occurrences;         /* the group's count */
    int64_t rows, cols;          /* the cumsum's [rows, cols], scanned along cols */
    /* CS_MASK: pos = (i64)(((i32)cumsum(x != pad) + past) * (x != pad)) + offset */
    int64_t pad, past, offset;
    int mask_out;                /* the ne escapes the scope: the mask is an output too */
    /* CS_PACKED: p[j] = start + j; d = cat(first, p)[1:] - cat(first, p)[:-1]; cumsum(d != step) */
    int64_t start, step;
    int first_full;              /* first = full(first_value) (GPT-2), else p[0] - first_value */
    int64_t first_value;
    /* CS_CONST: (i64)(i32)(cumsum(full(fill)) - sub) + add, in f32 */
    double fill, sub;
    int64_t add;
    ea_tensor outputs[CS_MAX_OUTPUTS]; /* what the scope returns, in the capture's order */
    int noutputs;
} cs_scope;


/* 1 when every scope group of the point is a position-id scope (the family's claims). */
int cs_claims(const cJSON *point);
const char *cs_kind_name(cs_kind k);

/* Scope group `group` of the point at index `index` of file. */
int cs_scope_parse(const cJSON *point, const char *file, int index, int group, cs_scope *s, ea_error *err);
/* The capture's outputs must be the scope's: count, dtypes, sizes, dense strides; copies them into s. */
int cs_outputs_check(cs_scope *s, const ea_capture *c, ea_error *err);

/* Bytes the scope must move: inputs read plus outputs written; and the part written. */
int64_t cs_floor_bytes(const cs_scope *s);
int64_t cs_floor_written_bytes(const cs_scope *s);

#ifdef __cplusplus
}
#endif

#endif
