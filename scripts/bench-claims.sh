#!/usr/bin/env bash
# The claim pairs before and after (issue 12: "the claim pairs take at most
# 1.5 times as long as before"): every `check: refine ...` line of
# proofs/*.claim run by two convcheck binaries in turn, RUNS times each,
# CPU seconds (user + system, whole process) and exit status per run.
#
#   scripts/bench-claims.sh OLD_BIN NEW_BIN
#
# Prints one line per pair: the claim, the exit statuses (which must agree),
# the median CPU seconds of each binary and their ratio (NEW / OLD), then
# the sums. LIMIT bounds one run in wall seconds (default 120); RUNS
# defaults to 3. Run it from the project root. No opt-22 here: these are
# the tool's own claim pairs.
set -euo pipefail
old=${1:?usage: scripts/bench-claims.sh OLD_BIN NEW_BIN}
new=${2:?usage: scripts/bench-claims.sh OLD_BIN NEW_BIN}
runs=${RUNS:-3}
limit=${LIMIT:-120}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run: prints "STATUS CPU_SECONDS".
one() {
    local bin=$1
    shift
    local st=0
    /usr/bin/time -f '%U %S' -o "$tmp/t" timeout "$limit" "$bin" "$@" >/dev/null 2>&1 || st=$?
    awk -v s="$st" '{ printf "%d %.2f\n", s, $1 + $2 }' "$tmp/t" | tail -1
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-8s %-44s %-9s %8s %8s %6s\n' claim pair status old_s new_s ratio
for f in proofs/*.claim; do
    claim=$(basename "$f" .claim)
    { grep '^check: refine ' "$f" || true; } | sed 's/^check: refine //' | while read -r line; do
        # shellcheck disable=SC2086
        set -- $line
        pair=$(basename "$1" .ll)
        : >"$tmp/o"
        : >"$tmp/n"
        for _ in $(seq "$runs"); do
            one "$old" refine "$@" >>"$tmp/o"
            one "$new" refine "$@" >>"$tmp/n"
        done
        so=$(cut -d' ' -f1 "$tmp/o" | sort -u | tr '\n' ',' | sed 's/,$//')
        sn=$(cut -d' ' -f1 "$tmp/n" | sort -u | tr '\n' ',' | sed 's/,$//')
        to=$(cut -d' ' -f2 "$tmp/o" | median)
        tn=$(cut -d' ' -f2 "$tmp/n" | median)
        ratio=$(awk -v a="$to" -v b="$tn" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')
        printf '%-8s %-44s %-9s %8s %8s %6s\n' "$claim" "$pair" "$so/$sn" "$to" "$tn" "$ratio"
        echo "$to $tn" >>"$tmp/sums"
    done
done
awk '{ o += $1; n += $2 } END { printf "total    %-44s %-9s %8.2f %8.2f %6.2f\n", "(" NR " pairs)", "", o, n, (o > 0 ? n / o : 0) }' "$tmp/sums"
