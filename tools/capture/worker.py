"""Captures one scope in this process (capture.py starts one fresh process per scope, each with
its own TORCHINDUCTOR_CACHE_DIR, so nothing compiled for another scope is reused and every
kernel binary is found on disk).

For the scope: generate its inputs, run it eagerly, then per configuration compile it with
torch.compile(fullgraph=True, dynamic=False), keep the wrapper and its evidence, record one call's
launches and allocations into a replay plan, check the outputs against eager, and time eager and
compiled. index_add scopes get a probe run: the same scope with bf16 made f32, which shows
whether the op lowers for another dtype (captured like the others: src/target/capture.c reads every run
the same way).

    python3 tools/capture/worker.py --golden golden --out DIR --scope SCOPE_ID --command CMD
        [--no-timing] [--lock FILE] [--lowering NAME]

With --lowering, every compile runs under that candidate's patch (tools/capture/lowerings/) and
capture.json records which candidate it was.
"""

import argparse
import contextlib
import fcntl
import math
import os
import shutil
import subprocess
import sys
import time
import traceback

import atomic
import evidence
import gen
import golden
import lowerings
import record
import scope
import timing
import trace

CONFIGS = (("default", False), ("coordinate_descent", True))
PROBES = {"aten.index_add.default": ("bf16", "f32")}
FLOAT_TOLERANCE = 1e-2


class CaptureError(Exception):
    """The scope could not be captured faithfully; the message says why."""


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def environment():
    """What the capture ran on, for capture.json."""
    import torch
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:  # op_timing.py runs eager ops only: say so rather than fail
        triton_version = "not installed"
    props = torch.cuda.get_device_properties(0)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True)
    return {"torch": torch.__version__, "torch_git": torch.version.git_version,
            "triton": triton_version, "gpu": props.name,
            "capability": f"{props.major}.{props.minor}", "driver": smi.stdout.split()[0],
            "cuda": torch.version.cuda}


def short_dtype(dtype):
    import torch
    for short, name in scope.TORCH_DTYPES.items():
        if getattr(torch, name) == dtype:
            return short
    raise CaptureError(f"output dtype {dtype}: no schema name")


def tensor_checksum(t):
    """docs/reference/schema.md's output checksum over t's row-major logical elements."""
    import numpy as np
    import torch
    size = t.element_size()
    signed = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    bits = t.contiguous().view(signed).reshape(-1).cpu().numpy().view(unsigned).astype(np.uint64)
    index = np.arange(bits.size, dtype=np.uint64)
    return gen.checksum_hex(np.sum(gen.checksum_terms(bits, index), dtype=np.uint64))


def same_sort_order(got, want, keys, dim):
    """Whether got and want are both indices that sort keys along dim: an unstable sort's ties in another
    order are still a correct result."""
    import torch
    perm = torch.arange(keys.shape[dim], device=got.device).view(
        [-1 if d == dim % keys.dim() else 1 for d in range(keys.dim())]).expand_as(got)
    return (torch.equal(torch.sort(got, dim=dim).values, perm) and
            torch.equal(keys.gather(dim, got), keys.gather(dim, want)))


def check_close(got, want, what, ties=None):
    """Compiled against eager: exact for integers and bools, relative L2 for floats; ties {output
    position: keys, dim} for an unstable sort's indices, which need only sort the same keys."""
    import torch
    ties = ties or {}
    if len(got) != len(want):
        raise CaptureError(f"{what}: {len(got)} outputs, eager gives {len(want)}")
    for k, (a, b) in enumerate(zip(got, want)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise CaptureError(f"{what}: output {k} is {a.dtype}{list(a.shape)}, eager gives "
                               f"{b.dtype}{list(b.shape)}")
        if a.dtype.is_floating_point or a.dtype.is_complex:
            err = relative_l2(a, b)
            if not err <= FLOAT_TOLERANCE:
                raise CaptureError(f"{what}: output {k} differs from eager: relative L2 {err:.3g} "
                                   f"> {FLOAT_TOLERANCE}")
        elif not torch.equal(a, b):
            if k in ties and same_sort_order(a, b, *ties[k]):
                log(f"{what}: output {k} orders an unstable sort's ties differently from eager; both sort the keys")
                continue
            raise CaptureError(f"{what}: output {k} ({a.dtype}) differs from eager")


def distinct_outputs(selectors, values, inputs):
    """The selectors whose tensors own their storage: a view of an input or of an earlier output
    adds no device work, and the schema has no way to say two outputs share memory."""
    seen = {t.untyped_storage().data_ptr() for t in inputs}
    keep = []
    for sel, t in zip(selectors, values):
        ptr = t.untyped_storage().data_ptr()
        if ptr in seen:
            log(f"output entry {sel[0]} shares storage with an input or another output: dropped")
            continue
        seen.add(ptr)
        keep.append(sel)
    return keep


@contextlib.contextmanager
def gpu_lock(path, shared=False):
    """A readers-writer lock on the GPU shared by parallel captures: every phase that runs kernels
    (eager references, compiling and recording a call, checks) holds it shared, so compiles still
    overlap, and a timing phase holds it exclusive, so no other capture's kernels run inside a
    timed window (without that, the same eager scope timed 396 us in one run and 772 us in the next
    of one capture, eight captures in parallel on the H200)."""
    if path is None:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def view_bytes(t):
    """Bytes from t's storage start to the end of its last element."""
    extent = 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else 0
    return (t.storage_offset() + extent) * t.element_size()


def named_storages(specs, inputs, outputs):
    """trace.build's tensors. The C side sizes an output from its own layout, so an output that
    is a view into a larger allocation cannot be replayed."""
    for k, t in enumerate(outputs):
        if t.untyped_storage().nbytes() > view_bytes(t):
            raise CaptureError(f"out{k} is a view of a {t.untyped_storage().nbytes()}-byte "
                               f"allocation but spans only {view_bytes(t)} bytes")
    named = [(s["name"], t) for s, t in zip(specs, inputs)]
    named += [(f"out{k}", t) for k, t in enumerate(outputs)]
    return [{"name": name, "storage": t.untyped_storage().data_ptr(),
             "bytes": t.untyped_storage().nbytes()} for name, t in named]


class Variant:
    """The scope made runnable: input specs and tensors, the output selectors, the function and
    its eager outputs. The probe variant reuses the base variant's selectors; values {entry: generator}
    replaces the generators of those inputs (the fabricated index)."""

    def __init__(self, nodes, props, selectors=None, values=None):
        import torch
        self.specs = scope.plan_inputs(nodes, props)
        for spec in self.specs:
            spec["values"] = (values or {}).get(spec["entry"], spec["values"])
        self.inputs = [scope.make_tensor(s) for s in self.specs]
        if selectors is None:
            escaping = [(k, None) for k in scope.output_entries(nodes)]
            if not escaping:
                raise CaptureError("scope: no entry escapes, so there is nothing to compute")
            raw = dict(zip([k for k, _ in escaping],
                           scope.build_function(nodes, self.specs, escaping)(*self.inputs)))
            expanded = scope.expand_outputs(list(raw), list(raw.values()))
            selectors = distinct_outputs(
                expanded, [raw[k] if j is None else raw[k][j] for k, j in expanded], self.inputs)
        self.selectors = selectors
        self.fn = scope.build_function(nodes, self.specs, selectors)
        self.eager = self.fn(*self.inputs)
        sorts = scope.unstable_sort_indices(nodes, selectors)
        keys = scope.build_function(nodes, self.specs, [(e, None) for e, _ in sorts.values()])(*self.inputs) \
            if sorts else ()
        self.ties = {pos: (key, dim) for (pos, (_, dim)), key in zip(sorts.items(), keys)}
        torch.cuda.synchronize()


def compile_run(variant, config, coordesc, probe, out_dir):
    """One torch.compile of the variant: the run object (no timing yet), the compiled function
    and the outputs of one recorded call."""
    import torch
    from torch._inductor.utils import run_and_get_code
    run = {"config": config, "inductor_config": {"coordinate_descent_tuning": coordesc},
           "probe": probe, "evidence": None, "wrapper": f"{config}.wrapper.py", "buffers": None,
           "steps": None, "replayable": None, "timing": None}
    inputs = variant.inputs
    with torch._inductor.config.patch(coordinate_descent_tuning=coordesc):
        skip = record.module_count()
        compiled = torch.compile(variant.fn, fullgraph=True, dynamic=False)
        _, sources = run_and_get_code(compiled, *inputs)
        if len(set(sources)) != 1:
            raise CaptureError(f"{config}: expected one generated wrapper, got {len(sources)}")
        source = sources[0]
        with open(os.path.join(out_dir, run["wrapper"]), "w", encoding="utf-8") as f:
            f.write(source)
        mod = record.compiled_module(skip, source)
        run["evidence"] = evidence.evidence(source, record.kernel_sources(mod))
        with record.Recorder(mod, config) as rec:
            outputs = compiled(*inputs)
            torch.cuda.synchronize()
    storages = [t.untyped_storage().data_ptr() for t in [*inputs, *outputs]]
    if len(set(storages)) != len(storages):
        raise CaptureError(f"{config}: a compiled output shares storage with an input or another "
                           "output, unlike eager")
    check_close(outputs, variant.eager, config, variant.ties)
    run["buffers"], run["steps"], run["replayable"] = trace.build(
        rec.events, named_storages(variant.specs, inputs, outputs), evidence.device_calls(source))
    for kernel, path in rec.cubins.items():
        shutil.copyfile(path, os.path.join(out_dir, f"{config}.{kernel}.cubin"))
    return run, compiled, outputs


REFERENCE_SAMPLES = 4096


def sample_stride(numel, samples=REFERENCE_SAMPLES):
    """Every how-many-th row-major element the reference keeps: at most `samples` of them."""
    return max(1, -(-numel // samples))


def reference_samples(t):
    """Eager output t's row-major elements 0, s, 2s, ... as floats (docs/reference/schema.md, capture "reference"),
    or None when t is not floating or holds a non-finite sample (JSON has no NaN)."""
    import torch
    if not t.dtype.is_floating_point:
        return None
    stride = sample_stride(t.numel())
    values = t.reshape(-1)[::stride].double()
    if not bool(torch.isfinite(values).all()):
        return None
    return {"stride": stride, "values": values.cpu().tolist()}


def describe_outputs(outputs, eager=None):
    """capture.json's outputs; with eager (a run with tl.atomic_add, whose bits vary from run to run), each
    floating output also carries eager's reference samples, which the C replay judges it against."""
    docs = [{"name": f"out{k}", "dtype": short_dtype(t.dtype), "sizes": list(t.shape),
             "strides": list(t.stride()), "offset": t.storage_offset(),
             "checksum": tensor_checksum(t)} for k, t in enumerate(outputs)]
    for doc, ref in zip(docs, eager or []):
        samples = reference_samples(ref)
        if samples:
            doc["reference"] = samples
    return docs


FLOAT_DTYPES = ("bf16", "f16", "f32")  # made f64 in the reference; c64 (an FFT's) made c128


def relative_l2(got, want):
    """||got - want|| / ||want|| in float64, for floating outputs (complex ones, an FFT's: over real and
    imaginary parts); None for others."""
    import torch
    if not (got.dtype.is_floating_point or got.dtype.is_complex):
        return None
    a, b = (torch.view_as_real(x.resolve_conj()).double() if x.dtype.is_complex else x.double() for x in (got, want))
    return (torch.linalg.vector_norm(a - b) / torch.linalg.vector_norm(b).clamp_min(1e-30)).item()


def fp64_reference(variant, nodes, props):
    """The scope evaluated in float64 (every floating tensor and dtype literal made f64) on the variant's
    inputs upcast: the reference a candidate's outputs and eager's are both judged against, so a candidate's
    error sits beside the error of the ATen path it replaces. {"outputs": tensors (dropped before the JSON),
    "eager_error": [...]}, or {"error": why} when the scope cannot run in float64 (then no run has fp64_error)."""
    import torch
    try:
        nodes64 = nodes
        for d in FLOAT_DTYPES:
            nodes64 = scope.with_dtype(nodes64, d, "f64")
        nodes64 = scope.with_dtype(nodes64, "c64", "c128")
        specs64 = scope.plan_inputs(nodes64, props)
        inputs64 = [x.double() if x.is_floating_point() else x.to(torch.complex128) if x.is_complex() else x
                    for x in variant.inputs]
        outputs = scope.build_function(nodes64, specs64, variant.selectors)(*inputs64)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001  any failure of the f64 scope is reported in the capture, not fatal
        log(f"fp64 reference: {type(e).__name__}: {e}")
        return {"error": f"{type(e).__name__}: {e}"}
    errors = [relative_l2(a, b) for a, b in zip(variant.eager, outputs)]
    if not all(e is None or math.isfinite(e) for e in errors):
        log(f"fp64 reference: eager's error is not finite: {errors}")
        return {"error": f"eager's relative L2 error against float64 is not finite: {errors}"}
    return {"method": "the scope in float64 on the same inputs upcast (eager)", "outputs": outputs,
            "eager_error": errors}


def fp64_errors(outputs, ref, what):
    """Each output's relative L2 error against the fp64 reference (None: not floating); a non-finite one fails
    the run: the C reader takes only finite errors, and such an output is no result."""
    errors = [relative_l2(a, b) for a, b in zip(outputs, ref)]
    if not all(e is None or math.isfinite(e) for e in errors):
        raise CaptureError(f"{what}: an output's relative L2 error against float64 is not finite: {errors}")
    return errors


def check_against_fp64(outputs, variant, ref, what):
    """The fabricated index piles ~80 bf16 atomic adds on each of 100 rows: two orders of them differ by about
    1% relative L2, so compiled and eager are not held to each other but each to the scope in float64: a
    floating output may be off by FLOAT_TOLERANCE or twice eager's own error, whichever is larger; others as
    check_close."""
    errors = fp64_errors(outputs, ref["outputs"], what)
    for k, (e, e_eager) in enumerate(zip(errors, ref["eager_error"])):
        if e is not None and e > max(FLOAT_TOLERANCE, 2 * e_eager):
            raise CaptureError(f"{what}: output {k}: relative L2 {e:.3g} against float64, over "
                               f"max({FLOAT_TOLERANCE}, 2 x eager's {e_eager:.3g})")
    exact = [k for k, e in enumerate(errors) if e is None]
    check_close([outputs[k] for k in exact], [variant.eager[k] for k in exact], what,
                {exact.index(k): t for k, t in variant.ties.items() if k in exact})


def timed_compile(variant, ref, what, lock):
    """variant.fn compiled afresh, its outputs checked (check_against_fp64), then timed: before the next
    dynamo reset, after which the same compiled function would recompile under whatever patch is active."""
    import torch
    with gpu_lock(lock, shared=True):
        torch._dynamo.reset()
        compiled = torch.compile(variant.fn, fullgraph=True, dynamic=False)
        outputs = compiled(*variant.inputs)
        torch.cuda.synchronize()
        check_against_fp64(outputs, variant, ref, what)
        del outputs
    with gpu_lock(lock):
        return timing.time_calls(compiled, variant.inputs)


def fabricated_prices(nodes, props, lowering, lock):
    """The candidate's and today's compiled scope timed on the fabricated index (scope.fabricated_scope):
    what the attribution pipeline would price before and after the lowering. {"index": generator, method,
    "default": stats, "without_lowering": stats}, {"error": why} when it could not be compiled or timed, or
    None for an op without a fabricated mode."""
    try:
        spec = scope.fabricated_scope(nodes)
        if spec is None:
            return None
        fab_nodes, values = spec
        with gpu_lock(lock, shared=True):
            variant = Variant(fab_nodes, props, values=values)
            ref = fp64_reference(variant, fab_nodes, props)
        if "error" in ref:
            raise CaptureError(f"fabricated: no float64 reference: {ref['error']}")
        if hasattr(lowering, "bind"):
            lowering.bind(variant.specs)
        with lowering.patch():
            candidate = timed_compile(variant, ref, "fabricated default", lock)
        today = timed_compile(variant, ref, "fabricated without_lowering", lock)
        return {"index": next(iter(values.values())), **timing.method(), "default": candidate,
                "without_lowering": today}
    except Exception as e:  # noqa: BLE001  reported in the capture (golden price says it is unpriced), not fatal
        log(f"fabricated: {type(e).__name__}: {e}")
        return {"error": f"{type(e).__name__}: {e}"}


def add_run(doc, variant, config, coordesc, probe, out_dir, timed, lock):
    """Compiles, records, checks and times one run into doc; the first run's outputs give the
    checksums."""
    import torch
    with gpu_lock(lock, shared=True):
        run, compiled, outputs = compile_run(variant, config, coordesc, probe, out_dir)
        if doc["outputs"] is None:
            doc["outputs"] = describe_outputs(outputs, variant.eager if run["evidence"]["atomic_kernels"] else None)
        ref = doc.get("fp64", {}).get("outputs")
        if ref is not None and probe is None:  # a dtype probe computes another function: no fp64 error
            run["fp64_error"] = fp64_errors(outputs, ref, config)
        del outputs
    if timed:
        with gpu_lock(lock):
            run["timing"] = {**timing.method(), "eager": timing.time_calls(variant.fn, variant.inputs),
                             "compiled": timing.time_calls(compiled, variant.inputs)}
    ev = run["evidence"]
    log(f"{config}: launches {ev['triton_launches']} aten {ev['aten_calls']} alias "
        f"{ev['alias_slices']} scan {ev['scan_kernels']} atomic {ev['atomic_kernels']} "
        f"replayable {run['replayable']} timing {run['timing']}")
    doc["runs"].append(run)
    torch.cuda.empty_cache()


def add_runs(doc, base, nodes, props, out_dir, timed, lock):
    """The default and coordinate_descent runs, and the dtype probe where the op has one."""
    for config, coordesc in CONFIGS:
        add_run(doc, base, config, coordesc, None, out_dir, timed, lock)
    op = next(n["op"] for n in nodes if n["role"] == "op")
    if op in PROBES:
        old, new = PROBES[op]
        with gpu_lock(lock, shared=True):
            probe = Variant(scope.with_dtype(nodes, old, new), props, base.selectors)
        add_run(doc, probe, f"probe_{new}", False, {"dtype": new}, out_dir, timed, lock)


@contextlib.contextmanager
def uncached_compiles():
    """Inductor's FX-graph and AOTAutograd caches do not key on the decomposition table a candidate
    patches, so a compile could be served the other side's code: both are off for such captures."""
    import torch
    with torch._inductor.config.patch(fx_graph_cache=False), \
            torch._functorch.config.patch(enable_autograd_cache=False):
        torch._dynamo.reset()
        yield


def capture(entry, out_dir, command, timed, lock, lowering=None):
    """capture.json's object for one distinct scope; cubins and wrappers land in out_dir. The
    eager reference runs outside the candidate lowering's patch: it must stay ATen's."""
    nodes = entry["scope"]["nodes"]
    props = entry["point"]["signature"].get("value_properties", [])
    with gpu_lock(lock, shared=True):
        base = Variant(nodes, props)
    log(f"{len(base.specs)} inputs, {len(base.selectors)} outputs; eager ok")
    doc = {"schema": "extern-audit/capture", "schema_version": 1, "scope": entry["scope_id"],
           "covers": entry["covers"], "command": command, "environment": environment(),
           "inputs": [{k: s[k] for k in ("name", "dtype", "sizes", "strides", "offset", "values")}
                      for s in base.specs],
           "outputs": None, "runs": []}
    if lowering is None:
        add_runs(doc, base, nodes, props, out_dir, timed, lock)
        return doc
    import torch
    doc["lowering"] = lowerings.describe(lowering)
    with gpu_lock(lock, shared=True):
        doc["fp64"] = fp64_reference(base, nodes, props)
    if hasattr(lowering, "bind"):  # a graph rewrite that needs what the scope knows of its inputs
        lowering.bind(base.specs)
    with uncached_compiles():
        with lowering.patch():
            add_runs(doc, base, nodes, props, out_dir, timed, lock)
        # today's compiled code for the same inputs, timed in this process beside the candidate's
        torch._dynamo.reset()
        add_run(doc, base, "without_lowering", False, None, out_dir, timed, lock)
        if timed:
            fabricated = fabricated_prices(nodes, props, lowering, lock)
            if fabricated is not None:
                doc["fabricated"] = fabricated
    doc["fp64"].pop("outputs", None)
    return doc


def write_json(path, doc):
    """Atomic (atomic.write_json): a failed write leaves no half-written or temporary file."""
    atomic.write_json(path, doc)


def fail(scope_id, message):
    """Reports a failed capture. Nothing of it is left: it was built in a temporary folder, and
    an earlier capture of the scope stays as it was."""
    print(f"error: {scope_id}: {message}", file=sys.stderr, flush=True)
    return 1


def main(argv):
    p = argparse.ArgumentParser(description="Capture one golden scope (run by capture.py).")
    p.add_argument("--golden", required=True)
    p.add_argument("--out", required=True, help="captures folder; writes OUT/<scope>/")
    p.add_argument("--scope", required=True)
    p.add_argument("--command", required=True, help="the command line capture.json records")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--lock", help="file locked around timing, shared by parallel captures")
    p.add_argument("--lowering", help="candidate lowering to apply (tools/capture/lowerings/)")
    args = p.parse_args(argv)
    out_dir = os.path.join(args.out, args.scope)
    try:
        lowering = lowerings.load(args.lowering) if args.lowering else None
        entry = next((e for e in golden.load_scopes(args.golden) if e["scope_id"] == args.scope),
                     None)
        if entry is None:
            raise CaptureError(f"{args.golden}/occurrences: no distinct scope {args.scope}")
        # built beside out_dir and renamed into place only when complete
        with atomic.staged_dir(out_dir) as tmp_dir:
            doc = capture(entry, tmp_dir, args.command, not args.no_timing, args.lock, lowering)
            write_json(os.path.join(tmp_dir, "capture.json"), doc)
    except (CaptureError, golden.GoldenError, scope.ScopeError, record.RecordError,
            trace.TraceError, evidence.EvidenceError, lowerings.LoweringError) as e:
        return fail(args.scope, str(e))
    except Exception as e:  # a torch failure: keep its traceback in the log
        traceback.print_exc()
        first = str(e).splitlines()[0] if str(e) else ""
        return fail(args.scope, f"{type(e).__name__}: {first}")
    log(f"wrote {os.path.join(out_dir, 'capture.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
