/* fxgraph.h: reader for better-benchmark post-grad graph dumps (full_graph_NNN.py).
 * Contract: every line of the file is understood or the parse fails with "<file>:<line>: expected
 * ..., got '...'"; nothing is skipped silently. Node names resolve to node indices (graph inputs are
 * placeholder nodes), so args referencing earlier nodes are ARG_NODE with .node set. Targets are
 * normalised to the spelling meta.json uses: "aten.cat.default", "prims.iota.default",
 * "_operator.getitem", "_operator.mul". All strings live in the graph's arena until fx_graph_free. */
#ifndef EA_FXGRAPH_H
#define EA_FXGRAPH_H

#include <stdint.h>

#include "base/error.h"
#include "base/tensor.h"

typedef enum {
    ARG_NONE,    /* None */
    ARG_NODE,    /* reference to a node: .node */
    ARG_INT,     /* .i */
    ARG_FLOAT,   /* .f (inf, -inf, nan included) */
    ARG_BOOL,    /* .i is 0/1 */
    ARG_STR,     /* 'floor': .s without quotes */
    ARG_LIST,    /* [a, b, ...]: .items/.nitems */
    ARG_DTYPE,   /* torch.int32: .dtype */
    ARG_DEVICE,  /* device(type='cuda', index=0): .s = "cuda:0" */
    ARG_ENUM     /* torch.strided, torch.contiguous_format, ...: .s = "torch.strided" */
} fx_arg_kind;

typedef struct fx_arg {
    fx_arg_kind kind;
    const char *key; /* keyword name, NULL for positional */
    int node;
    int64_t i;
    double f;
    const char *s;
    ea_dtype dtype;
    struct fx_arg *items;
    int nitems;
} fx_arg;

typedef enum {
    FX_PLACEHOLDER, /* graph input from the forward() signature */
    FX_CALL,        /* call_function: torch.ops.*, getitem, symbolic arithmetic */
    FX_GET_ATTR     /* self._tensor_constantN */
} fx_node_kind;

typedef struct {
    const char *file; /* "/path/modeling_x.py" */
    int line;
    const char *func;
    const char *code;
} fx_source;

typedef struct {
    const char *name;
    fx_node_kind kind;
    const char *target;   /* normalised call target; attribute name for FX_GET_ATTR; NULL for inputs */
    int has_ann;          /* an annotation string was present */
    int ann_is_tensor;    /* the annotation is a tensor descriptor (not "Sym(...)") */
    const char *ann_text; /* annotation as written, NULL if none */
    ea_tensor ann;
    fx_arg *args;         /* positional then keyword, in source order */
    int nargs;
    int line;             /* 1-based line in the dump */
    int source;           /* index into fx_graph.sources, -1 if none ("# No stacktrace found") */
    int *users;           /* nodes whose args reference this one, in graph order */
    int nusers;
} fx_node;

typedef struct fx_arena fx_arena;

typedef struct {
    const char *path;
    fx_node *nodes;
    int nnodes;
    fx_source *sources;
    int nsources;
    int *outputs;         /* node index per returned value; -1 for a returned None */
    int noutputs;
    fx_arena *arena;
    void *index;          /* name -> node lookup */
} fx_graph;

int fx_graph_parse_file(const char *path, fx_graph *g, ea_error *err);
void fx_graph_free(fx_graph *g);

/* Node index by name, -1 if absent. */
int fx_graph_find(const fx_graph *g, const char *name);
/* i-th positional argument, NULL if fewer. */
const fx_arg *fx_node_arg(const fx_node *n, int i);
/* Keyword argument by name, NULL if absent. */
const fx_arg *fx_node_kwarg(const fx_node *n, const char *key);
/* True when target equals t ("aten.cat.default"). */
int fx_node_is(const fx_node *n, const char *t);

#endif
