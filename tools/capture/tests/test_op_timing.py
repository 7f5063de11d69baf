"""op_timing.py's and op_timings/'s torch-free parts: the discovery of the op timings, each op's
inputs and calls as the C side builds them, the JSON document, kernel names, and the CLI's paths
that stop before torch.

tests/fixtures/torch_ops/H200.json, which the C reader's tests load, is this module's
fixture_document(); after a format change, rewrite it with
    python3 tools/capture/tests/test_op_timing.py --write-fixture
"""

import contextlib
import copy
import itertools
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

import context
import gen
import golden
import op_timing
import op_timings
import targets
from op_timings import adaptive_avg_pool2d_backward as avgpool, index_add

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
GOLDEN = os.path.join(ROOT, "golden")
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "torch_ops", "H200.json")
ENV = {"torch": "2.11.0+cu130", "torch_git": "0123abc", "triton": "3.6.0", "gpu": "NVIDIA H200",
       "capability": "9.0", "driver": "580.159.04", "cuda": "13.0"}


def golden_points():
    return golden.load_op(GOLDEN, "index_add")[1]["points"]


def plans():
    return [index_add.plan_point(p, f"index_add.json $.points[{i}]")
            for i, p in enumerate(golden_points())]


def fixture_document():
    """A document as op_timing.py writes it for the golden points, with made-up timings: what
    the C reader's tests read (tests/test_torch_ops.c)."""
    made_up = {"index_add-398f48d45d2b": (170.0, 6700.0), "index_add-31177027c868": (90.0, 3400.0),
               "index_add-a8e741bae3fe": (600.0, 720.0)}
    kernels = ["void at::native::vectorized_elementwise_kernel<4, "
               "at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul> >", "Memcpy DtoD",
               "void at::native::indexFuncLargeIndex<c10::BFloat16, long, unsigned int, 1, 1, -2, "
               "true>"]
    records = []
    for plan in plans():
        faithful, fabricated = made_up[plan["point"]]
        times = {mode: {"median_us": us, "q1_us": us - 1, "q3_us": us + 1, "samples": 30}
                 for mode, us in (("faithful", faithful), ("fabricated", fabricated))}
        records.append(op_timing.point_record(plan, times, kernels))
    return op_timing.document("python3 tools/capture/op_timing.py --golden golden --out "
                              "golden/torch_ops/H200.json (test fixture: made-up timings)", ENV,
                              records)


def synthetic_point(**change):
    """A small index_add point shaped like Longformer's: out [12], overlapping windows of an iota
    as the index (positions 4..7 read twice)."""
    derived = {"kind": "as_strided_iota", "iota": {"length": 12, "start": 0, "step": 1},
               "size": [2, 2, 4], "stride": [4, 4, 1], "offset": 0, "numel": 16, "min": 0,
               "max": 11,
               "distinct": 12, "coverage": {"covered": 12, "of": 12},
               "multiplicity_histogram": {"1": 8, "2": 4}, "max_multiplicity": 2, "sorted": False}

    def t(dtype, sizes):
        strides, step = [], 1
        for n in reversed(sizes):
            strides.insert(0, step)
            step *= n
        return {"dtype": dtype, "sizes": sizes, "strides": strides, "offset": 0,
                "device": "cuda:0", "contiguous": True, "channels_last": False}

    point = {"point": "index_add-000000000001", "count": 1,
             "signature": {"op": index_add.OP, "output": t("bf16", [12]),
                           "args": [t("bf16", [12]), 0, t("i64", [16]), t("bf16", [16])],
                           "kwargs": {},
                           "value_properties": [
                               {"arg": 0, "derived": {"kind": "constant", "value": 0}},
                               {"arg": 2, "derived": derived},
                               {"arg": 3, "kind": "float_data"}]},
             "scopes": [{"scope_id": "index_add-000000000001-000000000002",
                         "scope": {"nodes": []}}]}
    for path, value in change.items():
        target = point
        *keys, last = path.split("__")
        for k in keys:
            target = target[int(k)] if isinstance(target, list) else target[k]
        target[int(last) if isinstance(target, list) else last] = value
    return point


def by_name(plan):
    return {spec["name"]: spec for spec in plan["inputs"]}


class TestGoldenPlans(unittest.TestCase):
    def test_inputs_match_the_c_side(self):
        longformer_a, longformer_b, xlnet = plans()
        a = by_name(longformer_a)
        self.assertEqual(list(a), ["index", "fabricated_index", "source"])
        self.assertEqual(a["index"]["values"]["generator"], "as_strided_iota")
        self.assertNotIn("kind", a["index"]["values"])
        self.assertEqual(a["index"]["values"]["size"], [96, 4, 768, 64])
        self.assertEqual(a["fabricated_index"]["values"],
                         {"generator": "randint", "seed": 2, "low": 0, "high": 100})
        self.assertEqual(a["source"]["values"], {"generator": "uniform", "seed": 3})
        self.assertEqual((a["source"]["sizes"], a["index"]["dtype"]), ([18874368], "i64"))
        self.assertEqual(longformer_a["setup"], [])
        self.assertEqual(by_name(longformer_b)["index"]["values"]["stride"],
                         [64, 1572864, 6144, 1])
        x = by_name(xlnet)
        self.assertEqual(x["index"]["values"], {"generator": "iota", "start": 0, "step": 1})
        self.assertEqual(x["source"]["sizes"], [16, 16, 512, 512])
        self.assertEqual(xlnet["source_scale"], 0.125)
        self.assertEqual(xlnet["setup"],
                         ["source.copy_((source.float() * 0.125).to(torch.bfloat16))"])
        self.assertEqual(xlnet["expect"], {"min": 0, "max": 511, "distinct": 512})

    def test_calls(self):
        longformer_a, _, xlnet = plans()
        self.assertEqual(longformer_a["modes"]["faithful"]["call"],
                         "torch.ops.aten.index_add.default(torch.full([9437184], 0, "
                         "dtype=torch.bfloat16, device='cuda'), 0, index, source)")
        self.assertEqual(xlnet["modes"]["fabricated"],
                         {"index": "fabricated_index",
                          "call": "torch.ops.aten.index_add.default(torch.full([16, 16, 512, "
                                  "1023], 0, dtype=torch.bfloat16, device='cuda'), 3, "
                                  "fabricated_index, source)"})

    def test_expectation_agrees_with_the_generator(self):
        # the statistics the torch half checks are what gen.py's index really holds
        plan = index_add.plan_point(synthetic_point(), "p")
        spec = by_name(plan)["index"]["values"]
        values = [gen.element(spec, i) for i in range(16)]
        self.assertEqual({"min": min(values), "max": max(values),
                          "distinct": len(set(values))}, plan["expect"])
        self.assertEqual(index_add.index_expectation(
            {"kind": "iota", "iota": {"length": 5, "start": 9, "step": -2}, "distinct": 5}),
            {"min": 1, "max": 9, "distinct": 5})


class TestSyntheticPlans(unittest.TestCase):
    def test_self_generated_alpha_and_negative_dim(self):
        p = synthetic_point(signature__value_properties__0__derived={"kind": "graph_input"},
                            signature__args__1=-1, signature__kwargs={"alpha": 2})
        plan = index_add.plan_point(p, "p")
        self.assertEqual(by_name(plan)["self"]["values"], {"generator": "uniform", "seed": 1})
        self.assertEqual(plan["dim"], 0)
        self.assertEqual(plan["modes"]["faithful"]["call"],
                         "torch.ops.aten.index_add.default(self, 0, index, source, alpha=2)")
        fifth = synthetic_point()
        fifth["signature"]["args"].append(0.5)
        self.assertTrue(index_add.plan_point(fifth, "p")["modes"]["fabricated"]["call"]
                        .endswith("fabricated_index, source, alpha=0.5)"))

    def test_no_index_properties_and_a_short_dim(self):
        p = synthetic_point(signature__value_properties__1__derived={"kind": "graph_input"})
        plan = index_add.plan_point(p, "p")
        self.assertIsNone(plan["modes"]["faithful"])
        self.assertIsNone(plan["expect"])
        self.assertNotIn("index", by_name(plan))
        # randint(0, 100) clamped to the indexed dim, as the C side keeps the replay in bounds
        self.assertEqual(by_name(plan)["fabricated_index"]["values"]["high"], 12)

    def test_producer_mul(self):
        nodes = [{"role": "input", "op": "input", "ann": "bf16[4, 4][4, 1]cuda:0"},
                 {"role": "producer", "op": "aten.mul.Tensor", "args": [{"ref": 0}, 0.5]},
                 {"role": "op", "op": index_add.OP,
                  "args": [{"ref": 3}, 0, {"ref": 4}, {"ref": 1}]}]
        p = synthetic_point(scopes__0__scope={"nodes": nodes})
        self.assertEqual(index_add.plan_point(p, "p")["source_scale"], 0.5)
        nodes[1]["args"] = [0.5, {"ref": 0}]  # scalar first
        self.assertEqual(index_add.plan_point(p, "p")["source_scale"], 0.5)
        nodes[0]["ann"] = "bf16[4, 4][1, 4]cuda:0"
        with self.assertRaisesRegex(op_timing.OpTimingError, "must be contiguous"):
            index_add.plan_point(p, "p")
        nodes[1]["op"] = "aten.add.Tensor"
        self.assertIsNone(index_add.plan_point(p, "p")["source_scale"])

    def test_refusals_name_the_place(self):
        cases = [
            ({"signature__args__3__dtype": "f32"}, r"p\.signature\.args\[3\]\.dtype: expected "
                                                   r"\"bf16\""),
            ({"signature__args__0__strides": [2]}, r"args\[0\]: expected self contiguous"),
            ({"signature__args__1": 1}, "expected dim in range"),
            ({"signature__args__2__sizes": [15]}, "source.size.dim. elements"),
            ({"signature__args": [1, 2, 3]}, "got 3 args"),
            ({"signature__args__1": "0"}, "an integer dim"),
            ({"signature__op": "aten.cat.default"}, "expected an aten.index_add.default point"),
            ({"signature__output__symbolic": True}, "static sizes"),
            ({"signature__value_properties__0__derived": {"kind": "constant", "value": "inf"}},
             "constant fill must be a number"),
        ]
        for change, message in cases:
            with self.subTest(change=change):
                with self.assertRaisesRegex(op_timing.OpTimingError, message):
                    index_add.plan_point(synthetic_point(**change), "p")

    def test_select_points(self):
        doc = {"points": golden_points()}
        self.assertEqual(len(op_timing.select_points(doc, "f", [])), 3)
        got = op_timing.select_points(doc, "f", ["index_add-a8e741bae3fe",
                                                 "index_add-31177027c868-c06b114e6a86"])
        self.assertEqual([i for i, _ in got], [1, 2])
        with self.assertRaisesRegex(op_timing.OpTimingError, "no such point or scope id in f: x"):
            op_timing.select_points(doc, "f", ["index_add-a8e741bae3fe", "x"])


class TestNamesAndDocument(unittest.TestCase):
    def test_kernel_name(self):
        k = op_timing.kernel_name
        self.assertEqual(k("void at::native::indexFuncLargeIndex<c10::BFloat16, long, unsigned "
                           "int, 1, 1, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, "
                           "unsigned int>, int)"),
                         "void at::native::indexFuncLargeIndex<c10::BFloat16, long, unsigned int, "
                         "1, 1, -2, true>")
        self.assertEqual(k("Memcpy DtoD (Device -> Device)"), "Memcpy DtoD")
        self.assertEqual(k("void at::native::(anonymous namespace)::f<int>(int*)"),
                         "void at::native::(anonymous namespace)::f<int>")
        self.assertEqual(k("plain"), "plain")

    def test_gpu_check_asks_the_cli_for_the_gpu_model(self):
        # one mapping, the C side's: ci/gpu-check keeps no copy of it, and hands its CLI to the Python side
        with open(os.path.join(ROOT, "ci", "gpu-check")) as f:
            script = f.read()
        self.assertTrue("gpu_model()" not in script, "ci/gpu-check defines its own gpu_model()")
        self.assertTrue('"$bin/extern-audit" gpu-model "$gpu_name"' in script, "ci/gpu-check does not ask the CLI")
        self.assertTrue("export EXTERN_AUDIT_CLI=$PWD/$bin/extern-audit" in script,
                        "ci/gpu-check does not hand its CLI to tools/capture")

    def test_document(self):
        plan = index_add.plan_point(synthetic_point(
            signature__value_properties__1__derived={"kind": "graph_input"}), "p")
        t = {"median_us": 2.0, "q1_us": 1.5, "q3_us": 2.5, "samples": 30}
        rec = op_timing.point_record(plan, {"fabricated": t}, [], "torch.profiler saw nothing")
        self.assertEqual(list(rec), ["point", "op", "inputs", "setup", "faithful", "fabricated",
                                     "kernels", "kernels_note"])
        self.assertIsNone(rec["faithful"])
        self.assertEqual(rec["fabricated"], {"call": plan["modes"]["fabricated"]["call"], **t})
        self.assertNotIn("kernels_note", op_timing.point_record(plan, {}, ["k"]))
        doc = op_timing.document("cmd", ENV, [rec])
        self.assertEqual((doc["schema"], doc["schema_version"]), ("extern-audit/torch-ops", 1))
        self.assertEqual(doc["timing"]["warmup_ms"], op_timing.WARMUP_MS)
        self.assertEqual(doc["timing"]["calls_per_replay"], 20)
        self.assertEqual(json.loads(json.dumps(doc)), doc)

    def test_c_fixture_is_what_the_tool_writes(self):
        with open(FIXTURE, encoding="utf-8") as f:
            self.assertEqual(json.load(f), fixture_document(),
                             "rewrite it: python3 tools/capture/tests/test_op_timing.py "
                             "--write-fixture")


class TestCli(unittest.TestCase):
    def run_main(self, argv):
        return context.run_cli(op_timing.main, argv)

    def test_help_usage_and_plan(self):
        rc, out, _ = self.run_main(["--help"])
        self.assertEqual(rc, 0)
        self.assertIn("--points", out)
        rc, _, err = self.run_main(["--golden", GOLDEN])
        self.assertEqual(rc, 2)
        self.assertIn("--out is required unless --plan", err)
        rc, out, _ = self.run_main(["--golden", GOLDEN, "--plan", "--no-pipeline", "--points",
                                    "index_add-a8e741bae3fe"])
        self.assertEqual(rc, 0)
        got = json.loads(out)
        self.assertEqual([p["point"] for p in got], ["index_add-a8e741bae3fe"])
        self.assertEqual(got[0]["faithful"]["index"], "index")

    def test_bad_input_exits_2(self):
        rc, _, err = self.run_main(["--golden", "/nonexistent", "--plan"])
        self.assertEqual(rc, 2)
        self.assertIn("/nonexistent/occurrences/index_add.json: cannot read", err)
        rc, _, err = self.run_main(["--golden", GOLDEN, "--plan", "--points", "nope"])
        self.assertEqual(rc, 2)
        self.assertIn("--points: no such point or scope id", err)
        with mock.patch.dict(sys.modules, {"torch": None}):
            rc, _, err = self.run_main(["--golden", GOLDEN, "--out", "/tmp/never.json"])
        self.assertEqual(rc, 2)
        self.assertIn("torch is needed to time the ops", err)

    def fake_time(self, broken=()):
        def time_point(plan, with_kernels):
            if plan["point"] in broken:
                raise op_timing.OpTimingError(f"{plan['point']}: broke")
            t = {"median_us": 5.0, "q1_us": 4.0, "q3_us": 6.0, "samples": 30}
            return op_timing.point_record(plan, {"faithful": t, "fabricated": t}, ["k"])

        def time_pipeline(plan, with_kernels):  # every audited op alone (test_pipeline.py)
            return op_timing.pipeline.record(plan["call"], 2.0, 1.5, 50), ["k"], None
        stack = contextlib.ExitStack()
        stack.enter_context(mock.patch.object(op_timing, "time_point", side_effect=time_point))
        stack.enter_context(mock.patch.object(op_timing, "time_pipeline", side_effect=time_pipeline))
        return stack

    def torch_mocked(self):
        stack = contextlib.ExitStack()
        stack.enter_context(mock.patch.object(op_timing, "check_torch"))
        stack.enter_context(mock.patch.object(op_timing.worker, "environment", return_value=ENV))
        return stack

    def test_writes_every_point_atomically(self):
        with tempfile.TemporaryDirectory() as tmp, self.torch_mocked(), self.fake_time():
            out = os.path.join(tmp, "torch_ops", "H100.json")
            with mock.patch.object(op_timing.atomic.os, "fsync",
                                   wraps=op_timing.atomic.os.fsync) as fsync:
                rc, _, err = self.run_main(["--golden", GOLDEN, "--out", out])
            self.assertEqual(rc, 0, err)
            self.assertGreaterEqual(fsync.call_count, 2)  # the file, then its folder
            self.assertIn("extern-audit run reads golden/targets/H200-torch2.11.0+cu130/torch_ops.json, not "
                          f"{out}", err)
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
            self.assertEqual([p["point"] for p in doc["points"]][:3],
                             ["index_add-398f48d45d2b", "index_add-31177027c868",
                              "index_add-a8e741bae3fe"])
            # 3 index_add + 2 adaptive_avg_pool2d_backward points timed, and the other ops' 75
            # points the pipeline prices alone
            self.assertEqual(len(doc["points"]), 80)
            self.assertEqual([p["point"] for p in doc["points"]][3:5],
                             ["adaptive_avg_pool2d_backward-a0df034a1ddc",
                              "adaptive_avg_pool2d_backward-01a009dfa6f7"])
            # the pipeline prices cat, cumsum, histc and index_add (pipeline.PRICED_OPS), not the pool
            pool = [p for p in doc["points"] if p["op"] == avgpool.OP]
            self.assertEqual(len(pool), 2)
            self.assertTrue(all("pipeline" not in p for p in pool))
            self.assertTrue(all(p["pipeline"]["min_us"] == 2.0 for p in doc["points"]
                                if p["op"] != avgpool.OP))
            self.assertEqual(doc["environment"], ENV)
            self.assertEqual(os.listdir(os.path.dirname(out)), ["H100.json"])  # no temporary

    def test_a_failure_writes_nothing_and_exits_1(self):
        with tempfile.TemporaryDirectory() as tmp, self.torch_mocked():
            out = os.path.join(tmp, "H200.json")
            # no file yet: none is created from the points that succeeded
            with self.fake_time({"index_add-31177027c868"}):
                rc, _, err = self.run_main(["--golden", GOLDEN, "--out", out])
            self.assertEqual(rc, 1)
            self.assertIn("failed: index_add-31177027c868: broke", err)
            self.assertIn(f"1 of 83 timings failed; {out} not written", err)  # 5 points, 78 alone
            self.assertEqual(os.listdir(tmp), [])
            # a complete file stays byte for byte as it was
            with self.fake_time():
                self.assertEqual(self.run_main(["--golden", GOLDEN, "--out", out])[0], 0)
            with open(out, "rb") as f:
                before = f.read()
            with self.fake_time({"index_add-398f48d45d2b", "index_add-a8e741bae3fe"}):
                rc, _, err = self.run_main(["--golden", GOLDEN, "--out", out])
            self.assertEqual(rc, 1)
            self.assertIn("failed: index_add-398f48d45d2b: broke", err)
            self.assertIn("failed: index_add-a8e741bae3fe: broke", err)
            self.assertIn("2 of 83 timings failed", err)
            self.assertIn("(the existing file is unchanged)", err)
            with open(out, "rb") as f:
                self.assertEqual(f.read(), before)
            self.assertEqual(os.listdir(tmp), ["H200.json"])
            # nothing timed: nothing written either
            with mock.patch.object(op_timing, "time_point",
                                   side_effect=op_timing.OpTimingError("x")):
                empty = os.path.join(tmp, "other", "H200.json")
                self.assertEqual(self.run_main(["--golden", GOLDEN, "--out", empty])[0], 1)
            self.assertFalse(os.path.exists(os.path.dirname(empty)))


def avgpool_points():
    return golden.load_op(GOLDEN, "adaptive_avg_pool2d_backward")[1]["points"]


class TestAvgpoolPlans(unittest.TestCase):
    WHERE = "adaptive_avg_pool2d_backward.json $.points[0]"

    def test_golden_points(self):
        got = [avgpool.plan_point(p, f"x $.points[{i}]")
               for i, p in enumerate(avgpool_points())]
        self.assertEqual([p["point"] for p in got], ["adaptive_avg_pool2d_backward-a0df034a1ddc",
                                                     "adaptive_avg_pool2d_backward-01a009dfa6f7"])
        for plan, sizes in zip(got, ([128, 256, 6, 6], [64, 512, 7, 7])):
            with self.subTest(point=plan["point"]):
                strides = [sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1]
                self.assertEqual(plan["op"], "aten._adaptive_avg_pool2d_backward.default")
                inputs = by_name(plan)
                self.assertEqual(list(inputs), ["grad", "self"])
                for spec in inputs.values():
                    self.assertEqual((spec["dtype"], spec["sizes"], spec["strides"], spec["offset"]),
                                     ("bf16", sizes, strides, 0))
                # run.c's grad_gen; self's values are never read
                self.assertEqual(inputs["grad"]["values"], {"generator": "uniform", "seed": 0})
                self.assertEqual(inputs["self"]["values"], {"generator": "uniform", "seed": 1})
                self.assertEqual(plan["out"]["sizes"], sizes)
                self.assertEqual(plan["modes"]["faithful"],
                                 {"call": "torch.ops.aten._adaptive_avg_pool2d_backward.default("
                                          "grad, self)"})
                self.assertIsNone(plan["modes"]["fabricated"])
                self.assertEqual(len(plan["setup"]), 1)
                self.assertTrue(plan["setup"][0].startswith("# grad is the replica's"))
                t = {"median_us": 60.0, "q1_us": 59.0, "q3_us": 61.0, "samples": 30}
                rec = op_timing.point_record(plan, {"faithful": t}, ["k"])
                self.assertEqual(list(rec), ["point", "op", "inputs", "setup", "faithful",
                                             "fabricated", "kernels"])
                self.assertEqual(rec["faithful"], {"call": plan["modes"]["faithful"]["call"], **t})
                self.assertIsNone(rec["fabricated"])

    def test_refusals_name_the_file_and_path(self):
        def change(fn):
            p = copy.deepcopy(avgpool_points()[0])
            fn(p["signature"])
            return p

        def grad_of(sizes):
            def fn(sig):
                sig["args"][0]["sizes"] = sizes
                sig["args"][0]["strides"] = [sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3],
                                             sizes[3], 1]
            return fn
        cases = [
            (lambda sig: sig["args"].append(sig["args"][0]),
             r"\.json \$\.points\[0\]\.signature\.args: expected _adaptive_avg_pool2d_backward\("
             r"grad_output, self\), got 3 args"),
            (lambda sig: sig.update(op="aten.index_add.default"),
             r"\.json \$\.points\[0\]: expected an aten\._adaptive_avg_pool2d_backward\.default point"),
            (lambda sig: sig["args"][1].update(dtype="f32"),
             r"\$\.points\[0\]\.signature\.args\[1\]\.dtype: expected \"bf16\" \(the bf16 pool"),
            (lambda sig: sig["args"][0].update(strides=[9216, 1, 1536, 256]),
             r"\$\.points\[0\]\.signature\.args\[0\]: expected a contiguous 4-d tensor"),
            (grad_of([128, 256, 1, 1]),
             r"\$\.points\[0\]\.signature: expected the output laid out as self and an identity "
             r"pool \(the grad of self's sizes\), got grad \[128, 256, 1, 1\]"),
        ]
        for fn, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(op_timing.OpTimingError, message):
                    avgpool.plan_point(change(fn), self.WHERE)

    def test_cli_refuses_a_malformed_golden_point(self):
        with tempfile.TemporaryDirectory() as tmp:
            occ = os.path.join(tmp, "occurrences")
            os.makedirs(occ)
            for name in ("index_add", "adaptive_avg_pool2d_backward"):
                path, doc = golden.load_op(GOLDEN, name)
                if name != "index_add":
                    doc["points"][1]["signature"]["args"].pop()
                with open(os.path.join(occ, f"{name}.json"), "w", encoding="utf-8") as f:
                    json.dump(doc, f)
            rc, out, err = context.run_cli(op_timing.main, ["--golden", tmp, "--plan", "--no-pipeline"])
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn(f"{occ}/adaptive_avg_pool2d_backward.json $.points[1].signature.args: expected "
                      "_adaptive_avg_pool2d_backward(grad_output, self), got 1 args", err)

    def test_one_table_plans_every_point(self):
        self.assertEqual([(k.file, k.op) for k in op_timing.OPS],
                         [("index_add", "aten.index_add.default"),
                          ("adaptive_avg_pool2d_backward",
                           "aten._adaptive_avg_pool2d_backward.default")])
        got = op_timing.plan_points(GOLDEN, [])
        self.assertEqual([p["op"] for p in got], ["aten.index_add.default"] * 3 +
                         ["aten._adaptive_avg_pool2d_backward.default"] * 2)
        # index_add's plans are the ones its own planner gives
        self.assertEqual(got[:3], plans())
        self.assertEqual([op_timing.kind_of(p).file for p in got[2:4]],
                         ["index_add", "adaptive_avg_pool2d_backward"])
        got = op_timing.plan_points(GOLDEN, ["adaptive_avg_pool2d_backward-01a009dfa6f7-acadc257bb01",
                                             "index_add-a8e741bae3fe"])
        self.assertEqual([p["point"] for p in got], ["index_add-a8e741bae3fe",
                                                     "adaptive_avg_pool2d_backward-01a009dfa6f7"])
        with self.assertRaisesRegex(op_timing.OpTimingError,
                                    r"no such point or scope id in .*index_add\.json or "
                                    r".*adaptive_avg_pool2d_backward\.json: nope$"):
            op_timing.plan_points(GOLDEN, ["index_add-a8e741bae3fe", "nope"])
        with self.assertRaisesRegex(op_timing.OpTimingError, "no OPS entry for aten.cat.default"):
            op_timing.kind_of({"point": "p", "op": "aten.cat.default"})

    def test_plan_cli_prints_the_pool_points(self):
        rc, out, _ = context.run_cli(op_timing.main, ["--golden", GOLDEN, "--plan", "--no-pipeline"])
        self.assertEqual(rc, 0)
        got = json.loads(out)
        self.assertEqual([p["point"] for p in got][3:], ["adaptive_avg_pool2d_backward-a0df034a1ddc",
                                                         "adaptive_avg_pool2d_backward-01a009dfa6f7"])
        self.assertIsNone(got[4]["fabricated"])
        self.assertEqual(got[4]["faithful"]["call"],
                         "torch.ops.aten._adaptive_avg_pool2d_backward.default(grad, self)")


class TestDiscovery(unittest.TestCase):
    PACKAGES = itertools.count()

    def test_finds_both_ops_in_their_order(self):
        # index_add first though its module sorts after the pool's: KIND.order keeps a document's
        # points where they were when an op is added
        self.assertEqual(op_timings.discover(), (index_add.KIND, avgpool.KIND))
        self.assertEqual(op_timing.OPS, (index_add.KIND, avgpool.KIND))

    @contextlib.contextmanager
    def fake_package(self, modules):
        """The name of an importable package of these modules ({name: source}) in a temporary
        folder, a new name each time (an imported module stays in sys.modules)."""
        package = f"fake_op_timings_{next(self.PACKAGES)}"
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, package))
            for name, text in {"__init__": "", **modules}.items():
                with open(os.path.join(tmp, package, f"{name}.py"), "w", encoding="utf-8") as f:
                    f.write(text)
            sys.path.insert(0, tmp)
            try:
                yield package
            finally:
                sys.path.remove(tmp)

    def test_a_module_is_one_op_and_helpers_are_skipped(self):
        with self.fake_package({"_helper": "", "one": "from op_timings.index_add import KIND\n"}) \
                as package:
            self.assertEqual(op_timings.discover(package), (index_add.KIND,))

    def test_refusals_name_the_module(self):
        pool = "from op_timings.adaptive_avg_pool2d_backward import KIND\n"
        cases = [
            ({"good": pool, "broken": "OP = 'aten.x'\n"},
             "{0}/broken.py: expected KIND, an OpKind (op_timings/_common.py), got None"),
            ({"broken": pool + "KIND = KIND._replace(plan=None, untimed='', order=True)\n"},
             "{0}/broken.py: KIND: expected untimed (a non-empty str), plan (a function), "
             "order (an int)"),
            ({"a": pool, "b": pool + "KIND = KIND._replace(order=3)\n"},
             "{0}/b.py: op 'aten._adaptive_avg_pool2d_backward.default' is declared by {0}/a.py already"),
            ({"a": pool, "b": pool + "KIND = KIND._replace(op='aten.other', order=3)\n"},
             "{0}/b.py: file 'adaptive_avg_pool2d_backward' is declared by {0}/a.py already"),
            ({"a": pool, "b": pool + "KIND = KIND._replace(op='aten.other', file='other')\n"},
             "{0}/b.py: order 2 is declared by {0}/a.py already"),
            ({"broken": "import no_such_module_here\n"},
             "{0}/broken.py: does not import: ModuleNotFoundError: No module named 'no_such_module_here'"),
        ]
        for modules, message in cases:
            with self.subTest(modules=list(modules)), self.fake_package(modules) as package:
                with self.assertRaises(op_timing.OpTimingError) as caught:
                    op_timings.discover(package)
                self.assertEqual(str(caught.exception), message.format(package))


def fixture_main(path, make):
    """--write-fixture: write make() to path (what the C reader's tests load); else the tests."""
    if "--write-fixture" in sys.argv:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(make(), f, indent=1)
            f.write("\n")
        print(f"wrote {os.path.relpath(path)}")
    else:
        unittest.main()


if __name__ == "__main__":
    fixture_main(FIXTURE, fixture_document)
