#!/usr/bin/env bash
# ci/kept-from-base (ci/golden-stage-check's "run measured only the recaptured points") against the committed
# H200 target's baselines.json as the base and copies of it edited as a partial stage could leave them: the
# recaptured point's results measured anew passes; a kept entry changed, reordered, dropped or added, and a
# recaptured point left as the base's or without an entry, must fail naming the entry. Run by make test.
set -uo pipefail
cd "$(dirname "$0")/.."
base=golden/targets/H200-torch2.11.0+cu130/baselines.json
routing=cumsum-bbbc239b67b8 # four results: routing-cumsum
other=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["scopes"][-1]["point"])' "$base") # one result
. tests/expect.sh

# case NAME WANT_EXIT POINTS EDIT PATTERN...: the base with the Python statement EDIT applied to it (d, the
# document; remeasure(point), new times for that point's results) checked as the stage with POINTS recaptured;
# the exit status must be WANT_EXIT and the output must match every grep -E PATTERN.
case_() {
    local name=$1 want=$2 points=$3 edit=$4
    shift 4
    n=$((n + 1))
    python3 - "$base" "$tmp/$name.json" "$edit" <<'EOF' || { echo "FAIL $name: edit"; failed=$((failed + 1)); return; }
import json, sys
d = json.load(open(sys.argv[1]))
def remeasure(point):
    for r in d["scopes"]:
        if r["point"] == point:
            for p in r["paths"]:
                p["time"]["median_us"] *= 1.01
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent="\t")
EOF
    ci/kept-from-base "$base" "$tmp/$name.json" "$points" >"$tmp/$name.out" 2>&1
    expect "$name" "$want" $? "$tmp/$name.out" "$@"
}

case_ measured 0 "$routing" "remeasure('$routing')" \
    "^[0-9]+ entries of the other points are the base's; measured exactly the 1 recaptured point\(s\): $routing$"
case_ nothing_recaptured 0 "" "" "^[0-9]+ entries .* the 0 recaptured point\(s\): none$"
case_ two_recaptured 0 "$routing,$other" "remeasure('$routing'); remeasure('$other')" \
    "measured exactly the 2 recaptured point\(s\): $routing,$other$"
# a kept result with one number moved: named by its place, alias and the value
case_ kept_changed 1 "$routing" "remeasure('$routing'); remeasure('$other')" \
    "^kept $other: stage scopes\[[0-9]+\] \([^)]+\) differs from base scopes\[[0-9]+\] \([^)]+\) at \\\$\.paths\[0\]\.time\.median_us [0-9.]+, the base's [0-9.]+$"
case_ kept_reordered 1 "$routing" "remeasure('$routing'); r = d['scopes'][-1]; r['point'] = r.pop('point')" \
    "^kept $other: stage scopes\[[0-9]+\] \([^)]+\) differs .* at \\\$ keys \[.*'point'\], the base's \["
case_ kept_dropped 1 "$routing" "remeasure('$routing'); d['scopes'].pop()" \
    "^kept $other: base scopes\[[0-9]+\] \([^)]+\) is missing from the stage$"
case_ kept_unmeasured_dropped 1 "$routing" "remeasure('$routing'); d['unmeasured'].pop(0)" \
    "^kept [^ ]+: base unmeasured\[0\] is missing from the stage$"
case_ kept_added 1 "$routing" "remeasure('$routing'); d['scopes'].append(dict(d['scopes'][-1]))" \
    "^kept $other: stage scopes\[[0-9]+\] \([^)]+\) is not in the base$"
# a recaptured point that kept the base's results was not measured; one without any entry was lost
case_ recaptured_kept 1 "$routing" "" "^recaptured $routing: stage scopes\[[0-9]+\] \(routing-cumsum\) is the base's: not measured$"
case_ recaptured_lost 1 "$routing" "d['scopes'] = [r for r in d['scopes'] if r['point'] != '$routing']" \
    "^recaptured $routing: no entry in the stage$"
# one file that does not read
n=$((n + 1))
if ci/kept-from-base "$base" "$tmp/none.json" "" >/dev/null 2>&1 || [ $? != 2 ]; then
    echo "FAIL unreadable: expected exit 2"; failed=$((failed + 1))
fi

echo "kept-from-base: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
