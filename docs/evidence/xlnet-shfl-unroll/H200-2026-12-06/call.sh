#!/usr/bin/env bash
# the xlnet shuffle-unroll trial (branch wip/xlnet-shfl-u's bundle): on an H200 gate --run of the xlnet scope
# against main's baselines with a proposal, then one more run; elsewhere two runs; then the index_add GPU tests
set -u
x=/tmp/xlnet-trial
mkdir -p "$x" "$OUT/x"
tar xJf build/dev/xlnet-bundle.tar.xz -C "$x" || exit 2
export LD_LIBRARY_PATH=$x/gpu-bundle/lib
cli=$x/gpu-bundle/bin/extern-audit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$OUT/x/gpu.csv"
if grep -q H200 "$OUT/x/gpu.csv"; then
    timeout 200 "$cli" gate --run --scope xlnet --baseline build/dev/xlnet-baselines.json \
        --propose "$OUT/x/proposed.json" --save "$OUT/x/fresh.json" --json >"$OUT/x/gate.out" 2>"$OUT/x/gate.log"
    echo "gate rc=$?" >>"$OUT/x/steps.txt"
    n=2
else
    n="1 2"
fi
for i in $n; do
    timeout 150 "$cli" run --any-gpu --scope xlnet --json >"$OUT/x/run$i.json" 2>"$OUT/x/run$i.log"
    echo "run$i rc=$?" >>"$OUT/x/steps.txt"
done
timeout 150 "$x/gpu-bundle/bin/test-suite" --filter 'index_add*/*' >"$OUT/x/tests.log" 2>&1
echo "tests rc=$?" >>"$OUT/x/steps.txt"
cat "$OUT/x/steps.txt"
