"""Times each audited op alone, as eager torch runs it: what the C replicas' fidelity is measured
against (golden/targets/<target>/torch_ops.json, schema extern-audit/torch-ops in docs/reference/schema.md).

The captures time whole partitions (the index built, consumers run), so a replica of one op cannot
be compared with them. This times exactly what `extern-audit run` replicates, on the inputs the C
side generates (the same generators and seeds), one module of op_timings/ per replicated op (its
OpKind: golden file, planner, setup, call, checks), discovered from the folder into OPS:

- op_timings/index_add.py: a bf16 index_add point on a freshly filled self (the fill, ATen's
  result.copy_(self), its index kernel), with the faithful index (rebuilt from the point's value
  properties) and the fabricated one (randint(0, 100), as the attribution pipeline's replay draws it);
- op_timings/adaptive_avg_pool2d_backward.py: an identity pool's backward (ATen's zeros_like and its
  atomic kernel), grad generated as run.c generates it; faithful only (the family has no
  fabricated mode).

Adding an op timing is adding a module there. This file keeps what every op shares: the planning
loop over OPS, the timing, the kernel names, the pipeline's pricing, the document and the CLI.

Beside them, every audited op of every golden point (cat, cumsum, histc, index_add) is priced as
the pipeline itself prices it (pipeline.py: fabricated inputs, one call per CUDA-graph replay, the
minimum over replays), the "pipeline" object the rollup's before-style column reads; --no-pipeline
skips it.

    python3 tools/capture/op_timing.py --golden golden --out golden/targets/H200-torch2.11.0+cu130/torch_ops.json
    python3 tools/capture/op_timing.py --golden golden --plan      # the calls and inputs, no torch

The planning half (argument building, JSON assembly) is pure so the tests run without torch.
"""

import argparse
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
import op_timings  # noqa: E402
import pipeline  # noqa: E402
import scope  # noqa: E402
import targets  # noqa: E402
import timing  # noqa: E402
import worker  # noqa: E402
from op_timings._common import DEVICE, OpTimingError  # noqa: E402

SCHEMA = "extern-audit/torch-ops"
VERSION = 1
MODES = ("faithful", "fabricated")
WARMUP_MS = 100.0  # src/gpu/timer.h's default: both sides time a GPU that has left idle clocks
OPS = op_timings.discover()


def first_line(e):
    return str(e).splitlines()[0] if str(e) else ""


def progress(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---- the pure half: which points, which document ----

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
    reads = " and ".join(f"occurrences/{k.file}.json" for k in OPS)
    p.add_argument("--golden", required=True, help=f"the golden folder (reads {reads})")
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
