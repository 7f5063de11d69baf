"""Whether a fresh dump of a model reproduces the committed golden's point and scope ids (no torch).

    python3 tools/capture/corpus_ids.py --golden golden/occurrences --fresh W/golden/occurrences \\
        --model torchbench/train/densenet121

Both folders are extract's documents (<op>.json). For the model's occurrences (suite/mode/model) it
lists every point id and scope id the committed documents hold and says which of them the fresh ones
hold too, and which fresh ids are new. Exit 0 when every committed id is reproduced, 1 when one is
not, 2 for bad usage or an unreadable document.
"""

import argparse
import json
import os
import sys


def model_ids(folder, model):
    """{"point": set, "scope": set} of the occurrences of model ("suite/mode/model") in folder's <op>.json."""
    ids = {"point": set(), "scope": set()}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name == "summary.json":
            continue
        path = os.path.join(folder, name)
        with open(path) as f:
            doc = json.load(f)
        for p in doc.get("points", []):
            for s in p.get("scopes", []):
                for o in s.get("occurrences", []):
                    if f"{o.get('suite')}/{o.get('mode')}/{o.get('model')}" == model:
                        ids["point"].add(p["point"])
                        ids["scope"].add(s["scope_id"])
    return ids


def compare(committed, fresh):
    """Per kind: (reproduced, missing, new) as sorted lists."""
    return {k: (sorted(committed[k] & fresh[k]), sorted(committed[k] - fresh[k]), sorted(fresh[k] - committed[k]))
            for k in ("point", "scope")}


def main(argv):
    p = argparse.ArgumentParser(prog="corpus_ids.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--golden", required=True, help="the committed occurrences folder")
    p.add_argument("--fresh", required=True, help="the fresh dump's occurrences folder (extract --out)")
    p.add_argument("--model", required=True, help="suite/mode/model, as occurrence ids begin")
    args = p.parse_args(argv)
    try:
        committed, fresh = model_ids(args.golden, args.model), model_ids(args.fresh, args.model)
    except (OSError, ValueError, KeyError) as e:
        print(f"corpus_ids.py: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if not committed["point"]:
        print(f"corpus_ids.py: {args.golden} holds no occurrence of {args.model}", file=sys.stderr)
        return 2
    result, ok = compare(committed, fresh), True
    for kind, (same, missing, new) in result.items():
        print(f"{kind} ids: {len(same)} of {len(committed[kind])} committed reproduced; {len(new)} new")
        for i in missing:
            print(f"  missing {i}")
        for i in new:
            print(f"  new {i}")
        ok &= not missing
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
