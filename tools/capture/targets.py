"""The golden target of a GPU and a torch build (src/target/target.h, docs/reference/schema.md "target").

What depends on both (captures, classification, torch op timings, replay, baselines) lives in
golden/targets/<gpu model>-torch<torch version>/, described by its target.json. This module names the
target of an environment (worker.environment()'s "gpu", "torch", "capability"), finds its folder and,
with --create, makes it when none matches, so a new GPU or a new torch is a new folder:

    python3 tools/capture/targets.py --golden golden [--create]   # prints the target's name

Standard library only: torch is imported only to read the environment (worker.environment). The GPU
model comes from the built CLI (`extern-audit gpu-model`; $EXTERN_AUDIT_CLI, default build/extern-audit).
"""

import argparse
import functools
import json
import os
import subprocess
import sys

import atomic

SCHEMA = "extern-audit/target"
VERSION = 1
KEYS = ("schema", "schema_version", "name", "gpu_model", "torch", "capability", "note")
# a stage's (ci/golden-stage) and an accepted candidate's: src/golden/golden_target.c and src/target/target_captures.c read them
OPTIONAL = ("lowering", "scopes", "environment", "captures_from")


class TargetError(Exception):
    pass


CLI_ENV = "EXTERN_AUDIT_CLI"
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def cli_path():
    """The extern-audit binary the C-side answers come from: $EXTERN_AUDIT_CLI, else build/extern-audit."""
    return os.environ.get(CLI_ENV) or os.path.join(ROOT, "build", "extern-audit")


@functools.lru_cache(maxsize=None)
def _gpu_model(name, cli):
    if not os.access(cli, os.X_OK):
        raise TargetError(f"{cli}: expected the built extern-audit CLI, which names the GPU model of {name!r} "
                          f"(make, or set {CLI_ENV} to its path)")
    r = subprocess.run([cli, "gpu-model", "--json", name], capture_output=True, text=True)
    if r.returncode != 0:
        raise TargetError(f"{cli} gpu-model {name!r}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)["gpu_model"]


def gpu_model(name):
    """The GPU model that names targets ("NVIDIA H200" -> "H200"), asked of the C side
    (`extern-audit gpu-model`, src/gpu/device.c's ea_gpu_model) so the mapping exists once."""
    return _gpu_model(name, cli_path())


def name_of(model, torch):
    return f"{model}-torch{torch}"


def folder(golden, name):
    return os.path.join(golden, "targets", name)


def load(path):
    """A target.json read as strictly as src/target/target.c reads it (the same checks, the same order)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise TargetError(f"{path}: cannot read: {e}") from None
    if not isinstance(doc, dict) or set(doc) - set(KEYS) - set(OPTIONAL):
        raise TargetError(f"{path} $: expected an object with only the keys {', '.join(KEYS + OPTIONAL)}")
    if doc.get("schema") != SCHEMA or doc.get("schema_version") != VERSION:
        raise TargetError(f"{path} $: expected schema {SCHEMA!r} version {VERSION}")
    for k in KEYS[2:]:
        if not isinstance(doc.get(k), str) or not doc[k]:
            raise TargetError(f"{path} $.{k}: expected a non-empty string")
    if "lowering" in doc and (not isinstance(doc["lowering"], str) or not doc["lowering"]):
        raise TargetError(f"{path} $.lowering: expected a non-empty string")
    want = name_of(doc["gpu_model"], doc["torch"]) + (f"-{doc['lowering']}" if "lowering" in doc else "")
    if doc["name"] != want or doc["name"] != os.path.basename(os.path.dirname(os.path.abspath(path))):
        raise TargetError(f"{path} $.name: expected {want!r}, the target's folder name, got {doc['name']!r}")
    return doc


def document(env, note):
    model = gpu_model(env["gpu"])
    return {"schema": SCHEMA, "schema_version": VERSION, "name": name_of(model, env["torch"]),
            "gpu_model": model, "torch": env["torch"], "capability": env["capability"], "note": note}


def ensure(golden, env, create, note=None):
    """(name, created): the environment's target; its folder is made (target.json written
    atomically) when create and none exists; a folder whose target.json disagrees is refused."""
    doc = document(env, note or f"created for {env['gpu']} (capability {env['capability']}) with torch "
                                f"{env['torch']} from the environment this machine reported")
    path = os.path.join(folder(golden, doc["name"]), "target.json")
    if os.path.exists(path):
        have = load(path)
        for k in ("gpu_model", "torch", "capability"):
            if have[k] != doc[k]:
                raise TargetError(f"{path} $.{k}: expected {doc[k]!r} (this machine), got {have[k]!r}")
        return doc["name"], False
    if not create:
        raise TargetError(f"{path}: no target for {doc['gpu_model']} with torch {doc['torch']} "
                          f"(--create makes it)")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic.write_json(path, doc)
    return doc["name"], True


def _environment():
    import worker  # imports torch: only when a machine is asked about
    return worker.environment()


def main(argv):
    p = argparse.ArgumentParser(prog="targets.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--golden", required=True, help="the golden folder (holds targets/)")
    p.add_argument("--create", action="store_true",
                   help="make golden/targets/<target>/target.json when this machine's target is new")
    args = p.parse_args(argv)
    try:
        env = _environment()
    except Exception as e:  # no torch, no GPU, no nvidia-smi: the caller falls back to the C side's choice
        print(f"targets.py: cannot read this machine's GPU and torch: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    try:
        name, created = ensure(args.golden, env, args.create)
    except TargetError as e:
        print(f"targets.py: {e}", file=sys.stderr)
        return 2
    if created:
        print(f"targets.py: created {folder(args.golden, name)}/target.json", file=sys.stderr)
    print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
