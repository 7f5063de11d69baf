#!/usr/bin/env bash
# ci/readme (the docs' generated blocks) on copies of the docs and on small files made here: a fresh block
# passes the check; a stale one fails it with the diff, and the rewrite makes it fresh again without touching
# the prose around it; an unknown block, a block without its end and a file without any block are refused
# naming the file; without the corpus the rollup block is kept and not checked. Run by make test.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/expect.sh
export EXTERN_AUDIT_CLI=${EXTERN_AUDIT_CLI:-build/extern-audit}

# run NAME WANT_EXIT ARGS... -- PATTERN...: ci/readme ARGS must exit WANT_EXIT with output matching every PATTERN
run() {
    local name=$1 want=$2 args=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    n=$((n + 1))
    ci/readme "${args[@]}" >"$tmp/$name.out" 2>&1
    expect "$name" "$want" $? "$tmp/$name.out" "$@"
}

printf 'prose before\n<!-- generated: cli -->\n<!-- end: cli -->\nprose after\n' >"$tmp/cli.md"
run written 0 "$tmp/cli.md" -- "^readme: $tmp/cli.md rewritten$"
run fresh 0 --check "$tmp/cli.md" -- "generated blocks of $tmp/cli.md match the commands$"
cp "$tmp/cli.md" "$tmp/fresh.md"
sed -i 's/^  gate .*/  gate        a stale line/' "$tmp/cli.md"
run stale 1 --check "$tmp/cli.md" -- '^-  gate        a stale line$' '^\+  gate        baselines against' \
    "^readme: $tmp/cli.md differs from what the commands print; run: make readme$"
run rewritten 0 "$tmp/cli.md" -- "rewritten$"
n=$((n + 1))
cmp -s "$tmp/cli.md" "$tmp/fresh.md" || { echo "FAIL rewritten: not the fresh file"; failed=$((failed + 1)); }

# a number changed in the committed audit block is caught
cp docs/results.md "$tmp/results.md"
sed -i '0,/^aten.histc.default  *\([0-9]*\)/s//aten.histc.default  999/' "$tmp/results.md"
run stale_number 1 --check "$tmp/results.md" -- '^-aten.histc.default +999' 'differs from what the commands print'

printf 'a\n<!-- generated: nope -->\n<!-- end: nope -->\n' >"$tmp/unknown.md"
run unknown 2 --check "$tmp/unknown.md" -- "^readme: $tmp/unknown.md:2: unknown generated block 'nope'$"
printf '<!-- generated: cli -->\nno end\n' >"$tmp/open.md"
run open 2 --check "$tmp/open.md" -- "^readme: $tmp/open.md: block 'cli' has no '<!-- end: cli -->'$"
printf 'only prose\n' >"$tmp/empty.md"
run no_block 2 --check "$tmp/empty.md" -- "^readme: $tmp/empty.md: no '<!-- generated: NAME -->' block$"
run missing 2 --check "$tmp/none.md" -- "^readme: $tmp/none.md: no such file$"

printf '<!-- generated: rollup -->\nkept as written\n<!-- end: rollup -->\n' >"$tmp/rollup.md"
cp "$tmp/rollup.md" "$tmp/rollup.orig"
EXTERN_AUDIT_CORPUS=$tmp/no-corpus run no_corpus 0 --check "$tmp/rollup.md" -- "no corpus: block 'rollup' kept"
EXTERN_AUDIT_CORPUS=$tmp/no-corpus run no_corpus_write 0 "$tmp/rollup.md" -- "no corpus: block 'rollup' kept"
n=$((n + 1))
cmp -s "$tmp/rollup.md" "$tmp/rollup.orig" || { echo "FAIL no_corpus_write: the block changed"; failed=$((failed + 1)); }

echo "readme: $((n - failed)) of $n cases passed"
[ $failed -eq 0 ]
