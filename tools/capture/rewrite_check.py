"""On a GPU with torch: the structural rewrites (lowerings/index_add_iota_gather.py,
lowerings/index_add_overlap_add.py, lowerings/routing_counting_sort.py) compiled on small cases
shaped like the golden scopes, checked against eager: the pass must fire (it counts what it
rewrote) and the results must be what the candidate promises. Prints one line per case and exits 0
when all hold, 1 otherwise, 2 without a CUDA device.

- counting sort of topk-style expert ids in [0, 32): values and indices bit-exact with
  torch.sort(stable=True) (the routing scope's sort, its permutation included, which the scope's own
  outputs do not expose);
- index_add over overlapping as_strided(iota) windows, under each index_add rewrite, in f32 with at
  most two windows per element: bit-exact with eager (0 + a + b rounds the same in any order); the
  same in bf16 and with three windows per element: within 1e-2 relative L2 of an fp64 reference (the
  capture's own compiled-vs-eager bound); the f32 case again with the source a transposing copy
  (Longformer 335f7d6b05cb's producer, which the overlap-add stores first): bit-exact; a plain iota
  index along dim 3 (XLNet's pad-add): bit-exact.

    python3 tools/capture/rewrite_check.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import lowerings  # noqa: E402


def compiled_under(mod, specs, fn, *inputs):
    """fn compiled and called under the candidate; the number of nodes its pass rewrote."""
    import torch
    torch._dynamo.reset()
    mod.bind(specs)
    with torch._inductor.config.patch(fx_graph_cache=False), mod.patch():
        rewrite = torch._inductor.config.pre_grad_custom_pass
        out = torch.compile(fn, fullgraph=True, dynamic=False)(*inputs)
        torch.cuda.synchronize()
        return out, rewrite.rewritten


def check_sort():
    import torch
    mod = lowerings.load("routing_counting_sort")
    ids = torch.stack([torch.randperm(32, device="cuda")[:4] for _ in range(1000)])

    def fn(*tensors):
        return torch.ops.aten.sort.default(torch.ops.aten.reshape.default(tensors[0], [-1]))

    specs = [{"name": "in0", "sizes": [1000, 4], "values": {"generator": "topk_ids", "experts": 32}}]
    (values, indices), n = compiled_under(mod, specs, fn, ids)
    want_v, want_i = torch.sort(ids.reshape(-1), stable=True)
    ok = n > 0 and torch.equal(values, want_v) and torch.equal(indices, want_i)
    return ok, f"counting sort of 4000 ids over 32 experts: {n} node(s) rewritten, values and indices " \
               f"{'bit-exact' if ok else 'DIFFER'} against torch.sort(stable=True)"


INDEX_ADD_REWRITES = ("index_add_iota_gather", "index_add_overlap_add")


def windows_case(name, dtype, size, stride, extent, transposed=False):
    """transposed: the source a transposing copy first (Longformer 335f7d6b05cb's producer), as
    reshape(clone(permute(.))) of the input read as [size[-1], rest]."""
    import torch
    mod = lowerings.load(name)
    numel = 1
    for s in size:
        numel *= s
    src = torch.randn(numel, device="cuda", dtype=dtype)
    aten = torch.ops.aten

    def fn(*tensors):
        it = torch.ops.prims.iota.default(extent, start=0, step=1, dtype=torch.int64, device="cuda",
                                          requires_grad=False)
        idx = aten.reshape.default(aten.clone.default(aten.as_strided.default(it, size, stride, 0)), [numel])
        zeros = aten.full.default([extent], 0, dtype=dtype, device="cuda", pin_memory=False)
        source = tensors[0]
        if transposed:
            rows = aten.reshape.default(source, [size[-1], numel // size[-1]])
            source = aten.reshape.default(aten.clone.default(aten.permute.default(rows, [1, 0]),
                                                             memory_format=torch.contiguous_format), [numel])
        return aten.index_add.default(zeros, 0, idx, source)

    got, n = compiled_under(mod, [{"name": "in0", "sizes": [numel], "values": {}}], fn, src)
    return got, fn(src), n, src


def rel_l2(got, want):
    import torch
    return (torch.linalg.vector_norm(got.double() - want.double()) /
            torch.linalg.vector_norm(want.double()).clamp_min(1e-30)).item()


def check_windows(name):
    import torch
    results = []
    # Longformer A in small: chunks of 8 rows every 4 rows, 2 heads x 4 columns (at most two windows)
    a = ([2, 3, 8, 4], [4, 32, 8, 1], 160)
    got, eager, n, _ = windows_case(name, torch.float32, *a)
    ok = n > 0 and torch.equal(got, eager)
    results.append((ok, f"{name}: f32 overlapping windows (<= 2 per element): {n} rewritten, "
                        f"{'bit-exact' if ok else 'DIFFERS'} against eager index_add"))
    got, eager, n, _ = windows_case(name, torch.float32, *a, transposed=True)
    ok = n > 0 and torch.equal(got, eager)
    results.append((ok, f"{name}: the same from a transposing copy: {n} rewritten, "
                        f"{'bit-exact' if ok else 'DIFFERS'} against eager index_add"))
    # Longformer B in small: 4 windows of 6 rows every 2 rows (up to three per element), bf16
    for dtype, case in ((torch.bfloat16, a), (torch.bfloat16, ([2, 4, 6, 2], [24, 4, 2, 1], 48))):
        got, eager, n, src = windows_case(name, dtype, *case)
        # eager's bf16 atomics round after every add: both are judged against the fp64 sum
        idx = torch.as_strided(torch.arange(case[2], device="cuda"), case[0], case[1], 0).reshape(-1)
        ref = torch.zeros(case[2], device="cuda", dtype=torch.float64).index_add_(0, idx, src.double())
        err, eager_err = rel_l2(got, ref), rel_l2(eager, ref)
        ok = n > 0 and err <= 1e-2 and err <= eager_err + 1e-3  # no less accurate than ATen's, within noise
        results.append((ok, f"{name}: {dtype} windows {case[0]}: {n} rewritten, relative L2 {err:.3g} against "
                            f"fp64 (eager's {eager_err:.3g})"))
    return results


def check_pad(name):
    import torch
    mod = lowerings.load(name)
    aten = torch.ops.aten
    index = torch.arange(8, device="cuda")
    src = torch.randn(2, 2, 8, 8, device="cuda", dtype=torch.bfloat16)

    def fn(*tensors):
        zeros = aten.full.default([2, 2, 8, 15], 0, dtype=torch.bfloat16, device="cuda", pin_memory=False)
        return aten.index_add.default(zeros, 3, tensors[0], tensors[1])

    specs = [{"name": "in0", "sizes": [8], "values": {"generator": "iota", "start": 0, "step": 1}},
             {"name": "in1", "sizes": [2, 2, 8, 8], "values": {"generator": "uniform"}}]
    got, n = compiled_under(mod, specs, fn, index, src)
    ok = n > 0 and torch.equal(got, fn(index, src))  # one add per element: exact
    return ok, f"{name}: iota index along dim 3 (XLNet's pad-add): {n} rewritten, {'bit-exact' if ok else 'DIFFERS'}"


def main():
    try:
        import torch
    except ImportError:
        print("rewrite_check: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("rewrite_check: no CUDA device", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    results = [check_sort()]
    for name in INDEX_ADD_REWRITES:
        results += [*check_windows(name), check_pad(name)]
    for ok, line in results:
        print(("ok   " if ok else "FAIL ") + line, flush=True)
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
