/* opclass.h: what an op is to Inductor's fusion, as far as scopes and value walks need it.
 * Contract: every target string maps to one class; unknown ops are boundaries, so a walk never
 * crosses an op it does not understand. (values.c keeps its own narrower list: the ops that also
 * keep the row-major order of values.) */
#ifndef EA_OPCLASS_H
#define EA_OPCLASS_H

#include "corpus/fxgraph.h"

typedef enum {
    OP_BOUNDARY,  /* library calls, fallbacks, indirect loads, mutation: a scope stops here */
    OP_VIEW,      /* changes shape/layout, keeps values: reshape, permute, getitem, clone, ... */
    OP_POINTWISE, /* elementwise: add, ne, convert_element_type, where, ... */
    OP_REDUCTION, /* sum, var_mean, amax, ... (Inductor fuses them with pointwise neighbours) */
    OP_GENERATOR, /* values from literals only: full, iota, scalar_tensor, empty */
    OP_SCAN       /* cumsum: lowered to tl.associative_scan and fused */
} ea_opclass;

/* Inductor lowers a cat of at most this many inputs to a pointwise kernel (max_pointwise_cat_inputs). */
#define EA_POINTWISE_CAT_MAX 8

/* The class of a call node from its target and arguments: a small cat is pointwise. Graph
 * inputs and attributes are boundaries. */
ea_opclass ea_node_opclass(const fx_node *n);

#endif
