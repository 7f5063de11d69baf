"""An adaptive_avg_pool2d_backward point (repros/avgpool_backward: identity pools only):
torch.ops.aten._adaptive_avg_pool2d_backward.default(grad, self) (ATen's zeros_like and its
atomic kernel), grad generated as run.c generates it; faithful only (the family has no fabricated
mode)."""

import scope

from ._common import OpKind, OpTimingError, is_contiguous, nothing, tensor

OP = "aten._adaptive_avg_pool2d_backward.default"
WHAT = "the bf16 pool backward the replica reproduces"
SEED_GRAD = 0  # repros/avgpool_backward/run.c's grad_gen: {"generator": "uniform", "seed": 0}
SEED_SELF = 1  # any seed would do (ATen reads only self's sizes); docs/reference/schema.md names this one


# ---- the pure half: which tensors, which call ----

def call_text():
    """The timed call as Python source; the torch half runs exactly this (make_call)."""
    return f"torch.ops.{OP}(grad, self)"


def plan_point(point, where):
    """The op's inputs and call for one golden adaptive_avg_pool2d_backward point, refused where
    repros/avgpool_backward/plan.c's ap_scope_parse refuses it (only an identity pool of 4-d,
    contiguous bf16 tensors is replicated): {"point", "op", "out", "inputs", "setup",
    "modes": {"faithful": {"call": text}, "fabricated": None}}."""
    sig = point.get("signature") or {}
    args = sig.get("args") or []
    if not isinstance(point.get("point"), str) or sig.get("op") != OP:
        raise OpTimingError(f"{where}: expected an {OP} point with its id")
    if len(args) != 2:
        raise OpTimingError(f"{where}.signature.args: expected _adaptive_avg_pool2d_backward("
                            f"grad_output, self), got {len(args)} args")
    grad = tensor(args[0], "bf16", f"{where}.signature.args[0]", WHAT)
    self_t = tensor(args[1], "bf16", f"{where}.signature.args[1]", WHAT)
    out = tensor(sig.get("output"), "bf16", f"{where}.signature.output", WHAT)
    for t, at in ((grad, "args[0]"), (self_t, "args[1]"), (out, "output")):
        if len(t["sizes"]) != 4 or not is_contiguous(t) or t["offset"] != 0 or \
                not 1 <= scope.numel(t["sizes"]) <= 2**31 - 1:
            raise OpTimingError(f"{where}.signature.{at}: expected a contiguous 4-d tensor at offset "
                                "0 of 1 to 2^31 - 1 elements (ATen's contiguous path, the replica's "
                                "only one)")
    if out != self_t or grad["sizes"] != self_t["sizes"]:
        raise OpTimingError(f"{where}.signature: expected the output laid out as self and an "
                            f"identity pool (the grad of self's sizes), got grad {grad['sizes']}, "
                            f"self {self_t['sizes']}, output {out['sizes']}")
    inputs = [{"name": "grad", **grad, "values": {"generator": "uniform", "seed": SEED_GRAD}},
              {"name": "self", **self_t, "values": {"generator": "uniform", "seed": SEED_SELF}}]
    return {"point": point["point"], "op": OP, "out": out, "inputs": inputs,
            "setup": ["# grad is the replica's (run.c: uniform seed 0, exact in bf16); ATen reads "
                      "only self's sizes (at::zeros_like(self)) and the replica has no self, so "
                      "self's values are arbitrary"],
            "modes": {"faithful": {"call": call_text()}, "fabricated": None}}


# ---- the torch half ----

def make_call(plan, tensors, mode):
    """(fn, args): fn(*args) is call_text()."""
    import torch
    return torch.ops.aten._adaptive_avg_pool2d_backward.default, (tensors["grad"], tensors["self"])


def check_call(plan, fn, args):
    """One call: self's shape and dtype, and the grad exactly (an identity pool's backward is its
    grad: one bf16 atomic add of grad / 1 to a zero per element)."""
    import torch
    out, grad = fn(*args), args[0]
    if list(out.shape) != plan["out"]["sizes"] or out.dtype != torch.bfloat16:
        raise OpTimingError(f"{plan['point']}: the call gave {out.dtype}{list(out.shape)}, "
                            f"expected torch.bfloat16{plan['out']['sizes']} (self's)")
    differ = (out != grad).sum().item()
    if differ:
        raise OpTimingError(f"{plan['point']}: {differ} of {out.numel()} output elements differ "
                            "from the grad (an identity pool's backward is its grad, exactly)")


KIND = OpKind(file="adaptive_avg_pool2d_backward", op=OP, plan=plan_point, setup=nothing,
              check_inputs=nothing, make_call=make_call, check_call=check_call,
              untimed="the replica has no such mode", order=2)
