"""A bf16 index_add point: torch.ops.aten.index_add.default on a freshly filled self (the fill,
ATen's result.copy_(self), its index kernel), with the C side's descriptors (repros/index_add/
scope.h, reference.c), in both index modes: faithful (the index rebuilt from the point's value
properties) and fabricated (randint(0, 100), as the attribution pipeline's replay draws it)."""

import scope

from ._common import DEVICE, OpKind, OpTimingError, derived, is_contiguous, is_number, tensor

OP = "aten.index_add.default"
WHAT = "the bf16 index_add the replica reproduces"
# repros/index_add/scope.h: IA_SEED_SELF, IA_SEED_SOURCE; the fabricated index's with scope.fabricated_scope.
SEED_SELF, SEED_SOURCE = 1, 3
SEED_FABRICATED, FABRICATED_HIGH = scope.SEED_FABRICATED, scope.FABRICATED_HIGH
INDEX_KINDS = ("iota", "as_strided_iota")  # the index properties the C side rebuilds exactly
SUM_TOLERANCE = 1e-2  # the faithful call's output sum against the inputs' (bf16 rounding)


# ---- the pure half: which tensors, which call ----

def source_scale(point, source, where):
    """The scalar of a producer mul(x, scalar) of the source in the point's first scope group,
    found as repros/index_add/scope.c's producer_scale finds it, or None. The C side generates x
    and materializes bf16(f32(x) * scalar); with x and the source both contiguous (it requires
    that) x's elements are the source's in the same order, so the source's own values, scaled in
    place, are the C side's source."""
    groups = point.get("scopes") or []
    nodes = groups[0].get("scope", {}).get("nodes", []) if groups else []
    op = next((n for n in nodes if n.get("role") == "op"), {})
    args = op.get("args", [])
    ref = args[3].get("ref") if len(args) > 3 and isinstance(args[3], dict) else None
    if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < len(nodes):
        return None
    mul = nodes[ref]
    margs = mul.get("args", [])
    if mul.get("op") != "aten.mul.Tensor" or len(margs) != 2:
        return None
    scalar, x = (margs[1], margs[0]) if is_number(margs[1]) else (margs[0], margs[1])
    if not is_number(scalar) or not (isinstance(x, dict) and is_number(x.get("ref"))):
        return None
    try:
        xt = scope.parse_ann(nodes[int(x["ref"])].get("ann"), f"{where} mul input")
    except (scope.ScopeError, IndexError):
        xt = None
    if not (xt and xt["dtype"] == "bf16"
            and scope.numel(xt["sizes"]) == scope.numel(source["sizes"])):
        xt = source
    if not (is_contiguous(xt) and is_contiguous(source)):
        raise OpTimingError(f"{where}: the producer mul's input and output must be contiguous")
    return float(scalar)


def index_expectation(props):
    """{"min", "max", "distinct"} the rebuilt faithful index must show (the C side's
    ia_index_check compares the same and more)."""
    if props["kind"] == "iota":
        io = props["iota"]
        last = io["start"] + io["step"] * (io["length"] - 1)
        return {"min": min(io["start"], last), "max": max(io["start"], last),
                "distinct": props["distinct"]}
    return {k: props[k] for k in ("min", "max", "distinct")}


def call_text(plan, index_name):
    """The timed call as Python source; the torch half runs exactly this (make_call)."""
    fill = plan["fill"]
    self_text = ("self" if fill is None else
                 f"torch.full({plan['out']['sizes']}, {fill!r}, dtype=torch.bfloat16, "
                 "device='cuda')")
    alpha = "" if plan["alpha"] is None else f", alpha={plan['alpha']!r}"
    return f"torch.ops.{OP}({self_text}, {plan['dim']}, {index_name}, source{alpha})"


def plan_point(point, where):
    """The op's inputs and calls for one golden index_add point, as the C side builds them:
    {"point", "op", "out", "dim", "alpha", "fill", "inputs" (capture.json's input format),
    "setup" (statements run once on them), "source_scale", "expect" (faithful index statistics),
    "modes": {mode: {"index": input name, "call": text} | None}}."""
    sig = point.get("signature") or {}
    args, kwargs = sig.get("args") or [], sig.get("kwargs") or {}
    if not isinstance(point.get("point"), str) or sig.get("op") != OP:
        raise OpTimingError(f"{where}: expected an {OP} point with its id")
    if len(args) not in (4, 5):
        raise OpTimingError(f"{where}.signature.args: expected index_add(self, dim, index, "
                            f"source[, alpha]), got {len(args)} args")
    out = tensor(sig.get("output"), "bf16", f"{where}.signature.output", WHAT)
    self_t = tensor(args[0], "bf16", f"{where}.signature.args[0]", WHAT)
    index = tensor(args[2], "i64", f"{where}.signature.args[2]", WHAT)
    source = tensor(args[3], "bf16", f"{where}.signature.args[3]", WHAT)
    alpha = args[4] if len(args) == 5 else kwargs.get("alpha")
    dim = args[1]
    if not (isinstance(dim, int) and not isinstance(dim, bool)) or \
            not (alpha is None or is_number(alpha)):
        raise OpTimingError(f"{where}.signature.args: expected an integer dim and a numeric alpha")
    dim = dim + len(self_t["sizes"]) if dim < 0 else dim
    if self_t != out or not is_contiguous(self_t) or self_t["offset"] != 0:
        raise OpTimingError(f"{where}.signature.args[0]: expected self contiguous and laid out as "
                            "the output (the C replica's result.copy_(self) is one memcpy)")
    if not 0 <= dim < len(self_t["sizes"]) or len(source["sizes"]) != len(self_t["sizes"]) or \
            len(index["sizes"]) > 1 or scope.numel(index["sizes"]) != source["sizes"][dim]:
        raise OpTimingError(f"{where}.signature.args: expected dim in range, source of self's "
                            "rank and a 1-d index of source.size(dim) elements")
    fill_props = derived(sig, 0)
    fill = None
    if fill_props and fill_props.get("kind") == "constant":
        if not is_number(fill_props.get("value")):
            raise OpTimingError(f"{where}: self's constant fill must be a number")
        fill = fill_props["value"]
    inputs = []
    if fill is None:  # the C side generates self then, and copies it every call
        inputs.append({"name": "self", **self_t,
                       "values": {"generator": "uniform", "seed": SEED_SELF}})
    idx_props = derived(sig, 2)
    faithful = idx_props if idx_props and idx_props.get("kind") in INDEX_KINDS else None
    if faithful:
        inputs.append({"name": "index", **index,
                       "values": scope.choose_generator(index, None, faithful, None)})
    high = min(self_t["sizes"][dim], FABRICATED_HIGH)  # clamped in bounds, as the C side does
    inputs.append({"name": "fabricated_index", **index,
                   "values": {"generator": "randint", "seed": SEED_FABRICATED, "low": 0,
                              "high": high}})
    inputs.append({"name": "source", **source,
                   "values": {"generator": "uniform", "seed": SEED_SOURCE}})
    scale = source_scale(point, source, where)
    plan = {"point": point["point"], "op": OP, "out": out, "dim": dim,
            "alpha": alpha, "fill": fill, "inputs": inputs, "source_scale": scale,
            "setup": ([] if scale is None else
                      [f"source.copy_((source.float() * {scale!r}).to(torch.bfloat16))"]),
            "expect": index_expectation(faithful) if faithful else None}
    plan["modes"] = {
        "faithful": {"index": "index", "call": call_text(plan, "index")} if faithful else None,
        "fabricated": {"index": "fabricated_index", "call": call_text(plan, "fabricated_index")},
    }
    return plan


# ---- the torch half ----

def setup(plan, tensors):
    """plan["setup"]: the source scaled in place as the C side materializes it."""
    import torch
    if plan["source_scale"] is not None:  # plan["setup"] says the same in words
        source = tensors["source"]
        source.copy_((source.float() * plan["source_scale"]).to(torch.bfloat16))


def make_call(plan, tensors, mode):
    """(fn, args): fn(*args) is call_text(plan, mode's index)."""
    import torch
    op = torch.ops.aten.index_add.default
    dim, fill, sizes = plan["dim"], plan["fill"], plan["out"]["sizes"]
    kwargs = {} if plan["alpha"] is None else {"alpha": plan["alpha"]}
    index, source = tensors[plan["modes"][mode]["index"]], tensors["source"]
    if fill is None:
        return (lambda self_, idx, src: op(self_, dim, idx, src, **kwargs),
                (tensors["self"], index, source))
    return (lambda idx, src: op(torch.full(sizes, fill, dtype=torch.bfloat16, device=DEVICE),
                                dim, idx, src, **kwargs),
            (index, source))


def check_inputs(plan, tensors):
    """The rebuilt faithful index against the point's statistics; the fabricated one in range."""
    import torch
    fab = tensors["fabricated_index"]
    high = next(s for s in plan["inputs"] if s["name"] == "fabricated_index")["values"]["high"]
    if fab.numel() and not (0 <= fab.min().item() and fab.max().item() < high):
        raise OpTimingError(f"{plan['point']}: fabricated index outside [0, {high})")
    if plan["expect"] is None:
        return
    idx = tensors["index"]
    got = {"min": idx.min().item(), "max": idx.max().item(),
           "distinct": torch.unique(idx).numel()}
    for key, want in plan["expect"].items():
        if got[key] != want:
            raise OpTimingError(f"{plan['point']}: the rebuilt faithful index has {key} "
                                f"{got[key]}, its value properties say {want}")


def check_call(plan, fn, args):
    """One faithful call: the output's shape, dtype and sum (every source element added once)."""
    import torch
    out = fn(*args)
    source = args[-1]
    want = (plan["fill"] or 0) * out.numel() + (1 if plan["alpha"] is None else plan["alpha"]) \
        * source.double().sum().item()
    if list(out.shape) != plan["out"]["sizes"] or out.dtype != torch.bfloat16:
        raise OpTimingError(f"{plan['point']}: the call gave {out.dtype}{list(out.shape)}")
    got = out.double().sum().item()
    if not abs(got - want) <= SUM_TOLERANCE * max(abs(want), 1.0):
        raise OpTimingError(f"{plan['point']}: output sum {got:.6g}, expected {want:.6g}")


KIND = OpKind(file="index_add", op=OP, plan=plan_point, setup=setup, check_inputs=check_inputs,
              make_call=make_call, check_call=check_call, untimed="no index to rebuild", order=1)
