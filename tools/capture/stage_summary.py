"""What a candidate lowering changes, read off a staged target (ci/golden-stage): per recaptured
scope, the ATen op path (eager), today's compiled code (the "without_lowering" run) and the
candidate's compiled code, all three timed in one process on one GPU, with what each launched;
beside them the oracle of the committed baselines for the same GPU model (another run: a reference,
not a ratio of this run).

    python3 tools/capture/stage_summary.py --golden golden --stage STAGE --lowering NAME
        [--out FILE]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402
import targets  # noqa: E402


class StageError(Exception):
    """The staged folder does not hold what the summary needs; the message names the file."""


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise StageError(f"{path}: cannot read: {e}") from e


def _median(run, side):
    t = run.get("timing")
    return t[side]["median_us"] if t else None


def _launched(run):
    ev = run["evidence"]
    return {"triton": sum(ev["triton_launches"].values()), "aten": ev["aten_calls"],
            "atomic_kernels": ev["atomic_kernels"]}


def oracles(golden_dir, target):
    """{scope_id: (alias, oracle median us)} from golden/targets/<target>/baselines.json, when it exists."""
    path = os.path.join(targets.folder(golden_dir, target), "baselines.json")
    if not os.path.exists(path):
        return {}, None
    out = {}
    for sc in _read(path)["scopes"]:
        best = [p["time"]["median_us"] for p in sc.get("paths", [])
                if p["name"].startswith("oracle") and p.get("passed") and p.get("time")]
        for sid in sc["scope_ids"]:
            if best:
                out[sid] = (sc.get("alias"), min(best))
    return out, path


def summarize(golden_dir, stage, lowering):
    captures = os.path.join(stage, "captures")
    rows, gpu, target = [], None, None
    for name in sorted(os.listdir(captures)):
        path = os.path.join(captures, name, "capture.json")
        if name.startswith(".") or not os.path.exists(path):
            continue
        doc = _read(path)
        if doc.get("lowering", {}).get("name") != lowering:
            continue
        gpu = targets.gpu_model(doc["environment"]["gpu"])
        target = targets.name_of(gpu, doc["environment"]["torch"])
        runs = {r["config"]: r for r in doc["runs"]}
        if "without_lowering" not in runs:
            raise StageError(f"{path}: $.runs: expected a without_lowering run beside the candidate's")
        cand, today = runs["default"], runs["without_lowering"]
        row = {"scope": doc["scope"], "covers": len(doc["covers"]),
               "aten_op_path_us": _median(today, "eager"),
               "compiled_today_us": _median(today, "compiled"),
               "candidate_us": _median(cand, "compiled"),
               "today": _launched(today), "candidate": _launched(cand),
               "candidate_replayable": cand["replayable"]}
        row["changed"] = row["today"] != row["candidate"]
        if row["compiled_today_us"] and row["candidate_us"]:
            row["speedup"] = row["compiled_today_us"] / row["candidate_us"]
        rows.append(row)
    if not rows:
        raise StageError(f"{captures}: no capture made under the candidate {lowering!r}")
    table, baseline = oracles(golden_dir, target)
    for row in rows:
        if row["scope"] in table:
            row["oracle_alias"], row["oracle_us_other_run"] = table[row["scope"]]
            if row["candidate_us"]:
                row["candidate_over_oracle"] = row["candidate_us"] / row["oracle_us_other_run"]
    return {"schema": "extern-audit/stage-summary", "schema_version": 1, "lowering": lowering,
            "gpu": gpu, "stage": stage, "oracle_source": baseline,
            "method": "aten_op_path, compiled_today and candidate from one capture process: CUDA graph "
                      "of 20 calls, 30 replays, per-call median; oracles from the baselines file "
                      "(another run on the same GPU model)",
            "scopes": rows}


def print_table(doc):
    print(f"candidate {doc['lowering']} on {doc['gpu']} (us per call; ATen / today / candidate "
          f"in one run; oracle from {doc['oracle_source'] or 'no baselines file'})")
    print(f"{'scope':42} {'covers':>6} {'ATen op':>9} {'today':>9} {'candidate':>9} "
          f"{'speedup':>7} {'oracle':>9}  launches today -> candidate")
    for r in doc["scopes"]:
        def f(v):
            return f"{v:9.2f}" if v is not None else f"{'-':>9}"
        lt, lc = r["today"], r["candidate"]
        print(f"{r['scope']:42} {r['covers']:6} {f(r['aten_op_path_us'])} {f(r['compiled_today_us'])} "
              f"{f(r['candidate_us'])} {r.get('speedup', float('nan')):7.2f} "
              f"{f(r.get('oracle_us_other_run'))}  triton {lt['triton']} aten {len(lt['aten'])} -> "
              f"triton {lc['triton']} aten {len(lc['aten'])} atomic {lc['atomic_kernels']}"
              f"{'' if r['changed'] else '  (unchanged: the candidate did not apply)'}")


def main(argv):
    p = argparse.ArgumentParser(prog="stage_summary.py", description=__doc__.splitlines()[0])
    p.add_argument("--golden", required=True)
    p.add_argument("--stage", required=True)
    p.add_argument("--lowering", required=True)
    p.add_argument("--out", help="also write the summary as JSON (atomically)")
    args = p.parse_args(argv)
    try:
        doc = summarize(args.golden, args.stage, args.lowering)
    except (StageError, targets.TargetError) as e:
        print(f"stage_summary.py: {e}", file=sys.stderr)
        return 2
    print_table(doc)
    if args.out:
        atomic.write_json(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
