#!/usr/bin/env bash
# One call, H200 only: (1) the XLNet slice-oracle bench (bench.cu of wip/xlnet-bench) built over the previous
# oracle_slice.cu (aae5faf: m) and over the one-stream kernel (9b14602: n), alternating m n m n; (2) HEAD's bundle:
# gate --run --scope index_add against the committed baselines with a proposal, then run --scope xlnet once more;
# (3) the index_add GPU tests; (4) ncu of the n bench's kernels (first launch of each).
#   here:   ci/gpu-bundle; the two benches packed as build/dev/xb/benches.tar.xz
#   device: run(command="bash docs/evidence/xlnet-bench/call.sh [SECONDS]", carry=["build/gpu-bundle.tar.xz",
#           "build/fixtures", "build/dev/xb"]); SECONDS (default 560) bounds the steps, so that the results are
#           packed before a shorter device limit ends the call
set -u
t00=$SECONDS
budget=${1:-560} # seconds for the steps: under the call's limit, so that the results are packed
r=$OUT/r
mkdir -p "$r"
d=build/dev/xb
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$r/gpu.csv"
grep -q H200 "$r/gpu.csv" || { cat "$r/gpu.csv"; echo "not an H200: nothing run"; exit 3; }
tar xJf build/gpu-bundle.tar.xz -C build && tar xJf $d/benches.tar.xz -C $d || exit 2
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
bin=build/gpu-bundle/bin
step() { # name, seconds, command...: each step cut to what is left of the budget
    local name=$1 limit=$2 t0=$SECONDS left=$((budget - SECONDS + t00))
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
step gate 200 "$bin/extern-audit" gate --run --scope index_add --propose "$r/proposed.json" \
    --save "$r/fresh.json" --json
step run2 90 "$bin/extern-audit" run --scope xlnet --json
step tests 120 "$bin/test-suite" --filter 'index_add*/*'
step ncu 120 env -u LD_LIBRARY_PATH ncu --clock-control none -k "regex:shfl|floor|uni_v|unp_v" --launch-count 35 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active \
    --csv "$d/xlnet-bench-new" 1
cat "$r/steps.txt"
tar czf "$OUT/xb.tgz" -C "$OUT" r && rm -rf "$r"
