"""A pure-Python stand-in for the few torch ops a rewrite's emission uses, so that the emission itself runs
without torch: a row-major tensor of labels (each element a tuple of the terms summed into it, so the order of
every sum is visible; a zero pad is the empty tuple), with torch's semantics for reshape, permute, unsqueeze,
select, narrow, + and scalar *, torch.nn.functional.pad (the last dims first), torch.cat and torch.as_strided
(of a tensor's row-major storage: every tensor here is contiguous).

    with fake_torch.installed():
        out = module.emit(fake_torch.labels("x", shape), ...)
"""

import contextlib
import math
import sys
import types


def unravel(shape, j):
    idx = []
    for n in reversed(shape):
        j, i = divmod(j, n)
        idx.append(i)
    return idx[::-1]


def ravel(shape, idx):
    j = 0
    for n, i in zip(shape, idx):
        j = j * n + i
    return j


class Tensor:
    def __init__(self, data, shape):
        if len(data) != math.prod(shape):
            raise ValueError(f"{len(data)} elements for shape {shape}")
        self.data, self.shape = list(data), tuple(shape)

    def dim(self):
        return len(self.shape)

    def _gather(self, shape, source):
        """A new tensor of shape whose element at multi-index idx is self's at source(idx) (None: a zero)."""
        out = []
        for j in range(math.prod(shape)):
            at = source(unravel(shape, j))
            out.append(() if at is None else self.data[ravel(self.shape, at)])
        return Tensor(out, shape)

    def reshape(self, shape):
        return Tensor(self.data, list(shape))

    def permute(self, order):
        if sorted(order) != list(range(self.dim())):
            raise ValueError(f"permute({order}) of {self.dim()} dims")
        shape = [self.shape[o] for o in order]

        def source(idx):
            at = [0] * self.dim()
            for k, o in enumerate(order):
                at[o] = idx[k]
            return at
        return self._gather(shape, source)

    def unsqueeze(self, d):
        return Tensor(self.data, self.shape[:d] + (1,) + self.shape[d:])

    def select(self, d, k):
        if not 0 <= k < self.shape[d]:
            raise IndexError(f"select({d}, {k}) of {self.shape}")
        return self._gather(self.shape[:d] + self.shape[d + 1:], lambda idx: idx[:d] + [k] + idx[d:])

    def narrow(self, d, start, length):
        if start < 0 or start + length > self.shape[d]:
            raise IndexError(f"narrow({d}, {start}, {length}) of {self.shape}")
        shape = list(self.shape)
        shape[d] = length
        return self._gather(shape, lambda idx: idx[:d] + [idx[d] + start] + idx[d + 1:])

    def stride(self):
        return tuple(math.prod(self.shape[d + 1:]) for d in range(self.dim()))

    def storage_offset(self):
        return 0

    def float(self):
        return self

    def to(self, dtype):
        return self

    @property
    def dtype(self):
        return "label"

    def __add__(self, other):
        if self.shape != other.shape:
            raise ValueError(f"{self.shape} + {other.shape}")
        return Tensor([a + b for a, b in zip(self.data, other.data)], self.shape)

    def __rmul__(self, alpha):
        return self if alpha == 1 else Tensor([tuple((alpha, t) for t in a) for a in self.data], self.shape)


def pad(t, widths):
    """torch.nn.functional.pad with zeros: widths pairs (before, after) from the last dim backwards."""
    before, after = [0] * t.dim(), [0] * t.dim()
    for i in range(len(widths) // 2):
        before[t.dim() - 1 - i], after[t.dim() - 1 - i] = widths[2 * i], widths[2 * i + 1]
    shape = [n + b + a for n, b, a in zip(t.shape, before, after)]

    def source(idx):
        at = [i - b for i, b in zip(idx, before)]
        return at if all(0 <= i < n for i, n in zip(at, t.shape)) else None
    return t._gather(shape, source)


def cat(parts, d):
    for p in parts[1:]:
        if p.dim() != parts[0].dim() or any(a != b for i, (a, b) in enumerate(zip(p.shape, parts[0].shape)) if i != d):
            raise ValueError(f"cat of {parts[0].shape} and {p.shape} along {d}")
    shape = list(parts[0].shape)
    shape[d] = sum(p.shape[d] for p in parts)
    out = []
    for j in range(math.prod(shape)):
        idx = unravel(shape, j)
        for p in parts:
            if idx[d] < p.shape[d]:
                out.append(p.data[ravel(p.shape, idx)])
                break
            idx[d] -= p.shape[d]
    return Tensor(out, shape)


def as_strided(t, size, stride, offset=0):
    as_strided.calls += 1  # a view of the same elements: the count is what shows it ran
    return Tensor([t.data[offset + sum(i * s for i, s in zip(unravel(size, j), stride))]
                   for j in range(math.prod(size))], list(size))


as_strided.calls = 0


def labels(name, shape):
    """A tensor whose element j is ((name, j),): one term, named by its row-major position."""
    return Tensor([((name, j),) for j in range(math.prod(shape))], shape)


@contextlib.contextmanager
def installed():
    """`import torch` gives this module's ops inside the block."""
    fake = types.ModuleType("torch")
    fake.cat = cat
    fake.as_strided = as_strided
    fake.nn = types.SimpleNamespace(functional=types.SimpleNamespace(pad=pad))
    saved = sys.modules.get("torch")
    sys.modules["torch"] = fake
    try:
        yield fake
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved
