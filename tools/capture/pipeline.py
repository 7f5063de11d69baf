"""The attribution pipeline's own price of an audited op, reproduced on this GPU (the "pipeline"
timing of golden/targets/<target>/torch_ops.json, docs/reference/schema.md): the op alone in eager torch on
fabricated inputs, as better-benchmark's extern replay prices it. Floating tensors get uniform
values, booleans random bits, and integer tensors -- whose meaning the pipeline does not infer --
randint(0, 100); literals stay as the graph wrote them. One call per CUDA-graph replay, the minimum
over the replays; beside it the same call 20 to a replay (median), so the rollup can split the gap
between the pipeline's price and the faithful in-scope price into a lone launch's overhead, the
fabricated values' contention and the scope.

The planning half is pure (tested without torch); op_timing.py drives the torch half.
"""

import scope

FABRICATED_HIGH = 100  # randint(0, 100): the pipeline's integer arguments
SEED_BASE = 200        # input k of a point is generated with seed SEED_BASE + k
REPLAYS = 50
# The ops whose pipeline price is replayed here (golden/occurrences/<name>.json): the seed's four. The ops that
# joined the audit set later (golden.ADDED_OP_FILES) carry their unmeasured reason instead: views, host
# SymInt arithmetic and a library FFT have no fabricated replay to price.
PRICED_OPS = ("cat", "cumsum", "histc", "index_add")


class PipelineError(Exception):
    """A point whose arguments cannot be fabricated; says where and why."""


def _is_tensor(arg):
    return isinstance(arg, dict) and "dtype" in arg and ("sizes" in arg or arg.get("symbolic"))


def fabricated(desc, name, seed, where):
    """The capture-format input spec of one fabricated tensor argument."""
    if desc.get("symbolic") or not isinstance(desc.get("sizes"), list):
        raise PipelineError(f"{where}: expected a tensor with static sizes, got {desc!r:.80}")
    dtype = desc["dtype"]
    if dtype in scope.FLOATING:
        values = {"generator": "uniform", "seed": seed}
    elif dtype == "b8":
        values = {"generator": "bool", "seed": seed}
    else:
        values = {"generator": "randint", "seed": seed, "low": 0, "high": FABRICATED_HIGH}
    return {"name": name, "dtype": dtype, "sizes": desc["sizes"], "strides": desc["strides"],
            "offset": desc["offset"], "values": values}


def _template(arg, inputs, where):
    """arg with every tensor replaced by {"input": name} (its spec appended to inputs)."""
    if _is_tensor(arg):
        name = f"in{len(inputs)}"
        inputs.append(fabricated(arg, name, SEED_BASE + len(inputs), where))
        return {"input": name}
    if isinstance(arg, list):
        return [_template(a, inputs, f"{where}[{k}]") for k, a in enumerate(arg)]
    return arg


def _text(t):
    """A template as Python source: inputs by name, literals as torch spells them."""
    if isinstance(t, dict) and set(t) == {"input"}:
        return t["input"]
    if isinstance(t, list):
        return "[" + ", ".join(_text(a) for a in t) + "]"
    if isinstance(t, dict) and len(t) == 1 and next(iter(t)) in ("dtype", "device", "enum"):
        kind, value = next(iter(t.items()))
        if kind == "dtype":
            return f"torch.{scope.TORCH_DTYPES.get(value, value)}"
        return f"torch.device({value!r})" if kind == "device" else value
    return repr(t)


def _clamp_index(sig, args, inputs):
    """index_add's index drawn inside self.size(dim) when that is under 100, as op_timing.py's
    fabricated index and the C side draw it: an index out of range is a device assert, not a price."""
    self_t, dim = (sig.get("args") or [None, None])[:2]
    if not (len(args) > 2 and isinstance(args[2], dict) and "input" in args[2] and isinstance(dim, int)
            and isinstance(self_t, dict) and isinstance(self_t.get("sizes"), list)):
        return
    size = self_t["sizes"][dim]
    spec = next(i for i in inputs if i["name"] == args[2]["input"])
    if spec["values"]["generator"] == "randint":
        spec["values"]["high"] = min(FABRICATED_HIGH, size)


def plan_point(point, where):
    """{"point", "op", "inputs", "args", "kwargs", "call"} of one golden point."""
    sig = point.get("signature") or {}
    op = sig.get("op")
    if not isinstance(point.get("point"), str) or not isinstance(op, str) or not op.startswith("aten."):
        raise PipelineError(f"{where}: expected a point with its id and an aten op")
    inputs = []
    args = _template(sig.get("args") or [], inputs, f"{where}.signature.args")
    kwargs = {k: _template(v, inputs, f"{where}.signature.kwargs.{k}")
              for k, v in (sig.get("kwargs") or {}).items()}
    if op == "aten.index_add.default":
        _clamp_index(sig, args, inputs)
    parts = [_text(a) for a in args] + [f"{k}={_text(v)}" for k, v in kwargs.items()]
    return {"point": point["point"], "op": op, "inputs": inputs, "args": args, "kwargs": kwargs,
            "call": f"torch.ops.{op}({', '.join(parts)})"}


def merge(records, plans, timed):
    """records (op_timing's points) with each timed plan's "pipeline" object added: to the record
    of the same point, else a new record of the op alone (its faithful and fabricated modes are
    index_add's; null here). timed: {point: (pipeline object, kernels, kernels_note)}."""
    by_point = {r["point"]: r for r in records}
    out = list(records)
    for plan in plans:
        if plan["point"] not in timed:
            continue
        rec, kernels, note = timed[plan["point"]]
        if plan["point"] in by_point:
            by_point[plan["point"]]["pipeline"] = rec
            continue
        new = {"point": plan["point"], "op": plan["op"], "inputs": plan["inputs"], "setup": [],
               "faithful": None, "fabricated": None, "pipeline": rec, "kernels": list(kernels)}
        if note:
            new["kernels_note"] = note
        out.append(new)
    return out


def record(call, min_us, steady_us, replays):
    """The point's "pipeline" object (src/target/torch_ops.c reads it)."""
    if not (min_us > 0 and steady_us > 0) or replays < 2:
        raise PipelineError(f"{call}: expected positive times over at least 2 replays, got "
                            f"min {min_us}, steady {steady_us}, {replays} replays")
    return {"call": call, "calls_per_replay": 1, "replays": replays, "min_us": round(min_us, 3),
            "steady_us": round(steady_us, 3)}


# ---- the torch half ----

def _bind(t, tensors):
    if isinstance(t, dict) and set(t) == {"input"}:
        return tensors[t["input"]]
    if isinstance(t, list):
        return [_bind(a, tensors) for a in t]
    if isinstance(t, dict) and len(t) == 1 and next(iter(t)) in ("dtype", "device", "enum"):
        return scope.torch_literal(*next(iter(t.items())))
    return t


def bind_call(plan, tensors):
    """(args, kwargs) of plan with its inputs and literals bound. kwargs maps names to values: a
    lone {"dtype": ...} there is the keyword argument, not a literal (cumsum's dtype=torch.int32)."""
    return _bind(plan["args"], tensors), {k: _bind(v, tensors) for k, v in plan["kwargs"].items()}


def make_call(plan, device="cuda"):
    """(fn, args): fn(*args) runs plan["call"] on freshly fabricated inputs."""
    import functools
    import torch
    tensors = {spec["name"]: scope.make_tensor(spec, device) for spec in plan["inputs"]}
    fn = functools.reduce(getattr, plan["op"].split(".")[1:], torch.ops.aten)
    args, kwargs = bind_call(plan, tensors)
    torch.cuda.synchronize()
    return (lambda: fn(*args, **kwargs)), ()


def time_min(fn, args, warmup_ms, replays=REPLAYS):
    """The minimum per-call time over replays of a graph holding one call, in microseconds."""
    import time
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(*args)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(*args)
    started = time.perf_counter()
    while (time.perf_counter() - started) * 1000.0 < warmup_ms:
        graph.replay()
        torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = None
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        us = start.elapsed_time(end) * 1000.0
        best = us if best is None else min(best, us)
    del graph
    torch.cuda.synchronize()
    return best
