"""histc of integer values over unit-width bins as an accumulating index_put into the bins: a
stand-in for the Histogram IR that Inductor lacks (`make_fallback(aten.histc)`).

When the input is an integer tensor and bins == max - min + 1, ATen's bin of a value v in
[min, max] is floor((v - min) * bins / (max - min)) clamped to bins - 1, which is v - min for every
such v (k * (n + 1) / n lies in [k, k + 1) for 0 <= k < n, and k = n is clamped to n). Values
outside [min, max] are not counted. So histc is a scatter-add of ones at v - min, masked to the
range: the form Inductor lowers to tl.atomic_add. Every other histc (floating input, other bin
counts) keeps the fallback (NotImplemented). The gpt-oss routing scope (int32 expert ids in
[0, 31], 32 bins) is such a histc; its aten.sort.stable is left as it is.
"""

import contextlib

STANDS_FOR = ("Histogram IR is missing in Inductor (make_fallback(aten.histc)); this stands in "
              "for it with unit-width integer bins lowered as an accumulating index_put "
              "(tl.atomic_add)")
OPS = ("aten.histc.default",)


def unit_bins(dtype_is_integer, bins, lo, hi):
    """Whether histc(bins, lo, hi) on integer values is the identity map v -> v - lo."""
    return (dtype_is_integer and isinstance(bins, int) and bins >= 1
            and float(lo).is_integer() and float(hi).is_integer() and hi - lo + 1 == bins)


@contextlib.contextmanager
def patch():
    import torch

    from . import _decomp

    aten = torch.ops.aten

    def histc(x, bins=100, min=0, max=0):  # noqa: A002 (ATen's argument names)
        if not unit_bins(not x.dtype.is_floating_point and x.dtype != torch.bool, bins, min, max):
            return NotImplemented
        lo, hi = int(min), int(max)
        flat = x.reshape(-1)
        inside = (flat >= lo) & (flat <= hi)
        slot = torch.where(inside, flat - lo, 0).to(torch.int64)
        counts = torch.zeros(bins, dtype=x.dtype, device=x.device)
        return aten.index_put(counts, [slot], inside.to(x.dtype), accumulate=True)

    with _decomp.replaced(aten.histc.default, histc):
        yield
