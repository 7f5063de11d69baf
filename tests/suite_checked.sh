#!/usr/bin/env bash
# usage: tests/suite_checked.sh SUITE. The suite's summary (tests/suite_report.c): under make test it skips the
# tests a check of their own ran ($EA_SUITE_BROWSER_CHECK, set by ci/suite), one line naming that check (the
# browser check, which runs this, is the case without the variable); with a device lock log it says how long
# timed sections held the device and who held it longest, a malformed line counted. Run by make test.
set -uo pipefail
cd "$(dirname "$0")/.."
suite=$1
. tests/expect.sh

n=$((n + 1))
EA_SUITE_BROWSER_CHECK=build/checks/browser.log "$suite" --filter 'report_browser/*' >"$tmp/skipped.txt" 2>&1
expect skipped_naming_the_check 0 $? "$tmp/skipped.txt" \
    "^skipped 3: run by make test's browser check once per change of what it reads: build/checks/browser.log$" \
    "^suite: 0 passed, 0 failed, 3 skipped$"

n=$((n + 1))
printf 'ex\t12\t0.5\t2.0\t1700000000.0\tgate --run\nsh\t13\t1.5\t0\t1700000000.5\ta test\nex\t12\tbad\nex\t14\t0\t1.0\t1700000003.0\trun\n' \
    >"$tmp/lock.tsv"
EA_DEVICE_LOCK_LOG=$tmp/lock.tsv "$suite" --filter 'json/*' >"$tmp/device.txt" 2>&1
expect device_line 0 $? "$tmp/device.txt" \
    "^device: 2 timed sections held it 3\.0 s of 4\.0 s \(1 shared holds; 2 s waited in all\); longest: gate --run 2\.0 s, run 1\.0 s; 1 malformed line\(s\) skipped, the first line 3 of $tmp/lock.tsv$"

echo "suite-checked: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
