# Sourced by the tests of ci/ scripts (tests/check_exports.sh, check_rooms.sh, kept_from_base.sh, readme.sh): a
# scratch folder $tmp removed on exit, cases counted in n and failures in failed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0

# expect NAME WANT_EXIT RC OUT PATTERN...: a case passes when RC (the script's exit status) is WANT_EXIT and the
# file OUT (its output) matches every grep -E PATTERN; else one FAIL line with the output, failed + 1.
expect() {
    local name=$1 want=$2 rc=$3 out=$4 p
    shift 4
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"; sed 's/^/    /' "$out"; failed=$((failed + 1)); return
    fi
    for p in "$@"; do
        grep -qE -- "$p" "$out" || { echo "FAIL $name: output does not match: $p"; cat "$out"; failed=$((failed + 1)); return; }
    done
}
