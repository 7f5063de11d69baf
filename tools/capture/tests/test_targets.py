"""targets.py: a machine's target named and its folder made as src/target/target.c reads it; the committed and
the fixture target.json files read back; a folder whose target.json disagrees with the machine refused."""

import json
import os
import tempfile
import unittest
from unittest import mock

import context
import targets

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
ENV = {"torch": "2.11.0+cu130", "torch_git": "0123abc", "triton": "3.6.0", "gpu": "NVIDIA B200",
       "capability": "10.0", "driver": "580.159.04", "cuda": "13.0"}


class TestTargets(unittest.TestCase):
    def test_name_and_gpu_model_as_the_c_side(self):
        # the cases src/gpu/device.c's ea_gpu_model is tested with
        self.assertEqual(targets.gpu_model("NVIDIA H200"), "H200")
        self.assertEqual(targets.gpu_model("NVIDIA GeForce RTX 4090 "), "GeForce-RTX-4090")
        self.assertEqual(targets.gpu_model("NVIDIA H100 80GB HBM3"), "H100-80GB-HBM3")
        self.assertEqual(targets.name_of("H200", "2.11.0+cu130"), "H200-torch2.11.0+cu130")

    def test_gpu_model_comes_from_the_cli_or_says_why_not(self):
        with tempfile.TemporaryDirectory() as d:
            absent = os.path.join(d, "extern-audit")
            with mock.patch.dict(os.environ, {targets.CLI_ENV: absent}):
                with self.assertRaisesRegex(targets.TargetError, rf"{absent}: expected the built extern-audit CLI, "
                                            r"which names the GPU model of 'NVIDIA H200' \(make, or set EXTERN_AUDIT_CLI"):
                    targets.gpu_model("NVIDIA H200")
                # the tools that name a target say so and exit 2 instead of a traceback
                with mock.patch.object(targets, "_environment", return_value=ENV):
                    rc, out, err = context.run_cli(targets.main, ["--golden", d, "--create"])
                self.assertEqual((rc, out), (2, ""))
                self.assertIn("expected the built extern-audit CLI", err)
        # a name the C side cannot name a target by: its message, not an empty model
        with self.assertRaisesRegex(targets.TargetError, r"gpu-model 'NVIDIA ': exit 2: .*expected a device name "
                                    r"with a letter or digit"):
            targets.gpu_model("NVIDIA ")

    def test_committed_and_fixture_targets_load(self):
        for golden in (os.path.join(ROOT, "golden"), os.path.join(ROOT, "tests", "fixtures", "golden_targets")):
            for name in os.listdir(os.path.join(golden, "targets")):
                doc = targets.load(os.path.join(targets.folder(golden, name), "target.json"))
                self.assertEqual(doc["name"], name)

    def test_a_new_machine_gets_a_new_folder_then_finds_it(self):
        with tempfile.TemporaryDirectory() as golden:
            with self.assertRaisesRegex(targets.TargetError, "no target for B200 with torch 2.11.0"):
                targets.ensure(golden, ENV, create=False)
            name, created = targets.ensure(golden, ENV, create=True)
            self.assertEqual((name, created), ("B200-torch2.11.0+cu130", True))
            doc = targets.load(os.path.join(targets.folder(golden, name), "target.json"))
            self.assertEqual((doc["gpu_model"], doc["capability"]), ("B200", "10.0"))
            self.assertEqual(targets.ensure(golden, ENV, create=True), (name, False))
            # a folder whose record disagrees with this machine is refused, not overwritten
            path = os.path.join(targets.folder(golden, name), "target.json")
            doc["capability"] = "9.0"
            with open(path, "w") as f:
                json.dump(doc, f)
            with self.assertRaisesRegex(targets.TargetError, r"\$\.capability: expected '10.0' \(this machine\)"):
                targets.ensure(golden, ENV, create=True)

    def test_strict_reader(self):
        with tempfile.TemporaryDirectory() as golden:
            good = targets.document(ENV, "n")
            cases = [({**good, "driver": "x"}, "expected an object with only the keys"),
                     ({**good, "schema_version": 2}, "expected schema 'extern-audit/target' version 1"),
                     ({**good, "note": ""}, r"\$\.note: expected a non-empty string"),
                     ({**good, "name": "B200-torch2.12"}, r"\$\.name: expected 'B200-torch2.11.0\+cu130'"),
                     # a candidate's name carries its lowering (in a folder of the base's name here: refused)
                     ({**good, "lowering": "x"}, r"\$\.name: expected 'B200-torch2.11.0\+cu130-x'"),
                     ({**good, "lowering": ""}, r"\$\.lowering: expected a non-empty string")]
            for doc, want in cases:
                path = os.path.join(targets.folder(golden, good["name"]), "target.json")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    json.dump(doc, f)
                with self.assertRaisesRegex(targets.TargetError, want):
                    targets.load(path)

    def test_cli_prints_the_name_or_says_why_not(self):
        with tempfile.TemporaryDirectory() as golden:
            with mock.patch.object(targets, "_environment", return_value=ENV):
                rc, out, err = context.run_cli(targets.main, ["--golden", golden, "--create"])
            self.assertEqual(rc, 0, err)
            self.assertEqual(out, "B200-torch2.11.0+cu130\n")
            self.assertIn("created", err)
            with mock.patch.object(targets, "_environment", side_effect=ImportError("No module named 'torch'")):
                rc, out, err = context.run_cli(targets.main, ["--golden", golden])
            self.assertEqual(rc, 2)
            self.assertIn("cannot read this machine's GPU and torch: ImportError: No module named 'torch'", err)


if __name__ == "__main__":
    unittest.main()
