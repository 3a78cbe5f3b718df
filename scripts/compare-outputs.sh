#!/usr/bin/env bash
# Byte-identical output check between two convcheck binaries (issue 17:
# memory work must not change what the tool prints): for every FILE, the
# stdout, stderr and exit status of `uniformity`, `uniformity --json`,
# `uniformity --sound`, `parse`, `cycles` and `verify` under OLD_BIN and
# NEW_BIN.
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN FILE...
#   scripts/compare-outputs.sh OLD NEW $(find examples /work/shared/corpus -name '*.ll')
#
# Prints one line per difference, then the count; exits 1 if any differ.
set -uo pipefail
old=${1:?usage: scripts/compare-outputs.sh OLD_BIN NEW_BIN FILE...}
new=${2:?usage: scripts/compare-outputs.sh OLD_BIN NEW_BIN FILE...}
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for f in "$@"; do
  for cmd in "uniformity" "uniformity --json" "uniformity --sound" "parse" "cycles" "verify"; do
    n=$((n + 1))
    # shellcheck disable=SC2086 # $cmd is a subcommand and its flags
    "$old" $cmd "$f" >"$tmp/o.out" 2>"$tmp/o.err"
    eo=$?
    # shellcheck disable=SC2086
    "$new" $cmd "$f" >"$tmp/n.out" 2>"$tmp/n.err"
    en=$?
    if [ "$eo" != "$en" ] || ! cmp -s "$tmp/o.out" "$tmp/n.out" || ! cmp -s "$tmp/o.err" "$tmp/n.err"; then
      echo "DIFF: $cmd $f (exit $eo vs $en)"
      fail=$((fail + 1))
    fi
  done
done
echo "compared $n runs, $fail differ"
[ "$fail" = 0 ]
