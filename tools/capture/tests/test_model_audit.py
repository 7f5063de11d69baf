"""model_audit.py: the stages from a model to its rollup, run with a fake runner (no torch, no GPU): one
progress line per stage, a warning goes on, a failure stops, a model without an audited op ends early."""

import io
import os
import unittest

import context
import model_audit

ARGS = ["--model", "torchvision:densenet121", "--mode", "train", "--batch", "4", "--autocast", "bf16"]
NAMES = ["dump", "extract", "rule", "target", "capture", "classify", "run", "rollup"]


def fake_runner(exits, outputs=None):
    """A runner answering each stage (by its position) with exits[i] and outputs.get(i, ""), recording the
    commands it was given."""
    calls = []

    def run(cmd):
        i = len(calls)
        calls.append(cmd)
        return exits.get(i, 0), (outputs or {}).get(i, "")
    return run, calls


def clock():
    clock.t += 2
    return clock.t


clock.t = 0


class TestStages(unittest.TestCase):
    def plan(self):
        return model_audit.stages("/w", ARGS, 8)

    def test_every_stage_runs_in_order_with_one_progress_line_each(self):
        run, calls = fake_runner({}, {1: '{"occurrences_total": 62}', 3: "H200-torch2.11.0+cu130\n", 7: "rollup text"})
        log = io.StringIO()
        rc, out = model_audit.run_stages(self.plan(), run, log, clock)
        self.assertEqual(rc, 0)
        self.assertEqual(len(calls), 8)
        self.assertEqual(calls[0][-len(ARGS) - 2:], ARGS + ["--out", "/w/corpus"])
        self.assertEqual(calls[4][-4:], ["--out", "/w/golden/targets/H200-torch2.11.0+cu130/captures", "--jobs", "8"])
        self.assertIn("--update", calls[5])
        self.assertEqual(calls[6][calls[6].index("--record") + 1], "/w/golden/targets/H200-torch2.11.0+cu130/baselines.json")
        lines = log.getvalue().splitlines()
        for i, name in enumerate(NAMES, 1):
            self.assertTrue(any(line.startswith(f"model-audit: [{i}/8] {name}: ") for line in lines), name)
            self.assertIn(f"model-audit: {name} done (2 s)", lines)
        self.assertEqual(out["rollup"], "rollup text")

    def test_a_warning_goes_on_and_the_exit_says_so(self):
        run, calls = fake_runner({1: 1, 5: 1}, {1: '{"occurrences_total": 29}', 3: "T\n"})
        log = io.StringIO()
        rc, _ = model_audit.run_stages(self.plan(), run, log, clock)
        self.assertEqual((rc, len(calls)), (1, 8))
        self.assertIn("model-audit: classify done with a warning (exit 1", log.getvalue())
        self.assertIn("model-audit: finished with warnings in: extract, classify", log.getvalue())

    def test_a_failure_stops_the_stages_that_need_it(self):
        run, calls = fake_runner({4: 2}, {1: '{"occurrences_total": 3}', 3: "T\n"})
        log = io.StringIO()
        rc, _ = model_audit.run_stages(self.plan(), run, log, clock)
        self.assertEqual((rc, len(calls)), (2, 5))
        self.assertIn("model-audit: capture failed (exit 2, 2 s); stopped: the later stages need it", log.getvalue())
        run, calls = fake_runner({0: 1})
        self.assertEqual(model_audit.run_stages(self.plan(), run, io.StringIO(), clock)[0], 2, "dump failed")
        self.assertEqual(len(calls), 1)

    def test_a_model_without_an_audited_op_ends_after_extract(self):
        run, calls = fake_runner({}, {1: '{"occurrences_total": 0}'})
        log = io.StringIO()
        rc, _ = model_audit.run_stages(self.plan(), run, log, clock)
        self.assertEqual((rc, len(calls)), (0, 2))
        self.assertIn("the model holds no audited op; nothing more to do", log.getvalue())


class TestCli(unittest.TestCase):
    def test_plan_prints_the_commands_and_runs_nothing(self):
        rc, out, err = context.run_cli(model_audit.main, ["--work", "/w", "--target", "T", "--plan", "--"] + ARGS)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual([line.split(":")[0] for line in lines], [f"[{i}/8] {n}" for i, n in enumerate(NAMES, 1)])
        self.assertTrue(lines[7].endswith("--markdown /w/rollup.md"), lines[7])
        self.assertFalse(os.path.exists("/w"))

    def test_bad_usage_is_named(self):
        rc, out, err = context.run_cli(model_audit.main, ["--work", "/w"])
        self.assertEqual(rc, 2)
        self.assertIn("expected the model's options after --", err)
        rc, out, err = context.run_cli(model_audit.main, ["--work", "/w", "--"] + ARGS + ["--out", "x"])
        self.assertEqual(rc, 2)
        self.assertIn("--out after --: the corpus goes to WORK/corpus", err)


if __name__ == "__main__":
    unittest.main()
