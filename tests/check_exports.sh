#!/usr/bin/env bash
# ci/check-exports against small builds made here: a library object whose export nobody else uses, and
# one whose export only a test uses while a public header (src/base/stats.h) declares it, must fail naming
# the symbol; the same objects with a user outside the tests must pass. Run by make test.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/expect.sh

# build NAME: objects under $tmp/NAME/obj/{src,tests,tools} from "DIR:C source" arguments
build() {
    local name=$1 i=0 spec
    shift
    for spec in "$@"; do
        mkdir -p "$tmp/$name/obj/${spec%%:*}"
        printf '%s\n' "${spec#*:}" >"$tmp/$name/o$i.c"
        cc -c "$tmp/$name/o$i.c" -o "$tmp/$name/obj/${spec%%:*}/o$i.o" || exit 1
        i=$((i + 1))
    done
}

# case NAME WANT_EXIT PATTERN...: ci/check-exports on build NAME exits WANT_EXIT, its output matching each
case_() {
    local name=$1 want=$2
    shift 2
    n=$((n + 1))
    ci/check-exports "$tmp/$name" >"$tmp/$name.out" 2>&1
    expect "$name" "$want" $? "$tmp/$name.out" "$@"
}

build own "src:int ea_fake_own(void) { return 1; } int ea_fake_used(void) { return ea_fake_own(); }" \
    "tools:int ea_fake_used(void); int main(void) { return ea_fake_used(); }"
case_ own 1 "ea_fake_own \(.*/obj/src/o0.o\): used only in its own file; make it static" "1 problem"

# ea_stats_compute stands for a test-only entry point that a public header declares
build public "src:int ea_stats_compute(void) { return 0; }" \
    "tests:int ea_stats_compute(void); int main(void) { return ea_stats_compute(); }"
case_ public 1 "ea_stats_compute .*only the tests use it, but src/base/stats.h declares it; move it to an _impl.h"

build clean "src:int ea_stats_compute(void) { return 0; }" \
    "tests:int ea_stats_compute(void); int t(void) { return ea_stats_compute(); }" \
    "tools:int ea_stats_compute(void); int main(void) { return ea_stats_compute(); }"
case_ clean 0 "check-exports: 1 exported symbols"

mkdir -p "$tmp/empty"
case_ empty 2 "no objects in .*/empty/obj"

echo "check-exports: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
