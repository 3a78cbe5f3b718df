#!/bin/sh
# The main job (`make demo`): build convcheck and run the spec-validation
# suite on the built-in claims (proofs/) and examples (examples/): the
# table of every claim, the headline (claims confirmed, findings), one
# counterexample (CL-12) and one proof within bounds (CL-13).
set -eu
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
"$CARGO" build --release --bin convcheck
exec target/release/convcheck demo proofs
