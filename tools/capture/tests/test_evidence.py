"""Evidence parsing on wrapper text shaped like torch 2.11's, comment traps included."""

import unittest

import context  # noqa: F401
import evidence

WRAPPER = '''
# kernel path: /tmp/inductor/ab/cab.py
# Topologically Sorted Source Nodes: [cumsum], Original ATen: [aten.cumsum]
# Source node to ATen node mapping:
#   cumsum => cumsum
# Graph fragment:
#   %cumsum : Tensor "i64[8, 1024][1024, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cumsum.default](args = (%convert_element_type, 1), kwargs = {})
#   buf9 = reinterpret_tensor(buf0, (4, ), (1, ), 0)  # alias
#   extern_kernels.mm(a, b, out=c)
triton_per_fused_cumsum_0 = async_compile.triton('triton_per_fused_cumsum_0', \'\'\'
@triton.jit
def triton_per_fused_cumsum_0(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    # tl.atomic_add(out_ptr0, 1) in a comment does not count
    tmp3 = tl.associative_scan(tmp2, 1, _triton_helper_fn_add0)
\'\'\', device_str='cuda')

def call(args):
    arg0_1, = args
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided_cuda((8, 1024), (1024, 1), torch.int64)
        buf1 = reinterpret_tensor(buf0, (8, 512), (1024, 1), 0)  # alias
        buf2 = reinterpret_tensor(buf0, (8, 512), (1024, 1), 512)  # alias
        buf3 = reinterpret_tensor(buf0, (8, 1024), (1024, 1), 0)
        # Topologically Sorted Source Nodes: [histc], Original ATen: [aten.histc]
        buf4 = torch.ops.aten.histc.default(arg0_1, 32, 0, 31)
        stream0 = get_raw_stream(0)
        triton_per_fused_cumsum_0.run(arg0_1, buf0, 8, 1024, stream=stream0)
        workspace_0 = empty_strided_cuda((64, ), (1, ), torch.uint8)
        workspace_0.zero_()
        triton_spl_fused_cumsum_1.run(buf0, workspace_0, 8192, stream=stream0)
        aten.index_put_(buf0, [buf4], buf3, True)
        extern_kernels.mm(buf1, buf2, out=buf3)
        triton_for_fused_2.run(buf1, buf2, stream=stream0)
    return (buf0, )
'''

KERNELS = {
    "triton_per_fused_cumsum_0": "def k():\n    # tl.atomic_add(x)\n    tl.associative_scan(a)\n",
    "triton_spl_fused_cumsum_1": "def k():\n    tl.associative_scan(a)\n    tl.atomic_add(p, v)\n",
    "triton_for_fused_2": "def k():\n    # tl.associative_scan(a) only in a comment\n",
}


class TestEvidence(unittest.TestCase):
    def setUp(self):
        self.ev = evidence.evidence(WRAPPER, KERNELS)

    def test_comment_lines_do_not_count(self):
        self.assertEqual(self.ev["aten_calls"], ["torch.ops.aten.histc.default", "aten.index_put_"])
        self.assertEqual(self.ev["extern_kernels"], ["extern_kernels.mm"])

    def test_alias_marker_is_read_from_the_raw_line(self):
        # two code lines end in "# alias"; the commented one and the unmarked one do not count
        self.assertEqual(self.ev["alias_slices"], 2)

    def test_launches_by_kind(self):
        self.assertEqual(self.ev["triton_launches"],
                         {"poi": 0, "red": 0, "per": 1, "spl": 1, "for": 1, "tem": 0})

    def test_workspace_and_kernel_sources(self):
        self.assertEqual(self.ev["workspace_zeroing"], 1)
        self.assertEqual(self.ev["scan_kernels"], 2)
        self.assertEqual(self.ev["atomic_kernels"], 1)

    def test_device_calls_in_order(self):
        self.assertEqual(evidence.device_calls(WRAPPER), [
            ("aten", "torch.ops.aten.histc.default"),
            ("triton", "triton_per_fused_cumsum_0"),
            ("zero", "aten.zero_"),
            ("triton", "triton_spl_fused_cumsum_1"),
            ("aten", "aten.index_put_"),
            ("extern", "extern_kernels.mm"),
            ("triton", "triton_for_fused_2"),
        ])

    def test_lowered_op_named_only_in_comments(self):
        lowered = "\n".join(line for line in WRAPPER.splitlines()
                            if "histc" not in line and "index_put_" not in line
                            and "extern_kernels" not in line)
        self.assertEqual(evidence.evidence(lowered, KERNELS)["aten_calls"], [])

    def test_only_launched_kernels_count(self):
        kernels = dict(KERNELS, triton_red_unused_9="def k():\n    tl.atomic_add(p, v)\n")
        self.assertEqual(evidence.evidence(WRAPPER, kernels)["atomic_kernels"], 1)
        with self.assertRaises(evidence.EvidenceError):
            evidence.evidence(WRAPPER, {})

    def test_unknown_kernel_kind(self):
        with self.assertRaises(evidence.EvidenceError):
            evidence.evidence("triton_zzz_fused_0.run(a, stream=s)\n", {})


if __name__ == "__main__":
    unittest.main()
