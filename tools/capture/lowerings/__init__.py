"""Candidate Inductor lowerings: each module here is a documented patch that the capture worker
applies around its compiles (`capture.py --lowering NAME`), emulating a lowering that has not
landed, so the scopes it would change can be captured, replayed and priced as if it had.

A module declares:
    STANDS_FOR  the upstream change or idea it stands for (a PR, an issue, a design note);
    OPS         the audited ops whose scopes it can change (scopes holding none are not captured);
    patch()     a context manager that installs the change in this process and removes it;
and optionally bind(specs), called with the capture's input specs (scope.plan_inputs) before
patch(), for a graph rewrite that needs what the golden scope knows of an input's values.
Modules are discovered from this folder: adding a candidate is adding a file.
"""

import importlib
import os
import pkgutil

HERE = os.path.dirname(os.path.abspath(__file__))


class LoweringError(Exception):
    """An unknown or malformed candidate lowering; the message names it and what is missing."""


def names():
    """Every candidate in this folder, sorted (private modules, _name, are helpers)."""
    return sorted(m.name for m in pkgutil.iter_modules([HERE]) if not m.name.startswith("_"))


def load(name):
    """The candidate module called name, checked for the three declarations."""
    if name not in names():
        raise LoweringError(f"--lowering {name}: no such candidate; known: {', '.join(names())}")
    mod = importlib.import_module(f"{__name__}.{name}")
    for attr, kind in (("STANDS_FOR", str), ("OPS", tuple)):
        if not isinstance(getattr(mod, attr, None), kind) or not getattr(mod, attr):
            raise LoweringError(f"lowerings/{name}.py: expected a non-empty {kind.__name__} {attr}")
    if not callable(getattr(mod, "patch", None)):
        raise LoweringError(f"lowerings/{name}.py: expected a patch() context manager")
    return mod


def affects(mod, scope):
    """Whether the scope (a golden scope: {"nodes": [...]}) holds an op the candidate changes."""
    return any(node.get("op") in mod.OPS for node in scope["nodes"])


def describe(mod):
    """capture.json's "lowering" object."""
    return {"name": mod.__name__.rsplit(".", 1)[-1], "stands_for": mod.STANDS_FOR,
            "ops": list(mod.OPS)}
