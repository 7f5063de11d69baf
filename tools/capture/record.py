"""Recording what one call of an Inductor-compiled module does on the device (torch 2.11,
triton 3.6): each Triton launch with its grid, kernel binary and actual arguments, and each
buffer the wrapper allocates.

How (checked on the H200 with torch 2.11): the compiled module is the new entry of
torch._inductor.codecache.PyCodeCache.modules that defines `call`; its `triton_*` globals are
CachingAutotuner objects. After the first call each has one launcher, a generated function whose
globals hold `runner`, the binary's launch function: Inductor's static CUDA launcher
(`launcher._is_static`) takes (grid_0, grid_1, grid_2, stream, *args) with only the arguments
that reach the cubin; Triton's own launcher takes (grid_0, grid_1, grid_2, stream, function,
metadata, launch_metadata, enter_hook, exit_hook, *args) with every signature argument. Swapping
`runner` for a recorder sees exactly what the device sees. The cubin and its metadata JSON
(name, num_warps, shared, global_scratch_size, profile_scratch_size) sit in
$TRITON_CACHE_DIR/<launcher.cache_hash>/, which Inductor keeps under TORCHINDUCTOR_CACHE_DIR.
Allocations go through the module global `empty_strided_cuda`.
"""

import json
import os

STATIC_RUNNER_PREFIX = 4    # grid_0, grid_1, grid_2, stream
TRITON_RUNNER_PREFIX = 9    # ... function, metadata, launch_metadata, enter_hook, exit_hook


class RecordError(Exception):
    """The compiled module is not shaped the way the recorder expects."""


def _modules():
    """Every module Inductor generated in this process (a list in torch 2.11), oldest first."""
    from torch._inductor.codecache import PyCodeCache
    return list(PyCodeCache.modules)


def module_count():
    """How many generated modules exist now; compiled_module looks only at later ones."""
    return len(_modules())


def compiled_module(skip, source):
    """The wrapper module generated after the first `skip` modules: the one new module with a
    `call`, or, if several, the one whose file holds `source`."""
    found = [m for m in _modules()[skip:] if hasattr(m, "call")]
    if len(found) > 1:
        found = [m for m in found if _read(m) == source]
    if len(found) != 1:
        raise RecordError(f"expected one generated wrapper module, found {len(found)} among "
                          f"{len(_modules()) - skip} new modules")
    return found[0]


def _read(mod):
    with open(mod.__file__, encoding="utf-8") as f:
        return f.read()


def kernels(mod):
    """{global name: CachingAutotuner} of the module's Triton kernels."""
    return {name: obj for name, obj in vars(mod).items()
            if name.startswith("triton_") and hasattr(obj, "launchers")}


def kernel_sources(mod):
    """{kernel: Triton source} for evidence.evidence."""
    return {name: k.fn.src for name, k in kernels(mod).items()}


TRITON_FILE_NAME_MAX = 150


def kernel_binary(kernel):
    """(cubin path, metadata dict) of an autotuned kernel's chosen binary."""
    if len(kernel.launchers) != 1:
        raise RecordError(f"{kernel.fn.__name__}: expected one launcher after autotuning, found "
                          f"{len(kernel.launchers)}")
    launcher = kernel.launchers[0]
    folder = os.path.join(os.environ["TRITON_CACHE_DIR"], launcher.cache_hash)
    name = kernel.fn.__name__
    # Triton names its cache files after the kernel cut to 150 characters (triton/compiler/compiler.py,
    # compile(): file_name = src.name[:150]); Inductor's fused names pass that length.
    stem = name[:TRITON_FILE_NAME_MAX]
    paths = [os.path.join(folder, f"{stem}.{ext}") for ext in ("cubin", "json")]
    for path in paths:
        if not os.path.exists(path):
            raise RecordError(f"{name}: no {path} (TRITON_CACHE_DIR={os.environ['TRITON_CACHE_DIR']})")
    with open(paths[1], encoding="utf-8") as f:
        return paths[0], json.load(f)


def launch_arg_names(kernel, count):
    """Names of the `count` arguments the runner passes, from triton_meta["signature"]: all of
    them (Triton's launcher drops constexprs itself) or only the non-constexpr ones."""
    signature = kernel.triton_meta["signature"]
    names = list(signature)
    if count == len(names):
        return names, signature
    runtime = [n for n in names if signature[n] != "constexpr"]
    if count != len(runtime):
        raise RecordError(f"{kernel.fn.__name__}: runner got {count} arguments; signature has "
                          f"{len(names)} ({len(runtime)} not constexpr): {signature}")
    return runtime, signature


def _describe(value, name, type_):
    import torch
    if isinstance(value, torch.Tensor):
        storage = value.untyped_storage()
        return {"ptr": value.data_ptr(), "storage": storage.data_ptr(),
                "storage_bytes": storage.nbytes()}
    if isinstance(value, (bool, int, float)):
        return {"scalar": value, "type": type_}
    raise RecordError(f"argument {name}: expected a tensor or a number, got {type(value).__name__}")


class Recorder:
    """Context manager: while active, the module's launches and allocations land in `events`
    (trace.build's format); `cubins` maps each launched kernel to its cubin path."""

    def __init__(self, mod, config):
        self.mod = mod
        self.config = config
        self.events = []
        self.cubins = {}
        self._restore = []

    def _runner(self, name, kernel, launcher, original):
        cubin, meta = kernel_binary(kernel)
        skip = STATIC_RUNNER_PREFIX if getattr(launcher, "_is_static", False) \
            else TRITON_RUNNER_PREFIX
        events, cubins, config = self.events, self.cubins, self.config

        def runner(*args):
            arg_names, signature = launch_arg_names(kernel, len(args) - skip)
            live = [(n, v) for n, v in zip(arg_names, args[skip:])
                    if signature[n] != "constexpr"]
            cubins[name] = cubin
            events.append({"launch": {
                "kernel": name, "cubin": f"{config}.{name}.cubin", "function": meta["name"],
                "num_warps": meta["num_warps"], "shared": meta["shared"],
                "global_scratch": meta.get("global_scratch_size") or 0,
                "profile_scratch": meta.get("profile_scratch_size") or 0,
                "grid": [int(g) for g in args[:3]],
                "args": [_describe(v, n, signature[n]) for n, v in live]}})
            return original(*args)

        return runner

    def __enter__(self):
        for name, kernel in kernels(self.mod).items():
            (launcher,) = kernel.launchers
            scope = launcher.__globals__
            if "runner" not in scope:
                raise RecordError(f"{name}: the launcher's globals hold no 'runner'")
            self._restore.append((scope, "runner", scope["runner"]))
            scope["runner"] = self._runner(name, kernel, launcher, scope["runner"])
        alloc = self.mod.empty_strided_cuda
        events = self.events

        def empty_strided_cuda(*args, **kwargs):
            t = alloc(*args, **kwargs)
            storage = t.untyped_storage()
            events.append({"alloc": {"ptr": storage.data_ptr(), "bytes": storage.nbytes()}})
            return t

        self._restore.append((vars(self.mod), "empty_strided_cuda", alloc))
        self.mod.empty_strided_cuda = empty_strided_cuda
        return self

    def __exit__(self, *exc):
        for scope, key, value in reversed(self._restore):
            scope[key] = value
        self._restore.clear()
        return False
