#!/bin/sh
# Per example and thread count: explored executions, distinct behaviours,
# complete?, wall seconds. Usage: scripts/interp-counts.sh BIN THREADS... 
# (default domain {0,1,2}, --anchor all). Each run is limited to $LIMIT s.
BIN=${1:?binary}; shift
LIMIT=${LIMIT:-30}
for t in "$@"; do
  for f in ${FILES:-examples/*.ll examples/interp/*.ll examples/refine/*.ll}; do
    case "$f" in
      *cl04*) entry="--entry append" ;;
      *cl06*) entry="--entry main" ;;
      *) entry="" ;;
    esac
    s=$(date +%s.%N)
    out=$(timeout "$LIMIT" "$BIN" run "$f" --threads "$t" --json $entry $EXTRA 2>/dev/null)
    rc=$?
    e=$(date +%s.%N)
    secs=$(echo "$e - $s" | bc)
    if [ $rc -eq 124 ]; then echo "$t $f TIMEOUT - - $secs"; continue; fi
    line=$(printf '%s' "$out" | python3 -c 'import json,sys
try:
  d=json.load(sys.stdin); print(d["explored"], d["distinct"], "complete" if d["complete"] else "INCOMPLETE")
except Exception: print("ERR - -")')
    echo "$t $f $line $secs rc=$rc"
  done
done
