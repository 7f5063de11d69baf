"""bf16 index_add decomposed like every other dtype: an accumulating index_put that Inductor lowers
to tl.atomic_add.

Today Inductor's index_add decomposition returns NotImplemented when `not is_fbcode()` and the
dtype is bf16 (added with pytorch/pytorch#141857 to avoid the slow accumulating index_put of
#137425), so open-source builds keep ATen's index_add. pytorch/pytorch#195192 proposes removing
that gate on SM90+ (where bf16 atomics are native; `needs_fallback_due_to_atomic_add_limitations`
already allows them at capability >= 9.0). The patch replaces the decomposition with the shared
one, torch._decomp.decompositions._index_add, which is what the gate guards.
"""

import contextlib

STANDS_FOR = ("pytorch/pytorch#195192: drop the open-source bf16 gate in Inductor's index_add "
              "decomposition on SM90+ (bf16 index_add becomes an accumulating index_put lowered "
              "to tl.atomic_add)")
OPS = ("aten.index_add.default",)


@contextlib.contextmanager
def patch():
    import torch
    from torch._decomp.decompositions import _index_add

    from . import _decomp

    def index_add(x, dim, index, tensor, *, alpha=1):
        return _index_add(x, dim, index, tensor, inplace=False, alpha=alpha)

    with _decomp.replaced(torch.ops.aten.index_add.default, index_add):
        yield
