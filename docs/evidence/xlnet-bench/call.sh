#!/usr/bin/env bash
# One call (wip/xlnet-bench): (1) the XLNet slice-oracle bench built over main's oracle_slice.cu (m) and over the
# branch's (n: the shuffle kernel with data and single-run edge chunks in one stream), alternating m n m n;
# (2) on an H200, main's bundle: gate --run --scope index_add against the committed baselines; the branch's
# bundle: gate --run --scope xlnet with a proposal; (3) both bundles' index_add GPU tests; (4) ncu of the
# branch bench's variants (first launch of each).
set -u
t00=$SECONDS
r=$OUT/r
mkdir -p "$r" build/n
d=build/dev/xb
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$r/gpu.csv"
grep -q H200 "$r/gpu.csv" || { cat "$r/gpu.csv"; echo "not an H200: nothing run"; exit 3; }
tar xJf build/gpu-bundle.tar.xz -C build || exit 2
tar xJf $d/new-bin.tar.xz -C build/n && tar xJf $d/benches.tar.xz -C $d || exit 2
step() { # name, seconds, command...: each step cut to what is left of the call's 560 s
    local name=$1 limit=$2 t0=$SECONDS left=$((560 - SECONDS + t00))
    shift 2
    [ "$limit" -le "$left" ] || limit=$left
    [ "$limit" -gt 5 ] || { echo "$name skipped: no time left" >>"$r/steps.txt"; return; }
    timeout "$limit" "$@" >"$r/$name.out" 2>"$r/$name.log"
    echo "$name rc=$? $((SECONDS - t0)) s" >>"$r/steps.txt"
}
step bench-m1 60 "$d/xlnet-bench" 200
step bench-n1 60 "$d/xlnet-bench-new" 200
step bench-m2 60 "$d/xlnet-bench" 200
step bench-n2 60 "$d/xlnet-bench-new" 200
M="env LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib build/gpu-bundle/bin"
N="env LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib build/n/gpu-bundle/bin"
if grep -q H200 "$r/gpu.csv"; then
    step gate-m 200 $M/extern-audit gate --run --scope index_add --save "$r/fresh-m.json" --json
    step gate-n 120 $N/extern-audit gate --run --scope xlnet --propose "$r/proposed-n.json" --save "$r/fresh-n.json" --json
    step run2-n 90 $N/extern-audit run --scope xlnet --json
fi
step tests-n 120 $N/test-suite --filter 'index_add*/*'
step tests-m 120 $M/test-suite --filter 'index_add*/*'
step ncu 120 ncu --clock-control none -k "regex:shfl|floor|uni_v|unp_v" --launch-count 35 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active \
    --csv "$d/xlnet-bench-new" 1
cat "$r/steps.txt"
tar czf "$OUT/xb.tgz" -C "$OUT" r && rm -rf "$r"
