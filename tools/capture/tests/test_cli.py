"""The CLI's torch-free parts: scope selection, listing, timing summaries, usage errors."""

import contextlib
import io
import os
import unittest

import context  # noqa: F401
import capture
import golden
import timing

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "golden")


class TestSelect(unittest.TestCase):
    def setUp(self):
        self.scopes = golden.load_scopes(GOLDEN)

    def test_all_and_by_any_covered_id(self):
        self.assertIs(capture.select(self.scopes, []), self.scopes)
        routing = [s for s in self.scopes if s["also"] and s["op"] == "aten.cumsum.default"
                   and any(a.startswith("histc-") for a in s["also"])][0]
        got = capture.select(self.scopes, [routing["also"][0], routing["scope_id"]])
        self.assertEqual([s["scope_id"] for s in got], [routing["scope_id"]])

    def test_unknown_scope(self):
        with self.assertRaisesRegex(golden.GoldenError, "no such scope_id"):
            capture.select(self.scopes, ["cat-000000000000-000000000000"])

    def test_list(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(capture.main(["--golden", GOLDEN, "--list"]), 0)
        self.assertIn(f"{len(self.scopes)} distinct scopes", out.getvalue())

    def test_usage(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            capture.main(["--golden", GOLDEN])
        self.assertEqual(e.exception.code, 2)
        self.assertIn("--out is required", err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(capture.main(["--golden", "/nonexistent", "--list"]), 2)


class TestTimingSummary(unittest.TestCase):
    def test_quartiles(self):
        s = timing.summary([float(x) for x in range(1, 10)])
        self.assertEqual(s, {"median_us": 5.0, "q1_us": 3.0, "q3_us": 7.0, "samples": 9})

    def test_too_few(self):
        with self.assertRaises(ValueError):
            timing.summary([1.0])


if __name__ == "__main__":
    unittest.main()
