"""stage_target.py's target.json: the fields the C reader (src/golden/golden_target.c) requires, the default
name, a partial stage's scopes, and a name that would escape golden/targets refused."""

import os
import tempfile
import unittest
from unittest import mock

import context
import stage_target
import targets

ENV = {"torch": "2.11.0+cu130", "torch_git": "0123abc", "triton": "3.6.0", "gpu": "NVIDIA H200",
       "capability": "9.0", "driver": "580.159.04", "cuda": "13.0"}


class Document(unittest.TestCase):
    def test_a_complete_stage_is_named_after_its_gpu_model(self):
        doc = stage_target.document(ENV, command="ci/golden-stage --out s")
        self.assertEqual(doc["schema"], "extern-audit/target")
        self.assertEqual(doc["schema_version"], 1)
        self.assertEqual((doc["name"], doc["gpu_model"], doc["torch"], doc["capability"]),
                         ("H200-torch2.11.0+cu130", "H200", "2.11.0+cu130", "9.0"))
        self.assertEqual(doc["note"], "staged by ci/golden-stage --out s")
        self.assertEqual(doc["environment"], ENV)
        self.assertNotIn("scopes", doc)
        self.assertNotIn("lowering", doc)

    def test_a_candidate_partial_stage_carries_its_lowering_and_scopes_once(self):
        doc = stage_target.document(ENV, lowering="histc_scatter", scopes=["b", "a", "b"])
        self.assertEqual(doc["name"], "H200-torch2.11.0+cu130-histc_scatter")
        self.assertEqual(doc["lowering"], "histc_scatter")
        self.assertEqual(doc["scopes"], ["b", "a"])
        self.assertIn("torch_ops.json is the base target's", doc["note"])
        self.assertIn("every other entry kept from the base's", doc["note"])

    def test_without_the_cli_main_says_which_is_missing(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "target.json")
            with mock.patch.dict(os.environ, {targets.CLI_ENV: os.path.join(tmp, "no-cli")}), \
                    mock.patch.object(stage_target.worker, "environment", return_value=ENV):
                rc, _, err = context.run_cli(stage_target.main, ["--out", out])
            self.assertEqual(rc, 2)
            self.assertIn(f"stage_target.py: {tmp}/no-cli: expected the built extern-audit CLI", err)
            self.assertFalse(os.path.exists(out))

    def test_a_name_outside_targets_is_refused(self):
        for name in ("../x", ".hidden"):
            with self.assertRaises(ValueError):
                stage_target.document(ENV, name=name)


if __name__ == "__main__":
    unittest.main()
