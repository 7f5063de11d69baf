"""Capture how TorchInductor compiles every distinct golden scope (golden/targets/<target>/captures/<scope>/).

Each scope is captured by worker.py in a fresh Python process with its own
TORCHINDUCTOR_CACHE_DIR: no compiled artefact of one scope can leak into another, and each
kernel's cubin is found on disk. N run in parallel (compilation is CPU-bound); the timing phases
take turns on the GPU through a lock file. See tools/capture/README.md.
"""

import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402
import golden  # noqa: E402
import lowerings  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="capture.py",
        description="Capture TorchInductor's code, kernels, replay plan and timings for every "
                    "distinct scope of golden/occurrences (needs torch and a CUDA GPU, except "
                    "--list).")
    p.add_argument("--golden", required=True, help="the golden folder (reads occurrences/*.json)")
    p.add_argument("--out", help="captures folder: one OUT/<scope_id>/ per scope, logs in "
                                 "OUT/.logs/")
    p.add_argument("--scope", action="append", default=[], metavar="SCOPE_ID",
                   help="capture only this scope (repeatable; any scope_id the capture covers)")
    p.add_argument("--jobs", type=int, default=1, help="scopes captured in parallel (default 1)")
    p.add_argument("--list", action="store_true", help="list the distinct scopes and exit")
    p.add_argument("--no-timing", action="store_true", help="skip the CUDA-graph timings")
    p.add_argument("--timeout", type=int, default=900, help="seconds per scope (default 900)")
    p.add_argument("--lowering", metavar="NAME",
                   help="capture with a candidate lowering applied (tools/capture/lowerings/NAME.py; "
                        "without --scope, only the scopes holding an op it changes); known: "
                        + ", ".join(lowerings.names()))
    args = p.parse_args(argv)
    if not args.list and not args.out:
        p.error("--out is required unless --list")
    if args.jobs < 1:
        p.error("--jobs: expected a positive count")
    return args


def select(scopes, wanted, lowering=None):
    """The scopes named by --scope (a representative or any scope_id it stands for); with no
    --scope, all of them, or with a candidate lowering those holding an op it changes."""
    if not wanted:
        return scopes if lowering is None else [s for s in scopes if lowerings.affects(lowering, s["scope"])]
    index = {sid: s for s in scopes for sid in [s["scope_id"], *s["also"]]}
    missing = [w for w in wanted if w not in index]
    if missing:
        raise golden.GoldenError(f"--scope: no such scope_id in the occurrences: "
                                 f"{', '.join(missing)}")
    chosen = {index[w]["scope_id"]: index[w] for w in wanted}
    return list(chosen.values())


def list_scopes(scopes):
    for s in scopes:
        also = f"  (also {', '.join(s['also'])})" if s["also"] else ""
        print(f"{s['scope_id']:45} {s['op']:24} covers {len(s['covers']):3}{also}")
    by_op = {}
    for s in scopes:
        by_op[s["op"]] = by_op.get(s["op"], 0) + 1
    print(f"{len(scopes)} distinct scopes: " + ", ".join(f"{op} {n}" for op, n in by_op.items()))


def run_summary(path):
    """One line per run of a written capture.json, for the progress log."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    parts = []
    for run in doc["runs"]:
        ev = run["evidence"]
        launches = "+".join(f"{k}{v}" for k, v in ev["triton_launches"].items() if v) or "none"
        fallbacks = ",".join(c.split(".")[-2] if c.count(".") > 1 else c
                             for c in ev["aten_calls"]) or "-"
        t = run["timing"]
        speed = (f" {t['eager']['median_us']:.1f}->{t['compiled']['median_us']:.1f}us"
                 if t else "")
        parts.append(f"{run['config']}: triton {launches}, aten {fallbacks}"
                     f"{', replayable' if run['replayable'] else ''}{speed}")
    return "; ".join(parts)


def capture_one(entry, args, command, lock, log_dir):
    """Runs worker.py for one scope; returns (ok, message)."""
    sid = entry["scope_id"]
    cache = tempfile.mkdtemp(prefix=f"inductor-{sid[:20]}-")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache, "TORCHINDUCTOR_COMPILE_THREADS": "1",
           "PYTHONUNBUFFERED": "1"}
    env.pop("TRITON_CACHE_DIR", None)
    cmd = [sys.executable, os.path.join(HERE, "worker.py"), "--golden", args.golden,
           "--out", args.out, "--scope", sid, "--command", command, "--lock", lock]
    if args.no_timing:
        cmd.append("--no-timing")
    if args.lowering:
        cmd += ["--lowering", args.lowering]
    log_path = os.path.join(log_dir, f"{sid}.log")
    try:
        with open(log_path, "w", encoding="utf-8") as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                timeout=args.timeout).returncode
    except subprocess.TimeoutExpired:
        return False, f"timed out after {args.timeout}s (log {log_path})"
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        # a worker killed on the timeout cannot remove the folder it was building
        atomic.cleanup(os.path.join(args.out, sid))
    result = os.path.join(args.out, sid, "capture.json")
    if rc == 0 and os.path.exists(result):
        return True, run_summary(result)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        errors = [line.strip() for line in f if line.startswith("error:")]
    return False, (errors[-1] if errors else f"worker exited {rc}") + f" (log {log_path})"


def main(argv):
    args = parse_args(argv)
    try:
        lowering = lowerings.load(args.lowering) if args.lowering else None
        scopes = select(golden.load_scopes(args.golden), args.scope, lowering)
    except (golden.GoldenError, lowerings.LoweringError) as e:
        print(f"capture.py: {e}", file=sys.stderr)
        return 2
    if args.list:
        list_scopes(scopes)
        return 0
    command = " ".join(shlex.quote(a) for a in ["python3", *sys.argv])
    log_dir = os.path.join(args.out, ".logs")
    os.makedirs(log_dir, exist_ok=True)
    lock = os.path.join(log_dir, "gpu.lock")
    print(f"capturing {len(scopes)} scopes, {args.jobs} at a time, into {args.out}", flush=True)
    start, done, failed = time.time(), 0, []

    def task(entry):
        t0 = time.time()
        ok, message = capture_one(entry, args, command, lock, log_dir)
        return entry, ok, message, time.time() - t0

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for fut in concurrent.futures.as_completed([pool.submit(task, s) for s in scopes]):
            entry, ok, message, secs = fut.result()
            done += 1
            if not ok:
                failed.append((entry["scope_id"], message))
            print(f"[{done}/{len(scopes)}] {'ok  ' if ok else 'FAIL'} {entry['scope_id']} "
                  f"{secs:.0f}s  {message}", flush=True)
    print(f"{len(scopes) - len(failed)} captured, {len(failed)} failed in "
          f"{time.time() - start:.0f}s", flush=True)
    for sid, message in failed:
        print(f"failed: {sid}: {message}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
