"""Installing a replacement in Inductor's decomposition table for the length of a with-block."""

import contextlib


@contextlib.contextmanager
def replaced(op, fn):
    """Inductor looks its decompositions up in torch._inductor.decomposition.decompositions when it
    traces a graph, so a replacement there changes what every later compile in this process sees;
    the old entry (or its absence) comes back on exit. fn may return NotImplemented to leave the op
    to its lowering or fallback, as Inductor's own decompositions do."""
    from torch._inductor import decomposition
    table = decomposition.decompositions
    missing = object()
    old = table.get(op, missing)
    table[op] = fn
    try:
        yield
    finally:
        if old is missing:
            del table[op]
        else:
            table[op] = old
