"""What a stage recaptured, for ci/golden-stage's run and replay --keep-from (standard library only, no torch).

A capture is recaptured when the stage's capture.json is not byte for byte the base target's (or the base
has none); every other capture was copied from the base. Prints, comma-separated on one line:

    python3 tools/capture/recaptured.py --stage STAGE --base BASE captures
        the recaptured capture folders (replay --scope)
    python3 tools/capture/recaptured.py --stage STAGE --base BASE --golden GOLDEN points
        the golden points holding an occurrence a recaptured capture covers (run --scope): a capture may
        cover several points (the gpt-oss routing capture covers the cumsum point and the histc point),
        and each must be measured again

An empty line when nothing was recaptured. Exit 2, naming the file, when a capture or an occurrence file
does not read.
"""

import argparse
import json
import os
import sys


class Unreadable(Exception):
    pass


def _load(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        return raw, json.loads(raw)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{path}: {e}") from e


def captures(stage, base):
    """The stage's capture folders whose capture.json differs from the base's, sorted."""
    root = os.path.join(stage, "captures")
    out = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "capture.json")
        if name.startswith(".") or not os.path.isfile(path):
            continue
        mine, _ = _load(path)
        theirs = os.path.join(base, "captures", name, "capture.json")
        if not os.path.isfile(theirs) or _load(theirs)[0] != mine:
            out.append(name)
    return out


def points(stage, base, golden):
    """The golden points (golden order) holding an occurrence that a recaptured capture covers."""
    covered = set()
    for name in captures(stage, base):
        covered.update(_load(os.path.join(stage, "captures", name, "capture.json"))[1].get("covers", []))
    folder = os.path.join(golden, "occurrences")
    out = []
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".json"):
            continue
        doc = _load(os.path.join(folder, fname))[1]
        for p in doc.get("points", []) if isinstance(doc, dict) else []:
            ids = {o["id"] for g in p.get("scopes", []) for o in g.get("occurrences", [])}
            if ids & covered and p["point"] not in out:
                out.append(p["point"])
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--stage", required=True)
    p.add_argument("--base", required=True)
    p.add_argument("--golden", help="the golden folder whose occurrences map captures to points (points)")
    p.add_argument("what", choices=("captures", "points"))
    args = p.parse_args(argv)
    if args.what == "points" and not args.golden:
        p.error("points needs --golden")
    try:
        names = captures(args.stage, args.base) if args.what == "captures" else \
            points(args.stage, args.base, args.golden)
    except (Unreadable, OSError) as e:
        print(f"recaptured.py: {e}", file=sys.stderr)
        return 2
    print(",".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
