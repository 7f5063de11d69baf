"""A corpus from the user's own model: its post-grad graphs as better-benchmark's corpus holds them.

The model (a torchvision or transformers name, random weights, nothing downloaded) runs once under
torch.compile (default mode, static shapes) with the FX-graph and AOTAutograd caches off; a
post_grad_custom_post_pass on Inductor's config writes each graph Inductor compiles, in compile
order, as full_graph_NNN.py (GraphModule.print_readable with strides and devices) and
full_graph_NNN.meta.json (corpus_meta.py: inputs from the placeholders' fake values, integer inputs
the tool generated as index generators with their declared range, node_accounting from torch's own
is_fusible_node), then manifest.json. The model's folder is replaced whole (atomic.staged_dir).

    python3 tools/capture/corpus.py --model torchvision:densenet121 --mode train --batch 4 \\
        --autocast bf16 --suite torchbench --out CORPUS
    python3 tools/capture/corpus.py --model transformers:LongformerForMaskedLM --name AllenaiLongformerBase \\
        --config attention_window=256 --batch 8 --seq 1024 --dtype bf16 --mode train --out CORPUS
    python3 tools/capture/corpus.py ... --plan      # the settings and the folder, no torch

Exit 0 when the graphs are written, 1 when the model failed to build, run or dump (nothing is
written), 2 for bad usage or no torch/CUDA.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402
import corpus_meta  # noqa: E402

SOURCES = ("torchvision", "transformers")
DTYPES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}
# ops that only view their input: allowed inside a partition, never compute on their own
VIEW_OPS = ("aten.view.default", "aten.reshape.default", "aten.permute.default", "aten.slice.Tensor",
            "aten.unsqueeze.default", "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
            "aten.expand.default", "aten.t.default", "aten.transpose.int", "aten.select.int",
            "aten.as_strided.default", "_operator.getitem")


class DumpError(Exception):
    """The model could not be built, run or dumped; the message says why."""


class NoDevice(Exception):
    """No torch with CUDA on this machine."""


def _value(text):
    """A config override's value: JSON when it parses (256, true, [1, 2]), else the string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_args(argv):
    p = argparse.ArgumentParser(prog="corpus.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, metavar="SOURCE:NAME",
                   help="torchvision:densenet121, transformers:LongformerForMaskedLM (a model class; its "
                        "config class's defaults, then --config)")
    p.add_argument("--name", help="the model's name in the corpus (default: NAME)")
    p.add_argument("--suite", help="the corpus suite (default: torchbench for torchvision, hf for transformers)")
    p.add_argument("--mode", choices=("train", "infer"), default="infer")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a transformers config override (repeatable; VALUE read as JSON when it parses)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=128, help="sequence length (transformers)")
    p.add_argument("--image-size", type=int, default=224, help="image height and width (torchvision)")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f32", help="the weights' and inputs' dtype")
    p.add_argument("--autocast", choices=sorted(DTYPES), help="run under torch.autocast of this dtype")
    p.add_argument("--labels", choices=("auto", "none"), default="auto",
                   help="auto: a transformers model in train mode gets labels (its loss is in the graph)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="the corpus root (gets repros/models/<suite>/<mode>/<name>/)")
    p.add_argument("--plan", action="store_true", help="print the settings and the folder; no torch")
    args = p.parse_args(argv)
    source, _, name = args.model.partition(":")
    if source not in SOURCES or not name:
        p.error(f"--model {args.model}: expected SOURCE:NAME with SOURCE one of {', '.join(SOURCES)}")
    overrides = {}
    for item in args.config:
        key, eq, text = item.partition("=")
        if not eq or not key:
            p.error(f"--config {item}: expected KEY=VALUE")
        overrides[key] = _value(text)
    if overrides and source != "transformers":
        p.error("--config: only a transformers model has a config to override")
    for what in ("batch", "seq", "image_size"):
        if getattr(args, what) < 1:
            p.error(f"--{what.replace('_', '-')}: expected a positive size")
    args.source, args.class_name, args.overrides = source, name, overrides
    return args


def settings(args):
    """What the corpus records of how it was made (manifest.json's made_by)."""
    return {
        "tool": "tools/capture/corpus.py",
        "model": args.model,
        "config": args.overrides,
        "mode": args.mode,
        "batch": args.batch,
        "seq": args.seq if args.source == "transformers" else None,
        "image_size": args.image_size if args.source == "torchvision" else None,
        "dtype": args.dtype,
        "autocast": args.autocast,
        "labels": args.labels,
        "seed": args.seed,
        "compile": "torch.compile(dynamic=False), default mode, FX-graph and AOTAutograd caches off",
    }


def corpus_names(args):
    suite = args.suite or ("torchbench" if args.source == "torchvision" else "hf")
    return suite, args.mode, args.name or args.class_name


# ---- the torch half: nothing below runs without torch ----

def _build(args, torch):
    dtype = getattr(torch, DTYPES[args.dtype])
    if args.source == "torchvision":
        import torchvision
        factory = getattr(torchvision.models, args.class_name, None)
        if factory is None:
            raise DumpError(f"torchvision.models has no {args.class_name}")
        model = factory(weights=None)
    else:
        import transformers
        cls = getattr(transformers, args.class_name, None)
        if cls is None or not hasattr(cls, "config_class"):
            raise DumpError(f"transformers has no model class {args.class_name}")
        try:
            config = cls.config_class(**args.overrides)
        except (TypeError, ValueError) as e:
            raise DumpError(f"{cls.config_class.__name__}({args.overrides}): {e}") from e
        model = cls(config)
    return model.to(device="cuda", dtype=dtype)


def _integer(torch, name, shape, lo, hi):
    """A random integer input of [lo, hi) and what it declares."""
    t = torch.randint(lo, hi, shape, device="cuda", dtype=torch.int64)
    observed = {"min": int(t.min()), "max": int(t.max()), "n_unique": int(t.unique().numel())}
    return t, corpus_meta.Declared(name, shape, "i64", lo, hi, observed)


def _inputs(args, model, torch):
    """(kwargs, declared integer inputs)."""
    dtype = getattr(torch, DTYPES[args.dtype])
    if args.source == "torchvision":
        x = torch.randn(args.batch, 3, args.image_size, args.image_size, device="cuda", dtype=dtype)
        return {"x": x}, []
    vocab = getattr(model.config, "vocab_size", None)
    if not vocab:
        raise DumpError(f"{args.class_name}'s config has no vocab_size: its inputs are not token ids")
    shape = [args.batch, args.seq]
    ids, d_ids = _integer(torch, "input_ids", shape, 0, vocab)
    kwargs, declared = {"input_ids": ids}, [d_ids]
    if args.mode == "train" and args.labels == "auto":
        if args.class_name.endswith("ForSequenceClassification"):
            labels, d = _integer(torch, "labels", [args.batch], 0, model.config.num_labels)
        else:
            labels, d = _integer(torch, "labels", shape, 0, vocab)
        kwargs["labels"] = labels
        declared.append(d)
    return kwargs, declared


def _ints(values):
    return [int(v) for v in values]


def _placeholders(gm, declared, torch):
    """meta.json's inputs: tensors from their fake values, SymInts as ["sym", hint]; a range only for the
    graph's own inputs (primals_N, argN_1), never for a tensor the forward saved."""
    out = []
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            continue
        val = n.meta.get("val")
        if isinstance(val, torch.SymInt):
            out.append(["sym", int(val.node.hint)])
        elif isinstance(val, torch.Tensor):
            dtype = corpus_meta.dtype_name(val.dtype)
            own = n.name.startswith("primals_") or (n.name.startswith("arg") and n.name.endswith("_1"))
            gen, x = corpus_meta.integer_range(_ints(val.shape), dtype, declared) if own else (None, None)
            out.append(corpus_meta.tensor_entry(n.name, _ints(val.shape), _ints(val.stride()),
                                                int(val.storage_offset()), dtype, gen, x))
    return out


def _outputs(gm, torch):
    out, k = [], 0
    for n in gm.graph.nodes:
        if n.op != "output":
            continue
        results = n.args[0] if isinstance(n.args[0], (tuple, list)) else [n.args[0]]
        for r in results:
            val = getattr(r, "meta", {}).get("val")
            if isinstance(val, torch.Tensor):
                out.append([_ints(val.shape), corpus_meta.dtype_name(val.dtype), {"n": f"output_{k}"}])
            k += 1
    return out


def _constants(gm, torch):
    out = {}
    for n in gm.graph.nodes:
        val = n.meta.get("val") if n.op == "get_attr" else None
        if isinstance(val, torch.Tensor):
            out[n.target] = [_ints(val.shape), corpus_meta.dtype_name(val.dtype), {"dev": str(val.device)}]
    return out


def _accounting(gm):
    """node_accounting: torch's is_fusible_node decides support (views always supported); partitions come
    from torch's CapabilityBasedPartitioner, split where no data flows, kept when they compute."""
    from torch._inductor.fx_passes.fusion_regions import is_fusible_node
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import create_op_support

    def is_view(n):
        return n.op == "call_function" and corpus_meta.op_name(n.target) in VIEW_OPS

    def supported(n):
        return n.op == "call_function" and (is_view(n) or is_fusible_node(n))

    support = create_op_support(lambda _submodules, n: supported(n))
    partitioner = CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True)
    kept = set()
    for p in partitioner.propose_partitions():
        for part in corpus_meta.connected_parts(list(p.nodes), lambda n: list(n.all_input_nodes) + list(n.users)):
            if any(n.op == "call_function" and not is_view(n) for n in part):
                kept.update(part)
    return corpus_meta.accounting(gm.graph.nodes, kept, supported)


class _Writer:
    """Writes each graph the pass hands it, numbered in compile order, into folder."""

    def __init__(self, folder, names, declared, torch):
        self.folder, self.names, self.declared, self.torch, self.count = folder, names, declared, torch, 0

    def __call__(self, graph):
        gm = graph.owning_module
        suite, mode, model = self.names
        text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
        meta = corpus_meta.meta_document(self.count, suite, mode, model, _placeholders(gm, self.declared, self.torch),
                                         _outputs(gm, self.torch), _constants(gm, self.torch), _accounting(gm))
        with open(os.path.join(self.folder, corpus_meta.graph_file(self.count)), "w") as f:
            f.write(text if text.endswith("\n") else text + "\n")
        with open(os.path.join(self.folder, corpus_meta.meta_file(self.count)), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        print(f"corpus: graph {self.count}: {len(gm.graph.nodes)} nodes", file=sys.stderr, flush=True)
        self.count += 1


def _pass(writer):
    from torch._inductor.custom_graph_pass import CustomGraphPass

    class DumpPass(CustomGraphPass):
        def __call__(self, graph):
            writer(graph)

        def uuid(self):  # the caches are off; a fixed id keeps the config hashable
            return "extern-audit-corpus-dump"

    return DumpPass()


def _loss(out):
    loss = getattr(out, "loss", None)
    if loss is not None:
        return loss
    logits = out if not hasattr(out, "logits") else out.logits
    return logits.float().sum()


def dump(args, folder):
    """Runs the model once under torch.compile, the pass writing into folder; the graph count."""
    os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"  # before torch reads its config
    try:
        import torch
        import torch._functorch.config
        import torch._inductor.config
    except ImportError as e:
        raise NoDevice(f"needs torch: {e}") from e
    if not torch.cuda.is_available():
        raise NoDevice("no CUDA device (torch.cuda.is_available() is false)")
    torch.manual_seed(args.seed)
    # the variable above turns every cache off; these say so again where this torch has the knob
    for config, knob in ((torch._inductor.config, "force_disable_caches"), (torch._inductor.config, "fx_graph_cache"),
                         (torch._functorch.config, "enable_autograd_cache")):
        if hasattr(config, knob):
            setattr(config, knob, knob == "force_disable_caches")
    model = _build(args, torch)
    kwargs, declared = _inputs(args, model, torch)
    writer = _Writer(folder, corpus_names(args), declared, torch)
    model.train(args.mode == "train")
    compiled = torch.compile(model, dynamic=False)
    autocast = (torch.autocast("cuda", dtype=getattr(torch, DTYPES[args.autocast])) if args.autocast
                else torch.autocast("cuda", enabled=False))
    with torch._inductor.config.patch(post_grad_custom_post_pass=_pass(writer)):
        if args.mode == "train":
            with autocast:
                out = compiled(**kwargs)
            _loss(out).backward()
        else:
            with torch.no_grad(), autocast:
                compiled(**kwargs)
        torch.cuda.synchronize()
    if writer.count == 0:
        raise DumpError("Inductor compiled no graph (is the model all graph breaks?)")
    return writer.count


def main(argv):
    args = parse_args(argv)
    names = corpus_names(args)
    try:
        folder = corpus_meta.model_dir(args.out, *names)
    except corpus_meta.FormatError as e:
        print(f"corpus.py: {e}", file=sys.stderr)
        return 2
    if args.plan:
        print(json.dumps({"folder": folder, "made_by": settings(args)}, indent=1))
        return 0
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    try:
        with atomic.staged_dir(folder) as tmp:
            count = dump(args, tmp)
            atomic.write_json(os.path.join(tmp, "manifest.json"),
                              corpus_meta.manifest(*names, count, settings(args)))
    except NoDevice as e:
        print(f"corpus.py: {e}", file=sys.stderr)
        return 2
    except (DumpError, corpus_meta.FormatError) as e:
        print(f"corpus.py: {args.model}: {e}; nothing written", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 (the model's own failure, named; torch's traceback is noise here)
        print(f"corpus.py: {args.model}: {type(e).__name__}: {e}; nothing written", file=sys.stderr)
        return 1
    print(f"corpus.py: wrote {count} graphs to {folder}", file=sys.stderr)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
