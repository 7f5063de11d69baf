"""Installing a replacement in Inductor's decomposition tables for the length of a with-block."""

import contextlib


def _tables():
    """Every table Inductor may look a decomposition up in: `decompositions`, and the copy that
    select_decomp_table() hands out when fallback_random is off (fast_random_decomps(), built once
    per process and cached, so a change to `decompositions` alone would not reach it once built,
    and a change made while it was first built would outlive the with-block)."""
    from torch._inductor import decomposition
    tables = [decomposition.decompositions]
    fast = getattr(decomposition, "fast_random_decomps", None)
    if fast is not None and fast() is not tables[0]:
        tables.append(fast())
    return tables


@contextlib.contextmanager
def replaced(op, fn):
    """fn takes the place of op's decomposition in every table; the old entries (or their absence)
    come back on exit. fn may return NotImplemented to leave the op to its lowering or fallback,
    as Inductor's own decompositions do."""
    missing = object()
    saved = []
    for table in _tables():
        saved.append((table, table.get(op, missing)))
        table[op] = fn
    try:
        yield
    finally:
        for table, old in saved:
            if old is missing:
                del table[op]
            else:
                table[op] = old
