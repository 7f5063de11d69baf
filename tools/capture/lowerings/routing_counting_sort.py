"""The ascending sort of small-range integer keys (the gpt-oss routing scope's expert ids, sorted
before histc and cumsum) as a counting sort written with ops Inductor lowers: one-hot counts, an
exclusive scan for each key's first slot, a per-key running count for the rank among equal keys,
and a scatter of every key and its position to its slot.

Keys k[i] in [0, E): offset[e] = #{keys < e}, rank[i] = #{i' < i : k[i'] = k[i]}, slot[i] =
offset[k[i]] + rank[i]. The slots are a permutation of 0..n-1 and order equal keys by position,
which is exactly the stable sort: sorted[slot[i]] = k[i], indices[slot[i]] = i (bit-exact values
and permutation; torch's sort.stable gives the same). Inductor lowers the one-hot compare, the sums
and scans (tl.associative_scan) and a non-accumulating scatter (each slot written once, no atomics);
the n x E one-hot is bounded by MAX_KEYS so it stays small (gpt-oss: 4000 ids x 32 experts).

The key range is not in the graph: the ids are a placeholder (the forward's topk indices), so the
rewrite takes it from the golden scope (`bind`: the topk_ids generator's expert count); a real pass
would read it from the topk in the joint graph (indices of a topk over a dim of size E lie in
[0, E)). Descending sorts, other dims of a multi-dimensional tensor and unknown ranges keep ATen's.
"""

import contextlib

from . import _graph

STANDS_FOR = ("an Inductor pattern pass: a stable ascending sort of integer keys known to lie in "
              "[0, E) for small E (MoE expert ids from a topk) lowered as a counting sort (one-hot "
              "counts, scans, a scatter of positions) instead of the aten.sort.stable fallback")
OPS = ("aten.histc.default",)  # the routing scope, where the sort feeds the histc

MAX_KEYS = 1024  # the one-hot is n x E: beyond this the counting sort moves more than a radix sort

_specs = None


def bind(specs):
    global _specs
    _specs = specs


def key_range(node, specs=None):
    """E when the sorted tensor's values lie in [0, E) (a topk_ids input, through order-keeping
    views), else None."""
    spec = _graph.input_spec(_graph.strip_order_keeping(node), specs)
    if not spec or spec["values"].get("generator") not in ("topk_ids", "topk_ids_skewed"):
        return None
    experts = spec["values"].get("experts")
    return experts if isinstance(experts, int) and 1 <= experts <= MAX_KEYS else None


def holds(dtype, value):
    """Whether an integer dtype of dtype.itemsize bytes holds value as a signed integer: a narrowing cast
    on the way from the expert ids (strip_order_keeping looks through casts) could have wrapped them."""
    return value <= 2 ** (8 * dtype.itemsize - 1) - 1


def sort_args(node):
    """(dim, descending) of a sort node in either overload; stable's are keyword-only."""
    name = _graph.target_name(node)
    args = list(node.args[1:])
    if name == "aten.sort.stable":
        return node.kwargs.get("dim", -1), node.kwargs.get("descending", False)
    dim = args[0] if args else node.kwargs.get("dim", -1)
    descending = args[1] if len(args) > 1 else node.kwargs.get("descending", False)
    return dim, descending


def counting_sort_slots(keys, experts):
    """The slot of every key, in plain Python: what counting_sort computes with torch ops."""
    counts = [0] * experts
    for k in keys:
        counts[k] += 1
    offset, running = [0] * experts, 0
    for e in range(experts):
        offset[e], running = running, running + counts[e]
    seen, slots = [0] * experts, []
    for k in keys:
        slots.append(offset[k] + seen[k])
        seen[k] += 1
    return slots


def counting_sort(x, experts):
    """(values, indices) of sort(x, stable=True) for 1-D x with values in [0, experts)."""
    import torch
    n = x.shape[0]
    onehot = (x.unsqueeze(1) == torch.arange(experts, device=x.device, dtype=x.dtype)).to(torch.int32)
    counts = onehot.sum(0, dtype=torch.int32)
    offset = torch.cumsum(counts, 0, dtype=torch.int32) - counts
    rank = torch.cumsum(onehot, 0, dtype=torch.int32) - onehot
    key = x.to(torch.int64)
    slot = (offset.gather(0, key) + rank.gather(1, key.unsqueeze(1)).squeeze(1)).to(torch.int64)
    values = torch.empty_like(x).scatter(0, slot, x)
    indices = torch.empty(n, device=x.device, dtype=torch.int64).scatter(
        0, slot, torch.arange(n, device=x.device, dtype=torch.int64))
    return values, indices


def rewrite(graph, specs):
    count = 0
    for node in _graph.calls(graph, ("aten.sort.default", "aten.sort.stable")):
        x = node.args[0]
        dim, descending = sort_args(node)
        val = x.meta.get("example_value")
        experts = key_range(x, specs)
        if descending or experts is None or val is None or val.dim() != 1 or dim not in (0, -1) \
                or val.dtype.is_floating_point or not holds(val.dtype, experts - 1):
            continue
        _graph.replace(graph, node, counting_sort, (x, experts))
        count += 1
    return count


@contextlib.contextmanager
def patch():
    with _graph.installed("routing_counting_sort", rewrite, _specs):
        yield
