"""A candidate lowering written as an FX graph rewrite, installed as Inductor's pre-grad custom pass
for the length of a with-block.

Why pre-grad: the rewrite calls a plain Python function in place of the matched node, and
AOTAutograd then traces that function into aten ops with fake tensors, so the new nodes get their
metadata the way every other node does (a post-grad pass would have to build fake values by hand).
The pass sees the Dynamo graph, whose placeholders are named after their source (`fn(*tensors)`:
`l_tensors_3_`), so a rewrite can use what the golden scope knows about an input's values (an
iota saved by the forward, topk ids below the expert count): `bind(specs)` hands the capture's
input specs (scope.plan_inputs) to the pass before compiling.

The matching logic works on any object with `.op`, `.target`, `.args`, `.name` (torch.fx.Node or a
test's fake): `target_name` spells an OpOverload the way golden files do (`aten.reshape.default`).
"""

import contextlib
import re

# ops that keep every element's value and the row-major order of the elements
RESHAPES = ("aten.reshape.default", "aten.view.default", "aten._unsafe_view.default")
ORDER_KEEPING = RESHAPES + ("aten.clone.default", "aten.alias.default", "prims.convert_element_type.default")

_PLACEHOLDER = re.compile(r"tensors_(\d+)_?$", re.IGNORECASE)


def target_name(node):
    return str(node.target) if node.op == "call_function" else node.op


def calls(graph, names):
    """The graph's call nodes of those ops, listed up front so a rewrite may replace them as it goes."""
    return [n for n in graph.nodes if n.op == "call_function" and target_name(n) in names]


def input_spec(node, specs):
    """The capture's input spec behind a placeholder, or None when the name does not say which."""
    if node.op != "placeholder" or specs is None:
        return None
    m = _PLACEHOLDER.search(node.name)
    if not m or int(m.group(1)) >= len(specs):
        return None
    return specs[int(m.group(1))]


def strip_order_keeping(node):
    """The first node up the chain that is not an order-keeping view, clone or cast of one tensor
    (a cast keeps integer values only when it does not narrow: callers check the dtype they need, as
    routing_counting_sort's holds() does)."""
    while node.op == "call_function" and target_name(node) in ORDER_KEEPING:
        node = node.args[0]
    return node


class Pass:
    """Inductor's CustomGraphPass protocol (a uuid keys the FX graph cache; the capture turns that
    cache off for candidates anyway) around rewrite(graph, specs) -> number of nodes rewritten."""

    def __init__(self, name, rewrite, specs):
        self.name, self.rewrite, self.specs, self.rewritten = name, rewrite, specs, 0

    def __call__(self, graph):
        n = self.rewrite(graph, self.specs)
        self.rewritten += n
        print(f"lowering {self.name}: {n} node(s) rewritten in this graph", flush=True)

    def uuid(self):
        return f"extern-audit-lowering-{self.name}"


@contextlib.contextmanager
def installed(name, rewrite, specs):
    """rewrite runs as torch._inductor.config.pre_grad_custom_pass inside the block."""
    import torch
    with torch._inductor.config.patch(pre_grad_custom_pass=Pass(name, rewrite, specs)):
        yield


def replace(graph, node, fn, args):
    """node's uses now read fn(*args), a call inserted in its place; node is erased."""
    with graph.inserting_before(node):
        new = graph.call_function(fn, tuple(args))
    new.meta.update(node.meta)
    node.replace_all_uses_with(new)
    graph.erase_node(node)
    return new
