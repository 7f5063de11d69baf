"""corpus.py and corpus_meta.py: the corpus a model's graphs make, without torch. The format pieces
(file names, inputs, the accounting buckets), then the writer on a tiny fake graph module with torch's
modules mocked, whose corpus the built extract reads: one point, its declared range in the id and the
random draw out of it."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

import context
import corpus
import corpus_meta
import targets


class Op:
    """Stands for torch's OpOverload: prints as meta.json spells it."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


Op.__name__ = "OpOverload"


class Node:
    def __init__(self, name, op, target=None, inputs=(), val=None):
        self.name, self.op, self.target, self.all_input_nodes = name, op, target, list(inputs)
        self.meta = {"val": val} if val is not None else {}
        self.users = []
        self.args = ()
        for i in self.all_input_nodes:
            i.users.append(self)


class Tensor:
    def __init__(self, shape, dtype, stride=None, offset=0, device="cuda:0"):
        self.shape, self.dtype, self.device = shape, dtype, device
        self._stride, self._offset = stride or corpus_meta.contiguous_strides(shape), offset

    def stride(self):
        return self._stride

    def storage_offset(self):
        return self._offset


class SymInt:
    def __init__(self, hint):
        self.node = types.SimpleNamespace(hint=hint)


GRAPH_TEXT = """class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "i64[2, 8][8, 1]cuda:0", primals_2: "f32[4, 4][4, 1]cuda:0"):
        ne: "b8[2, 8][8, 1]cuda:0" = torch.ops.aten.ne.Scalar(primals_1, 1)
        cumsum: "i64[2, 8][8, 1]cuda:0" = torch.ops.aten.cumsum.default(ne, 1)
        mm: "f32[4, 4][4, 1]cuda:0" = torch.ops.aten.mm.default(primals_2, primals_2)
        view: "f32[16][1]cuda:0" = torch.ops.aten.view.default(primals_2, [16])
        return (cumsum, mm, view)
"""


def fake_graph_module():
    p1 = Node("primals_1", "placeholder", val=Tensor([2, 8], "torch.int64"))
    p2 = Node("primals_2", "placeholder", val=Tensor([4, 4], "torch.float32"))
    ne = Node("ne", "call_function", Op("aten.ne.Scalar"), [p1], Tensor([2, 8], "torch.bool"))
    cs = Node("cumsum", "call_function", Op("aten.cumsum.default"), [ne], Tensor([2, 8], "torch.int64"))
    mm = Node("mm", "call_function", Op("aten.mm.default"), [p2, p2], Tensor([4, 4], "torch.float32"))
    view = Node("view", "call_function", Op("aten.view.default"), [p2], Tensor([16], "torch.float32"))
    out = Node("output", "output", "output", [cs, mm, view])
    out.args = ((cs, mm, view),)
    gm = types.SimpleNamespace(graph=types.SimpleNamespace(nodes=[p1, p2, ne, cs, mm, view, out]))
    gm.print_readable = lambda print_output, include_stride, include_device: (
        GRAPH_TEXT if (print_output, include_stride, include_device) == (False, True, True) else "wrong options")
    gm.graph.owning_module = gm
    return gm


class Partition:
    def __init__(self, nodes):
        self.nodes = dict.fromkeys(nodes)


def torch_modules():
    """torch's modules the writer imports, mocked: is_fusible_node rejects mm and cumsum; the partitioner
    proposes one partition of every supported node (the writer splits it where no data flows)."""
    def is_fusible_node(n):
        return str(n.target) not in ("aten.mm.default", "aten.cumsum.default")

    def create_op_support(fn):
        return fn

    class CapabilityBasedPartitioner:
        def __init__(self, gm, support, allows_single_node_partition):
            self.gm, self.support = gm, support

        def propose_partitions(self):
            return [Partition([n for n in self.gm.graph.nodes if n.op == "call_function" and self.support({}, n)])]

    fake_torch = types.SimpleNamespace(Tensor=Tensor, SymInt=SymInt)
    mods = {
        "torch._inductor.fx_passes.fusion_regions": types.SimpleNamespace(is_fusible_node=is_fusible_node),
        "torch.fx.passes.infra.partitioner": types.SimpleNamespace(CapabilityBasedPartitioner=CapabilityBasedPartitioner),
        "torch.fx.passes.operator_support": types.SimpleNamespace(create_op_support=create_op_support),
    }
    for name in ("torch", "torch._inductor", "torch._inductor.fx_passes", "torch.fx", "torch.fx.passes",
                 "torch.fx.passes.infra"):
        mods.setdefault(name, types.SimpleNamespace())
    return fake_torch, mods


def write_corpus(root, observed):
    """The fake graph written as corpus.py's pass writes it, its int input drawn with observed."""
    fake_torch, mods = torch_modules()
    folder = corpus_meta.model_dir(root, "hf", "train", "Tiny/model")
    os.makedirs(folder)
    declared = [corpus_meta.Declared("input_ids", [2, 8], "i64", 0, 1000, observed)]
    progress = io.StringIO()
    with mock.patch.dict(sys.modules, mods), contextlib.redirect_stderr(progress):
        writer = corpus._Writer(folder, ("hf", "train", "Tiny/model"), declared, fake_torch)
        writer(fake_graph_module().graph)
    assert progress.getvalue() == "corpus: graph 0: 7 nodes\n", progress.getvalue()
    return folder


class TestFormat(unittest.TestCase):
    def test_file_names_and_the_model_folder(self):
        self.assertEqual(corpus_meta.graph_file(7), "full_graph_007.py")
        self.assertEqual(corpus_meta.meta_file(12), "full_graph_012.meta.json")
        self.assertEqual(corpus_meta.model_dir("/c", "hf", "infer", "openai/gpt-oss-20b"),
                         "/c/repros/models/hf/infer/openai/gpt-oss-20b")
        for bad in (("h/f", "infer", "m"), ("hf", "", "m"), ("hf", "infer", "../m"), ("hf", "infer", "/m")):
            with self.assertRaises(corpus_meta.FormatError):
                corpus_meta.model_dir("/c", *bad)

    def test_an_input_says_its_strides_and_offset_only_when_not_contiguous(self):
        self.assertEqual(corpus_meta.contiguous_strides([4, 1, 3]), [3, 3, 1])
        self.assertEqual(corpus_meta.contiguous_strides([2, 0, 5]), [5, 5, 1])
        self.assertEqual(corpus_meta.tensor_entry("a", [4, 3], [3, 1], 0, "f32"), [[4, 3], "f32", {"n": "a"}])
        self.assertEqual(corpus_meta.tensor_entry("b", [4, 3], [1, 4], 6, "bf16"),
                         [[4, 3], "bf16", {"n": "b", "st": [1, 4], "off": 6}])
        self.assertEqual(corpus_meta.dtype_name("torch.bfloat16"), "bf16")
        with self.assertRaisesRegex(corpus_meta.FormatError, r"dtype torch.float8_e4m3fn: expected one of"):
            corpus_meta.dtype_name("torch.float8_e4m3fn")

    def test_an_integer_input_gets_the_range_the_tool_declared_and_no_other(self):
        ids = corpus_meta.Declared("input_ids", [2, 8], "i64", 0, 1000, {"min": 3, "max": 990, "n_unique": 14})
        labels = corpus_meta.Declared("labels", [2, 8], "i64", 0, 1000)
        gen, x = corpus_meta.integer_range([2, 8], "i64", [ids])
        self.assertEqual(gen, ["index", 0, 1000])
        self.assertEqual(x, {"constraint_source": "declared", "observed": {"min": 3, "max": 990, "n_unique": 14}})
        gen, x = corpus_meta.integer_range([2, 8], "i64", [ids, labels])
        self.assertEqual((gen, x), (["index", 0, 1000], {"constraint_source": "declared"}),
                         "two inputs of one range: the range, no one draw's values")
        other = corpus_meta.Declared("mask", [2, 8], "i64", 0, 2)
        self.assertEqual(corpus_meta.integer_range([2, 8], "i64", [ids, other]), (None, None), "ranges differ")
        self.assertEqual(corpus_meta.integer_range([8], "i64", [ids]), (None, None), "no input of that shape")
        self.assertEqual(corpus_meta.integer_range([2, 8], "f32", [ids]), (None, None), "not an integer")
        with self.assertRaisesRegex(corpus_meta.FormatError, r"input x: expected a range lo < hi, got \[5, 5\)"):
            corpus_meta.Declared("x", [1], "i64", 5, 5)

    def test_every_call_lands_in_one_accounting_bucket(self):
        gm = fake_graph_module()
        nodes = gm.graph.nodes
        ne, cs, mm, view = nodes[2:6]
        acc = corpus_meta.accounting(nodes, {ne}, lambda n: n in (ne, view))
        self.assertEqual(acc, {
            "total_call_functions": 4,
            "counts": {"fusible_in_partition": 1, "fusible_unpartitioned": 1, "non_fusible": 2},
            "ops": {"fusible_in_partition": {"aten.ne.Scalar": 1},
                    "fusible_unpartitioned": {"aten.view.default": 1},
                    "non_fusible": {"aten.cumsum.default": 1, "aten.mm.default": 1}},
        })
        import operator
        self.assertEqual(corpus_meta.op_name(operator.getitem), "_operator.getitem")
        self.assertEqual(corpus_meta.op_name(Op("aten.cat.default")), "aten.cat.default")

    def test_a_partition_splits_where_no_data_flows(self):
        gm = fake_graph_module()
        p1, p2, ne, cs, mm, view = gm.graph.nodes[:6]
        parts = corpus_meta.connected_parts([ne, cs, view], lambda n: n.all_input_nodes + n.users)
        self.assertEqual(parts, [[ne, cs], [view]])


class TestWriter(unittest.TestCase):
    def test_the_pass_writes_the_graph_and_its_meta_as_better_benchmark_does(self):
        with tempfile.TemporaryDirectory() as d:
            folder = write_corpus(d, {"min": 1, "max": 998, "n_unique": 16})
            self.assertEqual(sorted(os.listdir(folder)), ["full_graph_000.meta.json", "full_graph_000.py"])
            with open(os.path.join(folder, "full_graph_000.py")) as f:
                self.assertEqual(f.read(), GRAPH_TEXT)
            with open(os.path.join(folder, "full_graph_000.meta.json")) as f:
                meta = json.load(f)
        self.assertEqual(meta["schema_version"], 2)
        self.assertEqual(meta["inputs"], [
            [[2, 8], "i64", {"n": "primals_1", "gen": ["index", 0, 1000],
                             "x": {"constraint_source": "declared", "observed": {"min": 1, "max": 998, "n_unique": 16}}}],
            [[4, 4], "f32", {"n": "primals_2"}]])
        self.assertEqual(meta["outputs"], [[[2, 8], "i64", {"n": "output_0"}], [[4, 4], "f32", {"n": "output_1"}],
                                           [[16], "f32", {"n": "output_2"}]])
        self.assertEqual(meta["source"], {"kind": "model", "suite": "hf", "mode": "train", "model": "Tiny/model",
                                          "graph": "full_graph_000.py"})
        self.assertEqual(meta["node_accounting"]["counts"],
                         {"fusible_in_partition": 1, "fusible_unpartitioned": 1, "non_fusible": 2},
                         "ne computes in its partition; the view's partition has no compute: dropped")
        self.assertEqual(meta["roundtrip"], "ok")

    def test_the_built_extract_reads_it_and_two_draws_give_one_point(self):
        cli = targets.cli_path()
        if not os.access(cli, os.X_OK):
            self.skipTest(f"{cli}: the extern-audit CLI is not built (make)")
        ids = []
        for observed in ({"min": 1, "max": 998, "n_unique": 16}, {"min": 0, "max": 731, "n_unique": 15}):
            with tempfile.TemporaryDirectory() as d:
                write_corpus(d, observed)
                r = subprocess.run([cli, "extract", "--corpus", d, "--out", os.path.join(d, "occ"), "--quiet"],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(os.path.join(d, "occ", "cumsum.json")) as f:
                    doc = json.load(f)
            self.assertEqual(doc["occurrences"], 1)
            point = doc["points"][0]
            text = json.dumps(point["signature"])
            self.assertIn('"corpus_input": {"gen": ["index", 0, 1000], "x": {"constraint_source": "declared"}}', text)
            ids.append((point["point"], point["scopes"][0]["scope_id"]))
        self.assertEqual(ids[0], ids[1], "the random draw is no part of the point or scope id")


class TestCli(unittest.TestCase):
    def test_plan_names_the_folder_and_the_settings_without_torch(self):
        rc, out, err = context.run_cli(corpus.main, [
            "--model", "transformers:LongformerForMaskedLM", "--name", "AllenaiLongformerBase", "--config",
            "attention_window=256", "--config", "model_type=longformer", "--batch", "8", "--seq", "1024", "--dtype",
            "bf16", "--mode", "train", "--out", "/c", "--plan"])
        self.assertEqual(rc, 0, err)
        plan = json.loads(out)
        self.assertEqual(plan["folder"], "/c/repros/models/hf/train/AllenaiLongformerBase")
        self.assertEqual(plan["made_by"]["config"], {"attention_window": 256, "model_type": "longformer"})
        self.assertEqual((plan["made_by"]["batch"], plan["made_by"]["seq"], plan["made_by"]["image_size"]), (8, 1024, None))
        rc, out, err = context.run_cli(corpus.main, ["--model", "torchvision:densenet121", "--mode", "train",
                                                     "--autocast", "bf16", "--batch", "4", "--out", "/c", "--plan"])
        self.assertEqual(json.loads(out)["folder"], "/c/repros/models/torchbench/train/densenet121")

    def test_bad_usage_is_named(self):
        for argv, message in (
                (["--model", "densenet121"], "expected SOURCE:NAME"),
                (["--model", "timm:resnet50"], "expected SOURCE:NAME with SOURCE one of torchvision, transformers"),
                (["--model", "torchvision:densenet121", "--config", "a=1"], "only a transformers model has a config"),
                (["--model", "transformers:BertModel", "--config", "=1"], "--config =1: expected KEY=VALUE"),
                (["--model", "transformers:BertModel", "--batch", "0"], "--batch: expected a positive size")):
            rc, out, err = context.run_cli(corpus.main, argv + ["--out", "/c"])
            self.assertEqual(rc, 2, argv)
            self.assertIn(message, err)

    def test_without_torch_it_says_so_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d, mock.patch.dict(sys.modules, {"torch": None}):
            rc, out, err = context.run_cli(corpus.main, ["--model", "torchvision:densenet121", "--out", d])
            self.assertEqual(rc, 2)
            self.assertIn("corpus.py: needs torch", err)
            self.assertEqual(os.listdir(os.path.join(d, "repros", "models", "torchbench", "infer")), [],
                             "no folder left behind")


if __name__ == "__main__":
    unittest.main()
