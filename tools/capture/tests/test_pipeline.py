"""pipeline.py's torch-free parts: every golden point's fabricated inputs and call as the attribution
pipeline prices it, the pipeline object, and merging it into op_timing.py's document.

tests/fixtures/torch_ops/pipeline/H200.json, which the C reader's tests load, is this module's
fixture_document(); after a format change, rewrite it with
    python3 tools/capture/tests/test_pipeline.py --write-fixture
"""

import copy
import json
import os
import unittest

import context  # noqa: F401
import golden
import op_timing
import pipeline
from op_timings import index_add
from test_op_timing import GOLDEN, ROOT, fixture_document as op_fixture, fixture_main

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "torch_ops", "pipeline", "H200.json")


def golden_plans():
    plans = []
    for name in pipeline.PRICED_OPS:
        path, doc = golden.load_op(GOLDEN, name)
        plans += [pipeline.plan_point(p, f"{path} $.points[{i}]") for i, p in enumerate(doc["points"])]
    return plans


def fixture_document():
    """op_timing's fixture with a made-up pipeline timing for every golden point."""
    doc = op_fixture()
    plans = golden_plans()
    timed = {p["point"]: (pipeline.record(p["call"], 10.0 + i, 8.0 + i, pipeline.REPLAYS),
                          ["made-up kernel"], None) for i, p in enumerate(plans)}
    doc["points"] = pipeline.merge(doc["points"], plans, timed)
    return doc


class TestPlans(unittest.TestCase):
    def test_every_golden_point_is_fabricated(self):
        plans = golden_plans()
        self.assertEqual(len(plans), 78)
        self.assertEqual(len({p["point"] for p in plans}), 78)
        for p in plans:
            names = [i["name"] for i in p["inputs"]]
            self.assertEqual(names, [f"in{k}" for k in range(len(names))])
            for k, spec in enumerate(p["inputs"]):
                self.assertEqual(spec["values"]["seed"], pipeline.SEED_BASE + k)
                if spec["dtype"] in ("i32", "i64"):  # what the pipeline cannot infer
                    self.assertEqual(spec["values"], {"generator": "randint", "seed": pipeline.SEED_BASE + k,
                                                      "low": 0, "high": 100})
            self.assertTrue(p["call"].startswith(f"torch.ops.{p['op']}("), p["call"])

    def test_calls_keep_the_graph_literals(self):
        by_point = {p["point"]: p for p in golden_plans()}
        histc = by_point["histc-5eac6acf8c20"]
        self.assertEqual(histc["call"], "torch.ops.aten.histc.default(in0, 32, 0, 31)")
        self.assertEqual(histc["inputs"][0]["sizes"], [4000])
        routing = by_point["cumsum-bbbc239b67b8"]
        self.assertEqual(routing["call"], "torch.ops.aten.cumsum.default(in0, 0, dtype=torch.int32)")
        self.assertEqual(routing["kwargs"], {"dtype": {"dtype": "i32"}})
        cat = next(p for p in golden_plans() if p["op"] == "aten.cat.default" and len(p["inputs"]) == 25)
        self.assertTrue(cat["call"].endswith("in23, in24], 1)"), cat["call"])
        self.assertEqual(cat["args"][0][24], {"input": "in24"})

    def test_every_golden_call_binds(self):
        """Every plan's arguments bind with literals as torch objects: the cumsum's keyword dtype is a
        keyword, not a literal (on the H200, binding the kwargs map as one literal failed)."""
        from unittest import mock
        with mock.patch.object(pipeline.scope, "torch_literal", lambda kind, value: (kind, value)):
            for plan in golden_plans():
                tensors = {spec["name"]: spec["name"] for spec in plan["inputs"]}
                args, kwargs = pipeline.bind_call(plan, tensors)
                self.assertIsInstance(kwargs, dict, plan["point"])
            routing = next(p for p in golden_plans() if p["point"] == "cumsum-bbbc239b67b8")
            args, kwargs = pipeline.bind_call(routing, {"in0": "tensor"})
        self.assertEqual(args, ["tensor", 0])
        self.assertEqual(kwargs, {"dtype": ("dtype", "i32")})

    def test_an_index_add_index_stays_in_range(self):
        from test_op_timing import synthetic_point
        plan = pipeline.plan_point(synthetic_point(), "x")  # self has 12 rows
        self.assertEqual(plan["inputs"][1]["values"],
                         {"generator": "randint", "seed": pipeline.SEED_BASE + 1, "low": 0, "high": 12})
        xlnet = next(p for p in golden_plans() if p["point"] == "index_add-a8e741bae3fe")
        self.assertEqual(xlnet["inputs"][1]["values"]["high"], 100)  # 1023 columns: the pipeline's own

    def test_a_symbolic_tensor_is_refused(self):
        path, doc = golden.load_op(GOLDEN, "histc")
        point = copy.deepcopy(doc["points"][0])
        point["signature"]["args"][0] = {"dtype": "i32", "ann": "i32[s0]", "symbolic": True}
        with self.assertRaisesRegex(pipeline.PipelineError, r"x \$\.points\[0\]\.signature\.args\[0\]: "
                                                            "expected a tensor with static sizes"):
            pipeline.plan_point(point, "x $.points[0]")
        with self.assertRaisesRegex(pipeline.PipelineError, "expected a point with its id and an aten op"):
            pipeline.plan_point({"point": "p", "signature": {"op": "mul"}}, "x")


class TestRecords(unittest.TestCase):
    def test_record_is_one_call_per_replay(self):
        self.assertEqual(pipeline.record("c", 2.0, 1.5, 50),
                         {"call": "c", "calls_per_replay": 1, "replays": 50, "min_us": 2.0, "steady_us": 1.5})
        for bad in ((0.0, 1.0, 50), (1.0, -1.0, 50), (1.0, 1.0, 1), (float("nan"), 1.0, 50)):
            with self.assertRaises(pipeline.PipelineError):
                pipeline.record("c", *bad)

    def test_merge_adds_to_index_add_and_appends_the_others(self):
        doc = fixture_document()
        points = doc["points"]
        self.assertEqual(len(points), 78)
        first = points[0]
        self.assertEqual(first["op"], index_add.OP)
        self.assertIsNotNone(first["faithful"])
        self.assertEqual(first["pipeline"]["calls_per_replay"], 1)
        cat = next(p for p in points if p["op"] == "aten.cat.default")
        self.assertIsNone(cat["faithful"])
        self.assertIsNone(cat["fabricated"])
        self.assertEqual(cat["setup"], [])
        self.assertEqual(cat["kernels"], ["made-up kernel"])
        # an untimed plan adds nothing
        self.assertEqual(pipeline.merge([], golden_plans()[:2], {}), [])

    def test_committed_fixture_is_current(self):
        with open(FIXTURE, encoding="utf-8") as f:
            self.assertEqual(json.load(f), fixture_document(),
                             "rewrite with: python3 tools/capture/tests/test_pipeline.py --write-fixture")


class TestPlanCli(unittest.TestCase):
    def test_plan_lists_the_pipeline_call_of_every_point(self):
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(op_timing.main(["--golden", GOLDEN, "--plan"]), 0)
        listed = json.loads(out.getvalue())
        self.assertEqual(sum(1 for p in listed if "pipeline" in p), 78)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(op_timing.main(["--golden", GOLDEN, "--plan", "--no-pipeline"]), 0)
        self.assertEqual(sum(1 for p in json.loads(out.getvalue()) if "pipeline" in p), 0)


if __name__ == "__main__":
    fixture_main(FIXTURE, fixture_document)
