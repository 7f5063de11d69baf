"""The replay plan of one compiled call: capture.json "buffers" and "steps".

Built from what a recorded call of the compiled module did, as plain data (so it is tested
without a GPU):
- events, in order: {"alloc": {"ptr", "bytes"}} for each wrapper allocation
  (empty_strided_cuda), {"launch": <launch>} for each Triton launch, where <launch> is
  {"kernel", "cubin", "function", "num_warps", "shared", "global_scratch", "profile_scratch",
   "grid": [x, y, z], "args": [{"ptr", "storage", "storage_bytes"} | {"scalar", "type"}]};
- tensors: the named inputs and outputs, {"name", "storage", "bytes"} each (their storage);
- calls: evidence.device_calls of the wrapper, the order of launches and fallbacks.

Every pointer becomes {"buffer", "offset"} by the storage it points into, identified by base
pointer and size: inputs and outputs by name, wrapper allocations as buf0, buf1, ... in allocation
order, storages only an ATen fallback allocated as aten0, aten1, ... The caching allocator hands
freed blocks to later allocations, wrapper or ATen, so an address alone names nothing: a storage
is matched against the newest wrapper allocation with its pointer and size, and an output is the
last wrapper allocation matching its storage (it lives until the return). "buffers" lists the
bufN and atenN; the C side sizes inputs and outputs from their own layout.
"""


class TraceError(Exception):
    """The recorded call does not match the wrapper."""


class _Names:
    """Storage (pointer, bytes) -> buffer name, as allocations come and go."""

    def __init__(self, tensors, output_allocs):
        self.inputs = {(t["storage"], t["bytes"]): t["name"] for t in tensors
                       if not t["name"].startswith("out")}
        self.outputs = {(t["storage"], t["bytes"]): t["name"] for t in tensors
                        if t["name"].startswith("out")}
        self.output_allocs = output_allocs   # event index -> output name
        self.live = []          # [((ptr, bytes), name)], newest last
        self.fallback = {}      # (ptr, bytes) -> atenN
        self.buffers = []       # bufN and atenN, in order of first appearance

    def alloc(self, at, key):
        name = self.output_allocs.get(at)
        if name is None:
            name = f"buf{sum(b['name'].startswith('buf') for b in self.buffers)}"
            self.buffers.append({"name": name, "bytes": key[1]})
        self.live.append((key, name))

    def resolve(self, arg):
        key = (arg["storage"], arg["storage_bytes"])
        name = self.inputs.get(key)
        if name is None:
            name = next((n for k, n in reversed(self.live) if k == key), None)
        if name is None:
            name = self.outputs.get(key)
        if name is None:
            name = self.fallback.get(key)
        if name is None:
            name = self.fallback[key] = f"aten{len(self.fallback)}"
            self.buffers.append({"name": name, "bytes": key[1]})
        return {"buffer": name, "offset": arg["ptr"] - arg["storage"]}


def _step(launch, names):
    args = []
    for a in launch["args"]:
        if "ptr" in a:
            args.append(names.resolve(a))
        else:
            args.append({"scalar": a["scalar"], "type": a["type"]})
    return {"kind": "triton", "kernel": launch["kernel"], "cubin": launch["cubin"],
            "function": launch["function"], "num_warps": launch["num_warps"],
            "shared": launch["shared"], "grid": list(launch["grid"]),
            "block": [32 * launch["num_warps"], 1, 1],
            "global_scratch": launch["global_scratch"],
            "profile_scratch": launch["profile_scratch"], "args": args}


def _fallbacks_until(calls, kernel, at):
    """Consumes the wrapper's calls up to the launch of `kernel`; returns the non-Triton ones as
    steps."""
    steps = []
    for kind, name in calls:
        if kind == "triton":
            if name != kernel:
                raise TraceError(f"step {at + len(steps)}: the wrapper launches {name} here but "
                                 f"{kernel} ran")
            return steps
        steps.append({"kind": "aten", "call": name})
    raise TraceError(f"launch of {kernel}: the wrapper has no launch left for it")


def build(events, tensors, calls):
    """(buffers, steps, replayable) for capture.json."""
    outputs = {(t["storage"], t["bytes"]): t["name"] for t in tensors if t["name"].startswith("out")}
    last = {}
    for i, e in enumerate(events):
        if "alloc" in e and (e["alloc"]["ptr"], e["alloc"]["bytes"]) in outputs:
            last[(e["alloc"]["ptr"], e["alloc"]["bytes"])] = i
    names = _Names(tensors, {i: outputs[key] for key, i in last.items()})
    steps = []
    pending = iter(calls)
    for i, e in enumerate(events):
        if "alloc" in e:
            names.alloc(i, (e["alloc"]["ptr"], e["alloc"]["bytes"]))
            continue
        steps += _fallbacks_until(pending, e["launch"]["kernel"], len(steps))
        steps.append(_step(e["launch"], names))
    for kind, name in pending:
        if kind == "triton":
            raise TraceError(f"the wrapper launches {name} but no launch of it was recorded")
        steps.append({"kind": "aten", "call": name})
    return names.buffers, steps, all(s["kind"] == "triton" for s in steps)
