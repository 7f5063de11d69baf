#!/usr/bin/env bash
# Issue 25 item 6: Longformer's index_add groups that end in div(., 8) as their own configuration (the consumer
# fold, repros/index_add/consumer.h) measured, and the overlap-add candidate priced against it, in one device
# call (under the 600 s a command may run):
#   here:   ci/gpu-bundle
#   device: run(command="bash docs/evidence/index-add-consumer/gpu.sh", carry=["build/gpu-bundle.tar.xz",
#           "build/fixtures"])
# On an H200 (the target's GPU): the index_add family gated against the committed baselines with a proposal
# (gate --run --scope index_add --propose); the proposal put in place of the base's baselines there, and the
# candidate restaged in full and priced against it (ci/candidates FULL=1: stage.tgz, for golden accept here);
# last the index_add GPU tests. On another GPU: run --any-gpu (correctness and that run's ratios),
# tools/capture/rewrite_check.py (the rewrites with torch) and the tests. Here afterwards: r/proposed.json over
# golden/targets/H200-torch2.11.0+cu130/baselines.json, golden rebase, ci/check-golden; then ci/stage-archive
# unpack and golden accept if the price held.
# Everything lands in $OUT/consumer.tgz.
set -u
t00=$SECONDS
r=$OUT/r
mkdir -p "$r"
tar xJf build/gpu-bundle.tar.xz -C build || exit 2
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
bin=build/gpu-bundle/bin
base=golden/targets/H200-torch2.11.0+cu130
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$r/gpu.csv"
step() { # name, seconds, command...: each step cut to what is left of the call's 570 s
    local name=$1 limit=$2 t0=$SECONDS left=$((570 - SECONDS + t00))
    shift 2
    [ "$limit" -le "$left" ] || limit=$left
    [ "$limit" -gt 5 ] || { echo "$name skipped: no time left" >>"$r/steps.txt"; return; }
    timeout "$limit" "$@" >"$r/$name.out" 2>"$r/$name.log"
    echo "$name rc=$? $((SECONDS - t0)) s" >>"$r/steps.txt"
}
if grep -q H200 "$r/gpu.csv"; then
    step gate 200 "$bin/extern-audit" gate --run --scope index_add --propose "$r/proposed.json" --json
    # a proposal always comes (the stored document and what moved): priced against only where nothing but the
    # new configuration and faster times moved
    if python3 -c 'import json, sys
ok = {"SAME", "FASTER", "CONFIG", "ADDED"}
sys.exit(any(e["status"] not in ok for e in json.load(open(sys.argv[1]))["entries"]))' "$r/gate.out" 2>/dev/null; then
        cp "$r/proposed.json" "$base/baselines.json"
        step candidates 300 env CLI="$bin/extern-audit" FULL=1 LOWERINGS=index_add_overlap_add \
            ci/candidates "$r/candidates"
    else
        echo "candidates skipped: the gate moved more than the new configuration (gate.out)" >>"$r/steps.txt"
    fi
else
    step run 200 "$bin/extern-audit" run --any-gpu --scope index_add --json
    # the candidates' rewrites with torch, the transposing-source barrier included (no price without the target)
    step rewrite 150 python3 tools/capture/rewrite_check.py
fi
step tests 120 "$bin/test-suite" --filter 'index_add*/*'
tar czf "$OUT/consumer.tgz" -C "$OUT" r && rm -rf "$r"
