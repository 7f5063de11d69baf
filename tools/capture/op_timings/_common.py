"""What every op timing shares: the OpKind it declares, its error, and the readers of a golden
point's signature (docs/reference/schema.md, golden/occurrences) that its planner checks a point with."""

import collections

DEVICE = "cuda"

# An op timing's declaration: its golden file (golden/occurrences/<file>.json), the op, the
# planner (pure), and the torch half: setup after the inputs are generated, a check of the
# inputs, the call, and a check of one faithful call's output. A mode the plan leaves None is
# not timed, for the reason `untimed` gives. Ops come in torch_ops.json in `order`: a new op
# takes the next number, so the points of the ops already there keep their places.
OpKind = collections.namedtuple(
    "OpKind", "file op plan setup check_inputs make_call check_call untimed order")


class OpTimingError(Exception):
    """A point cannot be turned into the op's inputs, or its call misbehaved; says where and why."""


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def tensor(desc, dtype, where, what):
    """A signature tensor's descriptor, checked as repros/index_add/scope.c checks it; what: the
    replicated op, which the dtype refusal names."""
    if not isinstance(desc, dict) or desc.get("symbolic") or \
            not isinstance(desc.get("sizes"), list):
        raise OpTimingError(f"{where}: expected a tensor with static sizes, got {desc!r:.80}")
    if desc.get("dtype") != dtype:
        raise OpTimingError(f"{where}.dtype: expected \"{dtype}\" ({what}), got {desc.get('dtype')!r}")
    t = {"dtype": dtype, "sizes": desc["sizes"], "strides": desc.get("strides"),
         "offset": desc.get("offset")}
    if not (isinstance(t["strides"], list) and len(t["strides"]) == len(t["sizes"])
            and all(isinstance(x, int) and x >= 0 for x in t["sizes"] + t["strides"])
            and isinstance(t["offset"], int) and t["offset"] >= 0):
        raise OpTimingError(f"{where}: expected non-negative integer sizes, one stride per size "
                            "and an offset")
    return t


def is_contiguous(t):
    """Row-major dense, size-1 dims ignored (src/base/tensor.c's ea_tensor_is_contiguous)."""
    step = 1
    for size, stride in zip(reversed(t["sizes"]), reversed(t["strides"])):
        if size == 0:
            return True
        if size != 1 and stride != step:
            return False
        step *= size
    return True


def derived(sig, pos):
    """The derived value properties of positional argument pos, or None."""
    for vp in sig.get("value_properties", []):
        if vp.get("arg") == pos and not isinstance(vp.get("arg"), bool) \
                and isinstance(vp.get("derived"), dict):
            return vp["derived"]
    return None


def nothing(plan, tensors):
    """The setup or input check of an op that needs none."""
