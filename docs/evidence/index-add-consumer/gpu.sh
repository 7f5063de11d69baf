#!/usr/bin/env bash
# Issue 25 item 6: Longformer's index_add groups that end in div(., 8) as their own configuration (the consumer
# fold, repros/index_add/consumer.h), measured, and the overlap-add candidate priced against it; two device calls
# (each under the 600 s limit):
#   here:   ci/gpu-bundle
#   device: run(command="bash docs/evidence/index-add-consumer/gpu.sh measure", carry=["build/gpu-bundle.tar.xz",
#           "build/fixtures"])
#   here:   take r/proposed.json over golden/targets/H200-torch2.11.0+cu130/baselines.json, golden rebase
#   device: run(command="bash docs/evidence/index-add-consumer/gpu.sh price", same carry)
# measure, on an H200 (the target's GPU): the index_add family gated against the committed baselines with a
# proposal (gate --run --scope index_add --propose) and its GPU tests; on another GPU, run --any-gpu (correctness
# and that run's ratios) and the tests. price: the candidate restaged in full and priced (ci/candidates, FULL=1:
# stage.tgz, for golden accept). Everything lands in $OUT/consumer-<mode>.tgz.
set -u
mode=${1:?usage: gpu.sh measure|price}
r=$OUT/r
mkdir -p "$r"
tar xJf build/gpu-bundle.tar.xz -C build || exit 2
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
bin=build/gpu-bundle/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$r/gpu.csv"
step() { # name, seconds, command...: the steps of one call stay under the 600 s a device command may run
    local name=$1 limit=$2 t0=$SECONDS
    shift 2
    timeout "$limit" "$@" >"$r/$name.log" 2>&1
    echo "$name rc=$? $((SECONDS - t0)) s" >>"$r/steps.txt"
}
h200=$(grep -c H200 "$r/gpu.csv")
case $mode in
measure)
    if [ "$h200" -gt 0 ]; then
        step gate 330 "$bin/extern-audit" gate --run --scope index_add --propose "$r/proposed.json" --json
    else
        step run 330 "$bin/extern-audit" run --any-gpu --scope index_add --json
    fi
    step tests 200 "$bin/test-suite" --filter 'index_add*/*'
    ;;
price)
    [ "$h200" -gt 0 ] || { echo "price needs the target's GPU, an H200" >"$r/steps.txt"; }
    [ "$h200" -gt 0 ] && step candidates 540 env CLI="$bin/extern-audit" FULL=1 LOWERINGS=index_add_overlap_add \
        ci/candidates "$r/candidates"
    ;;
esac
tar czf "$OUT/consumer-$mode.tgz" -C "$OUT" r && rm -rf "$r"
