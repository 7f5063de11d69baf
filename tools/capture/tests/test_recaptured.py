"""recaptured.py: which captures a stage recaptured (bytes differ from the base's or the base lacks them),
the golden points their covered occurrences belong to (one capture, two points), and an unreadable file
named."""

import json
import os
import tempfile
import unittest

import context
import recaptured


def _capture(root, name, covers, extra=""):
    os.makedirs(os.path.join(root, "captures", name))
    with open(os.path.join(root, "captures", name, "capture.json"), "w") as f:
        f.write(json.dumps({"scope": name, "covers": covers}) + extra)


class Recaptured(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.stage, self.base, self.golden = (os.path.join(t, n) for n in ("stage", "base", "golden"))
        for root in (self.stage, self.base):
            _capture(root, "kept", ["m/g:cat"])
        _capture(self.base, "routing", ["m/g:cumsum", "m/g:histc"])
        _capture(self.stage, "routing", ["m/g:cumsum", "m/g:histc"], extra="\n")  # recaptured: other bytes
        _capture(self.stage, "new", ["m/g:index_add"])
        os.makedirs(os.path.join(self.golden, "occurrences"))
        occ = {"cumsum.json": [("cumsum-1", "m/g:cumsum")], "histc.json": [("histc-1", "m/g:histc")],
               "cat.json": [("cat-1", "m/g:cat")], "index_add.json": [("index_add-1", "m/g:index_add")]}
        for fname, pts in occ.items():
            doc = {"points": [{"point": p, "scopes": [{"occurrences": [{"id": i}]}]} for p, i in pts]}
            with open(os.path.join(self.golden, "occurrences", fname), "w") as f:
                json.dump(doc, f)
        with open(os.path.join(self.golden, "occurrences", "summary.json"), "w") as f:
            json.dump({"ops": []}, f)

    def tearDown(self):
        self.tmp.cleanup()

    def test_captures_that_differ_from_the_base_or_are_new(self):
        self.assertEqual(recaptured.captures(self.stage, self.base), ["new", "routing"])

    def test_points_of_every_covered_occurrence(self):
        self.assertEqual(recaptured.points(self.stage, self.base, self.golden), ["cumsum-1", "histc-1", "index_add-1"])
        rc, out, _ = context.run_cli(recaptured.main, ["--stage", self.stage, "--base", self.base,
                                                       "--golden", self.golden, "points"])
        self.assertEqual((rc, out), (0, "cumsum-1,histc-1,index_add-1\n"))

    def test_nothing_recaptured_prints_an_empty_line(self):
        rc, out, _ = context.run_cli(recaptured.main, ["--stage", self.base, "--base", self.base, "captures"])
        self.assertEqual((rc, out), (0, "\n"))

    def test_an_unreadable_capture_is_named(self):
        with open(os.path.join(self.stage, "captures", "new", "capture.json"), "w") as f:
            f.write("{")
        rc, _, err = context.run_cli(recaptured.main, ["--stage", self.stage, "--base", self.base,
                                                       "--golden", self.golden, "points"])
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(self.stage, "captures", "new", "capture.json"), err)


if __name__ == "__main__":
    unittest.main()
