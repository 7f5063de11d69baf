"""From a model to its rollup in one command: dump its graphs, extract, capture, classify, run, rollup.

Everything goes under WORK: WORK/corpus (corpus.py), WORK/golden/occurrences (extract), the committed
old rule copied to WORK/golden/old_rule.json, this machine's target WORK/golden/targets/<target>
(targets.py --create) with its captures (capture.py), classification.json (classify --update) and
baselines.json (run --record), then the rollup printed and written to WORK/rollup.md. One progress
line per stage on stderr ("model-audit: [3/8] capture: ..."), another when it ends.

    python3 tools/capture/model_audit.py --work /tmp/dn --jobs 8 -- --model torchvision:densenet121 \\
        --mode train --batch 4 --autocast bf16
    python3 tools/capture/model_audit.py --work /tmp/dn --plan -- --model ...   # the commands, nothing run

Arguments after -- go to corpus.py (its --out is WORK/corpus). A stage that finds something wrong but
leaves the rest meaningful (a graph skipped, an occurrence not captured, a failed check) is reported and
the next stage runs; the exit is then 1. A stage that leaves nothing to go on (no graph, no audited op,
bad input) stops the command: exit 2, or 0 when the model holds no audited op at all.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import targets  # noqa: E402

CONTINUE, STOP = "continue", "stop"


class Stage:
    """One step: its name, its command (a list, or a callable of the earlier stages' outputs giving one),
    and what each exit status means: 0 done, the listed ones a warning that lets the next stage run."""

    def __init__(self, name, command, warn=(), done_if_empty=None):
        self.name, self.command, self.warn, self.done_if_empty = name, command, tuple(warn), done_if_empty


def stages(work, corpus_args, jobs, target=None, golden_src=os.path.join(ROOT, "golden")):
    cli, py = targets.cli_path(), sys.executable or "python3"
    corpus, golden = os.path.join(work, "corpus"), os.path.join(work, "golden")

    def tdir(out):
        return os.path.join(golden, "targets", out["target"])

    return [
        Stage("dump", [py, os.path.join(HERE, "corpus.py"), *corpus_args, "--out", corpus]),
        Stage("extract", [cli, "extract", "--corpus", corpus, "--out", os.path.join(golden, "occurrences"), "--json",
                          "--quiet"], warn=(1,), done_if_empty=_no_occurrence),
        Stage("rule", ["cp", os.path.join(golden_src, "old_rule.json"), os.path.join(golden, "old_rule.json")]),
        Stage("target", [py, os.path.join(HERE, "targets.py"), "--golden", golden, "--create"] if not target
              else ["echo", target]),
        Stage("capture", lambda out: [py, os.path.join(HERE, "capture.py"), "--golden", golden, "--out",
                                      os.path.join(tdir(out), "captures"), "--jobs", str(jobs)], warn=(1,)),
        Stage("classify", lambda out: [cli, "classify", "--golden", golden, "--target", out["target"], "--update"],
              warn=(1,)),
        Stage("run", lambda out: [cli, "run", "--golden", golden, "--target", out["target"], "--scope", "all",
                                  "--record", os.path.join(tdir(out), "baselines.json"), "--quiet"], warn=(1,)),
        Stage("rollup", lambda out: [cli, "rollup", "--golden", golden, "--target", out["target"], "--corpus", corpus,
                                     "--markdown", os.path.join(work, "rollup.md")], warn=(1,)),
    ]


def _no_occurrence(stdout):
    """extract's --json summary: True when the model holds no audited op."""
    try:
        return json.loads(stdout).get("occurrences_total", 0) == 0
    except ValueError:
        return False


def _run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    return r.returncode, r.stdout


def run_stages(plan, runner=_run, log=sys.stderr, clock=time.monotonic):
    """Runs plan in order; returns (exit status, each stage's stdout by name, and "target")."""
    outputs, warned = {}, []
    for i, stage in enumerate(plan, 1):
        cmd = stage.command(outputs) if callable(stage.command) else stage.command
        print(f"model-audit: [{i}/{len(plan)}] {stage.name}: {' '.join(cmd)}", file=log, flush=True)
        start = clock()
        rc, out = runner(cmd)
        took = clock() - start
        outputs[stage.name] = out
        if stage.name == "target":
            outputs["target"] = out.strip().splitlines()[-1] if out.strip() else ""
        if rc != 0 and rc not in stage.warn:
            print(f"model-audit: {stage.name} failed (exit {rc}, {took:.0f} s); stopped: the later stages need it",
                  file=log)
            return 2, outputs
        if rc != 0:
            warned.append(stage.name)
            print(f"model-audit: {stage.name} done with a warning (exit {rc}, {took:.0f} s: see its messages); "
                  f"going on", file=log)
        else:
            print(f"model-audit: {stage.name} done ({took:.0f} s)", file=log)
        if stage.done_if_empty and stage.done_if_empty(out):
            print(f"model-audit: {stage.name}: the model holds no audited op; nothing more to do", file=log)
            return 0, outputs
    if warned:
        print(f"model-audit: finished with warnings in: {', '.join(warned)}", file=log)
    return (1 if warned else 0), outputs


def main(argv):
    if "--" in argv:
        at = argv.index("--")
        own, corpus_args = argv[:at], argv[at + 1:]
    else:
        own, corpus_args = argv, []
    p = argparse.ArgumentParser(prog="model_audit.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--work", required=True, help="the folder everything goes under (made when missing)")
    p.add_argument("--jobs", type=int, default=4, help="scopes captured in parallel (capture.py --jobs)")
    p.add_argument("--target", help="the target's name (default: this machine's, made by targets.py --create)")
    p.add_argument("--plan", action="store_true", help="print the commands; run nothing")
    args = p.parse_args(own)
    if not corpus_args:
        p.error("expected the model's options after -- (corpus.py --help)")
    if "--out" in corpus_args:
        p.error("--out after --: the corpus goes to WORK/corpus")
    plan = stages(args.work, corpus_args, args.jobs, args.target)
    if args.plan:
        placeholder = {"target": args.target or "<this machine's target>"}
        for i, s in enumerate(plan, 1):
            cmd = s.command(placeholder) if callable(s.command) else s.command
            print(f"[{i}/{len(plan)}] {s.name}: {' '.join(cmd)}")
        return 0
    os.makedirs(os.path.join(args.work, "golden"), exist_ok=True)
    rc, outputs = run_stages(plan)
    if "rollup" in outputs:
        sys.stdout.write(outputs["rollup"])
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
