"""The ops op_timing.py times alone in eager torch: each module here is one op's timing and
declares KIND, an OpKind (_common.py): the op, its golden occurrences file, its planner (pure:
the inputs and calls as the C replica builds them) and its torch half (setup, input check, call,
output check), with the reason a mode its plans leave out is not timed. Modules are discovered
from this folder: adding an op timing is adding a file (private modules, _name, are helpers).
"""

import importlib
import pkgutil

from ._common import OpKind, OpTimingError

TEXTS = ("file", "op", "untimed")
CALLS = ("plan", "setup", "check_inputs", "make_call", "check_call")


def _check(kind, where):
    if not isinstance(kind, OpKind):
        raise OpTimingError(f"{where}: expected KIND, an OpKind (op_timings/_common.py), "
                            f"got {kind!r:.80}")
    bad = [f"{f} (a non-empty str)" for f in TEXTS
           if not (isinstance(getattr(kind, f), str) and getattr(kind, f))]
    bad += [f"{f} (a function)" for f in CALLS if not callable(getattr(kind, f))]
    if not isinstance(kind.order, int) or isinstance(kind.order, bool):
        bad.append("order (an int)")
    if bad:
        raise OpTimingError(f"{where}: KIND: expected {', '.join(bad)}")


def discover(package=__name__):
    """The checked KIND of every module of package (a dotted name), in KIND.order; a module that does
    not import, an op or golden file declared twice, or an order taken twice is refused naming the
    module (a plan's op names the one kind that times it, and the order fixes where a document's
    points stand)."""
    kinds, seen = [], {}
    for name in sorted(m.name for m in pkgutil.iter_modules(importlib.import_module(package).__path__)
                       if not m.name.startswith("_")):
        where = f"{package.replace('.', '/')}/{name}.py"
        try:
            module = importlib.import_module(f"{package}.{name}")
        except Exception as e:  # noqa: BLE001 -- any import failure is this module's, named as such
            raise OpTimingError(f"{where}: does not import: {type(e).__name__}: {e}") from e
        kind = getattr(module, "KIND", None)
        _check(kind, where)
        for field in ("op", "file", "order"):
            key = (field, getattr(kind, field))
            if key in seen:
                raise OpTimingError(f"{where}: {field} {key[1]!r} is declared by {seen[key]} already")
            seen[key] = where
        kinds.append(kind)
    return tuple(sorted(kinds, key=lambda k: k.order))
