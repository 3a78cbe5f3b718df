# The two commands of the README:
#   make demo   run the main job on the built-in examples
#   make test   run the test suite (what CI runs)
# Both install what is missing first (scripts/setup.sh).

CARGO ?= cargo

.PHONY: demo test setup build fuzz install bench-cycles bench-uniformity bench-verify bench-refine bench-claims bench-interp validate-campaign uniformity-sound-campaign cutoff-campaign mirror-campaign cval-campaign

setup:
	@scripts/setup.sh

build: setup
	$(CARGO) build --release --bin convcheck

# Puts `convcheck` on PATH (~/.cargo/bin).
install: setup
	$(CARGO) install --locked --path checker

demo: build
	@scripts/demo.sh

# Property tests run from a fixed seed so that CI is reproducible; pass
# PROPTEST_RNG_SEED=random (or another number) to explore new cases.
PROPTEST_RNG_SEED ?= 20261122
export PROPTEST_RNG_SEED

# CI also keeps clippy clean (issue 11 item 8).
test: setup
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings
	$(CARGO) test --workspace --release

bench-cycles: build
	@scripts/bench-cycles.sh

bench-uniformity: setup
	@scripts/bench-uniformity.sh

bench-verify: build
	@scripts/bench-verify.sh

bench-refine: build
	@scripts/bench-refine.sh

# Every claim pair of proofs/ run by an older binary OLD and this build in
# turn (issue 12: at most 1.5 times as long as before); CPU seconds and
# ratios per pair. OLD=path/to/old/convcheck is required.
bench-claims: build
	@test -n "$(OLD)" || { echo "make bench-claims OLD=path/to/old/convcheck"; exit 2; }
	@scripts/bench-claims.sh "$(OLD)" target/release/convcheck

# The interpreter at scale (issue 18): every example `run` accepts, and the
# clang-22 -O2 builds of examples/kernels (target/kernels), at
# INTERP_THREADS threads, each run stopped after LIMIT seconds; one line
# per launch (executions explored, merged, distinct behaviours, complete?,
# wall and CPU seconds) and a summary per thread count; about 25 minutes
# on 2 shared cores. scripts/interp-table.py turns runs into the README table.
INTERP_THREADS ?= 3 4 8
bench-interp: build
	scripts/build-kernels.sh target/kernels 2
	KERNELS=target/kernels LIMIT=$${LIMIT:-10} scripts/interp-counts.sh target/release/convcheck $(INTERP_THREADS)

# MC-05 and MC-06 for `convcheck uniformity --sound` on
# CONVCHECK_SOUND_PROGRAMS generated programs (default 10,000; minutes).
uniformity-sound-campaign: setup
	CONVCHECK_SOUND_PROGRAMS=$${CONVCHECK_SOUND_PROGRAMS:-10000} $(CARGO) test --release -p semantics --test uniformity_sound -- --ignored sound_campaign --nocapture

# Theorem C-PAIR's validation (issue 16, proofs/CUTOFF.md): CUTOFF_CASES
# generated pairs meeting (A)-(E) (default 1000), the pair check (W = 8)
# against the bounded verdict at every thread count 1..8, at
# CUTOFF_MAX_STEPS block visits (default 6), on CUTOFF_JOBS worker threads
# (default 1), niced; CUTOFF_START skips the first pairs (to split a run).
cutoff-campaign: setup
	CUTOFF_CASES=$${CUTOFF_CASES:-1000} nice $(CARGO) test --release -p checker --test refine_cutoff -- --ignored cutoff_campaign --nocapture

# Theorem C-MIRROR's validation (proofs/CUTOFF.md): generated pairs with
# anchors, C-MIRROR (W = 8) against the bounded verdict at 1..8 threads.
mirror-campaign: setup
	MIRROR_CASES=$${MIRROR_CASES:-1000} nice $(CARGO) test --release -p checker --test refine_mirror -- --ignored mirror_campaign --nocapture

# convcheck validate over examples/kernels and generated convergent programs
# with -O2/-O3 and single passes (minutes; prints the README's table).
validate-campaign: setup
	@scripts/validate-campaign.sh

# The fuzzer (not part of `make test`, which runs a fixed-seed slice of
# 3,000 inputs): FUZZ_INPUTS mutated inputs through every subcommand;
# summary in target/fuzz/summary.txt, findings saved next to it.
FUZZ_INPUTS ?= 1000000
FUZZ_SEED ?= 20261124
fuzz: setup
	$(CARGO) build --release --bin convcheck --bin convcheck-fuzz
	target/release/convcheck-fuzz --inputs $(FUZZ_INPUTS) --seed $(FUZZ_SEED) --out target/fuzz

# Theorem C-VAL's validation (proofs/CUTOFF.md "Convergent values"):
# VAL_CASES generated pairs whose convergent results reach observations
# and branches, C-VAL (W = 8) against the bounded verdict at 1..8 threads
# and the interpreter at 3 threads.
cval-campaign: setup
	VAL_CASES=$${VAL_CASES:-1000} nice $(CARGO) test --release -p checker --test refine_cval -- --ignored cval_campaign --nocapture
