"""Candidate lowerings without torch: discovery, the declarations each must make, which scopes a
candidate selects, capture.py's refusal of an unknown one, and the histc candidate's bin rule."""

import contextlib
import io
import os
import tempfile
import unittest

import context  # noqa: F401
import capture
import golden
import lowerings
from lowerings import histc_scatter

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "golden")


class TestDiscovery(unittest.TestCase):
    def test_every_candidate_declares_what_it_stands_for(self):
        self.assertEqual(lowerings.names(), ["histc_scatter", "index_add_bf16_atomic", "index_add_iota_gather",
                                             "index_add_overlap_add", "routing_counting_sort"])
        for name in lowerings.names():
            mod = lowerings.load(name)
            self.assertTrue(mod.STANDS_FOR and mod.OPS, name)
            self.assertEqual(lowerings.describe(mod)["name"], name)

    def test_unknown_candidate_names_the_known_ones(self):
        with self.assertRaisesRegex(lowerings.LoweringError,
                                    "no such candidate; known: histc_scatter, index_add_bf16_atomic, index_add_iota_gather, "
                                    "index_add_overlap_add, routing_counting_sort"):
            lowerings.load("nosuch")

    def test_private_helpers_are_not_candidates(self):
        self.assertNotIn("_decomp", lowerings.names())

    def test_a_module_missing_a_declaration_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "broken.py"), "w") as f:
                f.write("OPS = ('aten.histc.default',)\ndef patch():\n    pass\n")
            old = lowerings.HERE
            lowerings.HERE = d
            lowerings.__path__.insert(0, d)
            try:
                with self.assertRaisesRegex(lowerings.LoweringError,
                                            "lowerings/broken.py: expected a non-empty str STANDS_FOR"):
                    lowerings.load("broken")
            finally:
                lowerings.HERE = old
                lowerings.__path__.remove(d)


class TestSelection(unittest.TestCase):
    def setUp(self):
        self.scopes = golden.load_scopes(GOLDEN)

    def test_candidate_selects_the_scopes_holding_its_op(self):
        index_add = capture.select(self.scopes, [], lowerings.load("index_add_bf16_atomic"))
        self.assertTrue(index_add)
        self.assertEqual({s["op"] for s in index_add}, {"aten.index_add.default"})
        self.assertEqual(len(index_add), sum(s["op"] == "aten.index_add.default" for s in self.scopes))
        # the routing scope holds the histc as a producer of the cumsum: one capture stands for both
        histc = capture.select(self.scopes, [], lowerings.load("histc_scatter"))
        self.assertEqual(len(histc), 1)
        self.assertTrue(any(a.startswith("histc-") for a in histc[0]["also"]))

    def test_named_scopes_win_over_the_candidate_selection(self):
        first = self.scopes[0]["scope_id"]
        got = capture.select(self.scopes, [first], lowerings.load("histc_scatter"))
        self.assertEqual([s["scope_id"] for s in got], [first])

    def test_capture_refuses_an_unknown_candidate(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = capture.main(["--golden", GOLDEN, "--list", "--lowering", "nosuch"])
        self.assertEqual(rc, 2)
        self.assertIn("--lowering nosuch: no such candidate", err.getvalue())

    def test_list_with_a_candidate_lists_its_scopes(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = capture.main(["--golden", GOLDEN, "--list", "--lowering", "histc_scatter"])
        self.assertEqual(rc, 0)
        self.assertIn("1 distinct scopes", out.getvalue())


class TestHistcBins(unittest.TestCase):
    def test_unit_bins_is_identity_on_the_range(self):
        # ATen's bin: floor((v - lo) * bins / (hi - lo)) clamped to bins - 1
        for lo, hi in ((0, 31), (-3, 4), (5, 5), (0, 127)):
            bins = hi - lo + 1
            self.assertTrue(histc_scatter.unit_bins(True, bins, lo, hi))
            for v in range(lo, hi + 1):
                aten = min(int((v - lo) * bins / (hi - lo)) if hi > lo else 0, bins - 1)
                self.assertEqual(aten, v - lo, (lo, hi, v))

    def test_other_histograms_keep_the_fallback(self):
        self.assertFalse(histc_scatter.unit_bins(False, 32, 0, 31))   # floating input
        self.assertFalse(histc_scatter.unit_bins(True, 100, 0, 31))   # not one bin per value
        self.assertFalse(histc_scatter.unit_bins(True, 32, 0.5, 31.5))  # bins not on integers
        self.assertFalse(histc_scatter.unit_bins(True, 0, 0, -1))


if __name__ == "__main__":
    unittest.main()


class TestReplaced(unittest.TestCase):
    """lowerings._decomp against a stand-in for torch._inductor.decomposition: the cached copy that
    select_decomp_table() hands out must change and come back too."""

    def setUp(self):
        import functools
        import sys
        import types
        self.mod = types.ModuleType("torch._inductor.decomposition")
        self.mod.decompositions = {"op": "aten's", "other": 1}

        @functools.lru_cache(None)
        def fast_random_decomps():
            return {**self.mod.decompositions, "random": 2}
        self.mod.fast_random_decomps = fast_random_decomps
        names = ("torch", "torch._inductor", "torch._inductor.decomposition")
        self.saved = {n: sys.modules.get(n) for n in names}
        torch = types.ModuleType("torch")
        torch._inductor = types.ModuleType("torch._inductor")
        torch._inductor.decomposition = self.mod
        sys.modules.update(zip(names, (torch, torch._inductor, self.mod)))

    def tearDown(self):
        import sys
        for n, m in self.saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m

    def test_every_table_changes_and_comes_back(self):
        from lowerings import _decomp
        fast = self.mod.fast_random_decomps()
        with _decomp.replaced("op", "candidate"):
            self.assertEqual(self.mod.decompositions["op"], "candidate")
            self.assertEqual(fast["op"], "candidate")
        self.assertEqual(self.mod.decompositions["op"], "aten's")
        self.assertEqual(fast["op"], "aten's")

    def test_an_op_without_a_decomposition_is_removed_again(self):
        from lowerings import _decomp
        with _decomp.replaced("histc", "candidate"):
            self.assertEqual(self.mod.fast_random_decomps()["histc"], "candidate")
        self.assertNotIn("histc", self.mod.decompositions)
        self.assertNotIn("histc", self.mod.fast_random_decomps())


class TestGpuLock(unittest.TestCase):
    """worker.gpu_lock: kernels of other captures may overlap a compile (shared) but never a timing
    phase (exclusive)."""

    def attempt(self, path, mode):
        import fcntl
        with open(path, "a") as f:
            try:
                fcntl.flock(f, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(f, fcntl.LOCK_UN)
            return True

    def test_shared_phases_overlap_and_timing_excludes_them(self):
        import fcntl
        import worker
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpu.lock")
            with worker.gpu_lock(path, shared=True):
                self.assertTrue(self.attempt(path, fcntl.LOCK_SH))
                self.assertFalse(self.attempt(path, fcntl.LOCK_EX))
            with worker.gpu_lock(path):
                self.assertFalse(self.attempt(path, fcntl.LOCK_SH))
            self.assertTrue(self.attempt(path, fcntl.LOCK_EX))


class TestReferenceSamples(unittest.TestCase):
    """worker.sample_stride: the reference of an output written through atomics keeps at most 4096
    row-major elements, every stride-th, and the C reader expects ceil(numel / stride) of them."""

    def test_at_most_the_sample_count_and_every_element_when_small(self):
        import worker
        self.assertEqual(worker.sample_stride(10), 1)
        self.assertEqual(worker.sample_stride(worker.REFERENCE_SAMPLES), 1)
        for numel in (worker.REFERENCE_SAMPLES + 1, 16 * 16 * 512 * 1023, 67108864):
            stride = worker.sample_stride(numel)
            self.assertLessEqual(-(-numel // stride), worker.REFERENCE_SAMPLES, numel)
            self.assertGreater(-(-numel // (stride - 1)), worker.REFERENCE_SAMPLES, numel)
