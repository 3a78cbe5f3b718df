#!/bin/bash
# Benchmark of `convcheck refine` (issue 6): time per example pair at 2, 4
# and 8 threads (one thread count per run: --threads N), then the largest
# thread count at which CL-12's counterexample and CL-13's refinement each
# finish within 10 s (doubling, then bisecting). Not a test: prints a table.
#
# Usage: scripts/bench-refine.sh [CONVCHECK] [LIMIT_SECONDS]
# Default binary: target/release/convcheck (build it with `make build`; it
# must have the `refine` subcommand wired in main.rs).
set -u
cd "$(dirname "$0")/.."
BIN=${1:-target/release/convcheck}
LIMIT=${2:-10}
E=examples/refine
kernel() { grep -m1 '^; KERNEL:' "$1" | sed 's/; KERNEL: @//'; }
modes() { grep -m1 '^; MODES:' "$1" | sed 's/; MODES: //'; }

run() { # src tgt threads limit -> prints "verdict seconds"
  local s=$1 t=$2 n=$3 lim=$4 start end v
  start=$(date +%s.%N)
  v=$(timeout "$lim" "$BIN" refine "$s" "$t" --kernel "$(kernel "$s")" $(modes "$s") \
      --threads "$n" --no-replay --timeout "$lim" 2>/dev/null | grep -m1 '^verdict:' | awk '{print $2}')
  end=$(date +%s.%N)
  [ -z "$v" ] && v="timeout/invalid"
  printf "%s %.2f" "$v" "$(echo "$end - $start" | bc)"
}

echo "# time per pair (seconds; limit 120 s per run), --threads N only"
printf "%-40s %-28s %-28s %-28s\n" pair "2 threads" "4 threads" "8 threads"
for s in $E/*.src.ll; do
  t=${s%.src.ll}.tgt.ll
  row=$(basename "$s" .src.ll)
  printf "%-40s" "$row"
  for n in 2 4 8; do printf " %-28s" "$(run "$s" "$t" $n 120)"; done
  echo
done

largest() { # stem expected
  local s=$E/$1.src.ll t=$E/$1.tgt.ll want=$2 n=1 good=0 bad=0 r
  while :; do
    r=$(run "$s" "$t" $n "$LIMIT")
    if [ "${r%% *}" = "$want" ] && awk "BEGIN{exit !(${r##* } <= $LIMIT)}"; then good=$n; n=$((n * 2)); [ $n -gt 64 ] && break
    else bad=$n; break; fi
  done
  if [ $bad -gt 0 ]; then
    local lo=$good hi=$bad
    while [ $((hi - lo)) -gt 1 ]; do
      local mid=$(((lo + hi) / 2))
      r=$(run "$s" "$t" $mid "$LIMIT")
      if [ "${r%% *}" = "$want" ] && awk "BEGIN{exit !(${r##* } <= $LIMIT)}"; then lo=$mid; else hi=$mid; fi
    done
    good=$lo
  fi
  echo "$1: largest thread count with '$want' within ${LIMIT}s: $good"
}
echo
echo "# largest thread count within ${LIMIT}s"
largest cl12-unroll-heart-remainder counterexample
largest cl13-unroll-heart-even refines
