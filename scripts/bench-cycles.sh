#!/usr/bin/env bash
# Benchmark (not a test): times `convcheck cycles` against
# `opt-22 -passes='print<cycles>' -disable-output` on the same generated
# 20,000-block CFG in the same run; 7 runs each, median, ratio.
# Also checks that both print the same text.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
RUNS=${RUNS:-7}
OPT=${OPT:-opt-22}
cargo build --release -q --bin convcheck --bin gen-large
mkdir -p bench/out
in=bench/out/cycles-$N.ll
target/release/gen-large cycles "$N" > "$in"
blocks=$(grep -c '^b[0-9]*:' "$in")
target/release/convcheck cycles "$in" > bench/out/cycles-ours.txt
"$OPT" -passes='print<cycles>' -disable-output "$in" 2> bench/out/cycles-opt.txt
if cmp -s bench/out/cycles-ours.txt bench/out/cycles-opt.txt; then same=identical; else same=DIFFERENT; fi
python3 scripts/timeit.py "$RUNS" "convcheck cycles" "target/release/convcheck cycles $in" \
  "opt-22 print<cycles>" "$OPT -passes=print<cycles> -disable-output $in" \
  --title "cycles on $blocks blocks (outputs $same)"
