"""The structural rewrites without torch: what the index_add and sort passes match on fake FX
nodes, their index arithmetic against brute force, and the overlap-add's emission itself on a
pure-Python stand-in for the torch ops it uses (fake_torch.py); the other emissions run on a GPU
(rewrite_check.py)."""

import itertools
import math
import os
import unittest

import context  # noqa: F401
import capture
import fake_torch
import golden
import lowerings
from lowerings import _graph, _index_add, index_add_iota_gather as iota, index_add_overlap_add as ola
from lowerings import routing_counting_sort as csort

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "golden")


class Node:
    """torch.fx.Node's surface that the passes read; target spelled as str(OpOverload) is."""

    def __init__(self, op, target=None, args=(), kwargs=None, name="n"):
        self.op, self.target, self.args, self.kwargs, self.name = op, target, args, kwargs or {}, name


def call(target, *args, **kwargs):
    return Node("call_function", target, args, kwargs)


def brute_force(view, extent):
    """index_add's landing: output position -> the row-major source positions, in order."""
    land = {}
    for j, idx in enumerate(itertools.product(*(range(n) for n in view["size"]))):
        m = view["start"] + view["step"] * (view["offset"] + sum(i * s for i, s in zip(idx, view["stride"])))
        land.setdefault(m, []).append(j)
    return land


class TestIotaIndex(unittest.TestCase):
    def longformer(self):
        it = call("prims.iota.default", 96, start=0, step=1)
        strided = call("aten.as_strided.default", it, [4, 3, 8, 2], [2, 64, 8, 1], 0)
        return call("aten.reshape.default", call("aten.clone.default", strided), [192])

    def test_as_strided_iota_through_clone_and_reshape(self):
        self.assertEqual(_index_add.iota_view(self.longformer()),
                         {"start": 0, "step": 1, "size": [4, 3, 8, 2], "stride": [2, 64, 8, 1], "offset": 0})

    def test_iota_input_named_by_the_scope(self):
        specs = [{"name": "in0", "sizes": [512], "values": {"generator": "iota", "start": 0, "step": 1}}]
        view = _index_add.iota_view(Node("placeholder", name="l_tensors_0_"), specs)
        self.assertEqual(view["size"], [512])
        # another input, or no scope knowledge: not an iota
        self.assertIsNone(_index_add.iota_view(Node("placeholder", name="l_tensors_1_"), specs))
        self.assertIsNone(_index_add.iota_view(Node("placeholder", name="l_tensors_0_"), None))
        specs[0]["values"] = {"generator": "randint", "seed": 0, "low": 0, "high": 512}
        self.assertIsNone(_index_add.iota_view(Node("placeholder", name="l_tensors_0_"), specs))

    def test_other_indices_are_left_alone(self):
        self.assertIsNone(_index_add.iota_view(call("aten.randint.low", 0, 5, [3])))
        self.assertIsNone(_index_add.iota_view(call("aten.add.Tensor", self.longformer(), 1)))

    def check_plan(self, view, extent, window):
        plan = iota.window_plan(view, extent)
        self.assertIsNotNone(plan)
        self.assertEqual(plan["window"], window)
        land = brute_force(view, extent)
        for m in range(extent):
            self.assertEqual(iota.sources(m, view, plan), land.get(m, []), (view, m))

    def test_overlapping_windows_decode_like_index_add(self):
        # Longformer A in small: windows of 8 rows every 4 rows (multiplicity 1-2)
        self.check_plan({"start": 0, "step": 1, "size": [4, 3, 8, 2], "stride": [2, 32, 8, 1],
                         "offset": 0}, 128, 1)
        # Longformer B in small: batch outermost, 4 windows of 6 rows every 2 (multiplicity 1-3)
        self.check_plan({"start": 0, "step": 1, "size": [2, 4, 6, 2], "stride": [24, 4, 2, 1],
                         "offset": 0}, 48, 1)

    def test_plain_iota_is_a_pad(self):
        self.check_plan({"start": 0, "step": 1, "size": [5], "stride": [1], "offset": 0}, 9, None)
        self.check_plan({"start": 2, "step": 3, "size": [3], "stride": [1], "offset": 0}, 12, None)

    def test_golden_longformer_views_plan(self):
        for size, stride, extent in (([96, 3, 512, 64], [64, 1572864, 6144, 1], 6291456),
                                     ([96, 4, 768, 64], [98304, 16384, 64, 1], 9437184)):
            plan = iota.window_plan({"start": 0, "step": 1, "size": size, "stride": stride,
                                     "offset": 0}, extent)
            self.assertEqual(plan["window"], 1, size)

    def test_views_outside_the_output_or_too_many_windows_are_refused(self):
        base = {"start": 0, "step": 1, "size": [5], "stride": [1], "offset": 0}
        self.assertIsNone(iota.window_plan(base, 4))
        self.assertIsNone(iota.window_plan({**base, "start": -1}, 9))
        many = {"start": 0, "step": 1, "size": [iota.MAX_WINDOWS + 1] * 2, "stride": [1, 1], "offset": 0}
        self.assertIsNone(iota.window_plan(many, 64))


class TestCountingSort(unittest.TestCase):
    def test_slots_are_the_stable_sort(self):
        keys = [3, 0, 3, 1, 0, 2, 3, 1, 1]
        slots = csort.counting_sort_slots(keys, 4)
        order = sorted(range(len(keys)), key=lambda i: (keys[i], i))   # Python's sort is stable
        self.assertEqual([order.index(i) for i in range(len(keys))], slots)

    def test_routing_ids_sort_exactly(self):
        import gen
        keys = [e for row in gen.topk_ids(0, 32, 4, 1000) for e in row]
        slots = csort.counting_sort_slots(keys, 32)
        self.assertEqual(sorted(slots), list(range(len(keys))))
        values = [None] * len(keys)
        for i, s in enumerate(slots):
            values[s] = keys[i]
        self.assertEqual(values, sorted(keys))

    def test_key_range_from_the_topk_input(self):
        specs = [{"name": "in0", "sizes": [1000, 4], "values": {"generator": "topk_ids", "experts": 32}}]
        ids = call("aten.reshape.default", Node("placeholder", name="L_tensors_0_"), [-1])
        self.assertEqual(csort.key_range(ids, specs), 32)
        specs[0]["values"] = {"generator": "randint", "low": 0, "high": 100}
        self.assertIsNone(csort.key_range(ids, specs))
        specs[0]["values"] = {"generator": "topk_ids", "experts": csort.MAX_KEYS + 1}
        self.assertIsNone(csort.key_range(ids, specs))

    def test_sort_arguments_of_both_overloads(self):
        x = Node("placeholder")
        self.assertEqual(csort.sort_args(call("aten.sort.default", x)), (-1, False))
        self.assertEqual(csort.sort_args(call("aten.sort.default", x, 0, True)), (0, True))
        self.assertEqual(csort.sort_args(call("aten.sort.stable", x, stable=True, dim=0)), (0, False))


class TestCandidates(unittest.TestCase):
    def test_rewrites_declare_and_select_their_scopes(self):
        scopes = golden.load_scopes(GOLDEN)
        got = capture.select(scopes, [], lowerings.load("index_add_iota_gather"))
        self.assertEqual({s["op"] for s in got}, {"aten.index_add.default"})
        got = capture.select(scopes, [], lowerings.load("routing_counting_sort"))
        self.assertEqual(len(got), 1)
        self.assertTrue(any(n["op"] == "aten.sort.default" for n in got[0]["scope"]["nodes"]))

    def test_placeholder_names_map_to_specs(self):
        specs = [{"name": "in0"}, {"name": "in1"}]
        self.assertIs(_graph.input_spec(Node("placeholder", name="l_tensors_1_"), specs), specs[1])
        self.assertIsNone(_graph.input_spec(Node("placeholder", name="l_tensors_2_"), specs))
        self.assertIsNone(_graph.input_spec(Node("placeholder", name="arg0_1"), specs))
        self.assertIsNone(_graph.input_spec(call("aten.add.Tensor"), specs))



class TestRewriteCheck(unittest.TestCase):
    def test_without_torch_or_a_device_it_says_so_and_exits_2(self):
        import contextlib
        import io
        import rewrite_check
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(rewrite_check.main(), 2)
        self.assertRegex(err.getvalue(), "torch is not installed|no CUDA device")


class TestOverlapAdd(unittest.TestCase):
    """overlap_plan's decompositions, each checked by running the emission on labelled tensors."""

    def check_plan(self, view, extent, window, pieces):
        plan = ola.overlap_plan(view, extent)
        self.assertIsNotNone(plan, view)
        self.assertEqual((plan["window"], plan["pieces"]), (window, pieces), plan)
        self.check_emission(view, extent)
        return plan

    def test_overlapping_windows_are_pieces_shifted_into_place(self):
        # Longformer's seq-major layout in small: 3 windows of 8 rows every 4 rows, 2 heads x 4 columns,
        # in a buffer longer than their span (the tail is x's)
        self.check_plan({"start": 0, "step": 1, "size": [2, 3, 8, 4], "stride": [4, 32, 8, 1], "offset": 0},
                        160, 1, 2)
        # batch outermost, 4 windows of 6 rows every 2 rows: up to three pieces per row
        self.check_plan({"start": 0, "step": 1, "size": [2, 4, 6, 2], "stride": [24, 4, 2, 1], "offset": 0},
                        48, 1, 3)
        # nine windows of two every position: the dims' roles are the other way round
        self.check_plan({"start": 0, "step": 1, "size": [2, 9], "stride": [1, 1], "offset": 0}, 10, 1, 2)
        # windows that do not overlap (one dense block: no window needed), a unit dim, and a region that
        # starts inside the buffer
        plan = self.check_plan({"start": 2, "step": 1, "size": [3, 1, 4], "stride": [4, 7, 1], "offset": 1},
                               20, None, 1)
        self.assertEqual((plan["base"], plan["total"]), (3, 12))

    def test_plain_iota_is_one_piece(self):
        plan = self.check_plan({"start": 0, "step": 1, "size": [5], "stride": [1], "offset": 0}, 9, None, 1)
        self.assertEqual((plan["base"], plan["total"]), (0, 5))

    def test_golden_longformer_and_xlnet_views_plan(self):
        for size, stride, extent, pieces, rows in (([96, 3, 512, 64], [64, 1572864, 6144, 1], 6291456, 2, 256),
                                                   ([96, 4, 768, 64], [98304, 16384, 64, 1], 9437184, 3, 256)):
            plan = ola.overlap_plan({"start": 0, "step": 1, "size": size, "stride": stride, "offset": 0}, extent)
            self.assertEqual((plan["window"], plan["split"], plan["pieces"], plan["rows"], plan["total"]),
                             (1, 2, pieces, rows, extent), size)
        plan = ola.overlap_plan({"start": 0, "step": 1, "size": [512], "stride": [1], "offset": 0}, 1023)
        self.assertEqual((plan["window"], plan["total"]), (None, 512))

    def check_emission(self, view, extent, pre=(), post=(), alpha=1, **marks):
        """overlap_add run on labelled tensors (fake_torch): each element of the result is x's, then alpha times
        each source element landing on it, in window order, as a brute-force index_add gives them."""
        plan = {**ola.overlap_plan(view, extent), **marks}
        dim, xs, ss = len(pre), [*pre, extent, *post], [*pre, math.prod(view["size"]), *post]
        calls = fake_torch.as_strided.calls
        with fake_torch.installed():
            got = ola.overlap_add(fake_torch.labels("x", xs), dim, fake_torch.labels("s", ss), alpha, view, plan)
        self.assertEqual(fake_torch.as_strided.calls - calls, 1 if marks.get("materialize") else 0)
        self.assertEqual(list(got.shape), xs)
        land, w = brute_force(view, extent), plan["window"]
        for j, terms in enumerate(got.data):
            idx = fake_torch.unravel(xs, j)
            srcs = land.get(idx[dim], [])
            if w is not None:
                srcs = sorted(srcs, key=lambda k: fake_torch.unravel(view["size"], k)[w])
            want = [("s", fake_torch.ravel(ss, idx[:dim] + [k] + idx[dim + 1:])) for k in srcs]
            want = [t if alpha == 1 else (alpha, t) for t in want]
            self.assertEqual(terms, (("x", j), *want), (view, pre, post, idx))

    def test_the_emission_keeps_the_dims_around_the_indexed_one_and_alpha(self):
        self.check_emission({"start": 0, "step": 1, "size": [2, 4, 6, 2], "stride": [24, 4, 2, 1], "offset": 0}, 48,
                            post=(2,), alpha=2)
        # the source stored first (a transposing producer): the identity view changes no element
        self.check_emission({"start": 0, "step": 1, "size": [2, 4, 6, 2], "stride": [24, 4, 2, 1], "offset": 0}, 48,
                            post=(2,), alpha=2, materialize=True)
        self.check_emission({"start": 0, "step": 1, "size": [2, 9], "stride": [1, 1], "offset": 0}, 10, pre=(2,))
        # XLNet in small: an iota of 8 into dim 3 of 15, its tail x's
        self.check_emission({"start": 0, "step": 1, "size": [8], "stride": [1], "offset": 0}, 15, pre=(2, 2, 3))

    def test_views_it_cannot_add_densely_are_refused(self):
        base = {"start": 0, "step": 1, "size": [5], "stride": [1], "offset": 0}
        self.assertIsNone(ola.overlap_plan(base, 4))                                 # past the output
        self.assertIsNone(ola.overlap_plan({**base, "start": -1}, 9))                # before it
        self.assertIsNone(ola.overlap_plan({**base, "step": 2}, 16))                 # every other position
        self.assertIsNone(ola.overlap_plan({**base, "stride": [3]}, 16))             # gaps between elements
        # windows shifted by a part of a row: no whole pieces
        self.assertIsNone(ola.overlap_plan({**base, "size": [3, 4, 2], "stride": [3, 2, 1]}, 16))
        many = ola.MAX_PIECES + 1  # many windows of many rows every row, either way round
        self.assertIsNone(ola.overlap_plan({**base, "size": [many, many], "stride": [1, 1]}, 64))


class TestGoldenScopes(unittest.TestCase):
    """The passes' matching on the golden scopes themselves, as fake graphs: every index_add scope's
    index decodes, and the routing scope's sort keys have a range."""

    def graph(self, entry):
        import scope as scope_mod
        nodes = entry["scope"]["nodes"]
        specs = scope_mod.plan_inputs(nodes, entry["point"]["signature"].get("value_properties", []))
        built = {s["entry"]: Node("placeholder", name=f"l_tensors_{i}_") for i, s in enumerate(specs)}

        def decode(a):
            if isinstance(a, dict) and set(a) == {"ref"}:
                return built[a["ref"]]
            if isinstance(a, dict) and set(a) == {"enum"}:  # str() of the torch object FX holds
                return a["enum"]
            return [decode(x) for x in a] if isinstance(a, list) else a
        for k, n in enumerate(nodes):
            if k not in built and n["role"] != "input":
                built[k] = call(n["op"], *decode(n.get("args", [])),
                                **{key: decode(v) for key, v in n.get("kwargs", {}).items()})
                built[k].ann = n.get("ann")
        return nodes, built, specs

    def test_every_index_add_scope_decodes(self):
        import scope as scope_mod
        entries = [e for e in golden.load_scopes(GOLDEN) if e["op"] == "aten.index_add.default"]
        self.assertEqual(len(entries), 8)
        for e in entries:
            nodes, built, specs = self.graph(e)
            k = next(i for i, n in enumerate(nodes) if n["role"] == "op")
            x, dim, index = nodes[k]["args"][:3]
            view = _index_add.iota_view(built[index["ref"]], specs)
            extent = scope_mod.parse_ann(nodes[x["ref"]]["ann"], "x")["sizes"][dim]
            plan = iota.window_plan(view, extent) if view else None
            self.assertIsNotNone(plan, e["scope_id"])
            self.assertEqual(plan["window"] is None, dim == 3, e["scope_id"])   # XLNet's plain iota
            dense = ola.overlap_plan(_index_add.iota_view(built[index["ref"]], specs), extent)
            self.assertIsNotNone(dense, e["scope_id"])
            self.assertEqual(dense["window"] is None, dim == 3, e["scope_id"])

    def test_the_transposing_sources_are_longformers_two(self):
        """transposed_source on each index_add scope's source, every node's example_value as its annotation
        lays it out: only the two scope groups whose producer is a transposing clone."""
        import scope as scope_mod
        marked = set()
        for e in (e for e in golden.load_scopes(GOLDEN) if e["op"] == "aten.index_add.default"):
            nodes, built, _ = self.graph(e)
            for k, node in built.items():
                t = scope_mod.parse_ann(nodes[k]["ann"], e["scope_id"]) if nodes[k].get("ann") else None
                node.meta = {"example_value": FakeValue(t["sizes"], True, contiguous=row_major(t))} if t else {}
            k = next(i for i, n in enumerate(nodes) if n["role"] == "op")
            if ola.transposed_source(built[nodes[k]["args"][3]["ref"]]):
                marked.add(e["scope_id"].rsplit("-", 1)[1])
        self.assertEqual(marked, {"335f7d6b05cb", "c06b114e6a86"})

    def test_the_routing_sort_has_its_key_range(self):
        entry = capture.select(golden.load_scopes(GOLDEN), [], lowerings.load("routing_counting_sort"))[0]
        nodes, built, specs = self.graph(entry)
        k = next(i for i, n in enumerate(nodes) if n["op"] == "aten.sort.default")
        self.assertEqual(csort.key_range(built[k].args[0], specs), 32)


def row_major(t):
    """torch's is_contiguous of an annotation's sizes and strides (a dim of one element has any stride)."""
    want = 1
    for n, st in zip(reversed(t["sizes"]), reversed(t["strides"])):
        if n != 1 and st != want:
            return False
        want *= n
    return True


class FakeValue:
    """node.meta["example_value"]'s surface the passes read."""

    def __init__(self, shape, floating, itemsize=4, contiguous=True):
        self.shape, self.contiguous = shape, contiguous
        self.dtype = type("dtype", (), {"is_floating_point": floating, "itemsize": itemsize})()

    def is_contiguous(self):
        return self.contiguous

    def dim(self):
        return len(self.shape)


class FakeGraph:
    """torch.fx.Graph's surface that _graph.replace uses."""

    def __init__(self, nodes):
        self.nodes = list(nodes)
        self.at = None

    def inserting_before(self, node):
        graph = self

        class Here:
            def __enter__(self):
                graph.at = graph.nodes.index(node)

            def __exit__(self, *exc):
                graph.at = None
        return Here()

    def call_function(self, fn, args):
        new = Node("call_function", fn, args)
        new.meta = {}
        self.nodes.insert(self.at, new)
        return new

    def erase_node(self, node):
        self.nodes.remove(node)


def uses_replaced(old):
    def replace_all_uses_with(new):
        old.replaced_by = new
    return replace_all_uses_with


class TestRewriteOnFakeGraphs(unittest.TestCase):
    def fake(self, node, value=None):
        node.meta = {"example_value": value} if value else {}
        node.replace_all_uses_with = uses_replaced(node)
        return node

    def windows_graph(self, extent, size, stride, value=None, dim=-1, **kwargs):
        """index_add(full([extent], 0), dim, reshape(clone(as_strided(iota(extent), size, stride))), src), x's value
        a bf16 one unless given: the nodes (iota, index, x, src, op) and their graph."""
        it = self.fake(call("prims.iota.default", extent, start=0, step=1))
        idx = self.fake(call("aten.reshape.default", call("aten.clone.default", call(
            "aten.as_strided.default", it, size, stride, 0)), [math.prod(size)]))
        x = self.fake(call("aten.full.default", [extent], 0), value or FakeValue([extent], True, itemsize=2))
        src = self.fake(Node("placeholder", name="l_tensors_0_"))
        op = self.fake(call("aten.index_add.default", x, dim, idx, src, **kwargs))
        return (it, idx, x, src, op), FakeGraph([it, idx, x, src, op])

    def test_index_add_becomes_the_gather_add_call(self):
        (_, _, x, src, op), g = self.windows_graph(128, [4, 3, 8, 2], [2, 32, 8, 1])
        self.assertEqual(iota.rewrite(g, None), 1)
        new = op.replaced_by
        self.assertIs(new.target, iota.gather_add)
        self.assertEqual(new.args[:4], (x, 0, src, 1))       # dim -1 normalized, alpha 1
        self.assertEqual(new.args[5]["window"], 1)
        self.assertNotIn(op, g.nodes)
        self.assertEqual(g.nodes.index(new), 4)

    def test_index_add_becomes_the_overlap_add_call(self):
        longformer = (160, [2, 3, 8, 4], [4, 32, 8, 1])
        (_, _, x, src, op), g = self.windows_graph(*longformer, alpha=2)
        self.assertEqual(ola.rewrite(g, None), 1)
        new = op.replaced_by
        self.assertIs(new.target, ola.overlap_add)
        self.assertEqual(new.args[:4], (x, 0, src, 2))       # dim -1 normalized, alpha kept
        self.assertEqual((new.args[5]["pieces"], new.args[5]["total"]), (2, 128))
        # an index no view describes stays ATen's
        other = self.fake(call("aten.index_add.default", x, 0, Node("placeholder", name="l_tensors_0_"), src))
        self.assertEqual(ola.rewrite(FakeGraph([x, other]), [{"name": "in0", "sizes": [8], "values": {}}]), 0)
        # an fp32 x is rewritten as a bf16 one; an x the fp32 sum would round (fp64), or not floating, stays ATen's
        self.assertEqual(ola.rewrite(self.windows_graph(*longformer, FakeValue([160], True, itemsize=4))[1], None), 1)
        for value in (FakeValue([160], True, itemsize=8), FakeValue([160], False, itemsize=4)):
            for mod in (ola, iota):
                self.assertEqual(mod.rewrite(self.windows_graph(*longformer, value)[1], None), 0,
                                 (mod.__name__, value.dtype.itemsize))

    def test_a_transposing_source_is_stored_before_the_overlap_add(self):
        """Longformer 335f7d6b05cb's source: reshape(clone(permute(...))) of a non-contiguous permute; a graph input,
        or the clone of a contiguous tensor, is read as it is."""
        longformer = (160, [2, 3, 8, 4], [4, 32, 8, 1])
        for contiguous, fmt, want in ((False, "torch.contiguous_format", {"materialize": True}),
                                      (True, "torch.contiguous_format", {}), (False, "torch.preserve_format", {})):
            (_, _, x, src, op), g = self.windows_graph(*longformer)
            permuted = self.fake(call("aten.permute.default", src, [1, 0]), FakeValue([8, 24], True, contiguous=contiguous))
            clone = self.fake(call("aten.clone.default", permuted, memory_format=fmt))
            flat = self.fake(call("aten.reshape.default", clone, [192]))
            op.args = (x, op.args[1], op.args[2], flat)
            self.assertEqual(ola.rewrite(g, None), 1)
            self.assertEqual(ola.transposed_source(flat), want)
            self.assertEqual(op.replaced_by.args[5].get("materialize"), want.get("materialize"))
        (_, _, _, src, op), g = self.windows_graph(*longformer)
        self.assertEqual(ola.rewrite(g, None), 1)
        self.assertNotIn("materialize", op.replaced_by.args[5])
        self.assertEqual(ola.transposed_source(src), {})

    def test_an_index_add_on_another_index_is_kept(self):
        x = self.fake(call("aten.full.default", [8], 0), FakeValue([8], True))
        op = self.fake(call("aten.index_add.default", x, 0, Node("placeholder", name="l_tensors_0_"), x))
        self.assertEqual(iota.rewrite(FakeGraph([x, op]), [{"name": "in0", "sizes": [8], "values": {}}]), 0)

    def test_the_routing_sort_becomes_the_counting_sort_call(self):
        specs = [{"name": "in0", "sizes": [1000, 4], "values": {"generator": "topk_ids", "experts": 32}}]
        ids = self.fake(call("aten.reshape.default", Node("placeholder", name="l_tensors_0_"), [-1]),
                        FakeValue([4000], False, itemsize=8))
        op = self.fake(call("aten.sort.default", ids))
        g = FakeGraph([ids, op])
        self.assertEqual(csort.rewrite(g, specs), 1)
        self.assertIs(op.replaced_by.target, csort.counting_sort)
        self.assertEqual(op.replaced_by.args, (ids, 32))
        down = self.fake(call("aten.sort.default", ids, -1, True))           # descending: kept
        self.assertEqual(csort.rewrite(FakeGraph([ids, down]), specs), 0)
        narrow = self.fake(call("aten.reshape.default", Node("placeholder", name="l_tensors_0_"), [-1]),
                           FakeValue([4000], False, itemsize=1))
        wide = [{"name": "in0", "sizes": [1000, 4], "values": {"generator": "topk_ids", "experts": 256}}]
        kept = self.fake(call("aten.sort.default", narrow))                   # int8 cannot hold id 255: kept
        self.assertEqual(csort.rewrite(FakeGraph([narrow, kept]), wide), 0)
        self.assertTrue(csort.holds(narrow.meta["example_value"].dtype, 127))


if __name__ == "__main__":
    unittest.main()
