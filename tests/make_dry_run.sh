#!/usr/bin/env bash
# usage: tests/make_dry_run.sh. `make -n test` prints what make test would run, the suite's command among it,
# and runs none of it: no build folder is made. The case failed before the suite's line tested make's -n (its +
# prefix, there to share the caller's jobserver, runs a line under -n too). Run by make test's scripts check.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/expect.sh

n=$((n + 1))
# alone, as a user types it: not the -j and jobserver of the make test running this
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n test BUILD="$tmp/dry" >"$tmp/dry.txt" 2>&1
rc=$?
[ -e "$tmp/dry" ] && { echo "make -n made $tmp/dry"; rc=3; } >>"$tmp/dry.txt"
expect dry_run_prints_the_suite 0 $rc "$tmp/dry.txt" "^SUITE_MAKEFLAGS=[^ ]* ci/suite $tmp/dry/test-suite $tmp/dry$"

echo "make-dry-run: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
