#!/usr/bin/env bash
# Session 9 diagnostic, run on the H200 through the device tool after `ci/gpu-bundle` (from .dev/; only its cd changed here): torch's
# adaptive_avg_pool2d_backward kernels against the replica's under ncu, and both kernels' register counts.
# Its output: docs/evidence/avgpool-ncu-H200.log (the replica then had the 32-bit END_IND; docs/evidence/newops.md).
set -u
cd "$(dirname "$0")/../.."
tar xJf build/gpu-bundle.tar.xz -C build
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
W=/tmp/diag; rm -rf $W; mkdir -p $W
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
cat > $W/t.py <<'PY'
import sys, torch
shape = [int(x) for x in sys.argv[1].split(",")]
g = torch.empty(shape, dtype=torch.bfloat16, device="cuda").uniform_()
s = torch.empty_like(g)
for _ in range(3):
    torch.ops.aten._adaptive_avg_pool2d_backward.default(g, s)
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as p:
    for _ in range(20):
        torch.ops.aten._adaptive_avg_pool2d_backward.default(g, s)
    torch.cuda.synchronize()
for e in p.key_averages():
    if e.device_type.name == "CUDA" or "Kernel" in str(e.device_type) or e.self_device_time_total > 0:
        print("PROF", e.key[:90], e.count, round(e.self_device_time_total / max(e.count, 1), 2), "us")
PY
M="gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_blocks,launch__occupancy_limit_warps,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,dram__bytes.sum,smsp__inst_executed.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum"
for shape in 64,512,7,7 128,256,6,6; do
  echo "=== torch $shape"
  timeout 120 python3 $W/t.py $shape 2>&1 | grep PROF
  timeout 150 $ncu --target-processes all --kernel-name regex:"atomic_adaptive|FillFunctor" --launch-skip 0 --launch-count 4 \
     --metrics $M --cache-control all --clock-control none --csv --print-units base python3 $W/t.py $shape 2>&1 | grep -v "^==PROF==" | grep -E "atomic_adaptive|Fill" | awk -F'","' '{print $5" | "$(NF-2)" | "$NF}' | sort | uniq | head -40
done
for a in vgg16 alexnet; do
  echo "=== replica $a"
  timeout 100 env EXTERN_AUDIT_CUPTI=/nonexistent/x $ncu --target-processes all --kernel-name regex:atomic_adaptive --launch-count 1 \
     --metrics $M --cache-control all --clock-control none --csv --print-units base \
     build/gpu-bundle/bin/extern-audit run --scope $a --check-only --quiet 2>&1 | grep -E "atomic_adaptive" | awk -F'","' '{print $5" | "$(NF-2)" | "$NF}' | head -20
done
echo "=== res-usage replica"
cuobjdump -res-usage build/gpu-bundle/bin/extern-audit 2>&1 | grep -A1 atomic_adaptive | head -6
lib=$(python3 -c 'import torch,os; print(os.path.join(os.path.dirname(torch.__file__),"lib","libtorch_cuda.so"))')
echo "=== res-usage torch $lib"
timeout 150 cuobjdump -res-usage -arch sm_90 "$lib" 2>&1 | grep -A1 "atomic_adaptive_average_gradinput" | head -12
