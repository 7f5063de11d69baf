"""ncu_compare.py on exports laid out as `ncu --page raw --csv` writes them (header row, units row,
one row per kernel). The numbers here are made up: they test the reading, not a measurement."""

import os
import tempfile
import unittest

import context
import ncu_compare

HEADER = '"ID","Process ID","Kernel Name","launch__registers_per_thread","gpu__time_duration.sum",' \
         '"lts__t_requests_op_red.sum"\n"","","","register/thread","nsecond","request"\n'


def export(name, regs, ns, red):
    return HEADER + f'"0","7","{name}","{regs}","{ns}","{red}"\n'


class TestNcuCompare(unittest.TestCase):
    def test_rows_compared_and_missing_metrics_named(self):
        t = ncu_compare.kernel_row(export("void at::native::indexFuncLargeIndex<...>", 32, "5,000", 100), "t.csv")
        r = ncu_compare.kernel_row(export("void ia_aten::indexFuncLargeIndex<...>", 24, "4,000", 100), "r.csv")
        doc = ncu_compare.compare(t, r)
        m = {e["metric"]: e for e in doc["metrics"]}
        self.assertEqual((m["launch__registers_per_thread"]["torch"], m["launch__registers_per_thread"]["replica"]),
                         (32.0, 24.0))
        self.assertAlmostEqual(m["gpu__time_duration.sum"]["replica_over_torch"], 4000 / 5000)
        self.assertEqual(m["lts__t_requests_op_red.sum"]["replica_over_torch"], 1.0)
        self.assertIsNone(m["dram__bytes_read.sum"]["torch"])
        self.assertEqual(m["dram__bytes_read.sum"]["note"], "not in torch's and the replica's export")
        self.assertIn("registers per thread", ncu_compare.table(doc))

    def test_bad_exports_name_the_file(self):
        with self.assertRaisesRegex(ncu_compare.NcuError, "x.csv: expected ncu's raw CSV page"):
            ncu_compare.kernel_row("==PROF== nothing profiled\n", "x.csv")
        with self.assertRaisesRegex(ncu_compare.NcuError, "y.csv: no profiled kernel named"):
            ncu_compare.kernel_row(export("vectorized_elementwise_kernel", 16, 6000, 0), "y.csv")

    def test_cli_writes_the_document_and_exits_2_on_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            t, r, out = (os.path.join(tmp, n) for n in ("t.csv", "r.csv", "ncu.json"))
            with open(t, "w") as f:
                f.write(export("indexFuncLargeIndex<a>", 32, 500, 9))
            with open(r, "w") as f:
                f.write(export("indexFuncLargeIndex<b>", 24, 400, 9))
            rc, stdout, _ = context.run_cli(ncu_compare.main, ["--torch", t, "--replica", r, "--out", out])
            self.assertEqual(rc, 0)
            self.assertIn("replica/torch", stdout)
            self.assertTrue(os.path.exists(out))
            rc, _, err = context.run_cli(ncu_compare.main, ["--torch", os.path.join(tmp, "none.csv"),
                                                            "--replica", r])
            self.assertEqual(rc, 2)
            self.assertIn("none.csv", err)


if __name__ == "__main__":
    unittest.main()
