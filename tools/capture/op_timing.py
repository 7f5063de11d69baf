"""Times each audited op alone, as eager torch runs it: what the C replicas' fidelity is measured
against (golden/targets/<target>/torch_ops.json, schema extern-audit/torch-ops in docs/schema.md).

The captures time whole partitions (the index built, consumers run), so a replica of one op cannot
be compared with them. This times exactly what `extern-audit run` replicates, on the inputs the C
side generates (the same generators and seeds), one entry of OPS per replicated op:

- a bf16 index_add point: torch.ops.aten.index_add.default on a freshly filled self (the fill,
  ATen's result.copy_(self), its index kernel), with the C side's descriptors (repros/index_add/
  scope.h, reference.c), in both index modes: faithful (the index rebuilt from the point's value
  properties) and fabricated (randint(0, 100), as the attribution pipeline's replay draws it);
- an adaptive_avg_pool2d_backward point (repros/avgpool_backward: identity pools only):
  torch.ops.aten._adaptive_avg_pool2d_backward.default(grad, self) (ATen's zeros_like and its
  atomic kernel), grad generated as run.c generates it; faithful only (the family has no
  fabricated mode).

Beside them, every audited op of every golden point (cat, cumsum, histc, index_add) is priced as
the pipeline itself prices it (pipeline.py: fabricated inputs, one call per CUDA-graph replay, the
minimum over replays), the "pipeline" object the rollup's before-style column reads; --no-pipeline
skips it.

    python3 tools/capture/op_timing.py --golden golden --out golden/targets/H200-torch2.11.0+cu130/torch_ops.json
    python3 tools/capture/op_timing.py --golden golden --plan      # the calls and inputs, no torch

The planning half (argument building, JSON assembly) is pure so the tests run without torch.
"""

import argparse
import collections
import json
import os
import shlex
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402
import golden  # noqa: E402
import pipeline  # noqa: E402
import scope  # noqa: E402
import targets  # noqa: E402
import timing  # noqa: E402
import worker  # noqa: E402

SCHEMA = "extern-audit/torch-ops"
VERSION = 1
OP = "aten.index_add.default"
OP_FILE = "index_add"
MODES = ("faithful", "fabricated")
# repros/index_add/scope.h: IA_SEED_SELF, IA_SEED_SOURCE; the fabricated index's with scope.fabricated_scope.
SEED_SELF, SEED_SOURCE = 1, 3
SEED_FABRICATED, FABRICATED_HIGH = scope.SEED_FABRICATED, scope.FABRICATED_HIGH
WARMUP_MS = 100.0  # src/gpu/timer.h's default: both sides time a GPU that has left idle clocks
INDEX_KINDS = ("iota", "as_strided_iota")  # the index properties the C side rebuilds exactly
SUM_TOLERANCE = 1e-2  # the faithful call's output sum against the inputs' (bf16 rounding)
DEVICE = "cuda"
AVGPOOL_OP = "aten._adaptive_avg_pool2d_backward.default"
AVGPOOL_FILE = "adaptive_avg_pool2d_backward"
SEED_GRAD = 0  # repros/avgpool_backward/run.c's grad_gen: {"generator": "uniform", "seed": 0}


class OpTimingError(Exception):
    """A point cannot be turned into the op's inputs, or its call misbehaved; says where and why."""


def first_line(e):
    return str(e).splitlines()[0] if str(e) else ""


def progress(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---- the pure half: which tensors, which call ----

def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tensor(desc, dtype, where, what="the bf16 index_add the replica reproduces"):
    """A signature tensor's descriptor, checked as repros/index_add/scope.c checks it."""
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
    """Row-major dense, size-1 dims ignored (src/tensor.c's ea_tensor_is_contiguous)."""
    step = 1
    for size, stride in zip(reversed(t["sizes"]), reversed(t["strides"])):
        if size == 0:
            return True
        if size != 1 and stride != step:
            return False
        step *= size
    return True


def _derived(sig, pos):
    """The derived value properties of positional argument pos, or None."""
    for vp in sig.get("value_properties", []):
        if vp.get("arg") == pos and not isinstance(vp.get("arg"), bool) \
                and isinstance(vp.get("derived"), dict):
            return vp["derived"]
    return None


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
    scalar, x = (margs[1], margs[0]) if _is_number(margs[1]) else (margs[0], margs[1])
    if not _is_number(scalar) or not (isinstance(x, dict) and _is_number(x.get("ref"))):
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


def index_expectation(derived):
    """{"min", "max", "distinct"} the rebuilt faithful index must show (the C side's
    ia_index_check compares the same and more)."""
    if derived["kind"] == "iota":
        io = derived["iota"]
        last = io["start"] + io["step"] * (io["length"] - 1)
        return {"min": min(io["start"], last), "max": max(io["start"], last),
                "distinct": derived["distinct"]}
    return {k: derived[k] for k in ("min", "max", "distinct")}


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
    out = _tensor(sig.get("output"), "bf16", f"{where}.signature.output")
    self_t = _tensor(args[0], "bf16", f"{where}.signature.args[0]")
    index = _tensor(args[2], "i64", f"{where}.signature.args[2]")
    source = _tensor(args[3], "bf16", f"{where}.signature.args[3]")
    alpha = args[4] if len(args) == 5 else kwargs.get("alpha")
    dim = args[1]
    if not (isinstance(dim, int) and not isinstance(dim, bool)) or \
            not (alpha is None or _is_number(alpha)):
        raise OpTimingError(f"{where}.signature.args: expected an integer dim and a numeric alpha")
    dim = dim + len(self_t["sizes"]) if dim < 0 else dim
    if self_t != out or not is_contiguous(self_t) or self_t["offset"] != 0:
        raise OpTimingError(f"{where}.signature.args[0]: expected self contiguous and laid out as "
                            "the output (the C replica's result.copy_(self) is one memcpy)")
    if not 0 <= dim < len(self_t["sizes"]) or len(source["sizes"]) != len(self_t["sizes"]) or \
            len(index["sizes"]) > 1 or scope.numel(index["sizes"]) != source["sizes"][dim]:
        raise OpTimingError(f"{where}.signature.args: expected dim in range, source of self's "
                            "rank and a 1-d index of source.size(dim) elements")
    fill_props = _derived(sig, 0)
    fill = None
    if fill_props and fill_props.get("kind") == "constant":
        if not _is_number(fill_props.get("value")):
            raise OpTimingError(f"{where}: self's constant fill must be a number")
        fill = fill_props["value"]
    inputs = []
    if fill is None:  # the C side generates self then, and copies it every call
        inputs.append({"name": "self", **self_t,
                       "values": {"generator": "uniform", "seed": SEED_SELF}})
    idx_props = _derived(sig, 2)
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


def avgpool_call_text():
    """The timed call as Python source; the torch half runs exactly this (avgpool_call)."""
    return f"torch.ops.{AVGPOOL_OP}(grad, self)"


def plan_avgpool_point(point, where):
    """The op's inputs and call for one golden adaptive_avg_pool2d_backward point, refused where
    repros/avgpool_backward/plan.c's ap_scope_parse refuses it (only an identity pool of 4-d,
    contiguous bf16 tensors is replicated): {"point", "op", "out", "inputs", "setup",
    "modes": {"faithful": {"call": text}, "fabricated": None}}."""
    sig = point.get("signature") or {}
    args = sig.get("args") or []
    if not isinstance(point.get("point"), str) or sig.get("op") != AVGPOOL_OP:
        raise OpTimingError(f"{where}: expected an {AVGPOOL_OP} point with its id")
    if len(args) != 2:
        raise OpTimingError(f"{where}.signature.args: expected _adaptive_avg_pool2d_backward("
                            f"grad_output, self), got {len(args)} args")
    what = "the bf16 pool backward the replica reproduces"
    grad = _tensor(args[0], "bf16", f"{where}.signature.args[0]", what)
    self_t = _tensor(args[1], "bf16", f"{where}.signature.args[1]", what)
    out = _tensor(sig.get("output"), "bf16", f"{where}.signature.output", what)
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
    return {"point": point["point"], "op": AVGPOOL_OP, "out": out, "inputs": inputs,
            "setup": ["# grad is the replica's (run.c: uniform seed 0, exact in bf16); ATen reads "
                      "only self's sizes (at::zeros_like(self)) and the replica has no self, so "
                      "self's values are arbitrary"],
            "modes": {"faithful": {"call": avgpool_call_text()}, "fabricated": None}}


def select_points(doc, path, wanted):
    """[(position, point)] of the occurrences document named by --points (point or scope ids)."""
    chosen, missing = _chosen(doc, wanted)
    if missing:
        raise OpTimingError(f"--points: no such point or scope id in {path}: {', '.join(missing)}")
    return chosen


def _chosen(doc, wanted):
    """([(position, point)] named by wanted (all when it is empty), [wanted ids not found])."""
    points = list(enumerate(doc["points"]))
    if not wanted:
        return points, []
    chosen = [(i, p) for i, p in points
              if p.get("point") in wanted
              or any(g.get("scope_id") in wanted for g in p.get("scopes", []))]
    known = {p.get("point") for _, p in chosen}
    known |= {g.get("scope_id") for _, p in chosen for g in p.get("scopes", [])}
    return chosen, [w for w in wanted if w not in known]


def plan_points(golden_dir, wanted):
    """The plans of every point of every op in OPS (golden order, OPS order), or of those --points
    names (point or scope ids; each must name a point of one of them)."""
    plans, paths, missing = [], [], set(wanted)
    for kind in OPS:
        path, doc = golden.load_op(golden_dir, kind.file)
        chosen, absent = _chosen(doc, wanted)
        plans += [kind.plan(p, f"{path} $.points[{i}]") for i, p in chosen]
        paths.append(path)
        missing &= set(absent)
    if missing:
        raise OpTimingError(f"--points: no such point or scope id in {' or '.join(paths)}: "
                            f"{', '.join(w for w in wanted if w in missing)}")
    return plans


def kernel_name(raw):
    """A profiler kernel name without its parameter list, as run.c shortens CUPTI's:
    "void at::native::k<2, true>(float*, int)" -> "void at::native::k<2, true>"."""
    depth, k = 0, 0
    while k < len(raw):
        if raw.startswith("(anonymous namespace)", k):
            k += len("(anonymous namespace)")
            continue
        c = raw[k]
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0 and k > 0:
            return raw[:k].rstrip()
        k += 1
    return raw


def point_record(plan, times, kernels, kernels_note=None):
    """One element of the document's "points": the inputs and, per mode, the call and its time
    (null when the mode has no faithful index or was not timed)."""
    rec = {"point": plan["point"], "op": plan["op"], "inputs": plan["inputs"],
           "setup": plan["setup"]}
    for mode in MODES:
        m = plan["modes"][mode]
        rec[mode] = {"call": m["call"], **times[mode]} if m and mode in times else None
    rec["kernels"] = list(kernels)
    if kernels_note:
        rec["kernels_note"] = kernels_note
    return rec


def plan_view(plan):
    """What --plan prints of a point: its inputs, setup and per mode the index and the call."""
    return {"point": plan["point"], "op": plan["op"], "inputs": plan["inputs"],
            "setup": plan["setup"], **{mode: plan["modes"][mode] for mode in MODES}}


def document(command, environment, records):
    m = timing.method()
    return {"schema": SCHEMA, "schema_version": VERSION, "command": command,
            "environment": environment,
            "timing": {"method": f"{m['method']}, after at least {WARMUP_MS:g} ms of warm-up "
                                 "replays",
                       "calls_per_replay": m["calls_per_replay"], "replays": m["replays"],
                       "warmup_ms": WARMUP_MS},
            "points": records}


# ---- the torch half ----

def make_inputs(plan):
    """The plan's tensors by name on the GPU, setup applied (the op's OPS entry)."""
    import torch
    tensors = {spec["name"]: scope.make_tensor(spec, DEVICE) for spec in plan["inputs"]}
    kind_of(plan).setup(plan, tensors)
    torch.cuda.synchronize()
    return tensors


def make_call(plan, tensors, mode):
    """(fn, args): fn(*args) is the plan's call text in that mode (the op's OPS entry)."""
    return kind_of(plan).make_call(plan, tensors, mode)


def check_call(plan, fn, args):
    """One faithful call checked (the op's OPS entry); raises OpTimingError."""
    kind_of(plan).check_call(plan, fn, args)


def index_add_setup(plan, tensors):
    """plan["setup"]: the source scaled in place as the C side materializes it."""
    import torch
    if plan["source_scale"] is not None:  # plan["setup"] says the same in words
        source = tensors["source"]
        source.copy_((source.float() * plan["source_scale"]).to(torch.bfloat16))


def index_add_call(plan, tensors, mode):
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


def check_index(plan, tensors):
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


def index_add_check(plan, fn, args):
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


def avgpool_call(plan, tensors, mode):
    """(fn, args): fn(*args) is avgpool_call_text()."""
    import torch
    return torch.ops.aten._adaptive_avg_pool2d_backward.default, (tensors["grad"], tensors["self"])


def avgpool_check(plan, fn, args):
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


def _nothing(plan, tensors):
    pass


# One entry per replicated op: its golden file (golden/occurrences/<file>.json), the op, the
# planner (pure), and the torch half: setup after the inputs are generated, a check of the
# inputs, the call, and a check of one faithful call's output. A mode the plan leaves None is
# not timed, for the reason `untimed` gives.
OpKind = collections.namedtuple(
    "OpKind", "file op plan setup check_inputs make_call check_call untimed")
OPS = (
    OpKind(OP_FILE, OP, plan_point, index_add_setup, check_index, index_add_call,
           index_add_check, "no index to rebuild"),
    OpKind(AVGPOOL_FILE, AVGPOOL_OP, plan_avgpool_point, _nothing, _nothing, avgpool_call,
           avgpool_check, "the replica has no such mode"),
)


def kind_of(plan):
    """The OPS entry of a plan's op."""
    kind = next((k for k in OPS if k.op == plan["op"]), None)
    if kind is None:
        raise OpTimingError(f"{plan['point']}: no OPS entry for {plan['op']}")
    return kind


def profile_kernels(fn, args):
    """The device activity of one call, in order, names shortened (kernel_name)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    events.sort(key=lambda e: e.time_range.start)
    return [kernel_name(e.name) for e in events]


def time_point(plan, with_kernels):
    """point_record() of one point, timed in every mode it has."""
    import torch
    kind = kind_of(plan)
    progress(f"{plan['point']}: generating {len(plan['inputs'])} inputs")
    tensors = make_inputs(plan)
    kind.check_inputs(plan, tensors)
    times, first = {}, None
    for mode in MODES:
        if plan["modes"][mode] is None:
            progress(f"{plan['point']}: {mode}: {kind.untimed}, not timed")
            continue
        fn, args = make_call(plan, tensors, mode)
        if mode == "faithful":
            check_call(plan, fn, args)
        times[mode] = timing.time_calls(fn, args, warmup_ms=WARMUP_MS)
        first = first or (fn, args)
        progress(f"{plan['point']}: {mode}: {times[mode]['median_us']:.1f} us per call "
                 f"(IQR {times[mode]['q1_us']:.1f}-{times[mode]['q3_us']:.1f})")
    kernels, note = [], "not recorded (--no-kernels)"
    if with_kernels:
        try:
            kernels = profile_kernels(*first)
            note = None if kernels else "torch.profiler saw no device activity"
        except Exception as e:  # the kernel names are informative only: keep the timings
            note = f"torch.profiler failed: {type(e).__name__}: {first_line(e)}"
        progress(f"{plan['point']}: kernels {kernels or note}")
    del tensors, first
    torch.cuda.empty_cache()
    return point_record(plan, times, kernels, note)


def pipeline_plans(golden_dir, wanted):
    """pipeline.plan_point of every point of every audited op (those --points names, if any)."""
    plans = []
    for name in pipeline.PRICED_OPS:
        path, doc = golden.load_op(golden_dir, name)
        for i, p in enumerate(doc["points"]):
            ids = {p.get("point")} | {g.get("scope_id") for g in p.get("scopes", [])}
            if not wanted or ids & set(wanted):
                plans.append(pipeline.plan_point(p, f"{path} $.points[{i}]"))
    return plans


def time_pipeline(plan, with_kernels):
    """(pipeline object, kernels, kernels_note) of one point."""
    import torch
    fn, args = pipeline.make_call(plan, DEVICE)
    low = pipeline.time_min(fn, args, WARMUP_MS)
    steady = timing.time_calls(fn, args, warmup_ms=WARMUP_MS)["median_us"]
    progress(f"{plan['point']}: pipeline: {low:.1f} us alone (min of {pipeline.REPLAYS}), "
             f"{steady:.1f} us 20 to a replay")
    kernels, note = [], "not recorded (--no-kernels)"
    if with_kernels:
        try:
            kernels = profile_kernels(fn, args)
            note = None if kernels else "torch.profiler saw no device activity"
        except Exception as e:  # informative only
            note = f"torch.profiler failed: {type(e).__name__}: {first_line(e)}"
    del fn, args
    torch.cuda.empty_cache()
    return pipeline.record(plan["call"], low, steady, pipeline.REPLAYS), kernels, note


def check_torch():
    try:
        import torch
    except ImportError as e:
        raise OpTimingError(f"torch is needed to time the ops: {e}") from None
    if not torch.cuda.is_available():
        raise OpTimingError(f"no CUDA device visible to torch {torch.__version__}")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="op_timing.py",
        description="Time each golden bf16 index_add point's op alone in eager torch (fill, "
                    "copy, ATen's kernel), with faithful and fabricated indices, and each "
                    "adaptive_avg_pool2d_backward point's (zeros_like, ATen's kernel), by CUDA-graph "
                    "replay; writes golden/targets/<target>/torch_ops.json for extern-audit run's "
                    "replica fidelity. Needs torch and a CUDA GPU, except --plan.")
    p.add_argument("--golden", required=True, help="the golden folder (reads "
                                                   "occurrences/index_add.json and "
                                                   "occurrences/adaptive_avg_pool2d_backward.json)")
    p.add_argument("--out", help="the JSON file to write (atomically, and only when every point "
                                 "was timed), e.g. golden/targets/H200-torch2.11.0+cu130/"
                                 "torch_ops.json: the target of this GPU and torch")
    p.add_argument("--points", nargs="+", default=[], metavar="ID",
                   help="only these points (point ids, or scope ids of their groups)")
    p.add_argument("--plan", action="store_true",
                   help="print the inputs and calls as JSON and exit (no torch needed)")
    p.add_argument("--no-kernels", action="store_true",
                   help="skip recording the kernel names with torch.profiler")
    p.add_argument("--no-pipeline", action="store_true",
                   help="skip the pipeline's own method (every audited op alone on fabricated "
                        "inputs, one call per graph replay, the minimum over replays)")
    args = p.parse_args(argv)
    if not args.plan and not args.out:
        p.error("--out is required unless --plan")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        plans = plan_points(args.golden, args.points)
        lone = [] if args.no_pipeline else pipeline_plans(args.golden, args.points)
    except (golden.GoldenError, OpTimingError, pipeline.PipelineError) as e:
        print(f"op_timing.py: {e}", file=sys.stderr)
        return 2
    if args.plan:
        json.dump([plan_view(plan) for plan in plans] +
                  [{"point": p["point"], "op": p["op"], "inputs": p["inputs"],
                    "pipeline": p["call"]} for p in lone], sys.stdout, indent=1)
        print()
        return 0
    try:
        check_torch()
        env = worker.environment()
    except (OpTimingError, OSError, subprocess.CalledProcessError) as e:
        print(f"op_timing.py: {e}", file=sys.stderr)
        return 2
    try:
        want = os.path.join("targets", targets.name_of(targets.gpu_model(env["gpu"]), env["torch"]), "torch_ops.json")
    except targets.TargetError as e:
        print(f"op_timing.py: {e}", file=sys.stderr)
        return 2
    if not os.path.abspath(args.out).endswith(os.sep + want):
        progress(f"warning: this GPU is {env['gpu']!r} with torch {env['torch']}; extern-audit run reads "
                 f"golden/{want}, not {args.out}")
    counts = ", ".join(f"{sum(p['op'] == k.op for p in plans)} {k.file}" for k in OPS)
    progress(f"timing {len(plans)} points ({counts}) and {len(lone)} ops alone (the pipeline's "
             f"method) on {env['gpu']} (torch {env['torch']})")
    records, failed = [], []
    for plan in plans:
        try:
            records.append(time_point(plan, not args.no_kernels))
        except OpTimingError as e:
            failed.append(str(e))
        except Exception as e:  # a torch failure: keep its traceback, go on with the others
            traceback.print_exc()
            failed.append(f"{plan['point']}: {type(e).__name__}: {first_line(e)}")
    timed = {}
    for plan in lone:
        try:
            timed[plan["point"]] = time_pipeline(plan, not args.no_kernels)
        except pipeline.PipelineError as e:
            failed.append(str(e))
        except Exception as e:  # a torch failure: keep its traceback, go on with the others
            traceback.print_exc()
            failed.append(f"{plan['point']}: pipeline: {type(e).__name__}: {first_line(e)}")
    records = pipeline.merge(records, lone, timed)
    for message in failed:
        print(f"op_timing.py: failed: {message}", file=sys.stderr)
    if failed:
        # a partial file would read as complete (extern-audit run would call the rest unmeasured)
        print(f"op_timing.py: {len(failed)} of {len(plans) + len(lone)} timings failed; {args.out} not written"
              f"{' (the existing file is unchanged)' if os.path.exists(args.out) else ''}",
              file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    command = " ".join(shlex.quote(a) for a in ["python3", *sys.argv])
    atomic.write_json(args.out, document(command, env, records))
    progress(f"wrote {args.out}: {len(records)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
