#!/usr/bin/env bash
# Session 2026-12-06, one call: A = main e82c6b5, B = wip/xlnet-edge-warp, C = wip/index-add-consumer.
# On an H200 (the target's GPU): C's index_add gate with a proposal, the candidate targets' refusal of the folded
# point, then the overlap-add candidate staged in full and priced against the proposed baselines; then, in the
# time left, the XLNet edge-warp A/B and the GPU tests. On another GPU: C's run --any-gpu, the A/B and the tests.
set -u
r=$OUT/r; mkdir -p "$r"; d=build/dev; t00=$SECONDS
mkdir -p build/x && tar xJf $d/all.tar.xz -C build/x || exit 2
export LD_LIBRARY_PATH=$PWD/build/x/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$r/gpu.csv"
left() { echo $((570 - (SECONDS - t00))); }
step() { local name=$1 limit=$2 t0=$SECONDS; shift 2
    [ "$limit" -gt "$(left)" ] && limit=$(left)
    [ "$limit" -gt 5 ] || { echo "$name skipped: no time left" >>"$r/steps.txt"; return; }
    timeout "$limit" "$@" >"$r/$name.out" 2>"$r/$name.log"
    echo "$name rc=$? $((SECONDS - t0)) s (at $((SECONDS - t00)) s)" >>"$r/steps.txt"; }
C=build/x/c
if grep -q H200 "$r/gpu.csv"; then
  step gate 200 $C/extern-audit gate --run --scope index_add --propose "$r/proposed.json" --json
  for t in iota_gather bf16_atomic; do
    step gate-$t 40 $C/extern-audit gate --run --target H200-torch2.11.0+cu130-index_add_$t --scope index_add-31177027c868 --propose "$r/proposed-$t.json" --json
  done
  if [ -s "$r/proposed.json" ]; then
    cp "$r/proposed.json" golden/targets/H200-torch2.11.0+cu130/baselines.json
    step candidates 300 env CLI=$C/extern-audit FULL=1 LOWERINGS=index_add_overlap_add ci/candidates "$r/candidates"
    git checkout -q golden/targets/H200-torch2.11.0+cu130/baselines.json 2>/dev/null
  fi
else # on an H100 (as the calls of 01:24 and 01:30): C's index_add run (its windows oracle now scales the sum once
  # where the scale is a power of two) beside A's, and C's GPU tests; no more
  step run-a 100 build/x/a/extern-audit run --any-gpu --scope index_add --json
  step run-c 100 $C/extern-audit run --any-gpu --scope index_add --json
  step tests-c 120 $C/test-suite --filter 'index_add*/*'
  tar czf "$OUT/call1.tgz" -C "$OUT" r && rm -rf "$r"; exit 0
fi
for v in a b; do
  step ncu-$v 60 ncu --clock-control none -k regex:ia_oracle_slice_shfl \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active \
    --csv build/x/$v/extern-audit run --any-gpu --scope xlnet --check-only
done
for i in 1 2; do for v in a b; do
  step xlnet-$v$i 45 build/x/$v/extern-audit run --any-gpu --scope xlnet --json
done; done
step tests-b 60 build/x/b/test-suite --filter 'index_add_gpu/@(slice_variants_on_odd_rows|xlnet_full_scope)'
step tests-c 120 $C/test-suite --filter 'index_add*/*'
tar czf "$OUT/call1.tgz" -C "$OUT" r && rm -rf "$r"
