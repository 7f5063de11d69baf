"""replica_gap.py's torch-free parts: the profiler trace read into per-call operations, the replica's
paths found in extern-audit run's JSON, the pairing by role, explanations kept across reruns, and
the CLI's paths (bad input, a whole run with torch's side stubbed)."""

import json
import os
import sys
import tempfile
import unittest
from unittest import mock

import context
import op_timing
import replica_gap
from op_timings import index_add

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
GOLDEN = os.path.join(ROOT, "golden")
XLNET = "index_add-a8e741bae3fe"
INDEX = "void at::native::indexFuncLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, false>"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>>"


def trace(calls, index_us=500.0):
    """A Chrome trace of `calls` index_add calls as torch.profiler exports it, with CPU noise."""
    events, ts = [{"ph": "X", "cat": "cpu_op", "name": "aten::index_add", "ts": 0, "dur": 9}], 1
    for c in range(calls):
        for cat, name, dur, args in (
                ("kernel", FILL + "(int, at::native::FillFunctor<c10::BFloat16>)", 8.0 + c,
                 {"grid": [4608, 1, 1], "block": [128, 1, 1], "shared memory": 0,
                  "registers per thread": 16}),
                ("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 40.0, {"bytes": 18874368}),
                ("kernel", INDEX + "(at::cuda::detail::TensorInfo<...>)", index_us,
                 {"grid": [1056, 1, 1], "block": [128, 1, 1], "shared memory": 0})):
            events.append({"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "args": args})
            ts += 1000
    return {"traceEvents": list(reversed(events))}  # out of order: the reader sorts by start


def replica_doc(modes=("faithful", "fabricated")):
    paths = [{"name": "current", "mode": m, "time": {"median_us": 600.0},
              "time_cold": {"median_us": 640.0},
              "kernel_launches": [
                  {"name": "ia_fill_kernel", "grid": [1320, 1, 1], "block": [256, 1, 1],
                   "shared_bytes": 0, "median_us": 7.0, "min_us": 7, "max_us": 7, "calls": 5},
                  {"name": "Memcpy DtoD", "grid": [0, 0, 0], "block": [0, 0, 0], "shared_bytes": 0,
                   "bytes": 18874368, "median_us": 38.0, "min_us": 38, "max_us": 38, "calls": 5},
                  {"name": "void ia_aten::indexFuncLargeIndex<2, 2, -2, false>", "grid": [1056, 1, 1],
                   "block": [128, 1, 1], "shared_bytes": 0, "median_us": 430.0, "min_us": 429,
                   "max_us": 431, "calls": 5}]} for m in modes]
    paths.append({"name": "oracle", "mode": "faithful"})
    return {"scopes": [{"family": "cat", "point": "cat-x", "paths": []},
                       {"family": "index_add", "point": XLNET, "paths": paths}]}


class TestPure(unittest.TestCase):
    def test_trace_to_per_call_operations(self):
        ops = replica_gap.per_call(replica_gap.trace_ops(trace(3)), 3)
        self.assertEqual([o["role"] for o in ops], ["fill", "copy", "index"])
        fill, copy, index = ops
        self.assertEqual(fill["name"], FILL)
        self.assertEqual((fill["median_us"], fill["min_us"], fill["max_us"]), (9.0, 8.0, 10.0))
        self.assertEqual(fill["grid"], [4608, 1, 1])
        self.assertEqual(fill["registers"], 16)
        self.assertEqual(copy["bytes"], 18874368)
        self.assertNotIn("grid", copy)
        self.assertEqual(index["median_us"], 500.0)
        self.assertEqual(index["calls"], 3)

    def test_calls_that_differ_are_refused(self):
        ops = replica_gap.trace_ops(trace(2))
        with self.assertRaisesRegex(replica_gap.GapError, "6 device operations, not 4 equal calls"):
            replica_gap.per_call(ops, 4)
        ops[4]["name"] = "other"
        with self.assertRaisesRegex(replica_gap.GapError, "call 1 ran 3 operations in another order"):
            replica_gap.per_call(ops, 2)
        with self.assertRaisesRegex(replica_gap.GapError, "expected an object with a traceEvents"):
            replica_gap.trace_ops([])

    def test_pairing_by_role(self):
        torch_ops = replica_gap.per_call(replica_gap.trace_ops(trace(2)), 2)
        rep = replica_gap.replica_side(replica_gap.replica_paths(replica_doc(), "run.json")[(XLNET, "faithful")])
        self.assertEqual((rep["time_us"], rep["time_cold_us"]), (600.0, 640.0))
        rows = {r["role"]: r for r in replica_gap.pair(torch_ops, rep["ops"])}
        self.assertEqual(list(rows), ["fill", "copy", "index"])
        self.assertAlmostEqual(rows["index"]["gap_us"], -70.0)
        self.assertTrue(rows["index"]["same_launch"], "the replica launches ATen's grid and block")
        self.assertFalse(rows["fill"]["same_launch"], "its own fill kernel: another grid")
        self.assertAlmostEqual(rows["copy"]["gap_us"], -2.0)
        self.assertTrue(rows["copy"]["same_launch"], "a copy of the same bytes")
        self.assertEqual(rows["copy"]["explanation"], "same launch, same time (within 5%)")
        self.assertEqual(rows["index"]["explanation"],
                         "same launch, the replica 14% faster: the code differs (registers, instructions, "
                         "atomics: ci/gpu-check STEPS=replica_ncu)")
        self.assertEqual(rows["fill"]["explanation"],
                         "launch differs (torch grid [4608, 1, 1] block [128, 1, 1], replica grid [1320, 1, 1] "
                         "block [256, 1, 1]): the replica 18% faster")
        self.assertEqual(rows["fill"]["torch"][0]["registers"], 16)
        only = replica_gap.pair(torch_ops[:2], rep["ops"])
        self.assertEqual(only[-1]["explanation"], "only the replica runs it")
        self.assertEqual(replica_gap.pair(torch_ops, rep["ops"][:2])[-1]["explanation"], "only torch runs it")
        plan = next(p for p in (index_add.plan_point(p, "x") for p in
                                replica_gap.golden.load_op(GOLDEN, "index_add")[1]["points"])
                    if p["point"] == XLNET)
        e = replica_gap.entry(plan, "faithful", {"eager": torch_ops}, rep, {(XLNET, "faithful"): "why"})
        self.assertEqual(e["largest_gap"], "index")
        self.assertEqual(e["explanation"], "why")
        self.assertIn("index_add.default", e["call"])

    def test_replica_without_launches_says_why(self):
        side = replica_gap.replica_side({"time": {"median_us": 5}, "kernel_launches_note": "CUPTI unavailable"})
        self.assertEqual(side["ops"], [])
        self.assertEqual(side["note"], "CUPTI unavailable")
        with self.assertRaisesRegex(replica_gap.GapError, "run.json: expected extern-audit run's JSON"):
            replica_gap.replica_paths([], "run.json")


class TestCli(unittest.TestCase):
    def run_main(self, argv):
        return context.run_cli(replica_gap.main, argv)

    def test_plan_and_usage(self):
        rc, out, _ = self.run_main(["--golden", GOLDEN, "--plan", "--points", XLNET])
        self.assertEqual(rc, 0)
        self.assertEqual([p["point"] for p in json.loads(out)], [XLNET])
        rc, _, err = self.run_main(["--golden", GOLDEN])
        self.assertEqual(rc, 2)
        self.assertIn("--replica and --out are required unless --plan", err)

    def test_bad_replica_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, "run.json")
            rc, _, err = self.run_main(["--golden", GOLDEN, "--replica", run, "--out", run + ".out"])
            self.assertEqual(rc, 2)
            self.assertIn(f"{run}: cannot read extern-audit run's JSON", err)
            with open(run, "w") as f:
                json.dump(replica_doc(modes=("faithful",)), f)
            rc, _, err = self.run_main(["--golden", GOLDEN, "--replica", run, "--out", run + ".out",
                                        "--points", XLNET])
            self.assertEqual(rc, 2)
            self.assertIn(f"no current path for {XLNET} fabricated", err)

    def test_a_run_keeps_earlier_explanations(self):
        side = {"op_us": {"median_us": 700.0}, "eager": replica_gap.per_call(
            replica_gap.trace_ops(trace(2)), 2), "graph": None, "graph_note": "not seen"}
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(sys.modules, {"torch": mock.MagicMock()}), \
                mock.patch.object(op_timing, "check_torch"), \
                mock.patch.object(op_timing, "make_inputs", return_value={}), \
                mock.patch.object(replica_gap.worker, "environment", return_value={"gpu": "NVIDIA H200"}), \
                mock.patch.object(replica_gap, "torch_side", return_value=side):
            run, out = os.path.join(tmp, "run.json"), os.path.join(tmp, "gap", "H200.json")
            with open(run, "w") as f:
                json.dump(replica_doc(), f)
            os.makedirs(os.path.dirname(out))
            with open(out, "w") as f:
                json.dump({"points": [{"point": XLNET, "mode": "fabricated", "explanation": "kept"}]}, f)
            rc, _, err = self.run_main(["--golden", GOLDEN, "--replica", run, "--out", out, "--points", XLNET])
            self.assertEqual(rc, 0, err)
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual(doc["schema"], "extern-audit/replica-gap")
        self.assertEqual([(p["mode"], p["explanation"]) for p in doc["points"]],
                         [("faithful", None), ("fabricated", "kept")])
        self.assertEqual(doc["points"][0]["largest_gap"], "index")
        self.assertIn("median of 5 eager calls", doc["method"])
        self.assertNotIn("failures", doc)

    def test_a_failed_point_is_named_and_the_others_kept(self):
        def side(plan, tensors, mode):
            if mode == "fabricated":
                raise replica_gap.GapError("the profile holds 7 device operations, not 20 equal calls")
            return {"eager": []}
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(sys.modules, {"torch": mock.MagicMock()}), \
                mock.patch.object(op_timing, "check_torch"), \
                mock.patch.object(op_timing, "make_inputs", return_value={}), \
                mock.patch.object(replica_gap.worker, "environment", return_value={"gpu": "NVIDIA H200"}), \
                mock.patch.object(replica_gap, "torch_side", side_effect=side), \
                mock.patch("traceback.print_exc"):
            run, out = os.path.join(tmp, "run.json"), os.path.join(tmp, "H200.json")
            with open(run, "w") as f:
                json.dump(replica_doc(), f)
            rc, _, err = self.run_main(["--golden", GOLDEN, "--replica", run, "--out", out, "--points", XLNET])
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual(rc, 1)
        self.assertIn(f"failed: {XLNET} fabricated: GapError: the profile holds 7", err)
        self.assertEqual([p["mode"] for p in doc["points"]], ["faithful"])
        self.assertEqual(len(doc["failures"]), 1)

    def test_calls_only_calls_the_op_and_writes_nothing(self):
        fn = mock.MagicMock()
        with mock.patch.dict(sys.modules, {"torch": mock.MagicMock()}), \
                mock.patch.object(op_timing, "check_torch"), \
                mock.patch.object(op_timing, "make_inputs", return_value={}), \
                mock.patch.object(op_timing, "make_call", return_value=(fn, (1, 2))) as make_call:
            rc, out, err = self.run_main(["--golden", GOLDEN, "--points", XLNET, "--calls-only", "faithful"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "")
        self.assertEqual(fn.call_count, replica_gap.CALLS_ONLY)
        self.assertEqual(make_call.call_args[0][2], "faithful")
        self.assertIn(f"{XLNET} faithful: {replica_gap.CALLS_ONLY} calls", err)
        with mock.patch.object(op_timing, "check_torch", side_effect=op_timing.OpTimingError("no torch here")):
            rc, _, err = self.run_main(["--golden", GOLDEN, "--points", XLNET, "--calls-only", "faithful"])
        self.assertEqual(rc, 2)
        self.assertIn("replica_gap.py: no torch here", err)


if __name__ == "__main__":
    unittest.main()
