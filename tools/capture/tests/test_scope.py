"""Scope interpretation that needs no torch: annotations, argument decoding, generator choice,
outputs, dtype probes; and the distinct-scope collection over golden files."""

import json
import math
import os
import tempfile
import unittest

import context  # noqa: F401
import golden
import scope

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "golden")


def lit(kind, value):
    return (kind, value)


class TestDecode(unittest.TestCase):
    def test_annotation(self):
        self.assertEqual(scope.parse_ann("i64[8, 1024][1024, 1]cuda:0", "x"),
                         {"dtype": "i64", "sizes": [8, 1024], "strides": [1024, 1], "offset": 0,
                          "device": "cuda:0"})
        self.assertEqual(scope.parse_ann("f32[][]cuda:0", "x")["sizes"], [])
        for bad in (None, "q8[1][1]cuda:0", "f32[s0][1]cuda:0", "f32[2, 3][1]cuda:0"):
            with self.assertRaises(scope.ScopeError):
                scope.parse_ann(bad, "entry 3")

    def test_args(self):
        env = {0: "T0", 4: "T4"}
        args = [[{"ref": 4}, {"ref": 0}], -1, {"dtype": "i32"}, {"device": "cuda:0"},
                {"enum": "torch.strided"}, "inf", "-inf", 1e-05, 9.223372036854776e+18, "floor"]
        got = scope.decode_arg(args, env.__getitem__, lit)
        self.assertEqual(got[:5], [["T4", "T0"], -1, ("dtype", "i32"), ("device", "cuda:0"),
                                   ("enum", "torch.strided")])
        self.assertEqual(got[5:7], [math.inf, -math.inf])
        self.assertEqual(got[7], 1e-05)
        self.assertEqual(got[8], 2 ** 63 - 1)
        self.assertEqual(got[9], "floor")
        self.assertTrue(math.isnan(scope.decode_arg("nan", None, lit)))
        with self.assertRaises(scope.ScopeError):
            scope.decode_arg({"tensor": 1}, None, lit)

    def test_op_path(self):
        self.assertEqual(scope.op_path("aten.cumsum.default"), ("aten", "cumsum", "default"))
        self.assertEqual(scope.op_path("prims.convert_element_type.default")[0], "prims")
        self.assertEqual(scope.op_path("_operator.getitem"), ("operator", "getitem"))
        with self.assertRaises(scope.ScopeError):
            scope.op_path("aten.cumsum")


def node(role, op, ann=None, args=None, kwargs=None, escapes=None):
    n = {"role": role, "op": op}
    if ann:
        n["ann"] = ann
    if args is not None:
        n["args"] = args
    if kwargs:
        n["kwargs"] = kwargs
    if escapes:
        n["escapes"] = escapes
    return n


CUMSUM = [
    node("input", "input", "i64[8, 1024][1024, 1]cuda:0"),
    node("producer", "aten.ne.Scalar", "b8[8, 1024][1024, 1]cuda:0", [{"ref": 0}, 1]),
    node("producer", "prims.convert_element_type.default", "i32[8, 1024][1024, 1]cuda:0",
         [{"ref": 1}, {"dtype": "i32"}], escapes=["aten.bitwise_and.Tensor"]),
    node("op", "aten.cumsum.default", "i64[8, 1024][1024, 1]cuda:0", [{"ref": 2}, 1]),
    node("consumer", "aten.add.Tensor", "i64[8, 1024][1024, 1]cuda:0", [{"ref": 3}, 1],
         escapes=["aten.embedding.default"]),
    node("input", "input", "bf16[4][1]cuda:0"),
    node("input", "input", "b8[4][1]cuda:0"),
    node("input", "input", "i32[4][1]cuda:0"),
]
CUMSUM_PROPS = [{"arg": 0, "expr": {
    "op": "prims.convert_element_type.default", "args": [
        {"op": "aten.ne.Scalar", "args": [
            {"op": "input", "ann": "i64[8, 1024][1024, 1]cuda:0",
             "corpus_input": {"gen": ["index", 0, 50265], "x": {}}}, 1]},
        {"dtype": "i32"}]},
    "derived": {"kind": "mask", "predicate": "ne", "scalar": 1}}]

ROUTING = [
    node("input", "aten.topk.default"),
    node("producer", "_operator.getitem", "i64[1000, 4][4, 1]cuda:0", [{"ref": 0}, 1]),
    node("producer", "aten.reshape.default", "i64[4000][1]cuda:0", [{"ref": 1}, [-1]]),
    node("op", "aten.histc.default", "i64[32][1]cuda:0", [{"ref": 2}, 32, 0, 31],
         escapes=["aten._grouped_mm.default"]),
]
ROUTING_PROPS = [{"arg": 0, "derived": {"kind": "sorted_topk_ids", "k": 4, "experts": 32}}]

INDEX_ADD = [
    node("input", "input", "i64[512][1]cuda:0"),
    node("input", "input", "bf16[4, 512][512, 1]cuda:0"),
    node("producer", "aten.full.default", "bf16[4, 1023][1023, 1]cuda:0", [[4, 1023], 0],
         {"dtype": {"dtype": "bf16"}}),
    node("op", "aten.index_add.default", "bf16[4, 1023][1023, 1]cuda:0",
         [{"ref": 2}, 1, {"ref": 0}, {"ref": 1}], escapes=["aten.bmm.default"]),
]
INDEX_ADD_PROPS = [
    {"arg": 0, "derived": {"kind": "constant", "value": 0}},
    {"arg": 2, "expr": {"op": "input", "corpus_input": {"gen": ["index", 0, 512]}},
     "derived": {"kind": "iota", "iota": {"length": 512, "start": 0, "step": 1},
                 "distinct": 512, "sorted": True, "saved_by": "full_graph_000"}},
    {"arg": 3, "kind": "float_data"},
]


class TestPlan(unittest.TestCase):
    def test_generators_by_dtype_and_corpus_range(self):
        inputs = scope.plan_inputs(CUMSUM, CUMSUM_PROPS)
        self.assertEqual([i["name"] for i in inputs], ["in0", "in1", "in2", "in3"])
        self.assertEqual([i["entry"] for i in inputs], [0, 5, 6, 7])
        self.assertEqual([i["values"] for i in inputs], [
            {"generator": "randint", "seed": 0, "low": 0, "high": 50265},
            {"generator": "uniform", "seed": 1},
            {"generator": "bool", "seed": 2},
            {"generator": "randint", "seed": 3, "low": 0, "high": 2}])
        self.assertEqual(inputs[0]["strides"], [1024, 1])

    def test_exact_values_for_the_ops_own_arguments(self):
        inputs = scope.plan_inputs(INDEX_ADD, INDEX_ADD_PROPS)
        self.assertEqual(inputs[0]["values"], {"generator": "iota", "start": 0, "step": 1})
        self.assertEqual(inputs[1]["values"], {"generator": "uniform", "seed": 1})
        strided = scope.choose_generator(
            {"dtype": "i64", "sizes": [6]}, 0,
            {"kind": "as_strided_iota", "iota": {"length": 6, "start": 0, "step": 1},
             "size": [2, 3], "stride": [1, 2], "offset": 0}, None)
        self.assertEqual(strided["generator"], "as_strided_iota")
        self.assertEqual(strided["stride"], [1, 2])
        self.assertNotIn("kind", strided)

    def test_topk_tuple_input_becomes_its_getitems(self):
        inputs = scope.plan_inputs(ROUTING, ROUTING_PROPS)
        self.assertEqual(len(inputs), 1)
        self.assertEqual(inputs[0]["entry"], 1)
        self.assertEqual(inputs[0]["values"],
                         {"generator": "topk_ids", "seed": 0, "experts": 32, "k": 4})
        values = scope.choose_generator({"dtype": "bf16", "sizes": [1000, 4]}, 1, None, None,
                                        32, topk_index=0)
        self.assertEqual(values, {"generator": "uniform", "seed": 1})

    def test_tuple_input_other_than_topk_is_a_plain_input(self):
        other = [dict(ROUTING[0], op="aten.var_mean.correction")] + ROUTING[1:]
        inputs = scope.plan_inputs(other, ROUTING_PROPS)
        self.assertEqual(inputs[0]["entry"], 1)
        self.assertNotEqual(inputs[0]["values"]["generator"], "topk_ids")

    def test_outputs(self):
        self.assertEqual(scope.output_entries(CUMSUM), [2, 4])
        self.assertEqual(scope.expand_outputs([3, 4, 7], [("v", "i"), "t", "u"]),
                         [(3, 0), (3, 1), (4, None), (7, None)])

    def test_probe_dtype(self):
        probe = scope.with_dtype(INDEX_ADD, "bf16", "f32")
        self.assertEqual(probe[1]["ann"], "f32[4, 512][512, 1]cuda:0")
        self.assertEqual(probe[2]["kwargs"], {"dtype": {"dtype": "f32"}})
        self.assertEqual(probe[0], INDEX_ADD[0])
        self.assertEqual(INDEX_ADD[1]["ann"], "bf16[4, 512][512, 1]cuda:0")

    def test_one_op_entry(self):
        with self.assertRaises(scope.ScopeError):
            scope.plan_inputs(CUMSUM[:3], CUMSUM_PROPS)


class TestGolden(unittest.TestCase):
    def group(self, sid, nodes, occ):
        return {"scope_id": sid, "count": 1, "scope": {"nodes": nodes, "truncated": False},
                "occurrences": [{"id": occ}]}

    def test_same_subgraph_with_other_roles_is_one_capture(self):
        as_histc = [dict(n, role="op") if n["op"] == "aten.histc.default" else n for n in ROUTING]
        as_cumsum = [dict(n, role="producer") if n["op"] == "aten.histc.default" else n
                     for n in ROUTING]
        docs = [("cumsum.json", {"op": "aten.cumsum.default", "points": [
                    {"point": "p1", "scopes": [self.group("c-1", as_cumsum, "m:cumsum")]}]}),
                ("histc.json", {"op": "aten.histc.default", "points": [
                    {"point": "p2", "scopes": [self.group("h-1", as_histc, "m:histc"),
                                               self.group("h-2", CUMSUM, "n:histc")]}]})]
        scopes = golden.distinct_scopes(docs)
        self.assertEqual([s["scope_id"] for s in scopes], ["c-1", "h-2"])
        self.assertEqual(scopes[0]["covers"], ["m:cumsum", "m:histc"])
        self.assertEqual(scopes[0]["also"], ["h-1"])
        self.assertEqual(scopes[0]["point"]["point"], "p1")

    def test_missing_field(self):
        docs = [("x.json", {"op": "aten.cat.default", "points": [{"scopes": [{"scope_id": "a"}]}]})]
        with self.assertRaisesRegex(golden.GoldenError, r"x.json \$.points\[0\].scopes\[0\]"):
            golden.distinct_scopes(docs)

    def test_op_files_are_discovered(self):
        self.assertEqual(golden.op_files(GOLDEN), ["adaptive_avg_pool2d_backward", "cat", "cumsum", "fft_c2c", "histc",
                                                 "index_add", "operator_mul", "view_as_complex", "view_as_real"])
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "occurrences"))
            with self.assertRaisesRegex(golden.GoldenError, r"occurrences: expected an occurrences document"):
                golden.op_files(d)
            for name in ("summary.json", "zeta.json", "alpha.json", "notes.txt"):
                open(os.path.join(d, "occurrences", name), "w").close()
            self.assertEqual(golden.op_files(d), ["alpha", "zeta"], "a new op's document, not the summary")
        with self.assertRaisesRegex(golden.GoldenError, r"/nonexistent/occurrences: cannot list"):
            golden.op_files("/nonexistent")

    def test_committed_golden_files(self):
        scopes = golden.load_scopes(GOLDEN)
        covered = [c for s in scopes for c in s["covers"]]
        total = 0
        for name in golden.op_files(GOLDEN):
            with open(os.path.join(GOLDEN, "occurrences", f"{name}.json"), encoding="utf-8") as f:
                total += json.load(f)["occurrences"]
        self.assertEqual(len(covered), total)
        self.assertEqual(len(set(covered)), total)
        for s in scopes:   # every scope plans without torch, but the SymInt product's (symbolic shapes)
            plan = (s["scope"]["nodes"], s["point"]["signature"]["value_properties"])
            if s["op"] == "_operator.mul":
                with self.assertRaisesRegex(scope.ScopeError, r"expected a tensor annotation .* got 'Sym\(s16\)'"):
                    scope.plan_inputs(*plan)
            else:
                scope.plan_inputs(*plan)


if __name__ == "__main__":
    unittest.main()
