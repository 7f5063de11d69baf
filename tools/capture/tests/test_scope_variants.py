"""scope.unstable_sort_indices: which outputs are an unstable sort's indices, whose ties a compiled sort
may order differently from eager (the tiny MoE routing fixture: Inductor sorts 12 ids in Triton). No torch."""

import unittest

import context  # noqa: F401
import scope


def nodes_with(sort_node, tail):
    return [{"role": "input", "op": "aten.topk.default"},
            {"role": "producer", "op": "aten.reshape.default", "args": [{"ref": 0}, [-1]]},
            sort_node] + tail


class UnstableSortIndices(unittest.TestCase):
    def test_default_sort_item_and_getitem(self):
        nodes = nodes_with({"role": "producer", "op": "aten.sort.default", "args": [{"ref": 1}]},
                           [{"role": "producer", "op": "_operator.getitem", "args": [{"ref": 2}, 1]},
                            {"role": "producer", "op": "_operator.getitem", "args": [{"ref": 2}, 0]}])
        self.assertEqual(scope.unstable_sort_indices(nodes, [(2, 0), (2, 1)]), {1: (1, -1)})
        self.assertEqual(scope.unstable_sort_indices(nodes, [(4, None), (3, None)]), {1: (1, -1)})

    def test_explicit_dim_and_stable_variants(self):
        dim0 = nodes_with({"role": "producer", "op": "aten.sort.default", "args": [{"ref": 1}, 0]}, [])
        self.assertEqual(scope.unstable_sort_indices(dim0, [(2, 1)]), {0: (1, 0)})
        stable = nodes_with({"role": "producer", "op": "aten.sort.stable", "args": [{"ref": 1}],
                             "kwargs": {"stable": True, "dim": 0}}, [])
        self.assertEqual(scope.unstable_sort_indices(stable, [(2, 1)]), {})
        unstable = nodes_with({"role": "producer", "op": "aten.sort.stable", "args": [{"ref": 1}],
                               "kwargs": {"stable": False, "dim": 0}}, [])
        self.assertEqual(scope.unstable_sort_indices(unstable, [(2, 1)]), {0: (1, 0)})

    def test_other_ops_are_exact(self):
        nodes = nodes_with({"role": "producer", "op": "aten.topk.default", "args": [{"ref": 1}, 2]},
                           [{"role": "producer", "op": "_operator.getitem", "args": [{"ref": 2}, 1]}])
        self.assertEqual(scope.unstable_sort_indices(nodes, [(2, 1), (3, None)]), {})


class FabricatedScope(unittest.TestCase):
    """scope.fabricated_scope: the op's index made an input of the pipeline's randint index."""

    NODES = [{"role": "input", "op": "aten.full.default", "ann": "bf16[4096, 768][768, 1]cuda:0"},
             {"role": "input", "op": "aten.mm.default", "ann": "bf16[8192, 768][768, 1]cuda:0"},
             {"role": "producer", "op": "aten.arange.default", "ann": "i64[4096][1]cuda:0", "args": [4096]},
             {"role": "producer", "op": "aten.as_strided.default", "ann": "i64[8192][1]cuda:0",
              "args": [{"ref": 2}, [8192], [1]]},
             {"role": "op", "op": "aten.index_add.default", "ann": "bf16[4096, 768][768, 1]cuda:0",
              "args": [{"ref": 0}, 0, {"ref": 3}, {"ref": 1}], "escapes": ["graph_output"]}]

    def test_index_becomes_a_randint_input_clamped_to_the_dim(self):
        nodes, values = scope.fabricated_scope(self.NODES)
        self.assertEqual(nodes[3], {"role": "input", "op": "aten.as_strided.default", "ann": "i64[8192][1]cuda:0"})
        self.assertEqual(nodes[:3] + nodes[4:], self.NODES[:3] + self.NODES[4:])
        self.assertEqual(values, {3: {"generator": "randint", "seed": 2, "low": 0, "high": 100}})
        small = [dict(n) for n in self.NODES]
        small[0] = {**small[0], "ann": "bf16[64, 768][768, 1]cuda:0"}
        self.assertEqual(scope.fabricated_scope(small)[1][3]["high"], 64)

    def test_ops_without_a_fabricated_mode_and_bad_arguments(self):
        cumsum = [{"role": "input", "op": "aten.histc.default", "ann": "i32[8][1]cuda:0"},
                  {"role": "op", "op": "aten.cumsum.default", "args": [{"ref": 0}, 0]}]
        self.assertIsNone(scope.fabricated_scope(cumsum))
        bad = [dict(n) for n in self.NODES]
        bad[4] = {**bad[4], "args": [{"ref": 0}, 0, [1, 2], {"ref": 1}]}
        with self.assertRaisesRegex(scope.ScopeError, "expected tensor references"):
            scope.fabricated_scope(bad)


if __name__ == "__main__":
    unittest.main()
