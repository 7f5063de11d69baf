"""target.json of a staged target (ci/golden-stage), as docs/reference/schema.md's extern-audit/target v1:
its name, GPU model, torch and capability, the environment the stage ran in (worker.environment(),
as capture.json records it), the candidate lowering when there is one, and "scopes" when only those
scopes were captured (a partial stage, which `extern-audit golden diff` compares on those scopes only
and `extern-audit golden accept` refuses).

    python3 tools/capture/stage_target.py --out STAGE/target.json [--name NAME] [--lowering NAME]
        [--scope SCOPE_ID]... [--command TEXT]

The name defaults to "<gpu model>-torch<torch>" ("H200-torch2.11.0+cu130"), with "-<lowering>" under a
candidate lowering, as target.h requires.
"""

import argparse
import sys

import atomic
import targets
import worker


def document(environment, name=None, lowering=None, scopes=(), command=""):
    """The target.json object for a stage that ran in environment (worker.environment()'s keys)."""
    model = targets.gpu_model(environment["gpu"])
    # the name target.h's reader expects: "<gpu model>-torch<torch>", "-<lowering>" under a candidate
    base = f"{model}-torch{environment['torch']}"
    name = name or (f"{base}-{lowering}" if lowering else base)
    if not name or name.startswith(".") or "/" in name:
        raise ValueError(f"target name {name!r}: expected a plain folder name (no '/', not starting with '.')")
    doc = {"schema": "extern-audit/target", "schema_version": 1, "name": name, "gpu_model": model,
           "torch": environment["torch"], "capability": environment["capability"],
           "note": f"staged by {command}" if command else "staged by ci/golden-stage",
           "environment": dict(environment)}
    if lowering:
        doc["lowering"] = lowering
        # what ci/golden-stage does under a lowering, said where a reviewer of the stage reads first
        doc["note"] += ("; torch_ops.json is the base target's (the op alone in eager torch, which a lowering "
                        "does not change); baselines.json and replay.json measured only the points and captures "
                        "recaptured under the lowering, every other entry kept from the base's "
                        "(run / replay --keep-from)")
    unique = list(dict.fromkeys(scopes))
    if unique:
        doc["scopes"] = unique
    return doc


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the target.json to write (atomically)")
    p.add_argument("--name", help="the target's name (default: <gpu model>-torch<torch>, -<lowering> under a candidate: the only names the C side reads)")
    p.add_argument("--lowering", help="the candidate lowering the stage was captured under")
    p.add_argument("--scope", action="append", default=[], metavar="SCOPE_ID",
                   help="a scope the stage captured (repeat; none: every scope, a complete stage)")
    p.add_argument("--command", default="", help="the stage's command line, for the note")
    args = p.parse_args(argv)
    try:
        doc = document(worker.environment(), args.name, args.lowering, args.scope, args.command)
    except (ValueError, targets.TargetError) as e:
        print(f"stage_target.py: {e}", file=sys.stderr)
        return 2
    atomic.write_json(args.out, doc)
    print(f"wrote {args.out}: target {doc['name']} ({doc['gpu_model']}, torch {doc['torch']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
