"""A golden scope as runnable PyTorch: its inputs (with their generators) and a function that
calls the scope's ops in graph order.

The planning half (annotations, argument decoding, generator choice, outputs, dtype probes) is
pure so the tests run without torch; `make_inputs` and `build_function` import torch lazily.
"""

import math
import operator
import re

FLOATING = ("bf16", "f16", "f32", "f64")
TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
                "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
                "b8": "bool", "c64": "complex64", "c128": "complex128"}
EXACT_DERIVED = ("constant", "iota", "as_strided_iota")
NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
INT64_MAX = 2 ** 63 - 1

_ANN = re.compile(r"^([a-z0-9]+)\[([^\]]*)\]\[([^\]]*)\](\S+)$")


class ScopeError(Exception):
    """The scope cannot be turned into inputs and a function; the message says where and why."""


def parse_ann(ann, where):
    """'i64[8, 1024][1024, 1]cuda:0' -> {"dtype", "sizes", "strides", "offset": 0, "device"}."""
    m = _ANN.match(ann or "")
    if not m or m.group(1) not in TORCH_DTYPES:
        raise ScopeError(f"{where}: expected a tensor annotation like 'f32[4, 8][8, 1]cuda:0', "
                         f"got {ann!r}")

    def dims(text):
        return [int(x) for x in text.split(",") if x.strip()]

    try:
        sizes, strides = dims(m.group(2)), dims(m.group(3))
    except ValueError:
        raise ScopeError(f"{where}: expected static integer sizes and strides in {ann!r}") from None
    if len(sizes) != len(strides):
        raise ScopeError(f"{where}: {len(sizes)} sizes but {len(strides)} strides in {ann!r}")
    return {"dtype": m.group(1), "sizes": sizes, "strides": strides, "offset": 0,
            "device": m.group(4)}


def numel(sizes):
    return math.prod(sizes)


def decode_arg(arg, ref, lit):
    """A scope argument as a Python value: {"ref": k} -> ref(k); {"dtype"|"device"|"enum": x}
    -> lit(kind, x); "inf"/"-inf"/"nan" -> floats; integral floats beyond 2^53 (the extractor's
    spelling of sys.maxsize, e.g. slice ends) -> int64 max; lists element-wise."""
    if isinstance(arg, list):
        return [decode_arg(a, ref, lit) for a in arg]
    if isinstance(arg, dict):
        if set(arg) == {"ref"}:
            return ref(arg["ref"])
        if len(arg) == 1 and next(iter(arg)) in ("dtype", "device", "enum"):
            kind, value = next(iter(arg.items()))
            return lit(kind, value)
        raise ScopeError(f"argument {arg!r}: expected a ref, dtype, device or enum object")
    if isinstance(arg, str) and arg in NON_FINITE:
        return NON_FINITE[arg]
    if isinstance(arg, float) and arg.is_integer() and abs(arg) > 2 ** 53:
        return INT64_MAX if arg > 0 else -INT64_MAX - 1
    return arg


def op_path(op):
    """'aten.cumsum.default' -> ('aten', 'cumsum', 'default'); '_operator.getitem' -> ('operator',
    'getitem')."""
    if op == "_operator.getitem":
        return ("operator", "getitem")
    parts = op.split(".")
    if len(parts) != 3 or parts[0] not in ("aten", "prims"):
        raise ScopeError(f"op {op!r}: expected aten.<op>.<overload>, prims.<op>.<overload> or "
                         "_operator.getitem")
    return tuple(parts)


def output_entries(nodes):
    """Entries the function returns: every non-input entry used outside the scope."""
    return [k for k, n in enumerate(nodes) if n.get("escapes") and n["role"] != "input"]


def expand_outputs(entries, values):
    """Output selectors (entry, item) for the tensors the escaping entries hold: (k, None) for a
    tensor, (k, j) for each element of a tuple result (a sort whose other half escapes)."""
    selectors = []
    for k, value in zip(entries, values):
        if isinstance(value, (tuple, list)):
            selectors += [(k, j) for j in range(len(value))]
        else:
            selectors.append((k, None))
    return selectors


# repros/index_add/scope.h: IA_SEED_FABRICATED, IA_FABRICATED_HIGH. The attribution pipeline prices an index
# argument on randint(0, 100) values; the C side and op_timing.py draw the same ones.
SEED_FABRICATED, FABRICATED_HIGH = 2, 100
FABRICATED_INDEX = {"aten.index_add.default": 2}  # the ops with a fabricated mode: their index argument


def fabricated_scope(nodes):
    """The scope as the attribution pipeline prices it: the op's index argument made an input of
    randint(0, min(100, indexed dim size)) values (seed SEED_FABRICATED), whatever produced it before (an
    iota, an as_strided view of one). (nodes, {entry: generator}), or None when the op has no fabricated
    mode."""
    k = next(k for k, n in enumerate(nodes) if n["role"] == "op")
    op = nodes[k]
    arg = FABRICATED_INDEX.get(op["op"])
    if arg is None:
        return None
    args = op.get("args", [])
    if len(args) <= arg or not isinstance(args[arg], dict) or "ref" not in args[arg] or \
            not isinstance(args[0], dict) or "ref" not in args[0] or not isinstance(args[1], int):
        raise ScopeError(f"scope entry {k} ({op['op']}): expected tensor references for self and index "
                         f"and an integer dim, got {args}")
    j = args[arg]["ref"]
    parse_ann(nodes[j].get("ann"), f"scope entry {j} (the index)")  # an input needs its layout
    sizes = parse_ann(nodes[args[0]["ref"]].get("ann"), f"scope entry {args[0]['ref']} (self)")["sizes"]
    high = min(sizes[args[1] % len(sizes)], FABRICATED_HIGH)
    fab = [dict(n) for n in nodes]
    fab[j] = {"role": "input", "op": nodes[j]["op"], "ann": nodes[j]["ann"]}
    return fab, {j: {"generator": "randint", "seed": SEED_FABRICATED, "low": 0, "high": high}}


def unstable_sort_indices(nodes, selectors):
    """{output position: (entry of the sorted tensor, dim)} for each output that is the indices half of
    an unstable sort (aten.sort.default, or aten.sort.stable with stable false): ties may come back in any
    order, so a compiled sort (Inductor lowers small ones to Triton) may legitimately differ from eager's.
    The selector is the sort's item 1, or a getitem of item 1 from it."""

    def sort_of(k):
        node = nodes[k]
        if node["op"] == "aten.sort.default":
            args = node.get("args", [])
            return args[0]["ref"], args[1] if len(args) > 1 else -1
        if node["op"] == "aten.sort.stable" and not node.get("kwargs", {}).get("stable", False):
            return node["args"][0]["ref"], node.get("kwargs", {}).get("dim", -1)
        return None

    out = {}
    for pos, (k, j) in enumerate(selectors):
        node = nodes[k]
        if j == 1 and sort_of(k):
            out[pos] = sort_of(k)
        elif j is None and node["op"] == "_operator.getitem" and node["args"][1] == 1 \
                and isinstance(node["args"][0], dict) and sort_of(node["args"][0]["ref"]):
            out[pos] = sort_of(node["args"][0]["ref"])
    return out


def _find_key(obj, key):
    """The first value of `key` anywhere in a nested derived object."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        values = obj.values()
    elif isinstance(obj, list):
        values = obj
    else:
        return None
    for v in values:
        found = _find_key(v, key)
        if found is not None:
            return found
    return None


def _walk_expr(nodes, k, expr, found):
    """Walks an argument's producer tree alongside the scope entries it names; records the
    corpus_input of every scope input entry it reaches."""
    if not isinstance(expr, dict):
        return
    node = nodes[k]
    if node["role"] == "input":
        if expr.get("op") == "input" and "corpus_input" in expr:
            found.setdefault(k, expr["corpus_input"])
        return

    def pair(arg, sub):
        if isinstance(arg, dict) and set(arg) == {"ref"}:
            _walk_expr(nodes, arg["ref"], sub, found)
        elif isinstance(arg, list) and isinstance(sub, list):
            for a, s in zip(arg, sub):
                pair(a, s)

    pair(node.get("args", []), expr.get("args", []))
    for name, arg in node.get("kwargs", {}).items():
        pair(arg, expr.get("kwargs", {}).get(name))


def value_facts(nodes, value_properties):
    """What the occurrence's value properties say about the scope's input entries:
    (direct: entry -> derived object for the op's own tensor arguments,
     corpus: entry -> corpus_input reached through a producer tree,
     experts: the routing expert count, if any)."""
    op_at = [k for k, n in enumerate(nodes) if n["role"] == "op"]
    if len(op_at) != 1:
        raise ScopeError(f"scope: expected exactly one entry with role 'op', found {len(op_at)}")
    op_node = nodes[op_at[0]]
    direct, corpus = {}, {}
    for vp in value_properties:
        pos = vp.get("arg")
        arg = (op_node.get("args", [])[pos] if isinstance(pos, int)
               and pos < len(op_node.get("args", [])) else op_node.get("kwargs", {}).get(pos))
        if isinstance(arg, dict) and set(arg) == {"ref"}:
            if "derived" in vp:
                direct[arg["ref"]] = vp["derived"]
            if "expr" in vp:
                _walk_expr(nodes, arg["ref"], vp["expr"], corpus)
    return direct, corpus, _find_key(value_properties, "experts")


def choose_generator(tensor, seed, derived, corpus_input, experts=None, topk_index=None):
    """The generator object for one input (docs/reference/schema.md): exact reproduction for the op's
    own arguments with constant/iota/as_strided_iota values; routing ids for a topk's indices;
    otherwise hashed values by dtype, integers in the corpus's recorded index range when known."""
    if derived is not None and derived.get("kind") in EXACT_DERIVED:
        d = {k: v for k, v in derived.items() if k not in ("kind", "saved_by")}
        if derived["kind"] == "iota":
            return {"generator": "iota", "start": d["iota"]["start"], "step": d["iota"]["step"]}
        return {"generator": derived["kind"], **d}
    if topk_index == 1:
        if experts is None or len(tensor["sizes"]) != 2:
            raise ScopeError("topk indices: expected an [tokens, k] tensor and an 'experts' "
                             "value property")
        return {"generator": "topk_ids", "seed": seed, "experts": experts,
                "k": tensor["sizes"][1]}
    dtype = tensor["dtype"]
    if dtype in FLOATING or dtype == "c64":  # c64: the real part uniform, the imaginary part 0
        return {"generator": "uniform", "seed": seed}
    if dtype == "b8":
        return {"generator": "bool", "seed": seed}
    gen = (corpus_input or {}).get("gen")
    if isinstance(gen, list) and len(gen) == 3 and gen[0] == "index":
        return {"generator": "randint", "seed": seed, "low": gen[1], "high": gen[2]}
    return {"generator": "randint", "seed": seed, "low": 0, "high": 2}


def plan_inputs(nodes, value_properties):
    """The scope's inputs in entry order: [{"entry", "name", dtype, sizes, strides, offset,
    "values"}]. A tuple-valued input (a topk with no annotation) is replaced by the getitem
    entries that unpack it."""
    direct, corpus, experts = value_facts(nodes, value_properties)
    tuple_inputs = {k for k, n in enumerate(nodes) if n["role"] == "input" and not n.get("ann")}
    inputs = []
    for k, node in enumerate(nodes):
        topk_index = None
        if node["role"] == "input":
            if k in tuple_inputs:
                continue
        elif node["op"] == "_operator.getitem" and node["args"][0] in (
                {"ref": j} for j in tuple_inputs):
            source = nodes[node["args"][0]["ref"]]["op"]
            # a topk's ids are routing ids; another tuple's item (a var_mean's) is a plain input
            topk_index = node["args"][1] if source == "aten.topk.default" else None
        else:
            continue
        tensor = parse_ann(node.get("ann"), f"scope entry {k}")
        seed = len(inputs)
        values = choose_generator(tensor, seed, direct.get(k), corpus.get(k), experts,
                                  topk_index)
        inputs.append({"entry": k, "name": f"in{seed}", **tensor, "values": values})
    return inputs


def with_dtype(nodes, old, new):
    """The scope with every `old` tensor made `new` (annotations and dtype literals): the probe
    for ops whose lowering depends on the dtype."""

    def swap(obj):
        if isinstance(obj, list):
            return [swap(x) for x in obj]
        if isinstance(obj, dict):
            if set(obj) == {"dtype"} and obj["dtype"] == old:
                return {"dtype": new}
            return {k: swap(v) for k, v in obj.items()}
        return obj

    out = []
    for node in nodes:
        node = swap(node)
        ann = node.get("ann")
        if ann and ann.startswith(old + "["):
            node["ann"] = new + ann[len(old):]
        out.append(node)
    return out


# ---- torch half ----

def torch_literal(kind, value):
    """lit() for decode_arg with real torch objects."""
    import torch
    if kind == "dtype":
        if value not in TORCH_DTYPES:
            raise ScopeError(f"dtype {value!r}: expected one of {sorted(TORCH_DTYPES)}")
        return getattr(torch, TORCH_DTYPES[value])
    if kind == "device":
        return torch.device(value)
    if not value.startswith("torch."):
        raise ScopeError(f"enum {value!r}: expected torch.<name>")
    return getattr(torch, value[len("torch."):])


def make_tensor(spec, device="cuda"):
    """A tensor with the spec's exact sizes, strides and offset, filled from its generator."""
    import numpy as np
    import torch

    import gen
    dtype = getattr(torch, TORCH_DTYPES[spec["dtype"]])
    sizes, values = spec["sizes"], spec["values"]
    n = numel(sizes)
    if values["generator"] == "topk_ids":
        data = np.array(gen.topk_ids(values["seed"], values["experts"], values["k"], sizes[0]),
                        dtype=np.int64).reshape(-1)
    else:
        hashed = values["generator"] in gen.HASHED
        index = np.arange(n, dtype=np.uint64 if hashed else np.int64)
        data = np.asarray(gen.element(values, index))
        if data.shape != (n,):
            data = np.broadcast_to(data, (n,))
    if spec["dtype"] in FLOATING or spec["dtype"] == "c64":
        data = torch.from_numpy(np.ascontiguousarray(data, dtype=np.float32))
    elif spec["dtype"] == "b8":
        data = torch.from_numpy(np.ascontiguousarray(data, dtype=np.uint8)).bool()
    else:
        data = torch.from_numpy(np.ascontiguousarray(data).astype(np.int64))
    if spec["offset"]:
        extent = 1 + sum((size - 1) * stride for size, stride in zip(sizes, spec["strides"]))
        storage = torch.empty(spec["offset"] + extent, dtype=dtype, device=device)
        out = storage.as_strided(sizes, spec["strides"], spec["offset"])
    else:
        out = torch.empty_strided(sizes, spec["strides"], dtype=dtype, device=device)
    out.copy_(data.to(device).to(dtype).reshape(sizes))
    return out


class _Ref:
    """A decoded reference to an earlier entry's value, bound when the function runs."""

    __slots__ = ("entry",)

    def __init__(self, entry):
        self.entry = entry


def _bind(template, env):
    if isinstance(template, _Ref):
        return env[template.entry]
    if isinstance(template, list):
        return [_bind(t, env) for t in template]
    return template


def build_function(nodes, inputs, outputs):
    """fn(*input_tensors) calling torch.ops.<ns>.<op>.<overload> for every non-input entry in
    order and returning the tuple of `outputs`, (entry, item) selectors: item None for the
    entry's value, j for element j of a tuple result. Arguments are decoded here, once, so the
    function torch.compile traces only binds references and calls ops."""
    import torch
    import torch._inductor.inductor_prims  # noqa: F401  registers prims.fma and friends

    input_entries = [spec["entry"] for spec in inputs]
    known = set(input_entries)
    steps = []
    for k, node in enumerate(nodes):
        if k in known or node["role"] == "input":
            continue
        path = op_path(node["op"])
        if path[0] == "operator":
            target = operator.getitem
        else:
            try:
                target = getattr(getattr(getattr(torch.ops, path[0]), path[1]), path[2])
            except (AttributeError, RuntimeError) as e:
                raise ScopeError(f"scope entry {k}: no operator {node['op']}: {e}") from None

        def ref(j, k=k):
            if j not in known:
                raise ScopeError(f"scope entry {k}: uses entry {j}, which is not computed "
                                 "before it")
            return _Ref(j)

        args = decode_arg(node.get("args", []), ref, torch_literal)
        kwargs = {name: decode_arg(a, ref, torch_literal)
                  for name, a in node.get("kwargs", {}).items()}
        steps.append((k, target, args, kwargs))
        known.add(k)
    for k, _ in outputs:
        if k not in known:
            raise ScopeError(f"scope entry {k}: returned but never computed")

    def fn(*tensors):
        env = dict(zip(input_entries, tensors))
        for k, target, args, kwargs in steps:
            env[k] = target(*_bind(args, env),
                            **{name: _bind(a, env) for name, a in kwargs.items()})
        return tuple(env[k] if j is None else env[k][j] for k, j in outputs)

    return fn
