"""What an Inductor wrapper shows about how a scope was compiled (capture.json "evidence").

Works on the generated source alone, so the verdict can be re-derived from the stored
<config>.wrapper.py. Comment lines are dropped before any call is counted: Inductor's
"# Topologically Sorted Source Nodes" and "# Graph fragment" comments name the original ATen
ops (torch.ops.aten.cumsum.default) even when Inductor lowered them. The one thing read from a
comment is the "# alias" marker that closes a reinterpret_tensor line: a cat input written in
place into its slice of the output.
"""

import re

KINDS = ("poi", "red", "per", "spl", "for", "tem")

_ATEN = re.compile(r"\btorch\.ops\.aten\.(\w+)\.(\w+)\(")
_ATEN_ALIAS = re.compile(r"(?<![\w.])aten\.(index_put_)\(")
_EXTERN = re.compile(r"\bextern_kernels\.(\w+)\(")
_LAUNCH = re.compile(r"\b(triton_([a-z]+)_\w+)\.run\(")
_ZERO = re.compile(r"\.zero_\(\)")
_ALIAS = re.compile(r"\breinterpret_tensor\(.*#\s*alias\s*$")


class EvidenceError(Exception):
    """The wrapper holds something the schema has no place for."""


def is_comment(line):
    return line.lstrip().startswith("#")


def code_lines(source):
    """Non-comment lines, each cut at a trailing comment."""
    return [line.split("#", 1)[0] for line in source.splitlines() if not is_comment(line)]


def device_calls(source):
    """The wrapper's device work in source order as (kind, name): ("triton", kernel) for each
    launch, ("aten", "torch.ops.aten.X.Y" | "aten.index_put_") for each ATen fallback,
    ("extern", "extern_kernels.X") for each extern kernel, ("zero", "aten.zero_") for each
    workspace zeroing."""
    patterns = ((_LAUNCH, "triton", lambda m: m.group(1)),
                (_ATEN, "aten", lambda m: f"torch.ops.aten.{m.group(1)}.{m.group(2)}"),
                (_ATEN_ALIAS, "aten", lambda m: f"aten.{m.group(1)}"),
                (_EXTERN, "extern", lambda m: f"extern_kernels.{m.group(1)}"),
                (_ZERO, "zero", lambda m: "aten.zero_"))
    calls = []
    for line in code_lines(source):
        found = [(m.start(), kind, name(m)) for pattern, kind, name in patterns
                 for m in pattern.finditer(line)]
        calls += [(kind, text) for _, kind, text in sorted(found)]
    return calls


def launch_kind(kernel):
    """'triton_per_fused_cumsum_0' -> 'per'."""
    m = re.match(r"triton_([a-z]+)_", kernel)
    if not m or m.group(1) not in KINDS:
        raise EvidenceError(f"kernel {kernel!r}: expected a name triton_<kind>_..., kind one of "
                            f"{', '.join(KINDS)}")
    return m.group(1)


def kernel_uses(kernel_source, name):
    """Whether a Triton kernel's code (comments dropped) calls tl.<name>."""
    return any(f"tl.{name}(" in line for line in code_lines(kernel_source))


def evidence(source, kernel_sources):
    """The evidence object for one compiled wrapper; kernel_sources maps each Triton kernel the
    module defines to its source. Scan and atomic kernels are counted among the launched ones,
    each once."""
    calls = device_calls(source)
    launches = dict.fromkeys(KINDS, 0)
    launched = []
    for kind, name in calls:
        if kind == "triton":
            launches[launch_kind(name)] += 1
            launched += [name] if name not in launched else []
    missing = [name for name in launched if name not in kernel_sources]
    if missing:
        raise EvidenceError(f"no Triton source for launched kernel(s) {', '.join(missing)}")
    used = [kernel_sources[name] for name in launched]
    return {
        "aten_calls": [name for kind, name in calls if kind == "aten"],
        "extern_kernels": [name for kind, name in calls if kind == "extern"],
        "triton_launches": launches,
        "alias_slices": sum(1 for line in source.splitlines()
                            if not is_comment(line) and _ALIAS.search(line)),
        "workspace_zeroing": sum(1 for kind, _ in calls if kind == "zero"),
        "scan_kernels": sum(kernel_uses(src, "associative_scan") for src in used),
        "atomic_kernels": sum(kernel_uses(src, "atomic_add") for src in used),
    }
