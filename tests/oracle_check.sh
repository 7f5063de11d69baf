#!/usr/bin/env bash
# ci/oracle-check's host half (JUDGE=FILE: the oracle's rule and the launch-bound table on a proposal, no GPU)
# against copies of the committed H200 baselines edited as a fresh cumsum measurement could leave them: the
# committed launch floor lists the launch-bound scopes and no point breaks the rule (the allowlist is empty);
# OPT's oracle 10% slower (beaten by both current paths, warm) and a DistilGPT2 oracle slower than its current path
# are breaches naming the winner; each exits 1 and says so.
# Without a target, or (on a machine without one) without a GPU, it refuses with exit 2. Run by make test (BIN=build).
set -uo pipefail
cd "$(dirname "$0")/.."
target=H200-torch2.11.0+cu130
base=golden/targets/$target/baselines.json
tre=${target//+/\\+} # the target as a grep -E pattern
. tests/expect.sh

# case NAME WANT_EXIT EDIT PATTERN...: the base with the Python statement EDIT applied (d, the document;
# faster(alias, path, x), that path's times and variant table scaled by x; schema 3 derives the rest when read)
# judged by ci/oracle-check; exit WANT_EXIT, and its screen, rule.log, rollup.txt and oracle-check.json together must
# match every grep -E PATTERN.
case_() {
    local name=$1 want=$2 edit=$3
    shift 3
    n=$((n + 1))
    python3 - "$base" "$tmp/$name.json" "$edit" <<'EOF' || { echo "FAIL $name: edit"; failed=$((failed + 1)); return; }
import json, sys
d = json.load(open(sys.argv[1]))
def faster(alias, path, x):
    for r in d["scopes"]:
        if r["alias"] == alias:
            for p in r["paths"]:
                if p["name"] == path:
                    for t in ("time", "time_cold"):
                        for f in ("median_us", "q1_us", "q3_us", "iqr_us"):
                            p[t][f] *= x
                    for c in p.get("candidates", []):  # the table the warm time was kept from, as one run's
                        c["median_us"] *= x
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent="\t")
EOF
    JUDGE=$tmp/$name.json EXTERN_AUDIT_TARGET=$target BIN=build ci/oracle-check "$tmp/$name" >"$tmp/$name.out" 2>&1
    local rc=$?
    cat "$tmp/$name/rule.log" "$tmp/$name/rollup.txt" "$tmp/$name/oracle-check.json" >>"$tmp/$name.out" 2>/dev/null
    expect "$name" "$want" $rc "$tmp/$name.out" "$@"
}

case_ committed 0 "" "^rollup --check: oracle rule: [0-9]+ pairs judged, .* 0 breaches \(0 allowed by" \
    "^Launch-bound scopes: the oracle against bytes \+ launches" "^  cumsum +opt-infer +infer +- +1 / 1 " \
    "^  routing_histc +routing +infer +whole scope, topk_ids +1 / 8 " "^== oracle: exit 0" '"exit": 0'
case_ opt_slower 1 "faster('opt-infer', 'oracle', 1.1)" \
    "oracle_beaten: $tre cumsum cumsum-[0-9a-f]+ #0 warm \(opt-infer\): current [0-9]" \
    "oracle_beaten: $tre cumsum cumsum-[0-9a-f]+ #0 warm \(opt-infer\): current_tuned [0-9]" " 3 breaches \(0 allowed by" \
    "^== oracle rule: exit 1"
case_ distilgpt2_beaten 1 "faster('distilgpt2', 'oracle', 2.5)" \
    "oracle_beaten: $tre cumsum cumsum-[0-9a-f]+ #[01] warm \(distilgpt2\).*current" "^== oracle: exit 1"
# refusals: a judgement without a target, a proposal that is not there, a scope it has no tests for, a
# measurement without a GPU
n=$((n + 1))
JUDGE=$base BIN=build ci/oracle-check "$tmp/no_target" >"$tmp/no_target.out" 2>&1
expect no_target 2 $? "$tmp/no_target.out" "JUDGE needs EXTERN_AUDIT_TARGET"
n=$((n + 1))
JUDGE=$tmp/none.json EXTERN_AUDIT_TARGET=$target BIN=build ci/oracle-check "$tmp/none" >"$tmp/none.out" 2>&1
expect no_file 2 $? "$tmp/none.out" "JUDGE=$tmp/none.json: no such file"
n=$((n + 1))
SCOPE=index_add JUDGE=$base EXTERN_AUDIT_TARGET=$target BIN=build ci/oracle-check "$tmp/scope" >"$tmp/scope.out" 2>&1
expect bad_scope 2 $? "$tmp/scope.out" "SCOPE=index_add: expected cumsum, routing or cat"
if ! build/extern-audit gpu-model >/dev/null 2>&1; then
    n=$((n + 1))
    BIN=build ci/oracle-check "$tmp/no_gpu" >"$tmp/no_gpu.out" 2>&1
    expect no_gpu 2 $? "$tmp/no_gpu.out" "^== oracle: no usable GPU: extern-audit gpu-model: .*no device"
fi

echo "oracle-check: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
