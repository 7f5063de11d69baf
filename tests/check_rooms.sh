#!/usr/bin/env bash
# ci/check-rooms against copies of src/ and repros/ made here: the tree as it is passes; a planted include
# running up a floor, one naming no room, one across to a room that is not below, a file outside every room
# and a folder that is no room each fail naming the file and line; no src/ at all is a usage error. Run by
# make test.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/expect.sh

# tree NAME: a copy of src/ and repros/ as $tmp/NAME
tree() {
    mkdir -p "$tmp/$1" && cp -R src repros "$tmp/$1/" || exit 1
}
# case NAME WANT_EXIT PATTERN...: ci/check-rooms on tree NAME exits WANT_EXIT, its output matching each
case_() {
    local name=$1 want=$2
    shift 2
    n=$((n + 1))
    ci/check-rooms "$tmp/$name" >"$tmp/$name.out" 2>&1
    expect "$name" "$want" $? "$tmp/$name.out" "$@"
}

tree clean
case_ clean 0 "every include runs down a floor"

tree up
lines=$(wc -l <"$tmp/up/src/base/json.c")
printf '#include "report/rollup.h"\n' >>"$tmp/up/src/base/json.c"
case_ up 1 "src/base/json.c:$((lines + 1)): includes \"report/rollup.h\": base/ may include only its own room" \
    "1 problem"

tree bare
printf '#include "json.h"\n' >>"$tmp/bare/src/corpus/meta.c"
case_ bare 1 "src/corpus/meta.c:[0-9]+: includes \"json.h\", which names no room" "1 problem"

tree across
printf '#include "golden/candidate.h"\n' >>"$tmp/across/src/gate/shard.c"
printf '#include "cli/cli.h"\n' >>"$tmp/across/repros/registry.c"
case_ across 1 "src/gate/shard.c:[0-9]+: includes \"golden/candidate.h\": gate/ may include only base gpu corpus target measure" \
    "repros/registry.c:[0-9]+: includes \"cli/cli.h\": repros/ may include only" "2 problem"

tree outside
printf 'int x;\n' >"$tmp/outside/src/flat.c"
mkdir -p "$tmp/outside/src/misc"
case_ outside 1 "src/flat.c: outside every room" "src/misc: not a room" "2 problem"

mkdir -p "$tmp/empty"
case_ empty 2 "no src/ in"

echo "check-rooms: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
