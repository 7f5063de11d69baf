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


if __name__ == "__main__":
    unittest.main()
