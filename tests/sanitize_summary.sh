#!/usr/bin/env bash
# ci/sanitize-summary's parsing against real compute-sanitizer logs (tests/fixtures/sanitize/h200-logs:
# memcheck over cat, racecheck over routing_histc, initcheck and synccheck over cumsum, as ci/gpu-sanitize
# left them on an H200, driver 580.159.04, compute-sanitizer 2025.3.1), and against copies of them with
# one summary line changed: every way a run can fail must fail the verdict. Run by make test.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=tests/fixtures/sanitize/h200-logs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0

# case NAME WANT_EXIT EDIT PATTERN...: copy the logs, apply the sed EDIT to the file it names
# ("FILE:SCRIPT", or "" for none), run the summary; its exit status must be WANT_EXIT and
# sanitize.json must match every grep -E PATTERN.
case_() {
    local name=$1 want=$2 edit=$3 rc p
    shift 3
    n=$((n + 1))
    rm -rf "$tmp/$name" && cp -r "$logs" "$tmp/$name"
    [ -n "$edit" ] && sed -i "${edit#*:}" "$tmp/$name/${edit%%:*}"
    ci/sanitize-summary "$tmp/$name" >"$tmp/$name.stdout" 2>&1
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"; sed 's/^/    /' "$tmp/$name.stdout"; failed=$((failed + 1)); return
    fi
    for p in "$@"; do
        if ! grep -qE -- "$p" "$tmp/$name/sanitize.json" 2>/dev/null; then
            echo "FAIL $name: sanitize.json does not match: $p"; cat "$tmp/$name/sanitize.json" 2>/dev/null
            failed=$((failed + 1)); return
        fi
    done
}

# the logs as they are: racecheck's "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" is clean
case_ clean 0 "" '"passed": true' '"kernels": 249' '"results": 81' '"paths": 162' \
    '"tool": "racecheck", "scope": "routing_histc", "exit": 0, "seconds": 3, "errors": 0, "warnings": 0, "hazards": 0, "clean": true' \
    '"tool": "memcheck", "scope": "cat", "exit": 0, "seconds": 64, "errors": 0, "warnings": null, "hazards": null, "clean": true' \
    '"totals": \[\{"tool": "initcheck", "errors": 0\}, \{"tool": "memcheck", "errors": 0\}, \{"tool": "racecheck", "errors": 0\}, \{"tool": "synccheck", "errors": 0\}\]' \
    '"scopes": \["cat", "cumsum", "routing_histc"\]'
R=sanitize-racecheck-routing_histc.log
# a hazard of either kind fails, and counts in racecheck's total
case_ race_warning 1 "$R:s/0 hazards displayed (0 errors, 0 warnings)/2 hazards displayed (0 errors, 2 warnings)/" \
    '"passed": false' '"errors": 0, "warnings": 2, "hazards": 2, "clean": false' '\{"tool": "racecheck", "errors": 2\}'
case_ race_error 1 "$R:s/0 hazards displayed (0 errors, 0 warnings)/1 hazard displayed (1 error, 0 warnings)/" \
    '"passed": false' '"errors": 1, "warnings": 0, "hazards": 1, "clean": false'
# a memcheck error, singular
case_ memcheck_error 1 "sanitize-memcheck-cat.log:s/ERROR SUMMARY: 0 errors/ERROR SUMMARY: 1 error/" \
    '"passed": false' '\{"tool": "memcheck", "errors": 1\}'
# a run that printed no summary (out of time): counts unknown, verdict failed, its total null
case_ no_summary 1 "sanitize-synccheck-cumsum.log:/SUMMARY/d" \
    '"passed": false' '"tool": "synccheck", "scope": "cumsum", "exit": 0, "seconds": 2, "errors": null' \
    '\{"tool": "synccheck", "errors": null\}'
case_ timed_out 1 "sanitize-initcheck-cumsum.status:s/.*/124 420/" \
    '"passed": false' '"exit": 124, "seconds": 420, "errors": 0, "warnings": null, "hazards": null, "clean": false, "summary": "did not finish'
# a clean log from a run that exited non-zero is not clean
case_ tool_exit 1 "sanitize-memcheck-cat.status:s/.*/99 64/" '"exit": 99, "seconds": 64' '"passed": false'
# the plain run failed its checks, or broke before its totals line
case_ plain_failed 1 "check_only-cat.status:s/.*/1 62/" '"exit": 1\}' '"passed": false'
case_ plain_broken 1 'check_only-cumsum.txt:$d' '"exit": 2\}' '"kernels": 211' '"passed": false'
# nothing to summarise
n=$((n + 1))
mkdir -p "$tmp/empty"
if ci/sanitize-summary "$tmp/empty" >/dev/null 2>&1 || [ $? != 2 ]; then
    echo "FAIL empty: expected exit 2"; failed=$((failed + 1))
fi

echo "sanitize-summary: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
