#!/bin/sh
# Per example and thread count: executions explored, merged (memoization),
# distinct behaviours, complete?, wall seconds, exit status.
# Usage: scripts/interp-counts.sh BIN THREADS...
# Default domain {0,1,2}, --anchor all. Runs use `--summary` (the counts
# without the behaviours), so the times are of the enumeration, not of
# printing up to hundreds of MB of JSON (cu_warp_reduce at 8 threads:
# 1.6 s enumerating, 2.5 s with its 224 MB of --json). Each run stops itself after $LIMIT
# seconds (`run --time-limit`, so a stopped run still reports its partial
# counts, marked INCOMPLETE); `timeout` is only a backstop. $FILES chooses
# the examples, $EXTRA adds options (e.g. EXTRA=--no-reduce, or
# EXTRA="--jobs 2": two worker threads, so CPU may exceed wall). $KERNELS, a
# directory of clang-22 builds of examples/kernels (scripts/build-kernels.sh
# DIR 2), adds its `*.O2.ll` files (the kernel is found without --kernel).
# One line per launch: "threads file explored merged distinct status secs
# rc=N cpu=SECS" (status: complete; counted, every behaviour found and
# counted but the closure under renaming listed only its limit of them;
# or INCOMPLETE. secs: wall clock; cpu: user + system seconds of the run,
# the figure that stays meaningful when other jobs load the machine); the
# last line per thread count summarises how many completed within 1 s and
# within $LIMIT s (wall), and how many within 1 s of CPU time.
BIN=${1:?binary}; shift
LIMIT=${LIMIT:-30}
for t in "$@"; do
  n=0; ok=0; fast=0; fastcpu=0; counted=0
  files=${FILES:-examples/*.ll examples/interp/*.ll examples/refine/*.ll}
  if [ -n "${KERNELS:-}" ]; then files="$files $KERNELS/*.O2.ll"; fi
  for f in $files; do
    case "$f" in
      *cl04*) entry="--entry append" ;;
      *cl06*) entry="--entry main" ;;
      *) entry="" ;;
    esac
    s=$(date +%s.%N)
    cpuf=$(mktemp)
    out=$(timeout "$((LIMIT + 60))" /usr/bin/time -f "%U %S" -o "$cpuf" \
      "$BIN" run "$f" --threads "$t" --json --summary \
      --time-limit "$LIMIT" $entry $EXTRA 2>/dev/null)
    rc=$?
    e=$(date +%s.%N)
    cpu=$(awk 'END { if (NF == 2) print $1 + $2; else print "-" }' "$cpuf")
    rm -f "$cpuf"
    secs=$(echo "$e - $s" | bc)
    # Examples `run` rejects (bad input, unsupported construct) are skipped.
    if [ $rc -eq 3 ]; then continue; fi
    n=$((n + 1))
    if [ $rc -eq 124 ]; then echo "$t $f TIMEOUT - - - $secs rc=$rc"; continue; fi
    line=$(printf '%s' "$out" | python3 -c 'import json,sys
try:
  d=json.load(sys.stdin); print(d["explored"], d.get("merged", "-"), d["distinct"], "complete" if d["complete"] else "counted" if d.get("counted_complete") else "INCOMPLETE")
except Exception: print("ERR - - -")')
    case "$line" in
      *" counted") counted=$((counted + 1)) ;;
    esac
    case "$line" in
      *" complete"|*" counted")
        ok=$((ok + 1))
        if [ "$(echo "$secs < 1" | bc)" = 1 ]; then fast=$((fast + 1)); fi
        if [ "$cpu" != - ] && [ "$(echo "$cpu < 1" | bc)" = 1 ]; then fastcpu=$((fastcpu + 1)); fi ;;
    esac
    echo "$t $f $line $secs rc=$rc cpu=$cpu"
  done
  echo "# $t threads: $ok of $n launches complete within ${LIMIT} s ($counted of them counted: every behaviour found and counted, the listing capped), $fast within 1 s ($fastcpu within 1 s of CPU time)"
done
