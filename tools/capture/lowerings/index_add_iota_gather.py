"""index_add whose index is an iota, or an as_strided view of one, rewritten as the equivalent
gather / pad-add: no atomics, each output element written once.

Longformer's sliding-window backward adds overlapping windows back into a flat buffer through
index = reshape(clone(as_strided(iota(N), size, stride))) (every position covered 1-3 times), and
XLNet's rel_shift backward adds a [.., 512] block into a [.., 1023] one through index = iota(512)
(saved by the forward, so a graph input here). ATen runs both as 18.9 M / 4.2 M bf16 atomics.
Since the index is affine in its multi-index, the positions that land on an output element are
computed, not searched: with the view's dims nested by stride except one "window" dim w of small
extent C (Longformer: the chunk dim, whose stride is smaller than the span of a chunk), an output
position m decodes greedily over the nested dims for each window c in 0..C-1, giving the source
element j_c(m) or none. out[m] = x[m] + alpha * sum_c src[j_c(m)], summed in fp32 in window order
and rounded once: what the Longformer and XLNet oracles (repros/index_add/oracle.cu) compute, and
no less exact than ATen's bf16 atomics, which round after every add in no fixed order. A position
no index reaches keeps x's bits. For a plain iota (XLNet) this is a pad-add.

Stands for an Inductor pattern pass (the natural home is a post-grad pass; a pre-grad one is used
here so AOTAutograd traces the replacement, see _graph.py). XLNet's index is a placeholder in the
backward graph: the rewrite takes it as an iota because the golden scope says so (the forward's
iota, `bind`), which a real pass would see in the joint graph before partitioning.
"""

import contextlib

from . import _graph, _index_add

STANDS_FOR = ("an Inductor pattern pass (post-grad custom pass in spirit): index_add with an iota or "
              "as_strided(iota) index rewritten as the gather / pad-add that the Longformer and XLNet "
              "oracles compute (no atomics, fp32 sum of the 1..C windows, one rounding)")
OPS = _index_add.OPS

MAX_WINDOWS = 8  # beyond this, C masked gathers per element cost more than the atomics they replace

_specs = None


def bind(specs):
    """The capture's input specs: placeholders whose generator is an iota are iotas."""
    global _specs
    _specs = specs


def _nested(dims):
    """dims [(size, stride)] sorted by stride descending: each stride exceeds the span of the
    smaller ones, so the greedy decode is unique."""
    span = 0
    for size, stride in reversed(dims):
        if stride <= span:
            return False
        span += (size - 1) * stride
    return True


def window_plan(view, extent):
    """How output positions 0..extent-1 decode, or None: {"window": w or None, "order": dims by
    stride descending (excluding w)}. Every element of the view must lie inside 0..extent-1."""
    size, stride = view["size"], view["stride"]
    if any(s <= 0 for s in size) or any(s < 0 for s in stride) or view["offset"] < 0:
        return None
    top = view["offset"] + sum((n - 1) * s for n, s in zip(size, stride))
    lo, hi = sorted((view["start"] + view["step"] * view["offset"], view["start"] + view["step"] * top))
    if view["step"] <= 0 or lo < 0 or hi >= extent:
        return None
    dims = list(range(len(size)))
    for w in [None] + dims:
        rest = sorted((d for d in dims if d != w and size[d] > 1), key=lambda d: -stride[d])
        if (w is None or size[w] <= MAX_WINDOWS) and _nested([(size[d], stride[d]) for d in rest]):
            return {"window": w if w is not None and size[w] > 1 else None, "order": rest}
    return None


def _rowmajor(size):
    out = [1] * len(size)
    for d in range(len(size) - 2, -1, -1):
        out[d] = out[d + 1] * size[d + 1]
    return out


def _terms(q, view, plan, clamp0):
    """(ok, j) per window c in order: whether view position q (an int, or a tensor of them) decodes
    to an element for window c, and that element's row-major position j. Shared by the plain-Python
    reference (sources) and the torch emission (gather_add), so both follow one decode."""
    size, stride, rowmajor, w = view["size"], view["stride"], _rowmajor(view["size"]), plan["window"]
    for c in range(size[w]) if w is not None else [None]:
        rem = q - view["offset"] - (c * stride[w] if c is not None else 0)
        j = c * rowmajor[w] if c is not None else 0
        ok = rem >= 0
        for d in plan["order"]:
            i = clamp0(rem) // stride[d]
            ok = ok & (i < size[d])
            rem = rem - i * stride[d]
            j = j + i * rowmajor[d]
        yield ok & (rem == 0), j


def sources(m, view, plan):
    """The row-major source positions j that land on output position m, in window order (tests check
    it against a brute-force index_add)."""
    q, r = divmod(m - view["start"], view["step"])
    return [] if r else [j for ok, j in _terms(q, view, plan, lambda x: max(x, 0)) if ok]


def gather_add(x, dim, src, alpha, view, plan):
    """index_add(x, dim, index, src, alpha) for the index view decodes: torch ops only (iota
    arithmetic, masked index_select, a sum over C windows), which Inductor fuses into pointwise
    kernels with indirect loads."""
    import torch
    n = x.shape[dim]
    m = torch.arange(n, device=x.device, dtype=torch.int64)
    q = torch.div(m - view["start"], view["step"], rounding_mode="floor")
    on_grid = (m - view["start"]) == q * view["step"]
    shape = [1] * x.dim()
    shape[dim] = n
    acc, hit = None, torch.zeros_like(on_grid)
    for ok, j in _terms(q, view, plan, lambda t: t.clamp(min=0)):
        ok = ok & on_grid
        j = j if torch.is_tensor(j) else torch.full_like(m, j)
        term = src.index_select(dim, torch.where(ok, j, 0)).float()
        term = torch.where(ok.view(shape), term, 0.0)
        acc = term if acc is None else acc + term
        hit = hit | ok
    return torch.where(hit.view(shape), (x.float() + alpha * acc).to(x.dtype), x)


def rewrite(graph, specs):
    return _index_add.rewrite(graph, specs, window_plan, gather_add)


@contextlib.contextmanager
def patch():
    with _graph.installed("index_add_iota_gather", rewrite, _specs):
        yield
