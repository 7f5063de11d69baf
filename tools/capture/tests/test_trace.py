"""Replay-plan building on synthetic launch records."""

import unittest

import context  # noqa: F401
import trace

MB = 1 << 20


def ptr(p, storage, storage_bytes=4096):
    return {"ptr": p, "storage": storage, "storage_bytes": storage_bytes}


def launch(kernel, args, grid=(8, 1, 1), warps=4):
    return {"launch": {"kernel": kernel, "cubin": f"default.{kernel}.cubin", "function": kernel,
                       "num_warps": warps, "shared": 0, "global_scratch": 0,
                       "profile_scratch": 0, "grid": list(grid), "args": args}}


def alloc(p, size):
    return {"alloc": {"ptr": p, "bytes": size}}


TENSORS = [{"name": "in0", "storage": 1 * MB, "bytes": 4096},
           {"name": "out0", "storage": 3 * MB, "bytes": 2048}]


class TestBuild(unittest.TestCase):
    def test_inputs_outputs_and_wrapper_buffers(self):
        events = [alloc(2 * MB, 8192), alloc(3 * MB, 2048),
                  launch("triton_poi_fused_0", [ptr(1 * MB + 256, 1 * MB), ptr(2 * MB, 2 * MB, 8192),
                                                {"scalar": 1024, "type": "i32"}]),
                  launch("triton_per_fused_1", [ptr(2 * MB + 4096, 2 * MB, 8192),
                                                ptr(3 * MB, 3 * MB, 2048)],
                         grid=(1, 1, 1), warps=8)]
        calls = [("triton", "triton_poi_fused_0"), ("triton", "triton_per_fused_1")]
        buffers, steps, replayable = trace.build(events, TENSORS, calls)
        self.assertEqual(buffers, [{"name": "buf0", "bytes": 8192}])   # outputs are not buffers
        self.assertTrue(replayable)
        self.assertEqual(steps[0]["args"], [{"buffer": "in0", "offset": 256},
                                            {"buffer": "buf0", "offset": 0},
                                            {"scalar": 1024, "type": "i32"}])
        self.assertEqual(steps[1]["args"], [{"buffer": "buf0", "offset": 4096},
                                            {"buffer": "out0", "offset": 0}])
        self.assertEqual(steps[1]["block"], [256, 1, 1])
        self.assertEqual(steps[1]["grid"], [1, 1, 1])
        self.assertEqual(steps[0]["cubin"], "default.triton_poi_fused_0.cubin")

    def test_reused_address_gets_a_new_name(self):
        # buf0 is freed and the allocator hands its block to the next allocation, then to out0
        events = [alloc(2 * MB, 4096), launch("triton_poi_fused_0", [ptr(2 * MB, 2 * MB)]),
                  alloc(2 * MB, 4096), launch("triton_poi_fused_1", [ptr(2 * MB, 2 * MB)]),
                  alloc(2 * MB, 2048), launch("triton_poi_fused_2", [ptr(2 * MB, 2 * MB, 2048)])]
        tensors = [{"name": "out0", "storage": 2 * MB, "bytes": 2048}]
        calls = [("triton", f"triton_poi_fused_{k}") for k in range(3)]
        buffers, steps, _ = trace.build(events, tensors, calls)
        self.assertEqual([b["name"] for b in buffers], ["buf0", "buf1"])
        self.assertEqual([s["args"][0]["buffer"] for s in steps], ["buf0", "buf1", "out0"])

    def test_fallback_storage_at_a_freed_wrapper_address(self):
        # the iota buffer is freed; an ATen fallback's result (an output) and a scratch of its own
        # land in its block: neither is the wrapper allocation
        events = [alloc(5 * MB, 8192), launch("triton_poi_fused_iota_0", [ptr(5 * MB, 5 * MB, 8192)]),
                  launch("triton_poi_fused_1", [ptr(5 * MB, 5 * MB, 2048),
                                                ptr(5 * MB + 4096, 5 * MB + 4096, 64)])]
        tensors = [{"name": "out0", "storage": 5 * MB, "bytes": 2048}]
        calls = [("triton", "triton_poi_fused_iota_0"), ("aten", "torch.ops.aten.index_add.default"),
                 ("triton", "triton_poi_fused_1")]
        buffers, steps, replayable = trace.build(events, tensors, calls)
        self.assertFalse(replayable)
        self.assertEqual(steps[2]["args"], [{"buffer": "out0", "offset": 0},
                                            {"buffer": "aten0", "offset": 0}])
        self.assertEqual(buffers, [{"name": "buf0", "bytes": 8192}, {"name": "aten0", "bytes": 64}])

    def test_fallbacks_make_it_unreplayable(self):
        events = [launch("triton_poi_fused_0", [ptr(5 * MB + 16, 5 * MB, 64),
                                                ptr(3 * MB, 3 * MB, 2048),
                                                ptr(5 * MB + 32, 5 * MB, 64)])]
        calls = [("aten", "torch.ops.aten.sort.stable"), ("aten", "torch.ops.aten.histc.default"),
                 ("triton", "triton_poi_fused_0"), ("zero", "aten.zero_")]
        buffers, steps, replayable = trace.build(events, TENSORS, calls)
        self.assertFalse(replayable)
        self.assertEqual([s["kind"] for s in steps], ["aten", "aten", "triton", "aten"])
        self.assertEqual(steps[0]["call"], "torch.ops.aten.sort.stable")
        self.assertEqual(steps[3]["call"], "aten.zero_")
        # a storage only a fallback produced is named aten0 (once); an output keeps its name
        self.assertEqual(steps[2]["args"], [{"buffer": "aten0", "offset": 16},
                                            {"buffer": "out0", "offset": 0},
                                            {"buffer": "aten0", "offset": 32}])
        self.assertEqual(buffers, [{"name": "aten0", "bytes": 64}])

    def test_no_device_work_is_replayable(self):
        self.assertEqual(trace.build([], TENSORS, []), ([], [], True))

    def test_mismatches(self):
        events = [launch("triton_poi_fused_0", [])]
        with self.assertRaises(trace.TraceError):
            trace.build(events, TENSORS, [("triton", "triton_poi_fused_9")])
        with self.assertRaises(trace.TraceError):
            trace.build(events, TENSORS, [])
        with self.assertRaises(trace.TraceError):
            trace.build([], TENSORS, [("triton", "triton_poi_fused_0")])


if __name__ == "__main__":
    unittest.main()
