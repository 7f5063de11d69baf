"""Where the time goes between torch's bf16 index_add and the C replica (`repros/index_add`
current.cu): per device operation (the fill, the device-to-device copy of result.copy_(self), ATen's
index kernel), torch.profiler's durations and launch configurations against the replica's own,
which `extern-audit run` records from CUPTI as each path's "kernel_launches" (median of 5 eager
calls, copies included; docs/reference/schema.md). One GPU session measures both sides:

    build/extern-audit run --scope index_add --mode both --json > OUT/index_add_run.json
    python3 tools/capture/replica_gap.py --golden golden --replica OUT/index_add_run.json \\
        --out OUT/replica_gap.json          # ci/gpu-check STEPS=replica_gap runs both
    python3 tools/capture/replica_gap.py --golden golden --plan   # the pairs it will profile, no torch

Per point and index mode it writes torch's op time (tools/capture/timing.py, as op_timing.py times
it), each of torch's device operations over --calls eager calls and over the same calls replayed
from one CUDA graph (how both sides are timed), the replica's, and the pairing by role (fill, copy,
index, other) with each gap. Each role's "explanation" is decided from its numbers (which side runs
it, whether the launches agree, whether the times agree within SAME_TIME); the entry's own
"explanation" is written by hand once the numbers are read (the committed copy is
golden/targets/<target>/replica_gap.json), and a rerun into an existing file keeps it.

    python3 tools/capture/replica_gap.py --golden golden --points ID --calls-only faithful
        # three eager calls of torch's op, nothing else: what ncu wraps (STEPS=replica_ncu)

The pure half (trace parsing, grouping into calls, pairing, the document) runs without torch.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402
import golden  # noqa: E402
import op_timing  # noqa: E402
import timing  # noqa: E402
import worker  # noqa: E402
from op_timings import index_add  # noqa: E402

SCHEMA = "extern-audit/replica-gap"
VERSION = 1
CALLS = 20          # profiled calls per point and mode, eager and in a graph
WARMUP_CALLS = 5
CALLS_ONLY = 3      # --calls-only: ncu skips the first two (warm-up) and profiles the third
DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset")  # Kineto's device activity categories
ROLES = ("fill", "copy", "index", "memset", "other")
SAME_TIME = 0.05    # an operation within 5% of torch's counts as the same time (issue 13's aim)


class GapError(Exception):
    """A replica document or a profile that cannot be read as expected; says where and why."""


def progress(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---- the pure half ----

def role(name):
    """What a device operation does in the op: "Memcpy DtoD (Device -> Device)" is the copy,
    "void at::native::indexFuncLargeIndex<...>" the index kernel, a FillFunctor kernel the fill."""
    if name.startswith("Memcpy"):
        return "copy"
    if name.startswith("Memset"):
        return "memset"
    if "indexFunc" in name:
        return "index"
    if "Fill" in name or "fill" in name:
        return "fill"
    return "other"


def trace_ops(trace):
    """The device operations of a Chrome trace (torch.profiler's export), in start order:
    [{"name", "us", "grid", "block", "shared_bytes", "registers", "bytes"}]."""
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise GapError("profiler trace: expected an object with a traceEvents array")
    ops = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in DEVICE_CATS:
            continue
        args = e.get("args") or {}
        ops.append({"ts": e.get("ts", 0), "name": op_timing.kernel_name(str(e.get("name", "?"))),
                    "us": float(e.get("dur", 0.0)), "grid": args.get("grid"),
                    "block": args.get("block"), "shared_bytes": args.get("shared memory"),
                    "registers": args.get("registers per thread"), "bytes": args.get("bytes")})
    ops.sort(key=lambda o: o["ts"])
    for o in ops:
        del o["ts"]
    return ops


def per_call(ops, calls):
    """ops from `calls` equal calls, one entry per operation of a call with its median, min and
    max over the calls; GapError when they are not `calls` repeats of one sequence."""
    if calls < 1 or not ops or len(ops) % calls:
        raise GapError(f"the profile holds {len(ops)} device operations, not {calls} equal calls")
    n = len(ops) // calls
    out = []
    for i in range(n):
        same = [ops[c * n + i] for c in range(calls)]
        if any(o["name"] != same[0]["name"] for o in same):
            raise GapError(f"call {next(c for c, o in enumerate(same) if o['name'] != same[0]['name'])}"
                           f" ran {n} operations in another order than the first")
        us = [o["us"] for o in same]
        entry = {k: v for k, v in same[0].items() if k != "us" and v is not None}
        entry.update({"role": role(entry["name"]), "median_us": statistics.median(us),
                      "min_us": min(us), "max_us": max(us), "calls": calls})
        out.append(entry)
    return out


def replica_paths(doc, path):
    """{(point, mode): current path} of an `extern-audit run --json` document."""
    scopes = doc.get("scopes") if isinstance(doc, dict) else None
    if not isinstance(scopes, list):
        raise GapError(f"{path}: expected extern-audit run's JSON (an object with \"scopes\")")
    found = {}
    for r in scopes:
        if not isinstance(r, dict) or r.get("family") != "index_add":
            continue
        for p in r.get("paths") or []:
            if isinstance(p, dict) and p.get("name") == "current" and p.get("mode") in op_timing.MODES:
                found[(r.get("point"), p["mode"])] = p
    return found


def replica_side(p):
    """The replica's numbers for the document: its per-call times and per-operation durations."""
    launches = p.get("kernel_launches")
    side = {"time_us": (p.get("time") or {}).get("median_us"),
            "time_cold_us": (p.get("time_cold") or {}).get("median_us")}
    if isinstance(launches, list):
        side["ops"] = [{**l, "role": role(str(l.get("name", "")))} for l in launches]
    else:
        side["ops"] = []
        side["note"] = p.get("kernel_launches_note") or "no kernel_launches in the replica's path"
    return side


def launch_of(op):
    return {k: op.get(k) for k in ("grid", "block", "shared_bytes", "bytes", "registers")
            if op.get(k) is not None}


def _dims(v):
    """A grid or block as three integers ([1056, 1, 1]), so torch's and CUPTI's compare."""
    if isinstance(v, list):
        return (list(v) + [1, 1, 1])[:3]
    return v


def pair(torch_ops, replica_ops):
    """Per role, in role order: torch's and the replica's summed medians, the gap (replica -
    torch), each side's operations with their launches, and whether the launches agree."""
    rows = []
    for r in ROLES:
        t = [o for o in torch_ops if o["role"] == r]
        m = [o for o in replica_ops if o["role"] == r]
        if not t and not m:
            continue
        t_us = sum(o["median_us"] for o in t) if t else None
        m_us = sum(o["median_us"] for o in m) if m else None
        row = {"role": r, "torch_us": t_us, "replica_us": m_us,
               "gap_us": None if t_us is None or m_us is None else m_us - t_us,
               "torch": [{"name": o["name"], **launch_of(o)} for o in t],
               "replica": [{"name": o.get("name"), **launch_of(o)} for o in m]}
        row["same_launch"] = len(t) == len(m) and all(same_launch(a, b) for a, b in zip(row["torch"], row["replica"]))
        row["explanation"] = explain(row)
        rows.append(row)
    return rows


def same_launch(a, b):
    """A copy or memset is the same when it moves the same bytes; a kernel, with the same grid and block."""
    if a.get("bytes") is not None or b.get("bytes") is not None:
        return a.get("bytes") == b.get("bytes")
    return _dims(a.get("grid")) == _dims(b.get("grid")) and _dims(a.get("block")) == _dims(b.get("block"))


def _launch_text(ops):
    return "; ".join(f"{o['bytes']} bytes" if o.get("bytes") is not None else
                     f"grid {_dims(o.get('grid'))} block {_dims(o.get('block'))}" for o in ops)


def explain(row):
    """What the numbers of one role say, decided from them alone: which side runs it, whether the
    launches agree, and whether the times do (within SAME_TIME)."""
    t, m = row["torch_us"], row["replica_us"]
    if t is None:
        return "only the replica runs it"
    if m is None:
        return "only torch runs it"
    rel = (m - t) / t if t else 0.0
    time = (f"same time (within {SAME_TIME:.0%})" if abs(rel) <= SAME_TIME else
            f"the replica {abs(rel):.0%} {'faster' if rel < 0 else 'slower'}")
    if not row["same_launch"]:
        return (f"launch differs (torch {_launch_text(row['torch'])}, replica "
                f"{_launch_text(row['replica'])}): {time}")
    if abs(rel) <= SAME_TIME:
        return f"same launch, {time}"
    if row["role"] == "copy":  # both sides call the driver's memcpy of the same bytes: no code of ours differs
        return (f"the same driver copy of the same bytes, {time}: eager timings of a few-microsecond copy "
                "(not the replica's code)")
    return (f"same launch, {time}: the code differs (registers, instructions, atomics: "
            "ci/gpu-check STEPS=replica_ncu)")


def entry(plan, mode, torch_side, replica, old_explanations):
    """One element of the document's "points"."""
    rows = pair(torch_side.get("eager", []), replica["ops"])
    gaps = [r for r in rows if r["gap_us"] is not None]
    return {"point": plan["point"], "mode": mode, "call": plan["modes"][mode]["call"],
            "torch": torch_side, "replica": replica, "by_role": rows,
            "largest_gap": max(gaps, key=lambda r: abs(r["gap_us"]))["role"] if gaps else None,
            "explanation": old_explanations.get((plan["point"], mode))}


def explanations(path):
    """{(point, mode): text} of an earlier document at path; {} when there is none."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return {(p.get("point"), p.get("mode")): p.get("explanation") for p in doc.get("points", [])
            if isinstance(p, dict) and p.get("explanation")}


def document(command, environment, replica_file, points):
    return {"schema": SCHEMA, "schema_version": VERSION, "command": command,
            "environment": environment, "replica": replica_file,
            "method": f"torch: {CALLS} eager calls under torch.profiler after {WARMUP_CALLS} "
                      f"warm-up calls, and the same {CALLS} calls captured in one CUDA graph and "
                      "replayed under it (per operation: median over the calls); the op's time "
                      f"as op_timing.py measures it ({timing.method()['method']}). replica: "
                      "extern-audit run's kernel_launches (CUPTI, median of 5 eager calls, copies "
                      "included) and its warm and cold per-call times",
            "points": points}


def plans_and_replica(args):
    path, doc = golden.load_op(args.golden, index_add.KIND.file)
    plans = [index_add.plan_point(p, f"{path} $.points[{i}]")
             for i, p in op_timing.select_points(doc, path, args.points)]
    if args.plan or args.calls_only:
        return plans, None
    try:
        with open(args.replica, encoding="utf-8") as f:
            rdoc = json.load(f)
    except (OSError, ValueError) as e:
        raise GapError(f"{args.replica}: cannot read extern-audit run's JSON: {e}") from None
    replica = replica_paths(rdoc, args.replica)
    missing = [f"{p['point']} {m}" for p in plans for m in op_timing.MODES
               if p["modes"][m] and (p["point"], m) not in replica]
    if missing:
        raise GapError(f"{args.replica}: no current path for {', '.join(missing)} (run it with "
                       "--scope index_add --mode both --json)")
    return plans, replica


# ---- the torch half ----

def profile_ops(run, calls):
    """per_call() of the device operations torch.profiler sees while run() makes `calls` calls."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(trace)
        with open(trace, encoding="utf-8") as f:
            return per_call(trace_ops(json.load(f)), calls)


def torch_side(plan, tensors, mode):
    import torch
    fn, args = op_timing.make_call(plan, tensors, mode)
    for _ in range(WARMUP_CALLS):
        fn(*args)
    side = {"op_us": timing.time_calls(fn, args, warmup_ms=op_timing.WARMUP_MS)}
    side["eager"] = profile_ops(lambda: [fn(*args) for _ in range(CALLS)], CALLS)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            fn(*args)
    graph.replay()
    try:
        side["graph"] = profile_ops(graph.replay, CALLS)
    except GapError as e:  # the profiler may not see a graph's nodes one by one: say so, keep eager
        side["graph"], side["graph_note"] = None, str(e)
    del graph
    return side


def calls_only(plans, mode):
    """CALLS_ONLY eager calls of the op per point: ncu profiles one of them (its --launch-skip)."""
    try:
        op_timing.check_torch()
    except op_timing.OpTimingError as e:
        print(f"replica_gap.py: {e}", file=sys.stderr)
        return 2
    import torch
    for plan in plans:
        if plan["modes"][mode] is None:
            continue
        fn, args = op_timing.make_call(plan, op_timing.make_inputs(plan), mode)
        for _ in range(CALLS_ONLY):
            fn(*args)
        torch.cuda.synchronize()
        progress(f"{plan['point']} {mode}: {CALLS_ONLY} calls of torch's op")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="replica_gap.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--golden", required=True, help="the golden folder (occurrences/index_add.json)")
    p.add_argument("--replica", help="extern-audit run --scope index_add --mode both --json's output")
    p.add_argument("--out", help="the JSON file to write atomically (an existing one's "
                                 "explanations are kept)")
    p.add_argument("--points", nargs="+", default=[], metavar="ID", help="only these points")
    p.add_argument("--plan", action="store_true", help="print the points and calls, no torch")
    p.add_argument("--calls-only", choices=op_timing.MODES, metavar="MODE",
                   help="only call torch's op CALLS_ONLY times in MODE on each point's inputs, nothing "
                        "timed or written: what ncu wraps (ci/gpu-check STEPS=replica_ncu)")
    args = p.parse_args(argv)
    if not args.plan and not args.calls_only and not (args.replica and args.out):
        p.error("--replica and --out are required unless --plan or --calls-only")
    try:
        plans, replica = plans_and_replica(args)
    except (golden.GoldenError, op_timing.OpTimingError, GapError) as e:
        print(f"replica_gap.py: {e}", file=sys.stderr)
        return 2
    if args.calls_only:
        return calls_only(plans, args.calls_only)
    if args.plan:
        json.dump([{"point": pl["point"], **{m: pl["modes"][m] for m in op_timing.MODES}}
                   for pl in plans], sys.stdout, indent=1)
        print()
        return 0
    try:
        op_timing.check_torch()
        env = worker.environment()
        kept = explanations(args.out)
    except (op_timing.OpTimingError, OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"replica_gap.py: {e}", file=sys.stderr)
        return 2
    import torch
    points, failures = [], []
    for plan in plans:
        tensors = op_timing.make_inputs(plan)
        for mode in op_timing.MODES:
            if plan["modes"][mode] is None:
                continue
            progress(f"{plan['point']} {mode}: profiling torch")
            try:
                points.append(entry(plan, mode, torch_side(plan, tensors, mode),
                                    replica_side(replica[(plan["point"], mode)]), kept))
            except Exception as e:  # one point's failure is reported, the others still measured
                traceback.print_exc()
                failures.append(f"{plan['point']} {mode}: {type(e).__name__}: {op_timing.first_line(e)}")
        del tensors
        torch.cuda.empty_cache()
    command = " ".join(shlex.quote(a) for a in ["python3", *sys.argv])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    doc = document(command, env, args.replica, points)
    if failures:  # in the file too: a document missing a point says which and why
        doc["failures"] = failures
    atomic.write_json(args.out, doc)
    for message in failures:
        print(f"replica_gap.py: failed: {message}", file=sys.stderr)
    progress(f"wrote {args.out}: {len(points)} point-modes, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
