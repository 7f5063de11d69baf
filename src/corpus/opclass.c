#include "corpus/opclass.h"

#include <stddef.h>
#include <string.h>

/* Spelled as meta.json and fxgraph.h normalise targets. Anything absent is a boundary. */
static const char *const view_ops[] = {
    "aten.reshape.default", "aten.view.default", "aten._unsafe_view.default", "aten.unsqueeze.default",
    "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default", "aten.permute.default",
    "aten.expand.default", "aten.slice.Tensor", "aten.select.int", "aten.split.Tensor",
    "aten.unbind.int", "aten.as_strided.default", "aten.alias.default", "aten.clone.default",
    "aten.lift_fresh_copy.default", "aten.repeat.default", "prims.rev.default", "_operator.getitem",
    NULL};

static const char *const pointwise_ops[] = {
    "prims.convert_element_type.default", "aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor",
    "aten.mul.Scalar", "aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.neg.default",
    "aten.abs.default", "aten.rsqrt.default", "aten.sqrt.default", "aten.reciprocal.default",
    "aten.exp.default", "aten.expm1.default", "aten.log.default", "aten.pow.Tensor_Scalar",
    "aten.pow.Scalar", "aten.erf.default", "aten.tanh.default", "aten.sigmoid.default",
    "aten.sin.default", "aten.cos.default", "aten.relu.default", "aten.clamp_min.default",
    "aten.clamp_max.default", "aten.maximum.default", "aten.minimum.default", "aten.fmod.Scalar",
    "prims.fma.default", "aten.addcmul.default", "aten.where.self", "aten.ne.Scalar", "aten.eq.Scalar",
    "aten.eq.Tensor", "aten.lt.Scalar", "aten.lt.Tensor", "aten.le.Scalar", "aten.le.Tensor",
    "aten.gt.Scalar", "aten.gt.Tensor", "aten.ge.Scalar", "aten.ge.Tensor", "aten.logical_not.default",
    "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.copy.default",
    "aten.constant_pad_nd.default", "aten.slice_scatter.default", "aten.select_scatter.default",
    "_operator.add", "_operator.sub", "_operator.mul", "_operator.floordiv", NULL};

static const char *const reduction_ops[] = {
    "aten.sum.dim_IntList", "aten.sum.default", "aten.mean.dim", "aten.var_mean.correction",
    "aten.var.correction", "aten.amax.default", "aten.max.dim", "aten.argmax.default", "aten.any.dim",
    "aten.any.dims", "aten.any.default", NULL};

static const char *const generator_ops[] = {
    "aten.full.default", "prims.iota.default", "aten.scalar_tensor.default", "aten.empty.memory_format",
    "aten.new_empty_strided.default", NULL};

static const char *const scan_ops[] = {"aten.cumsum.default", NULL};

static int listed(const char *const *list, const char *target)
{
    for (; *list; list++)
        if (strcmp(*list, target) == 0)
            return 1;
    return 0;
}

static ea_opclass ea_opclass_of(const char *target)
{
    if (!target)
        return OP_BOUNDARY;
    if (listed(view_ops, target))
        return OP_VIEW;
    if (listed(pointwise_ops, target))
        return OP_POINTWISE;
    if (listed(reduction_ops, target))
        return OP_REDUCTION;
    if (listed(generator_ops, target))
        return OP_GENERATOR;
    if (listed(scan_ops, target))
        return OP_SCAN;
    return OP_BOUNDARY;
}

ea_opclass ea_node_opclass(const fx_node *n)
{
    if (n->kind != FX_CALL)
        return OP_BOUNDARY;
    if (strcmp(n->target, "aten.cat.default") == 0) {
        const fx_arg *list = fx_node_arg(n, 0);
        return list && list->kind == ARG_LIST && list->nitems <= EA_POINTWISE_CAT_MAX ? OP_POINTWISE : OP_BOUNDARY;
    }
    return ea_opclass_of(n->target);
}
