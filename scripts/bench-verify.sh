#!/usr/bin/env bash
# Benchmark (not a test): times `convcheck verify` (document rules and
# --llvm-compatible) against `opt-22 -passes=verify -disable-output` on the
# same generated 20,000-block token program in the same run; 7 runs each,
# median, ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
RUNS=${RUNS:-7}
OPT=${OPT:-opt-22}
cargo build --release -q --bin convcheck
cargo build --release -q -p semantics --example gen_token_bench
mkdir -p bench/out
in=bench/out/verify-$N.ll
target/release/examples/gen_token_bench "$N" > "$in"
blocks=$(grep -c '^[A-Za-z_.0-9]*:' "$in" || true)
# Both must accept it (exit 0) for the timing to compare like with like.
target/release/convcheck verify "$in" >/dev/null
"$OPT" -passes=verify -disable-output "$in"
python3 scripts/timeit.py "$RUNS" "convcheck verify" "target/release/convcheck verify $in" \
  "convcheck verify --llvm-compatible" "target/release/convcheck verify --llvm-compatible $in" \
  "opt-22 -passes=verify" "$OPT -passes=verify -disable-output $in" \
  --title "verify on $blocks blocks (valid token program)"
