#!/usr/bin/env bash
# Benchmark (not a test): times `convcheck uniformity` against
# `opt-22 -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output` on
# the same generated kernels in the same run (RUNS timed runs each after one
# warm-up, median wall time, ratio; scripts/timeit.py), and checks that the
# outputs agree: the per-block output byte for byte, the header modulo what
# LLVM itself varies between runs (the order of its lists, and which inner
# cycles it lists as assumed divergent: proofs/FINDINGS.md F-09, U-1;
# testgen example uniformity_agree, the differential tests' comparison).
#
# Inputs:
# - the hard shape (issue 15) at each size in SIZES: random kernels with
#   ~25% back edges to random earlier blocks, forward jumps into the cycles
#   (many irreducible), thread-id-dependent branches, phis, uses after
#   cycles (`testgen::uniformity::gen_hard_kernel`, example hard_uniformity);
# - the easy 20,000-block kernel (chained divergent diamonds, loops with
#   divergent exits, irreducible pairs; example big_uniformity);
# - CHAIN blocks of that easy shape for time and peak memory of convcheck
#   alone (opt-22 too when CHAIN_OPT=1).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"1000 2000 4000 8000 20000"}
RUNS=${RUNS:-3}
CHAIN=${CHAIN:-1000000}
OPT=${OPT:-opt-22}
cargo build --release -q -p testgen --example big_uniformity --example hard_uniformity
cargo build --release -q -p testgen --features test-support --example uniformity_agree
cargo build --release -q --bin convcheck
ours="target/release/convcheck uniformity"
mkdir -p bench/out

compare() { # name input
  local in=$2 same
  $ours "$in" > bench/out/uniformity-ours.txt
  "$OPT" -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output "$in" 2> bench/out/uniformity-opt.txt
  if agree=$(target/release/examples/uniformity_agree bench/out/uniformity-ours.txt \
                bench/out/uniformity-opt.txt); then
    same="outputs agree: blocks identical, headers modulo LLVM's hash order"
  else
    same="OUTPUTS DIFFER: $agree"
  fi
  local blocks
  blocks=$(grep -c '^[a-z][a-z0-9]*:$' "$in")
  python3 scripts/timeit.py "$RUNS" "convcheck uniformity" "$ours $in" \
    "opt-22 print<uniformity>" "$OPT -mtriple=amdgcn-- -passes=print<uniformity> -disable-output $in" \
    --title "$1, $blocks blocks ($same)"
}

for n in $SIZES; do
  in=bench/out/uniformity-hard-$n.ll
  target/release/examples/hard_uniformity "$n" 1 > "$in"
  compare "hard shape" "$in"
done
in=bench/out/uniformity-easy-20000.ll
target/release/examples/big_uniformity 20000 > "$in"
compare "easy shape" "$in"

in=bench/out/uniformity-chain.ll
target/release/examples/big_uniformity "$CHAIN" > "$in"
echo "## easy shape, $(grep -c '^[a-z][a-z0-9]*:$' "$in") blocks (one run each)"
/usr/bin/time -f "convcheck uniformity: %e s wall, %M KB peak" $ours "$in" > /dev/null
if [ "${CHAIN_OPT:-0}" = 1 ]; then
  /usr/bin/time -o bench/out/time.txt -f "opt-22 print<uniformity>: %e s wall, %M KB peak" \
    "$OPT" -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output "$in" 2> /dev/null
  cat bench/out/time.txt
fi
