"""The scopes to capture, read from golden/occurrences/*.json.

Occurrences are grouped into points (same signature) and scope groups (same optimization
boundary). Two groups can hold the same subgraph: the same scope from a second point (M2M100 infer
and train differ only in the recorded index range) or the same nodes seen from another audited op
(the gpt-oss routing scope is both the histc's and the cumsum's scope, with the roles swapped).
Compiling either gives the same code, so one capture stands for all of them and `covers` lists
every occurrence id.
"""

import json
import os

SUMMARY = "summary"  # occurrences/summary.json: the totals, not an op's document
# the ops that joined the audit set after the H200 captures (ea_audit_op.added): ci/newops-capture's scopes
ADDED_OP_FILES = ("fft_c2c", "view_as_real", "view_as_complex", "operator_mul", "adaptive_avg_pool2d_backward")


class GoldenError(Exception):
    """A golden file is missing or does not hold what the capture needs."""


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise GoldenError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise GoldenError(f"{path}: not JSON: {e}") from e
    if doc.get("schema") != "extern-audit/occurrences" or not isinstance(doc.get("points"), list):
        raise GoldenError(f"{path}: expected schema extern-audit/occurrences with a points array")
    return doc


def subgraph_key(scope):
    """The scope's content without node roles: equal keys compile to the same code."""
    nodes = [{k: v for k, v in node.items() if k != "role"} for node in scope["nodes"]]
    return json.dumps({**scope, "nodes": nodes}, sort_keys=True)


def distinct_scopes(docs):
    """One entry per distinct subgraph, in audit-op then file order; the first group seen is the
    representative whose scope_id names the capture.

    docs: [(path, occurrences document)]. Returns dicts with scope_id, op (the op file's op), scope,
    point (the representative's point, for its value properties), covers, also (other scope_ids)."""
    by_key = {}
    for path, doc in docs:
        for p, point in enumerate(doc["points"]):
            for g, group in enumerate(point.get("scopes", [])):
                where = f"{path} $.points[{p}].scopes[{g}]"
                for field in ("scope_id", "scope", "occurrences"):
                    if field not in group:
                        raise GoldenError(f"{where}: expected field {field!r}")
                if not isinstance(group["scope"].get("nodes"), list):
                    raise GoldenError(f"{where}.scope.nodes: expected an array of nodes")
                key = subgraph_key(group["scope"])
                entry = by_key.get(key)
                if entry is None:
                    entry = by_key[key] = {"scope_id": group["scope_id"], "op": doc["op"],
                                           "scope": group["scope"], "point": point,
                                           "covers": [], "also": []}
                else:
                    entry["also"].append(group["scope_id"])
                entry["covers"].extend(o["id"] for o in group["occurrences"])
    return list(by_key.values())


def op_files(golden_dir):
    """The audited ops' document names, sorted: golden_dir/occurrences/<name>.json but the summary
    (extract writes one per op, so an op added to the audit needs no edit here)."""
    folder = os.path.join(golden_dir, "occurrences")
    try:
        names = sorted(n[:-len(".json")] for n in os.listdir(folder) if n.endswith(".json"))
    except OSError as e:
        raise GoldenError(f"{folder}: cannot list: {e.strerror}") from e
    names = [n for n in names if n != SUMMARY]
    if not names:
        raise GoldenError(f"{folder}: expected an occurrences document per audited op, found none")
    return names


def load_op(golden_dir, name):
    """(path, document) of golden_dir/occurrences/<name>.json, name one of op_files(golden_dir)."""
    path = os.path.join(golden_dir, "occurrences", f"{name}.json")
    return path, _load(path)


def load_scopes(golden_dir):
    """Every distinct scope of the op documents under golden_dir/occurrences."""
    return distinct_scopes([load_op(golden_dir, name) for name in op_files(golden_dir)])
