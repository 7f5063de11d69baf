#!/usr/bin/env bash
# session 6, call 4: the gate with every path timed cold too (its proposal records cold baselines), then
# issue 10's shape tests on the fixture corpus, bounded
set -u
o=$OUT; t0=$SECONDS
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib; bin=build/gpu-bundle/bin
GATE_COLD=1 OUT=$o/g ci/gpu-gate > $o/g-run.log 2>&1; echo "gpu-gate rc $?"; tail -8 $o/g-run.log
timeout 45 $bin/test-suite --jobs 4 --verbose --filter '@(routing_gpu/fixture_over_128_experts|cat_shapes_gpu/*|shape_fixtures_gpu/*)' > $o/shapes.log 2>&1; echo "shapes rc $?"; grep -E "^\[(PASS|FAIL)|Synthesis" $o/shapes.log
echo "== t=$((SECONDS-t0))"
mv $o/g-run.log $o/g/; tar czf $o/g.tgz -C $o g && rm -rf $o/g
