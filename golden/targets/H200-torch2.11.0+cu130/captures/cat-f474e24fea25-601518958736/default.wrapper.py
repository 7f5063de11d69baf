# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/inductor-cat-f474e24fea25-601-5p6dirmj/zx/czxc62gbhr7ulgeiby7d3ef7ym6q6k5u5cupvjrbgaejg663naae.py
# Unsorted Source Nodes: [], Original ATen: []
# Source node to ATen node mapping:
triton_for_fused_0 = async_compile.triton('triton_for_fused_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties

@triton_heuristics.foreach(
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'in_ptr5': '*bf16', 'in_ptr6': '*bf16', 'in_ptr7': '*bf16', 'in_ptr8': '*bf16', 'in_ptr9': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*bf16', 'out_ptr2': '*bf16', 'out_ptr3': '*bf16', 'out_ptr4': '*bf16', 'out_ptr5': '*bf16', 'out_ptr6': '*bf16', 'out_ptr7': '*bf16', 'out_ptr8': '*bf16', 'out_ptr9': '*bf16'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'enable_fp_fusion': True, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]], (11,): [['tt.divisibility', 16]], (12,): [['tt.divisibility', 16]], (13,): [['tt.divisibility', 16]], (14,): [['tt.divisibility', 16]], (15,): [['tt.divisibility', 16]], (16,): [['tt.divisibility', 16]], (17,): [['tt.divisibility', 16]], (18,): [['tt.divisibility', 16]], (19,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'SequentialComboKernelGrid', 'combo_grid_meta': {'num_kernels': 10, 'min_blocks': 0, 'default_config': {'XBLOCK': 1024}, 'no_x_dim_0': False, 'xnumel_0': 401408, 'no_x_dim_1': False, 'xnumel_1': 100352, 'no_x_dim_2': False, 'xnumel_2': 100352, 'no_x_dim_3': False, 'xnumel_3': 100352, 'no_x_dim_4': False, 'xnumel_4': 100352, 'no_x_dim_5': False, 'xnumel_5': 100352, 'no_x_dim_6': False, 'xnumel_6': 100352, 'no_x_dim_7': False, 'xnumel_7': 100352, 'no_x_dim_8': False, 'xnumel_8': 100352, 'no_x_dim_9': False, 'xnumel_9': 100352}, 'kernel_name': 'triton_for_fused_0', 'mutated_arg_names': [], 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False},
)
@triton.jit
def triton_for_fused_0(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, in_ptr6, in_ptr7, in_ptr8, in_ptr9, out_ptr0, out_ptr1, out_ptr2, out_ptr3, out_ptr4, out_ptr5, out_ptr6, out_ptr7, out_ptr8, out_ptr9):
    pid = tl.program_id(0)
    XBLOCK: tl.constexpr = 1024
    num_xblocks_0 = tl.cdiv(401408, XBLOCK)
    num_xblocks_1 = num_xblocks_0 + tl.cdiv(100352, XBLOCK)
    num_xblocks_2 = num_xblocks_1 + tl.cdiv(100352, XBLOCK)
    num_xblocks_3 = num_xblocks_2 + tl.cdiv(100352, XBLOCK)
    num_xblocks_4 = num_xblocks_3 + tl.cdiv(100352, XBLOCK)
    num_xblocks_5 = num_xblocks_4 + tl.cdiv(100352, XBLOCK)
    num_xblocks_6 = num_xblocks_5 + tl.cdiv(100352, XBLOCK)
    num_xblocks_7 = num_xblocks_6 + tl.cdiv(100352, XBLOCK)
    num_xblocks_8 = num_xblocks_7 + tl.cdiv(100352, XBLOCK)
    num_xblocks_9 = num_xblocks_8 + tl.cdiv(100352, XBLOCK)
    if pid < num_xblocks_0:
        pid_offset = pid
        xnumel = 401408
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = tl.full([XBLOCK], True, tl.int1)[:]
        x2 = xindex
        x0 = (xindex % 100352)
        x1 = xindex // 100352
        tmp0 = tl.load(in_ptr0 + (x2), None).to(tl.float32)
        tl.store(out_ptr0 + (x0 + 326144*x1), tmp0, None)
    elif pid < num_xblocks_1:
        pid_offset = pid - num_xblocks_0
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x5 = xindex
        x3 = (xindex % 25088)
        x4 = xindex // 25088
        tmp1 = tl.load(in_ptr1 + (x5), xmask).to(tl.float32)
        tl.store(out_ptr1 + (x3 + 326144*x4), tmp1, xmask)
    elif pid < num_xblocks_2:
        pid_offset = pid - num_xblocks_1
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x8 = xindex
        x6 = (xindex % 25088)
        x7 = xindex // 25088
        tmp2 = tl.load(in_ptr2 + (x8), xmask).to(tl.float32)
        tl.store(out_ptr2 + (x6 + 326144*x7), tmp2, xmask)
    elif pid < num_xblocks_3:
        pid_offset = pid - num_xblocks_2
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x11 = xindex
        x10 = xindex // 25088
        x9 = (xindex % 25088)
        tmp3 = tl.load(in_ptr3 + (x11), xmask).to(tl.float32)
        tl.store(out_ptr3 + (x9 + 326144*x10), tmp3, xmask)
    elif pid < num_xblocks_4:
        pid_offset = pid - num_xblocks_3
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x14 = xindex
        x12 = (xindex % 25088)
        x13 = xindex // 25088
        tmp4 = tl.load(in_ptr4 + (x14), xmask).to(tl.float32)
        tl.store(out_ptr4 + (x12 + 326144*x13), tmp4, xmask)
    elif pid < num_xblocks_5:
        pid_offset = pid - num_xblocks_4
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x17 = xindex
        x15 = (xindex % 25088)
        x16 = xindex // 25088
        tmp5 = tl.load(in_ptr5 + (x17), xmask).to(tl.float32)
        tl.store(out_ptr5 + (x15 + 326144*x16), tmp5, xmask)
    elif pid < num_xblocks_6:
        pid_offset = pid - num_xblocks_5
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x20 = xindex
        x18 = (xindex % 25088)
        x19 = xindex // 25088
        tmp6 = tl.load(in_ptr6 + (x20), xmask).to(tl.float32)
        tl.store(out_ptr6 + (x18 + 326144*x19), tmp6, xmask)
    elif pid < num_xblocks_7:
        pid_offset = pid - num_xblocks_6
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x23 = xindex
        x21 = (xindex % 25088)
        x22 = xindex // 25088
        tmp7 = tl.load(in_ptr7 + (x23), xmask).to(tl.float32)
        tl.store(out_ptr7 + (x21 + 326144*x22), tmp7, xmask)
    elif pid < num_xblocks_8:
        pid_offset = pid - num_xblocks_7
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x26 = xindex
        x24 = (xindex % 25088)
        x25 = xindex // 25088
        tmp8 = tl.load(in_ptr8 + (x26), xmask).to(tl.float32)
        tl.store(out_ptr8 + (x24 + 326144*x25), tmp8, xmask)
    elif pid < num_xblocks_9:
        pid_offset = pid - num_xblocks_8
        xnumel = 100352
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x29 = xindex
        x27 = (xindex % 25088)
        x28 = xindex // 25088
        tmp9 = tl.load(in_ptr9 + (x29), xmask).to(tl.float32)
        tl.store(out_ptr9 + (x27 + 326144*x28), tmp9, xmask)
    else:
        pass
''', device_str='cuda')


# kernel path: /tmp/inductor-cat-f474e24fea25-601-5p6dirmj/c7/cc7xda2ppmjrm7aafzt4swd2rbkvg2wzo646ainsczpdun6dmjjk.py
# Topologically Sorted Source Nodes: [convert_element_type_default, var_mean_correction, add_tensor, rsqrt_default, squeeze_dims_1, mul_tensor_1, mul_tensor_2, mul_tensor_3, add_tensor_1, sub_tensor, mul_tensor, unsqueeze_default, unsqueeze_default_1, mul_tensor_4, unsqueeze_default_2, unsqueeze_default_3, add_tensor_2, convert_element_type_default_1, relu_default], Original ATen: [prims.convert_element_type, aten.var_mean, aten.add, aten.rsqrt, aten.squeeze, aten.mul, aten.sub, aten.unsqueeze, aten.relu]
# Source node to ATen node mapping:
#   add_tensor => add
#   add_tensor_1 => add_1
#   add_tensor_2 => add_2
#   convert_element_type_default => convert_element_type
#   convert_element_type_default_1 => convert_element_type_1
#   mul_tensor => mul
#   mul_tensor_1 => mul_1
#   mul_tensor_2 => mul_2
#   mul_tensor_3 => mul_3
#   mul_tensor_4 => mul_4
#   relu_default => relu
#   rsqrt_default => rsqrt
#   squeeze_dims_1 => squeeze_1
#   sub_tensor => sub
#   unsqueeze_default => unsqueeze
#   unsqueeze_default_1 => unsqueeze_1
#   unsqueeze_default_2 => unsqueeze_2
#   unsqueeze_default_3 => unsqueeze_3
#   var_mean_correction => var_mean
# Graph fragment:
#   %cat : Tensor "bf16[4, 416, 28, 28][326144, 784, 28, 1]cuda:0" = PlaceHolder[target=cat]
#   %buf12 : Tensor "f32[1, 416, 1, 1][416, 1, 416, 416]cuda:0" = PlaceHolder[target=buf12]
#   %arg10_1 : Tensor "f32[416][1]cuda:0" = PlaceHolder[target=arg10_1]
#   %getitem_1 : Tensor "f32[1, 416, 1, 1][416, 1, 1, 1]cuda:0" = PlaceHolder[target=getitem_1]
#   %rsqrt : Tensor "f32[1, 416, 1, 1][416, 1, 416, 416]cuda:0" = PlaceHolder[target=rsqrt]
#   %arg11_1 : Tensor "f32[416][1]cuda:0" = PlaceHolder[target=arg11_1]
#   %arg12_1 : Tensor "f32[416][1]cuda:0" = PlaceHolder[target=arg12_1]
#   %convert_element_type : Tensor "f32[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%cat, torch.float32), kwargs = {})
#   %var_mean : [num_users=2] = call_function[target=torch.ops.aten.var_mean.correction](args = (%convert_element_type, [0, 2, 3]), kwargs = {correction: 0, keepdim: True})
#   %add : Tensor "f32[1, 416, 1, 1][416, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem, 1e-05), kwargs = {})
#   %rsqrt : Tensor "f32[1, 416, 1, 1][416, 1, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add,), kwargs = {})
#   %squeeze_1 : Tensor "f32[416][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.squeeze.dims](args = (%getitem, [0, 2, 3]), kwargs = {})
#   %mul_1 : Tensor "f32[416][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_1, 1.0003189792663476), kwargs = {})
#   %mul_2 : Tensor "f32[416][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_1, 0.1), kwargs = {})
#   %mul_3 : Tensor "f32[416][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg10_1, 0.9), kwargs = {})
#   %add_1 : Tensor "f32[416][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_2, %mul_3), kwargs = {})
#   %sub : Tensor "f32[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%cat, %getitem_1), kwargs = {})
#   %mul : Tensor "f32[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub, %rsqrt), kwargs = {})
#   %unsqueeze : Tensor "f32[416, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%arg11_1, -1), kwargs = {})
#   %unsqueeze_1 : Tensor "f32[416, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze, -1), kwargs = {})
#   %mul_4 : Tensor "f32[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %unsqueeze_1), kwargs = {})
#   %unsqueeze_2 : Tensor "f32[416, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%arg12_1, -1), kwargs = {})
#   %unsqueeze_3 : Tensor "f32[416, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_2, -1), kwargs = {})
#   %add_2 : Tensor "f32[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_4, %unsqueeze_3), kwargs = {})
#   %convert_element_type_1 : Tensor "bf16[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%add_2, torch.bfloat16), kwargs = {})
#   %relu : Tensor "bf16[4, 416, 28, 28][326144, 784, 28, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%convert_element_type_1,), kwargs = {})
#   return %getitem_1,%buf12,%rsqrt,%add_1,%relu
triton_red_fused_add_convert_element_type_mul_relu_rsqrt_squeeze_sub_unsqueeze_var_mean_1 = async_compile.triton('triton_red_fused_add_convert_element_type_mul_relu_rsqrt_squeeze_sub_unsqueeze_var_mean_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 512, 'r0_': 4096},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'out_ptr0': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'out_ptr4': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_add_convert_element_type_mul_relu_rsqrt_squeeze_sub_unsqueeze_var_mean_1', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 5, 'num_store': 4, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'add_persistent_rblock': True, 'tiling_scores': {'x': 14976, 'r0_': 7827456}}
)
@triton.jit
def triton_red_fused_add_convert_element_type_mul_relu_rsqrt_squeeze_sub_unsqueeze_var_mean_1(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, out_ptr2, out_ptr3, out_ptr4, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 416
    r0_numel = 3136
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    tmp3_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = (r0_index % 784)
        r0_2 = r0_index // 784
        tmp0 = tl.load(in_ptr0 + (r0_1 + 784*x0 + 326144*r0_2), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp1 = tmp0.to(tl.float32)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp3_mean_next, tmp3_m2_next, tmp3_weight_next = triton_helpers.welford_reduce(
            tmp2, tmp3_mean, tmp3_m2, tmp3_weight, roffset == 0
        )
        tmp3_mean = tl.where(r0_mask & xmask, tmp3_mean_next, tmp3_mean)
        tmp3_m2 = tl.where(r0_mask & xmask, tmp3_m2_next, tmp3_m2)
        tmp3_weight = tl.where(r0_mask & xmask, tmp3_weight_next, tmp3_weight)
    tmp4, tmp5, tmp6 = triton_helpers.welford(tmp3_mean, tmp3_m2, tmp3_weight, 1)
    tmp3 = tmp4[:, None]
    tmp7 = tmp5[:, None]
    tmp8 = tmp6[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    tmp18 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp9 = tl.full([1, 1], 3136.0, tl.float32)
    tmp10 = (tmp7 / tmp9)
    tmp11 = tl.full([1, 1], 1e-05, tl.float32)
    tmp12 = tmp10 + tmp11
    tmp13 = libdevice.rsqrt(tmp12)
    tmp14 = tl.full([1, 1], 1.0003189792663476, tl.float32)
    tmp15 = tmp10 * tmp14
    tmp16 = tl.full([1, 1], 0.1, tl.float32)
    tmp17 = tmp15 * tmp16
    tmp19 = tl.full([1, 1], 0.9, tl.float32)
    tmp20 = tmp18 * tmp19
    tmp21 = tmp17 + tmp20
    tl.store(out_ptr2 + (x0), tmp13, xmask)
    tl.store(out_ptr3 + (x0), tmp21, xmask)
    tmp26 = tl.load(in_ptr2 + (x0), xmask, eviction_policy='evict_last')
    tmp28 = tl.load(in_ptr3 + (x0), xmask, eviction_policy='evict_last')
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = (r0_index % 784)
        r0_2 = r0_index // 784
        tmp22 = tl.load(in_ptr0 + (r0_1 + 784*x0 + 326144*r0_2), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp23 = tmp22.to(tl.float32)
        tmp24 = tmp23 - tmp3
        tmp25 = tmp24 * tmp13
        tmp27 = tmp25 * tmp26
        tmp29 = tmp27 + tmp28
        tmp30 = tmp29.to(tl.float32)
        tmp31 = tl.full([1, 1], 0, tl.int32)
        tmp32 = triton_helpers.maximum(tmp31, tmp30)
        tl.store(out_ptr4 + (r0_1 + 784*x0 + 326144*r0_2), tmp32, r0_mask & xmask)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1 = args
        args.clear()
        assert_size_stride(arg0_1, (4, 128, 28, 28), (100352, 784, 28, 1))
        assert_size_stride(arg1_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg2_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg3_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg4_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg5_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg6_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg7_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg8_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg9_1, (4, 32, 28, 28), (25088, 784, 28, 1))
        assert_size_stride(arg10_1, (416, ), (1, ))
        assert_size_stride(arg11_1, (416, ), (1, ))
        assert_size_stride(arg12_1, (416, ), (1, ))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf10 = empty_strided_cuda((4, 416, 28, 28), (326144, 784, 28, 1), torch.bfloat16)
            buf0 = reinterpret_tensor(buf10, (4, 128, 28, 28), (326144, 784, 28, 1), 0)  # alias
            buf1 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 100352)  # alias
            buf2 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 125440)  # alias
            buf3 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 150528)  # alias
            buf4 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 175616)  # alias
            buf5 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 200704)  # alias
            buf6 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 225792)  # alias
            buf7 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 250880)  # alias
            buf8 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 275968)  # alias
            buf9 = reinterpret_tensor(buf10, (4, 32, 28, 28), (326144, 784, 28, 1), 301056)  # alias
            # Topologically Sorted Source Nodes: [cat_default], Original ATen: [aten.cat]
            stream0 = get_raw_stream(0)
            triton_for_fused_0.run(arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, buf0, buf1, buf2, buf3, buf4, buf5, buf6, buf7, buf8, buf9, stream=stream0)
            del arg0_1
            del arg1_1
            del arg2_1
            del arg3_1
            del arg4_1
            del arg5_1
            del arg6_1
            del arg7_1
            del arg8_1
            del arg9_1
            buf11 = empty_strided_cuda((1, 416, 1, 1), (416, 1, 1, 1), torch.float32)
            buf14 = empty_strided_cuda((1, 416, 1, 1), (416, 1, 416, 416), torch.float32)
            buf15 = empty_strided_cuda((416, ), (1, ), torch.float32)
            buf16 = empty_strided_cuda((4, 416, 28, 28), (326144, 784, 28, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [convert_element_type_default, var_mean_correction, add_tensor, rsqrt_default, squeeze_dims_1, mul_tensor_1, mul_tensor_2, mul_tensor_3, add_tensor_1, sub_tensor, mul_tensor, unsqueeze_default, unsqueeze_default_1, mul_tensor_4, unsqueeze_default_2, unsqueeze_default_3, add_tensor_2, convert_element_type_default_1, relu_default], Original ATen: [prims.convert_element_type, aten.var_mean, aten.add, aten.rsqrt, aten.squeeze, aten.mul, aten.sub, aten.unsqueeze, aten.relu]
            stream0 = get_raw_stream(0)
            triton_red_fused_add_convert_element_type_mul_relu_rsqrt_squeeze_sub_unsqueeze_var_mean_1.run(buf10, arg10_1, arg11_1, arg12_1, buf11, buf14, buf15, buf16, 416, 3136, stream=stream0)
            del arg10_1
            del arg11_1
            del arg12_1
        return (buf10, buf11, reinterpret_tensor(buf14, (416, ), (1, ), 0), buf15, buf16, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((4, 128, 28, 28), (100352, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg1_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg2_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg3_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg4_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg5_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg6_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg7_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg8_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg9_1 = rand_strided((4, 32, 28, 28), (25088, 784, 28, 1), device='cuda:0', dtype=torch.bfloat16)
    arg10_1 = rand_strided((416, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg11_1 = rand_strided((416, ), (1, ), device='cuda:0', dtype=torch.float32)
    arg12_1 = rand_strided((416, ), (1, ), device='cuda:0', dtype=torch.float32)
    return [arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
