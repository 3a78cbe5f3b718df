#!/usr/bin/env bash
# Benchmark (not a test): times the uniformity analysis against
# `opt-22 -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output` on
# the same generated 20,000-block kernel (chained divergent diamonds, loops
# with divergent exits, irreducible pairs) in the same run; 7 runs each,
# median, ratio. Also checks that the per-block output is identical (the
# header lists are in hash order in LLVM: proofs/FINDINGS.md U-1).
#
# Until `convcheck uniformity` is wired into main.rs, the analysis runs
# through `semantics/examples/uniformity_print.rs`, which is the same code
# (parse_module + uniformity::print_module).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
RUNS=${RUNS:-7}
OPT=${OPT:-opt-22}
cargo build --release -q -p testgen --example big_uniformity
cargo build --release -q -p semantics --example uniformity_print
ours=target/release/examples/uniformity_print
if cargo build --release -q --bin convcheck 2>/dev/null \
   && target/release/convcheck uniformity --help >/dev/null 2>&1; then
  ours="target/release/convcheck uniformity"
fi
mkdir -p bench/out
in=bench/out/uniformity-$N.ll
target/release/examples/big_uniformity "$N" > "$in"
blocks=$(grep -c '^[a-z][a-z0-9]*:$' "$in")
$ours "$in" > bench/out/uniformity-ours.txt
"$OPT" -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output "$in" 2> bench/out/uniformity-opt.txt
if cmp -s <(sed -n '/^BLOCK/,$p' bench/out/uniformity-ours.txt) \
          <(sed -n '/^BLOCK/,$p' bench/out/uniformity-opt.txt); then
  same="identical block verdicts"
else
  same="DIFFERENT block verdicts"
fi
python3 scripts/timeit.py "$RUNS" "convcheck uniformity" "$ours $in" \
  "opt-22 print<uniformity>" "$OPT -mtriple=amdgcn-- -passes=print<uniformity> -disable-output $in" \
  --title "uniformity on $blocks blocks ($same)"
