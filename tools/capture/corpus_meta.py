"""The corpus format of a model's graphs, as better-benchmark writes it and src/corpus/meta.c reads it
(standard library only, no torch: corpus.py hands it plain values taken from the graph).

    repros/models/<suite>/<mode>/<model>/full_graph_NNN.py         the graph, print_readable's text
    repros/models/<suite>/<mode>/<model>/full_graph_NNN.meta.json  inputs, outputs, node_accounting
    repros/models/<suite>/<mode>/<model>/manifest.json             the graphs, in compile order

meta.json (schema_version 2): each input is [sizes, dtype, {"n", "st"?, "off"?, "gen"?, "x"?}] ("st"
only when not contiguous, "off" only when not 0) or ["sym", value]; an integer input that is one
the tool generated carries its declared range, ["index", lo, hi] with x.constraint_source
"declared" (the point id keeps the range, not what the random draw held: src/corpus/extract.c); an
integer input the tool cannot trace to one it made has neither, so no range is claimed for it.
node_accounting puts every call_function in one bucket the way the attribution pipeline does:
fusible_in_partition (in a partition of supported nodes with real compute), fusible_unpartitioned
(supported, in no such partition) and non_fusible (torch's is_fusible_node rejects it and it is no
view).
"""

import collections
import os

SCHEMA_VERSION = 2
BUCKETS = ("fusible_in_partition", "fusible_unpartitioned", "non_fusible")

# torch dtype names -> the short names of graph annotations (src/base/tensor.c's list)
DTYPES = {
    "torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32", "torch.float64": "f64",
    "torch.int8": "i8", "torch.int16": "i16", "torch.int32": "i32", "torch.int64": "i64",
    "torch.uint8": "u8", "torch.uint64": "u64", "torch.bool": "b8", "torch.complex64": "c64",
}
INTEGER = ("i8", "i16", "i32", "i64", "u8", "u64")


class FormatError(Exception):
    """A value the corpus format cannot hold; the message names it."""


def graph_file(index):
    return f"full_graph_{index:03d}.py"


def meta_file(index):
    return f"full_graph_{index:03d}.meta.json"


def model_dir(root, suite, mode, model):
    """The folder of one model's graphs: model names may hold '/' (openai/gpt-oss-20b)."""
    for part, what in ((suite, "suite"), (mode, "mode")):
        if not part or "/" in part or part.startswith("."):
            raise FormatError(f"{what} {part!r}: expected one folder name")
    if not model or model.startswith("/") or ".." in model.split("/"):
        raise FormatError(f"model {model!r}: expected a relative name")
    return os.path.join(root, "repros", "models", suite, mode, model)


def dtype_name(torch_dtype):
    name = DTYPES.get(str(torch_dtype))
    if name is None:
        raise FormatError(f"dtype {torch_dtype}: expected one of {', '.join(sorted(DTYPES))}")
    return name


def contiguous_strides(sizes):
    """Row-major strides; a dimension of size 0 or 1 steps like size 1 (as torch and src/corpus/meta.c do)."""
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


def tensor_entry(name, sizes, strides, offset, dtype, gen=None, x=None):
    attrs = {"n": name}
    if list(strides) != contiguous_strides(sizes):
        attrs["st"] = list(strides)
    if offset:
        attrs["off"] = offset
    if gen is not None:
        attrs["gen"] = gen
    if x is not None:
        attrs["x"] = x
    return [list(sizes), dtype, attrs]


class Declared:
    """An integer input the tool generated: its sizes, dtype, the range it declares ([lo, hi)) and what
    one draw held (informational: it stays out of the point id)."""

    def __init__(self, name, sizes, dtype, lo, hi, observed=None):
        if hi <= lo:
            raise FormatError(f"input {name}: expected a range lo < hi, got [{lo}, {hi})")
        self.name, self.sizes, self.dtype, self.lo, self.hi, self.observed = name, list(sizes), dtype, lo, hi, observed


def integer_range(sizes, dtype, declared):
    """(gen, x) for an integer graph input: the declared range of the generated inputs of its sizes and
    dtype when they all declare one range (input_ids and labels of one vocabulary), what the draw held
    when there is one such input; (None, None) when none match or their ranges differ (no range is
    claimed that the tool did not declare)."""
    if dtype not in INTEGER:
        return None, None
    match = [d for d in declared if d.sizes == list(sizes) and d.dtype == dtype]
    if not match or len({(d.lo, d.hi) for d in match}) != 1:
        return None, None
    x = {"constraint_source": "declared"}
    if len(match) == 1 and match[0].observed is not None:
        x["observed"] = dict(match[0].observed)
    # as better-benchmark's generators: lo inclusive, hi exclusive
    return ["index", match[0].lo, match[0].hi], x


def op_name(target):
    """An op as meta.json spells it: "aten.cat.default", "_operator.getitem"."""
    module, name = getattr(target, "__module__", None), getattr(target, "__name__", None)
    if type(target).__name__ == "OpOverload" or module is None or name is None:
        return str(target)
    return f"{module}.{name}".lstrip(".")


def accounting(nodes, partitioned, supported):
    """node_accounting of nodes (fx-like: .op, .target) given the set of nodes inside kept partitions and
    the capture pipeline's support test (a view, or torch's is_fusible_node)."""
    buckets = {b: collections.Counter() for b in BUCKETS}
    total = 0
    for node in nodes:
        if node.op != "call_function":
            continue
        total += 1
        if node in partitioned:
            bucket = "fusible_in_partition"
        elif supported(node):
            bucket = "fusible_unpartitioned"
        else:
            bucket = "non_fusible"
        buckets[bucket][op_name(node.target)] += 1
    return {
        "total_call_functions": total,
        "counts": {b: sum(buckets[b].values()) for b in BUCKETS},
        "ops": {b: dict(sorted(buckets[b].items())) for b in BUCKETS},
    }


def connected_parts(nodes, neighbours):
    """nodes split where no data flows between them (neighbours(n): the nodes n reads or is read by),
    each part in the order of nodes: one partition per fusion, never a horizontal one."""
    inside, seen, parts = set(nodes), set(), []
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        part, todo = [], [start]
        while todo:
            n = todo.pop()
            part.append(n)
            for m in neighbours(n):
                if m in inside and m not in seen:
                    seen.add(m)
                    todo.append(m)
        order = {n: i for i, n in enumerate(nodes)}
        parts.append(sorted(part, key=order.__getitem__))
    return parts


def meta_document(index, suite, mode, model, inputs, outputs, tensor_attrs, node_accounting):
    graph = graph_file(index)
    return {
        "schema_version": SCHEMA_VERSION,
        "inputs": inputs,
        "outputs": outputs,
        "tensor_attrs": tensor_attrs,
        "graph": graph,
        "source": {"kind": "model", "suite": suite, "mode": mode, "model": model, "graph": graph},
        "node_accounting": node_accounting,
        "roundtrip": "ok",
    }


def manifest(suite, mode, model, count, settings):
    """The model's graphs in compile order, and how they were made (the tool's settings)."""
    graphs = [graph_file(i) for i in range(count)]
    return {
        "schema_version": 1,
        "source": suite,
        "model": model,
        "mode": mode,
        "graphs": graphs,
        "graph_metadata": {g: meta_file(i) for i, g in enumerate(graphs)},
        "made_by": settings,
    }
