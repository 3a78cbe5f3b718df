#!/bin/bash
# Benchmark of `convcheck refine` at warp scale (issue 16): every claim pair
# of examples/refine, with the bounds and modes of its `check: refine` line
# in proofs/*.claim, at 2, 4, 8, 16, 32 and 64 threads (one thread count per
# run, `--threads N --no-replay`), with verdict and wall time per cell. Not a
# test: prints a Markdown table.
#
# Each cell has a time limit (LIMIT seconds: `--time-limit` and `--timeout`,
# and a hard `timeout` a few seconds later). A cell that answers unknown
# because of time is shown as `time limit`, a killed one as `killed`; once a
# row has hit the limit its larger thread counts are not run (`-`), since
# each costs at least as much, except that a limit at 4 threads or fewer
# (the bounded search) does not stop the counts above 4, where the theorems
# C-PAIR / C-MIRROR and lifting run first.
#
# Each cell shows the verdict, the wall time and, in parentheses, the CPU
# time (user + system) of the run: on a shared machine the CPU time is the
# steadier figure. Above 4 threads `refine` tries theorem C-PAIR by itself
# (C-MIRROR with anchors, C-VAL with convergent results used) and lifts
# small counterexamples, by lemma C-SUB
# when it applies (issue 16); BENCH_FLAGS adds flags to every
# run (e.g. `--no-lift --no-auto-cutoff` for the plain bounded search), and
# BENCH_PAIRS (an extended regular expression) selects rows by claim or pair
# name.
#
# Usage: scripts/bench-refine.sh [CONVCHECK] [LIMIT_SECONDS] [THREADS...]
# Defaults: target/release/convcheck, 10 s, 2 4 8 16 32 64.
set -u
cd "$(dirname "$0")/.."
BIN=${1:-target/release/convcheck}
LIMIT=${2:-10}
shift 2 2>/dev/null || shift $#
COUNTS=${*:-2 4 8 16 32 64}

if [ ! -x "$BIN" ]; then
  echo "bench-refine: $BIN not found (run 'make build')" >&2
  exit 3
fi

CPUF=$(mktemp)
trap 'rm -f "$CPUF"' EXIT
cell() { # args... -> prints "verdict time (cpu)"
  local start end out v
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # BENCH_FLAGS is a list of flags
  out=$(/usr/bin/time -f '%U %S' -o "$CPUF" timeout --kill-after=2 $((LIMIT + 5)) \
    "$BIN" refine "$@" --no-replay ${BENCH_FLAGS:-} \
    --timeout "$LIMIT" --time-limit "$LIMIT" 2>/dev/null)
  local rc=$?
  end=$(date +%s.%N)
  local cpu
  cpu=$(tail -n1 "$CPUF" | awk '{ printf "%.1f", $1 + $2 }')
  v=$(printf '%s\n' "$out" | grep -m1 '^verdict:' | sed 's/^verdict: //')
  case "$v" in
    "refines for every"*"C-MIRROR"*) v="refines (C-MIRROR)" ;;
    "refines for every"*"C-VAL"*) v="refines (C-VAL)" ;;
    "refines for every"*) v="refines (C-PAIR)" ;;
    refines*) v=refines ;;
    counterexample*) v=counterexample ;;
    *"time limit"*) v="time limit" ;;
    unknown*) v="unknown: ${v#unknown (}"; v=${v%%;*}; v=${v%)} ;;
    "") if [ $rc -ge 124 ]; then v=killed; else v="exit $rc"; fi ;;
  esac
  printf '%s %.1f s (%s)' "$v" "$(echo "$end - $start" | bc)" "$cpu"
}

echo "# convcheck refine, per-cell limit ${LIMIT} s, --no-replay ${BENCH_FLAGS:-}; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| claim | pair | flags | expected |'
for n in $COUNTS; do printf ' %s threads |' "$n"; done
echo
printf '|---|---|---|---|'
for _ in $COUNTS; do printf -- '---|'; done
echo

for claim in proofs/CL-*.claim; do
  id=$(basename "$claim" .claim)
  grep -A1 '^check: refine ' "$claim" | grep -v '^--$' | paste - - |
    while IFS=$'\t' read -r check expect; do
      # The claim's arguments without its thread count and query limit.
      read -r -a args <<<"${check#check: refine }"
      rest=() src= tgt= i=0
      while [ $i -lt ${#args[@]} ]; do
        a=${args[$i]}
        case "$a" in
          --threads | --timeout | --time-limit) i=$((i + 2)); continue ;;
          --*) rest+=("$a") ;;
          *) if [ -z "$src" ]; then src=$a; elif [ -z "$tgt" ]; then tgt=$a; else rest+=("$a"); fi ;;
        esac
        i=$((i + 1))
      done
      pair=$(basename "$src" .src.ll)
      if [ -n "${BENCH_PAIRS:-}" ] && ! printf '%s %s' "$id" "$pair" | grep -Eq "$BENCH_PAIRS"; then
        continue
      fi
      flags=$(printf '%s ' "${rest[@]}" | sed 's/--kernel [^ ]* //; s/ $//')
      printf '| %s | %s | `%s` | %s |' "$id" "$pair" "$flags" "${expect#expect: }"
      # Up to 4 threads the search is the bounded one; above, `refine`
      # first tries the theorems and lifting (issue 16), so a limit hit at
      # 4 threads or fewer does not stop the larger counts, only the
      # smaller bounded ones after it.
      stop= stop_large=
      for n in $COUNTS; do
        skip=
        if [ "$n" -le 4 ]; then skip=$stop; else skip=$stop_large; fi
        if [ -n "$skip" ]; then
          printf ' - |'
          continue
        fi
        r=$(cell "$src" "$tgt" "${rest[@]}" --threads "$n")
        printf ' %s |' "$r"
        case "$r" in "time limit"* | killed* | "unknown: solver time limit"*)
          stop=1
          if [ "$n" -gt 4 ]; then stop_large=1; fi
          ;;
        esac
      done
      echo
    done
done
