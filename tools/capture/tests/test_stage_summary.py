"""stage_summary.py on a staged folder made from a test fixture: the three times of one run, what
changed, the oracle beside them, and the errors of a stage that cannot be summarised."""

import contextlib
import copy
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import context  # noqa: F401
import stage_summary
import targets

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures", "captures",
                       "index_add-b36c21aae6f6-955d7c11d470", "capture.json")


def staged(tmp, doc):
    d = os.path.join(tmp, "captures", doc["scope"])
    os.makedirs(d)
    with open(os.path.join(d, "capture.json"), "w") as f:
        json.dump(doc, f)


def candidate_doc():
    with open(FIXTURE) as f:
        doc = json.load(f)
    doc["lowering"] = {"name": "index_add_bf16_atomic", "stands_for": "x",
                       "ops": ["aten.index_add.default"]}
    today = copy.deepcopy(next(r for r in doc["runs"] if r["config"] == "default"))
    today["config"] = "without_lowering"
    cand = next(r for r in doc["runs"] if r["config"] == "default")
    cand["evidence"]["aten_calls"] = []
    cand["evidence"]["atomic_kernels"] = 1
    cand["timing"]["compiled"]["median_us"] = today["timing"]["compiled"]["median_us"] / 2
    doc["runs"].append(today)
    return doc


class TestSummary(unittest.TestCase):
    def test_one_run_three_times_and_the_change(self):
        with tempfile.TemporaryDirectory() as tmp:
            doc = candidate_doc()
            staged(tmp, doc)
            target = os.path.join(tmp, "golden", "targets", "H200-torch" + doc["environment"]["torch"])
            os.makedirs(target)
            with open(os.path.join(target, "baselines.json"), "w") as f:
                json.dump({"scopes": [{"alias": "tiny", "scope_ids": [doc["scope"]], "paths": [
                    {"name": "oracle", "passed": True, "time": {"median_us": 2.0}},
                    {"name": "oracle_general", "passed": False, "time": {"median_us": 1.0}}]}]}, f)
            got = stage_summary.summarize(os.path.join(tmp, "golden"), tmp, "index_add_bf16_atomic")
        self.assertEqual(got["gpu"], "H200")
        row = got["scopes"][0]
        self.assertTrue(row["changed"])
        self.assertAlmostEqual(row["speedup"], 2.0)
        self.assertEqual(row["today"]["aten"], ["torch.ops.aten.index_add.default"])
        self.assertEqual(row["candidate"]["aten"], [])
        self.assertEqual(row["oracle_us_other_run"], 2.0)  # a failed oracle is never the reference
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            stage_summary.print_table(got)
        self.assertIn(doc["scope"], out.getvalue())

    def test_a_capture_without_todays_run_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            doc = candidate_doc()
            doc["runs"] = [r for r in doc["runs"] if r["config"] != "without_lowering"]
            staged(tmp, doc)
            with self.assertRaisesRegex(stage_summary.StageError, "expected a without_lowering run"):
                stage_summary.summarize(tmp, tmp, "index_add_bf16_atomic")

    def test_no_capture_under_the_candidate(self):
        with tempfile.TemporaryDirectory() as tmp:
            staged(tmp, candidate_doc())
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = stage_summary.main(["--golden", tmp, "--stage", tmp, "--lowering", "histc_scatter"])
            self.assertEqual(rc, 2)
            self.assertIn("no capture made under the candidate 'histc_scatter'", err.getvalue())


    def test_without_the_cli_it_says_which_is_missing(self):
        with tempfile.TemporaryDirectory() as tmp:
            staged(tmp, candidate_doc())
            err = io.StringIO()
            with mock.patch.dict(os.environ, {targets.CLI_ENV: os.path.join(tmp, "no-cli")}), \
                    contextlib.redirect_stderr(err):
                rc = stage_summary.main(["--golden", tmp, "--stage", tmp, "--lowering", "index_add_bf16_atomic"])
            self.assertEqual(rc, 2)
            self.assertIn(f"stage_summary.py: {tmp}/no-cli: expected the built extern-audit CLI", err.getvalue())


if __name__ == "__main__":
    unittest.main()
