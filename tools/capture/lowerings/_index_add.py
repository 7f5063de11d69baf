"""What the two index_add rewrites share: an index's values as an affine view of an iota, and the
pass that replaces each index_add whose index one describes by a candidate's call."""

from . import _graph

OPS = ("aten.index_add.default",)


def iota_view(node, specs=None):
    """What the index node's values are, or None: {"start", "step", "size", "stride", "offset"} with
    value[j] = start + step * (offset + sum_d i_d * stride_d), (i_d) the row-major multi-index of
    element j in size."""
    node = _graph.strip_order_keeping(node)
    view = None
    if node.op == "call_function" and _graph.target_name(node) == "aten.as_strided.default":
        view = {"size": list(node.args[1]), "stride": list(node.args[2]),
                "offset": node.args[3] if len(node.args) > 3 else 0}
        node = _graph.strip_order_keeping(node.args[0])
    if node.op == "call_function" and _graph.target_name(node) == "prims.iota.default":
        start, step, length = node.kwargs.get("start", 0), node.kwargs.get("step", 1), node.args[0]
    else:
        spec = _graph.input_spec(node, specs)
        if not spec or spec["values"].get("generator") != "iota" or len(spec["sizes"]) != 1:
            return None
        start, step, length = spec["values"]["start"], spec["values"]["step"], spec["sizes"][0]
    if view is None:
        view = {"size": [length], "stride": [1], "offset": 0}
    return {"start": start, "step": step, **view}


def rewrite(graph, specs, plan_of, emit, marks=None):
    """Each index_add of a floating x no wider than fp32 (the emissions sum in fp32) whose index iota_view
    describes and plan_of(view, extent) plans (extent: x's size along dim) replaced by emit(x, dim, src,
    alpha, view, plan); the others keep ATen's call. marks(src node): what the emission must know of the
    source's provenance, merged into the plan. Returns how many were replaced."""
    count = 0
    for node in _graph.calls(graph, OPS):
        x, dim, index, src = node.args[:4]
        value = x.meta.get("example_value")
        if value is None or not value.dtype.is_floating_point or value.dtype.itemsize > 4:
            continue
        dim = dim % len(value.shape)
        alpha = node.kwargs.get("alpha", node.args[4] if len(node.args) > 4 else 1)
        view = iota_view(index, specs)
        plan = plan_of(view, value.shape[dim]) if view else None
        if plan is None:
            continue
        if marks:
            plan = {**plan, **marks(src)}
        _graph.replace(graph, node, emit, (x, dim, src, alpha, view, plan))
        count += 1
    return count
