"""corpus_ids.py: a fresh dump's point and scope ids against the committed golden's, for one model."""

import json
import os
import shutil
import tempfile
import unittest

import context
import corpus_ids

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
GOLDEN = os.path.join(ROOT, "golden", "occurrences")
MODEL = "torchbench/train/densenet121"


class TestIds(unittest.TestCase):
    def test_the_committed_documents_reproduce_themselves(self):
        rc, out, err = context.run_cli(corpus_ids.main, ["--golden", GOLDEN, "--fresh", GOLDEN, "--model", MODEL])
        self.assertEqual(rc, 0, err)
        self.assertIn("point ids: 31 of 31 committed reproduced; 0 new", out)
        self.assertIn("scope ids: 31 of 31 committed reproduced; 0 new", out)

    def test_a_missing_and_a_new_id_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(GOLDEN, "cat.json")) as f:
                doc = json.load(f)
            mine = [p for p in doc["points"]
                    if any(o["model"] == "densenet121" and o["mode"] == "train" for s in p["scopes"] for o in s["occurrences"])]
            gone = mine[0]["point"]
            mine[0]["point"] = "cat-000000000000"
            with open(os.path.join(d, "cat.json"), "w") as f:
                json.dump(doc, f)
            shutil.copy(os.path.join(GOLDEN, "summary.json"), d)
            rc, out, err = context.run_cli(corpus_ids.main, ["--golden", GOLDEN, "--fresh", d, "--model", MODEL])
        self.assertEqual(rc, 1)
        self.assertIn("point ids: 30 of 31 committed reproduced; 1 new", out)
        self.assertIn(f"  missing {gone}", out)
        self.assertIn("  new cat-000000000000", out)

    def test_a_model_the_golden_lacks_is_refused(self):
        rc, out, err = context.run_cli(corpus_ids.main, ["--golden", GOLDEN, "--fresh", GOLDEN, "--model", "hf/train/x"])
        self.assertEqual(rc, 2)
        self.assertIn("holds no occurrence of hf/train/x", err)


if __name__ == "__main__":
    unittest.main()
