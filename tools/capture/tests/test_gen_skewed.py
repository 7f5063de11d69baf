"""topk_ids_skewed against docs/reference/schema.md's test vectors and its distribution properties."""

import unittest
from collections import Counter

import context  # noqa: F401
import gen


class TestTopkIdsSkewed(unittest.TestCase):
    def test_weights_vector(self):
        w = gen.skewed_weights(1, 32)
        self.assertEqual(w[:8], [32768, 27594, 0, 14169, 524288, 209715, 0, 16131])
        self.assertEqual([e for e in range(32) if w[e] == 0], [2, 6, 12, 16])
        # ranks are a permutation: every nonzero weight is 2^20 // (3r + 2) for a distinct r
        self.assertEqual(sorted(w, reverse=True)[:28], [(1 << 20) // (3 * r + 2) for r in range(28)])

    def test_ids_vectors(self):
        self.assertEqual(gen.topk_ids_skewed(1, 32, 4, 3),
                         [[23, 5, 25, 4], [14, 9, 23, 25], [4, 23, 13, 7]])
        self.assertEqual(gen.topk_ids_skewed(5, 8, 2, 3), [[4, 0], [0, 1], [7, 4]])

    def test_prefix_independent_of_tokens(self):
        self.assertEqual(gen.topk_ids_skewed(3, 32, 4, 1000)[:10], gen.topk_ids_skewed(3, 32, 4, 10))

    def test_skew(self):
        for seed in (0, 1, 2):
            rows = gen.topk_ids_skewed(seed, 32, 4, 1000)
            for row in rows:
                self.assertEqual(len(set(row)), 4)
                self.assertTrue(all(0 <= e < 32 for e in row))
            counts = Counter(e for row in rows for e in row)
            share = counts.most_common(1)[0][1] / 4000
            self.assertTrue(0.17 <= share <= 0.23, share)
            self.assertEqual(32 - len(counts), 4)
            zero = {e for e, w in enumerate(gen.skewed_weights(seed, 32)) if w == 0}
            self.assertFalse(zero & set(counts))

    def test_all_nonzero_experts(self):
        # k equal to the number of weighted experts: every token holds all of them
        rows = gen.topk_ids_skewed(2, 8, 7, 5)
        zero = [e for e, w in enumerate(gen.skewed_weights(2, 8)) if w == 0]
        for row in rows:
            self.assertEqual(sorted(row + zero), list(range(8)))

    def test_refused(self):
        with self.assertRaises(ValueError):
            gen.topk_ids_skewed(1, 32, 29, 1)
        with self.assertRaises(ValueError):
            gen.topk_ids_skewed(1, 32, 0, 1)


if __name__ == "__main__":
    unittest.main()
