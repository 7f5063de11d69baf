/* values.h: value properties of a tensor, derived from the graph alone (no execution).
 * Contract: ea_value_props returns {"expr": producer expression, "derived": summary} where expr is
 * the producer tree walked back to boundaries, graph inputs and generators (node names dropped, so
 * equal computations give equal JSON), and derived names what a faithful input must preserve:
 * iota, as_strided-of-iota with its exact multiplicity histogram, constants, sorted top-k ids, masks,
 * graph inputs with the corpus's recorded ranges; inputs the forward graph saved are followed into
 * it. Floating tensors get only {"kind":"float_data"} or their constant: their values do not change
 * a kernel's time, and their producer trees would split identical workloads. An as_strided that overruns its storage is an
 * error naming the graph line. */
#ifndef EA_VALUES_H
#define EA_VALUES_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "corpus/fxgraph.h"

/* Histogram buckets for multiplicity; the last one collects "this many or more". */
#define EA_MULT_BUCKETS 64

typedef struct {
    int64_t numel;      /* indices produced */
    int64_t min, max;   /* index values */
    int64_t distinct;
    int64_t range_len;  /* length of the iota the view reads */
    int64_t hist[EA_MULT_BUCKETS]; /* hist[m]: iota positions read exactly m times (hist[0]: never) */
    int max_multiplicity;
    int sorted;         /* non-decreasing in row-major order */
} ea_index_stats;

/* What the graph alone does not say about its inputs. Either callback may be NULL. */
typedef struct {
    /* The corpus's recorded generator / observed range for an input of g (new JSON, or NULL). */
    cJSON *(*input_info)(void *ctx, const fx_graph *g, const char *input_name);
    /* AOTAutograd hands tensors saved by the forward graph to the backward graph as inputs of the
     * same name: the graph and node that produced input_name, with a label for it, or 0. */
    int (*saved_by)(void *ctx, const fx_graph *g, const char *input_name, const fx_graph **src, int *node,
                    const char **label);
    void *ctx;
} ea_value_env;

/* NULL on error. */
cJSON *ea_value_props(const fx_graph *g, int node, const ea_value_env *env, ea_error *err);

/* Arguments as JSON: ints/floats/bools/None/strings as JSON values, dtypes as
 * {"dtype":"i32"}, devices {"device":"cuda:0"}, enums {"enum":"torch.strided"}, lists as arrays.
 * Node references go through node_fn (ctx passed along); node_fn may return NULL to mean error. */
typedef cJSON *(*ea_node_json_fn)(void *ctx, int node);
/* Adds n's arguments to obj as "args" (positional) and "kwargs" (keyword; added even when empty
 * only if always_kwargs). */
void ea_node_args_json(const fx_node *n, cJSON *obj, int always_kwargs, ea_node_json_fn node_fn, void *ctx);

#endif
